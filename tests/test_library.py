"""The read facade (engine.library.Library) on a real indexed root, real files, real SQLite."""

from __future__ import annotations

import json
import os
import threading
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest

from engine import scanner
from engine.config import load_config
from engine.dates.timeline_types import TimelineError
from engine.embedder import LocalEmbedder
from engine.indexer import reindex
from engine.library import Library
from engine.library_types import IndexUnavailable, ReadRefused, file_order_key
from engine.read.conversation import ConversationError
from engine.storage.db import connect
from engine.storage.lock import writer_lock
from tests.conftest import slack_lines

GENERAL = "data/slack/general.jsonl"
GARDEN = "notes/home/garden.md"


@pytest.fixture
def indexed(config):
    reindex(config=config)
    return config


@pytest.fixture
def library(indexed):
    with Library(indexed) as lib:
        yield lib


def bump_mtime(path, seconds=10):
    st = path.stat()
    os.utime(path, (st.st_atime, st.st_mtime + seconds))


# -- chunks and neighbours -------------------------------------------------------------------

def test_a_chunk_by_id(library):
    chunk = library.chunk(f"{GENERAL}#w3")
    assert chunk.source_file == GENERAL and chunk.source_type == "slack"
    assert chunk.metadata["window"] == 3 and "message 30 " in chunk.content
    assert library.chunk("no/such#w0") is None


def test_neighbours_are_in_file_order_even_after_an_edit_moved_a_rowid(library):
    path = library.config.root / GENERAL
    lines = path.read_text().splitlines(keepends=True)
    lines[0] = lines[0].replace("message 0 about", "message 0 (edited) about")
    path.write_text("".join(lines))
    reindex(config=library.config)
    conn = connect(library.config.db_path, readonly=True)
    rowids = dict(conn.execute("SELECT id, rowid FROM chunks WHERE source_file = ?", (GENERAL,)))
    conn.close()
    assert rowids[f"{GENERAL}#w0"] > rowids[f"{GENERAL}#w1"]  # rowid order is not file order

    chunk, position, total = library.neighbour(f"{GENERAL}#w1", -1)
    assert chunk.id == f"{GENERAL}#w0" and "(edited)" in chunk.content
    assert (position, total) == (1, 10)
    assert library.neighbour(f"{GENERAL}#w0", -1) is None  # the first chunk
    assert library.neighbour(f"{GENERAL}#w9", +1) is None  # the last chunk
    chunk, position, _ = library.neighbour(f"{GENERAL}#w0", +1)
    assert chunk.id == f"{GENERAL}#w1" and position == 2


def test_a_run_of_neighbours_is_clipped_at_the_ends_of_the_file(library):
    run = library.neighbours(f"{GENERAL}#w1", before=3, after=2)
    assert [c.id.rsplit("#", 1)[1] for c in run.chunks] == ["w0", "w1", "w2", "w3"]
    assert run.center == 1 and run.first_position == 1 and run.total == 10
    assert run.position(run.center) == 2
    # a markdown note: section order
    run = library.neighbours(GARDEN, before=0, after=10)
    assert [c.metadata["section"] for c in run.chunks] == [0, 1, 2, 3]
    assert run.center == 0  # a bare file path starts at its first chunk
    assert library.neighbours("no/such/file.md") is None
    assert library.neighbour(GARDEN, +1) is None  # a path is not a chunk to step from


def test_file_order_key_reads_what_the_extractors_record():
    keys = [file_order_key("f#summary", {}, 9), file_order_key("f#c2", {"part": 2}, 1),
            file_order_key("f#c10", {"part": 10}, 2)]
    assert keys == sorted(keys)
    assert file_order_key("f#q", {"line": 4}, 99) < file_order_key("f#a", {"line": 5}, 1)
    assert file_order_key("f#s2", {"section": 2, "part": 1}, 1) > file_order_key(
        "f#s2", {"section": 2}, 5)


# -- files -----------------------------------------------------------------------------------

def test_read_a_whole_note_and_one_section(library):
    whole = library.read_file(GARDEN)
    assert whole.source_type == "note" and whole.markdown and whole.indexed
    assert not whole.stale and whole.text.startswith("---\ntitle: Garden plan")
    assert whole.outline == ["#0 (top of note)", "#1 Vegetables", "#2 Vegetables > Watering",
                             "#3 Flowers"]
    part = library.read_file(GARDEN, section=2)
    assert part.text == "Drip irrigation on a timer, twice a day in July."
    assert part.section == 2 and part.section_path == ["Vegetables", "Watering"]
    with pytest.raises(ReadRefused, match="has no section #9; its sections are #0-#3"):
        library.read_file(GARDEN, section=9)
    with pytest.raises(ReadRefused, match="only in markdown"):
        library.read_file(GENERAL, section=1)
    bump_mtime(library.config.root / GENERAL)
    assert library.read_file(GENERAL).stale


def test_read_refuses_everything_outside_the_data_layer(indexed, tmp_path):
    root = indexed.root
    (root / "secrets").mkdir()
    (root / "secrets/openai.json").write_text('{"api_key": "sk-do-not-leak"}')
    (root / "memlens.toml").write_text('[routes]\nnote = ["notes/**/*.md", "secrets/*.json"]\n')
    outside = tmp_path / "outside.md"
    outside.write_text("# not data")
    (root / "notes/escape.md").symlink_to(outside)
    (root / "notes/key.md").symlink_to(root / "secrets/openai.json")
    (root / "notes/loop.md").symlink_to(root / "notes/loop.md")
    lib = Library(load_config(root))
    refusals = {
        "../../etc/passwd": "'..' is refused",
        "notes/../../x.md": "'..' is refused",
        "/etc/passwd": "absolute paths are refused",
        "~/notes/a.md": "absolute paths are refused",
        "C:/notes/a.md": "absolute paths are refused",
        "notes/escape.md": "leaves the data root",
        "notes/key.md": "not part of the data layer",
        "notes/loop.md": "cannot be resolved",
        "secrets/openai.json": "not part of the data layer",  # even though a route claims it
        "memlens.toml": "not part of the data layer",
        "data/search/memlens.db": "not part of the data layer",
        "data/search/memlens.db-wal": "not part of the data layer",
        "notes/missing.md": "no such file",
        "notes/home": "not part of the data layer",
        "notes/" + "x" * 300 + ".md": "longer than 255 characters",
        "notes/" + "a/" * 6000 + "b.md": "too long (12,010 characters",
        "notes/a\x00.md": "NUL",
        "": "non-empty string",
    }
    for path, reason in refusals.items():
        with pytest.raises(ReadRefused) as caught:
            lib.read_file(path)
        message = str(caught.value)
        assert reason in message, (path, message)
        assert "\n" not in message and str(root) not in message and len(message) < 300
    with pytest.raises(ReadRefused, match="non-empty string"):
        lib.read_file(None)
    with pytest.raises(ReadRefused, match="leaves the data root"):
        lib.file_path("notes/escape.md")
    assert lib.file_path(GARDEN) == (root / GARDEN).resolve()


def test_the_profile_and_files_indexed_under_an_old_route_can_be_read(indexed):
    root = indexed.root
    (root / "profile").mkdir()
    (root / "profile/relationships.json").write_text(json.dumps({"people": []}))
    lib = Library(indexed)
    assert lib.read_file("profile/relationships.json").source_type == "profile"
    # the routes change: the slack logs are no longer routed, but they are still indexed
    (root / "memlens.toml").write_text('[routes]\nslack = "data/chat/*.jsonl"\n')
    moved = Library(load_config(root))
    assert moved.read_file(GENERAL).source_type == "slack"


def test_people_and_discovery_are_read_through_the_facade(indexed):
    root = indexed.root
    lib = Library(indexed)
    assert lib.people().people == [] and lib.people().load_error is None  # no profile yet
    (root / "profile").mkdir()
    (root / "profile/relationships.json").write_text(json.dumps(
        {"people": [{"name": "Maya Chen", "aliases": ["Maya"]}]}))
    assert [p.name for p in lib.people().people] == ["Maya Chen"]
    (root / "profile/relationships.json").write_text("{broken")
    assert lib.people().people == [] and lib.people().load_error
    found = {f.rel: f.source_type for f in lib.discover()}
    assert found == {GENERAL: "slack", "data/slack/random.jsonl": "slack",
                     "notes/home/garden.md": "note"}


# -- overview, statistics, counts, pending, status -------------------------------------------

def test_overview_and_statistics(library):
    ov = library.overview()
    assert ov.exists and ov.chunks == 16 and ov.per_type == {"slack": 12, "note": 4}
    assert ov.embedder == "local:wordllama-l2_supercat-256 (256-d)" and ov.db_bytes > 0
    st = library.statistics()
    assert st.chunks == 16 and st.files == 3 and st.per_type == ov.per_type


def test_without_an_index_reads_say_so_in_one_line(config):
    lib = Library(config)
    assert not lib.overview().exists
    for read in (lambda: lib.chunk("x"), lib.statistics, lambda: lib.neighbours("x"),
                 lambda: lib.search("harbor")):
        with pytest.raises(IndexUnavailable) as caught:
            read()
        assert str(caught.value) == ("no index yet at data/search/memlens.db: run "
                                     "`memlens reindex` first")
    assert [f.rel for f in lib.pending().new] == [GENERAL, "data/slack/random.jsonl", GARDEN]
    status = lib.status()
    assert not status.exists and status.statistics is None and len(status.pending.new) == 3
    assert lib.read_file(GARDEN).indexed is False


def test_an_index_mid_first_build_is_not_an_index_yet(config):
    config.db_path.parent.mkdir(parents=True)
    connect(config.db_path).close()  # the file exists, its tables do not yet
    lib = Library(config)
    assert not lib.overview().exists
    with pytest.raises(IndexUnavailable):
        lib.chunk("x")


def test_a_garbage_index_is_one_clear_line(config):
    config.db_path.parent.mkdir(parents=True)
    config.db_path.write_bytes(b"this is not a database, just bytes " * 200)
    lib = Library(config)
    for read in (lib.overview, lib.statistics, lib.pending, lambda: lib.chunk("x")):
        with pytest.raises(IndexUnavailable) as caught:
            read()
        message = str(caught.value)
        assert message.startswith("the index at data/search/memlens.db cannot be read (")
        assert "\n" not in message and str(config.root) not in message


def test_route_counts_count_notes_at_every_depth(config):
    root = config.root
    for rel in ("notes/top.md", "notes/a/b/c/deep.md", "memory/entities/people/maya.md",
                "memory/entities/topics/tea.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n\ntext\n")
    lib = Library(config)
    by_pattern = {c.pattern: c.files for c in lib.route_counts()}
    assert by_pattern["notes/**/*.md"] == 3  # depth 0, 1 and 3
    assert by_pattern["memory/entities/people/*.md"] == 1
    assert by_pattern["memory/entities/topics/*.md"] == 1
    assert by_pattern["data/slack/*.jsonl"] == 2
    routed = lib.pending().routed
    assert len(routed) == sum(by_pattern.values()) == 7
    assert lib.route_counts(routed) == lib.route_counts()


def test_pending_and_status_see_new_changed_and_vanished_files(library):
    root = library.config.root
    (root / "notes/new.md").write_text("# New\n\nfresh\n")
    bump_mtime(root / GENERAL)
    (root / "data/slack/random.jsonl").unlink()
    pending = library.pending()
    assert [f.rel for f in pending.new] == ["notes/new.md"]
    assert [f.rel for f in pending.changed] == [GENERAL]
    assert pending.vanished == ["data/slack/random.jsonl"]
    assert [f.rel for f in pending.to_index] == [GENERAL, "notes/new.md"]

    status = library.status()
    assert status.exists and status.statistics.chunks == 16 and status.transition is None
    assert status.embedder.state == "same"
    assert [f.rel for f in status.pending.changed] == [GENERAL]

    class Other(LocalEmbedder):
        model = "other-model"

    class Unsized(LocalEmbedder):
        dim = 0

    assert library.status(Other()).embedder.state == "mismatch"
    with Library(library.config, embedder=Other()).snapshot() as snap:
        assert snap.status().embedder.state == "mismatch"  # the library's embedder
    assert library.status(Unsized()).embedder.state == "same_model"
    with writer_lock(library.config.db_path, "reindex"):
        assert library.status().transition == "reindex"


def test_stale_files_is_one_query_for_a_whole_page(library):
    root = library.config.root
    bump_mtime(root / GENERAL)
    files = [GENERAL, "data/slack/random.jsonl", GARDEN, "notes/never-indexed.md"]
    assert library.stale_files(files) == {GENERAL, "notes/never-indexed.md"}
    conn = connect(library.config.db_path, readonly=True)
    statements = []
    conn.set_trace_callback(statements.append)
    page = files * 50 + [f"data/slack/x{i}.jsonl" for i in range(200)]
    stale = scanner.stale_files(conn, library.config, page)
    conn.close()
    assert len(statements) == 1 and len(stale) == 202


def test_has_files_under_a_folder(library):
    assert library.has_files_under("notes/home/")
    assert library.has_files_under("data/")
    assert not library.has_files_under("home/")


# -- snapshot and search ---------------------------------------------------------------------

def test_a_snapshot_sees_one_index_while_a_reindex_commits(library):
    root = library.config.root
    with library.snapshot() as snap:
        before = snap.overview()
        (root / "data/slack/random.jsonl").unlink()
        (root / GENERAL).write_text(slack_lines(95) + slack_lines(30, start=95))
        done = threading.Event()

        def write():
            reindex(config=library.config)
            done.set()

        writer = threading.Thread(target=write)
        writer.start()
        writer.join(60)
        assert done.is_set()  # the writer was never blocked by the open snapshot
        assert snap.overview().per_type == before.per_type == {"slack": 12, "note": 4}
        assert snap.chunk("data/slack/random.jsonl#w0") is not None
        assert snap.neighbours(f"{GENERAL}#w9", after=5).total == 10
    after = library.overview()
    assert after.per_type == {"slack": 13, "note": 4}
    assert library.chunk("data/slack/random.jsonl#w0") is None


def test_search_goes_through_the_searcher(library):
    response = library.search("dahlias", 3, mode="keyword")
    assert response[0].source_file == GARDEN and response.arms == "keyword"
    assert library.search("harbor bridge", 5, ["slack"]).results[0].source_type == "slack"


def test_an_index_of_another_schema_version_is_refused_in_one_line(indexed):
    conn = connect(indexed.db_path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    lib = Library(indexed)
    for read in (lambda: lib.chunk(f"{GENERAL}#w0"), lambda: lib.neighbours(GENERAL),
                 lib.statistics, lib.status):
        with pytest.raises(IndexUnavailable, match=r"^index schema v99 is newer than this "
                                                   r"memlens \(v\d+\): upgrade memlens$"):
            read()


def test_a_file_reads_whatever_state_the_index_is_in(indexed):
    indexed.db_path.write_bytes(b"garbage " * 1000)
    lib = Library(indexed)
    text = lib.read_file(GARDEN)
    assert "Dahlias near the shed" in text.text and not text.indexed and not text.stale
    assert lib.file_path(GARDEN) == indexed.root.resolve() / GARDEN


def test_no_index_while_a_first_reindex_runs_says_it_is_being_built(config):
    config.db_path.parent.mkdir(parents=True)
    connect(config.db_path).close()
    with writer_lock(config.db_path, "reindex"):
        with pytest.raises(IndexUnavailable) as caught:
            Library(config).neighbours("x")
    assert str(caught.value) == ("the index is being built (a first reindex is running): try "
                                 "again shortly")


class _DamagedSearcher:
    """A searcher whose index turns out damaged in the middle of a search."""

    def __init__(self, conn):
        self.conn = conn

    def connection(self):
        return self.conn

    @contextmanager
    def read_transaction(self):
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    def search(self, *args, **kwargs):
        from engine.storage.db import Error

        raise Error("database disk image is malformed")


def test_an_index_damaged_during_a_search_is_one_line(indexed):
    conn = connect(indexed.db_path, readonly=True)
    try:
        lib = Library(indexed, searcher=_DamagedSearcher(conn))
        with pytest.raises(IndexUnavailable) as caught:
            lib.search("harbor")
    finally:
        conn.close()
    message = str(caught.value)
    assert message.startswith("the index at data/search/memlens.db cannot be read (")
    assert "malformed" in message and str(indexed.root) not in message


# -- time, conversations and people (engine/read/facade_reads.py) ----------------------------------

NOW = datetime(2026, 4, 10, 12, 0, tzinfo=UTC)


def test_timeline_on_this_day_and_activity_read_the_index(library):
    line = library.timeline("2026-03-01..2026-04-05", limit=5)
    assert [d.date for d in line.days] == ["2026-03-01", "2026-04-02"]
    # slack in messages (107 on 1 March, two logs), notes in entries: 2 + 4 items listed
    assert line.counts == {"slack": 107, "note": 4} and line.total == 111 and line.shown == 5
    assert line.phrase == "2026-03-01..2026-04-05"
    assert library.timeline("last month", ["note"], now=NOW).total == 0  # March: slack only
    assert library.timeline("last month", now=NOW).counts == {"slack": 107}
    with library.snapshot() as snap:
        assert snap.activity(2026).days == {"2026-03-01": 107, "2026-04-02": 4}
        assert snap.activity(2026, "note").total == 4
    assert library.on_this_day(datetime(2027, 3, 1, tzinfo=UTC)).total == 107
    with pytest.raises(TimelineError) as err:
        library.timeline("whenever")
    assert "\n" not in str(err.value) and "not a date" in str(err.value)


def test_a_conversation_opens_through_the_facade(library):
    page = library.conversation(f"{GENERAL}#w1", before=2, after=2,
                                hit_ids=[f"{GENERAL}#w3"])
    assert page.anchor == f"{GENERAL}#w1" and sum(m.hit for m in page.messages) == 10
    more = library.conversation_page(GENERAL, "slack", page.after, 1, count=30, hits=page.hits)
    assert more.messages[0].position == page.messages[-1].position + 1
    assert any(m.hit for m in more.messages)  # w3, from the hit list
    assert library.adjacent_hit(f"{GENERAL}#w1", [f"{GENERAL}#w3"], 1) == f"{GENERAL}#w3"
    with pytest.raises(ConversationError, match="not conversations"):
        library.conversation(f"{GARDEN}#s1")


def test_person_resolves_typos_and_search_filters_by_it(library, indexed):
    (indexed.root / "profile").mkdir()
    (indexed.root / "profile/relationships.json").write_text(json.dumps({"people": [
        {"name": "Sam Rivera", "aliases": ["Sammy"], "relationship": "colleague"}]}))
    who = library.person("Sam Rivra")
    assert who.name == "Sam Rivera" and who.label() == 'person: Sam Rivera (as "Sam Rivra")'
    assert library.person("x") is None
    r = library.search("harbor bridge", 10, person="Sam Rivra", now=NOW)
    assert r.person == who.label() and r.results
    assert all("Sam Rivera" in x.content for x in r)
    assert not library.search("dahlias", 5, person="Sam Rivera", mode="keyword").results


def test_search_through_the_facade_reads_a_time_phrase(library):
    r = library.search("harbor bridge in March", 5, now=NOW)
    assert r.time == 'time: 2026-03-01..2026-03-31 (from "in March")'
    assert r.results and all(x.source_type == "slack" for x in r)
    week = library.search("last week", 5, now=NOW)  # 2026-03-30..2026-04-05
    assert [x.source_type for x in week] == ["note"] * 4 and week.sort == "date"
    day = library.search("2026-04-02", 10, now=NOW)
    assert {x.id for x in day} == {f"{GARDEN}#s{i}" for i in range(4)} and day.sort == "date"


def test_a_warm_up_waits_for_a_search_transaction_on_the_same_connection(indexed):
    """The MCP server warms the searcher up on a thread while tools search: the warm-up reads
    the vector sidecar in a transaction of its own, which must not begin inside a search's
    ("cannot start a transaction within a transaction")."""
    import threading

    library = Library(indexed)
    searcher = library.searcher
    with searcher.read_transaction() as conn:
        assert conn.in_transaction
        warm = threading.Thread(target=searcher.warm_up)
        warm.start()
        warm.join(0.5)
        assert warm.is_alive()  # waiting for the search's transaction to end
        assert searcher.search("harbor", limit=3).results is not None
    warm.join(30)
    assert not warm.is_alive()
    assert library.search("harbor", limit=3).arms == "both"
    library.close()


def test_route_counts_give_a_file_to_its_first_route_only(config):
    """Overlapping globs of one type in memlens.toml: each file is counted once."""
    root = config.root
    (root / "memlens.toml").write_text('[routes]\nnote = ["notes/**/*.md", "notes/work/*.md"]\n')
    for rel in ("notes/top.md", "notes/work/plan.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n\ntext\n")
    lib = Library(load_config(root))
    by_pattern = {c.pattern: c.files for c in lib.route_counts()}
    notes = [f for f in lib.pending().routed if f.source_type == "note"]
    assert by_pattern["notes/**/*.md"] == len(notes) >= 2 and by_pattern["notes/work/*.md"] == 0
    assert sum(by_pattern.values()) == len(lib.pending().routed)
