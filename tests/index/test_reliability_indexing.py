"""Failures that are not the file's fault are retried, a file changed mid-read is re-read, one
bad element never fails a file, binary data is not text (docs/reliability.md)."""

from __future__ import annotations

import errno
import json
import os

import pytest

import engine.extractors.markdown as markdown
import engine.extractors.messaging as messaging
import engine.indexer as indexer
from engine.config import load_config
from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import (
    CountingEmbedder,
    assert_consistent,
    make_root,
    migrate_from,
    run_cli,
    slack_lines,
)

LOG = "data/slack/general.jsonl"


def rows(config, sql, args=()):
    conn = connect(config.db_path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def count(config, rel=None):
    if rel is None:
        return rows(config, "SELECT count(*) FROM chunks")[0][0]
    return rows(config, "SELECT count(*) FROM chunks WHERE source_file = ?", (rel,))[0][0]


def messages_indexed(config, rel):
    return sum(json.loads(m)["message_count"] for (m,) in rows(
        config, "SELECT metadata FROM chunks WHERE source_file = ?", (rel,)))


def said(stats, rel):
    return " ".join(w.message for w in [*stats.warnings, *stats.errors] if w.source_file == rel)


# --------------------------------------------------------------------------- item 5


class FailsOnce(CountingEmbedder):
    def __init__(self, exc):
        super().__init__()
        self.exc = exc

    def embed(self, texts):
        if self.exc is not None:
            exc, self.exc = self.exc, None
            raise exc
        return super().embed(texts)


def test_a_hostile_provider_answer_leaves_the_files_for_the_next_run(config):
    stats = reindex(config=config, embedder=FailsOnce(RecursionError("Bearer sk-LEAKED-KEY")))
    assert "sk-LEAKED" not in json.dumps(stats.to_dict())
    assert stats.embedding_errors and count(config) == 16  # keyword-searchable meanwhile
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert count(config) == 16 and stats.pending_embeddings == 0
    assert {r[0] for r in rows(config, "SELECT DISTINCT source_file FROM chunks")} == {
        LOG, "data/slack/random.jsonl", "notes/home/garden.md"}
    assert_consistent(config.db_path)


def test_a_read_error_is_not_recorded_as_done(config, embedder, monkeypatch):
    real = markdown.read_text
    calls = []

    def flaky(path, problems):
        calls.append(path)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, problems)

    monkeypatch.setattr(markdown, "read_text", flaky)
    stats = reindex(config=config, embedder=embedder)
    assert "No space left on device" in said(stats, "notes/home/garden.md")
    assert "retries" in said(stats, "notes/home/garden.md")
    assert count(config, "notes/home/garden.md") == 0
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.files == 1 and count(config, "notes/home/garden.md") == 4


def test_a_full_disk_is_not_recorded_as_done(config, embedder, monkeypatch):
    reindex(config=config, embedder=embedder)
    big = config.root / "notes/big.md"
    big.write_text("# Big\n\n" + "\n\n".join(f"paragraph {i} " + "lorem ipsum " * 60
                                            for i in range(300)))
    real = indexer.connect

    def nearly_full(path, **kwargs):  # a real SQLITE_FULL: the file may grow 2 pages only
        conn = real(path, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        return conn

    monkeypatch.setattr(indexer, "connect", nearly_full)
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert "full" in said(stats, "notes/big.md") and count(config, "notes/big.md") == 0
    monkeypatch.undo()
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.files == 1 and count(config, "notes/big.md") > 10 and not stats.errors
    assert_consistent(config.db_path)


# --------------------------------------------------------------------------- item 6


@pytest.mark.parametrize("how", ["replace", "in place"])
def test_a_log_edited_while_it_is_read_is_read_again(config, embedder, monkeypatch, how):
    log = config.root / LOG
    reindex(config=config, embedder=embedder)
    with log.open("a") as fh:
        fh.write(slack_lines(25, start=95))  # so the next run takes the append fast path
    edited = log.read_text().replace("message 3 about", "message 3 ABOUT", 1)
    real = messaging.iter_jsonl
    fired = []

    def edit_during_read(path, problems, offset=0, first_line=1):
        for item in real(path, problems, offset, first_line):
            if not fired and path.name == "general.jsonl":
                fired.append(how)
                if how == "replace":
                    tmp = path.with_name(".general.tmp")
                    tmp.write_text(edited)
                    os.replace(tmp, path)
                else:  # same size, same inode
                    with path.open("r+") as fh:
                        fh.write(edited)
            yield item

    monkeypatch.setattr(messaging, "iter_jsonl", edit_during_read)
    reindex(config=config, embedder=CountingEmbedder())
    monkeypatch.undo()
    assert fired
    for _ in range(2):  # and it stays right on the runs after
        (w0,) = rows(config, "SELECT content FROM chunks WHERE id = ?", (LOG + "#w0",))[0]
        assert "message 3 ABOUT" in w0
        assert messages_indexed(config, LOG) == 120
        reindex(config=config, embedder=CountingEmbedder())
    assert_consistent(config.db_path)


# --------------------------------------------------------------------------- item 8

DEEP = "[" * 10_000 + "]" * 10_000


def test_a_10000_deep_json_line_is_skipped_with_its_line_number(config, embedder):
    lines = slack_lines(30).splitlines()
    lines.insert(4, '{"ts": "2026-03-01T09:00:00", "user": "x", "text": "t", "extra": '
                 + DEEP + "}")
    (config.root / "data/slack/deep.jsonl").write_text("\n".join(lines) + "\n")
    stats = reindex(config=config, embedder=embedder)
    assert "line 5" in said(stats, "data/slack/deep.jsonl")
    assert messages_indexed(config, "data/slack/deep.jsonl") == 30

    # on an indexed log, through the append fast path: the messages after it are indexed
    with (config.root / LOG).open("a") as fh:
        fh.write('{"ts": 1, "text": ' + DEEP + "}\n" + slack_lines(5, start=95))
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert "line 96" in said(stats, LOG) and messages_indexed(config, LOG) == 100
    assert_consistent(config.db_path)


def test_a_message_that_breaks_parsing_is_skipped_not_the_log(config, embedder):
    lines = slack_lines(12).splitlines()
    lines[2] = json.dumps({"ts": 10 ** 400, "user": "x", "text": "huge epoch"})
    (config.root / "data/slack/huge.jsonl").write_text("\n".join(lines) + "\n")
    stats = reindex(config=config, embedder=embedder)
    assert "line 3" in said(stats, "data/slack/huge.jsonl")
    assert messages_indexed(config, "data/slack/huge.jsonl") == 11


@pytest.mark.parametrize("frontmatter, kept_title", [
    ("title: Kept title\ndate: 2026-02-30", True),
    ("title: Kept title\ndate: 2026-03-01 25:61:00", True),
    ("title: Kept title\ncreated: 2026-03-01T25:61:00", True),
    ("title: Lost\nx: " + "[" * 600 + "]" * 600, False),
    ("title: Lost\nx: " + DEEP, False),
], ids=["feb-30", "hour-25", "T25:61", "600-deep", "10000-deep"])
def test_bad_frontmatter_never_loses_the_body(config, embedder, frontmatter, kept_title):
    note = config.root / "notes/bad.md"
    note.write_text(f"---\n{frontmatter}\n---\nBody about walruses.\n")
    stats = reindex(config=config, embedder=embedder)
    (content,) = rows(config, "SELECT content FROM chunks WHERE source_file = 'notes/bad.md'")[0]
    assert "walruses" in content and content.startswith("Kept title" if kept_title else "bad")
    assert said(stats, "notes/bad.md") and not stats.errors


def test_nested_and_aliased_frontmatter_is_bounded(config, embedder):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 6)]
    (config.root / "notes/bomb.md").write_text(
        "---\ntitle: Bomb\n" + "\n".join(levels) + f"\nnest: {'[' * 100}{']' * 100}\n---\n"
        "Body about puffins.\n")
    stats = reindex(config=config, embedder=embedder)
    (content, meta), = rows(config, "SELECT content, metadata FROM chunks "
                                    "WHERE source_file = 'notes/bomb.md'")
    assert "puffins" in content and content.startswith("Bomb")
    assert len(meta) < 200_000 and "dropped" in said(stats, "notes/bomb.md")


def test_a_deep_extra_field_in_a_json_document_is_dropped_not_the_document(config, embedder):
    folder = config.root / "data/meetings/processed"
    folder.mkdir(parents=True)
    (folder / "2026-03-02-sync.json").write_text(
        '{"title": "Sync", "date": "2026-03-02", "summary": "Agreed on the narwhal plan.",\n'
        ' "extra": ' + DEEP + "}")
    stats = reindex(config=config, embedder=embedder)
    rel = "data/meetings/processed/2026-03-02-sync.json"
    (content,) = rows(config, "SELECT content FROM chunks WHERE source_file = ?", (rel,))[0]
    assert "narwhal" in content and "line 2" in said(stats, rel) and not stats.errors


# --------------------------------------------------------------------------- item 12


def test_binary_data_routed_as_markdown_is_skipped_with_a_report(config, embedder):
    image = config.root / "notes/photo.md"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    stats = reindex(config=config, embedder=embedder)
    assert count(config, "notes/photo.md") == 0 and "binary" in said(stats, "notes/photo.md")
    # a note that turns binary keeps what was indexed from it
    (config.root / "notes/home/garden.md").write_bytes(bytes(range(256)) * 40)
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert count(config, "notes/home/garden.md") == 4
    assert "binary" in said(stats, "notes/home/garden.md")


def test_a_full_disk_in_the_pending_pass_leaves_the_vectors_for_the_next_run(config,
                                                                             monkeypatch):
    reindex(config=config, embedder=CountingEmbedder(fail_with="provider_error"))
    real = indexer.connect

    def full(path, **kwargs):
        conn = real(path, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(indexer, "connect", full)
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert any(e.source_file == "(index)" and "pending" in e.message and "full" in e.message
               for e in stats.errors), stats.errors
    monkeypatch.undo()
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.pending_embeddings == 0 and not stats.errors
    assert_consistent(config.db_path)


def test_a_log_that_changes_during_every_read_is_indexed_and_read_again(config, embedder,
                                                                        monkeypatch):
    real = messaging.iter_jsonl
    reads = []

    def append_during_read(path, problems, offset=0, first_line=1):
        for n, item in enumerate(real(path, problems, offset, first_line)):
            if n == 0 and path.name == "general.jsonl":
                reads.append(offset)
                with path.open("a") as fh:  # a writer that never stops
                    fh.write(slack_lines(1, start=95 + len(reads) - 1))
            yield item

    monkeypatch.setattr(messaging, "iter_jsonl", append_during_read)
    stats = reindex(config=config, embedder=embedder)
    monkeypatch.undo()
    assert len(reads) == 3 and "next run reads it again" in said(stats, LOG)
    assert messages_indexed(config, LOG) >= 95  # what was read is kept
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.files == 1 and messages_indexed(config, LOG) == 98
    assert reindex(config=config, embedder=CountingEmbedder()).skipped == 3


def test_an_older_index_reads_notes_left_without_a_chunk_and_asks_again_for_zero_vectors(
        tmp_path):
    """Migration v9: what earlier versions left out silently is read again, without a
    whole rebuild."""
    root = make_root(tmp_path / "root")
    (root / "notes/todo.md").write_text("# buy oat milk and zucchini tomorrow\n")
    config = load_config(root)
    reindex(config=config)
    conn = connect(config.db_path)
    # as an earlier version left it: the note without its chunk, one vector of zeros
    conn.execute("DELETE FROM chunks WHERE source_file = 'notes/todo.md'")
    zero_id = conn.execute("SELECT id FROM chunks WHERE embedding IS NOT NULL LIMIT 1"
                           ).fetchone()[0]
    conn.execute("UPDATE chunks SET embedding = zeroblob(length(embedding)) WHERE id = ?",
                 (zero_id,))
    conn.commit()
    conn.close()
    migrate_from(config.db_path, 8, ())
    stats = reindex(config=config)
    assert stats.files == 1 and stats.embedded == 2  # the note, and the zero vector again
    conn = connect(config.db_path)
    try:
        assert conn.execute("SELECT content FROM chunks WHERE source_file = 'notes/todo.md'"
                            ).fetchall()[0][0] == "buy oat milk and zucchini tomorrow"
        assert conn.execute("SELECT embedding = zeroblob(length(embedding)) FROM chunks "
                            "WHERE id = ?", (zero_id,)).fetchone()[0] == 0
    finally:
        conn.close()


BIG = "1" + "0" * 400  # 10^400: float() of it raises


def hostile_numbers(root) -> dict[str, str]:
    """Valid JSON with one number no field can hold, per document type: path -> text that
    must still be found in its chunks."""
    files = {
        "data/health/cgm/2026-05-05.json": ('{"date": "2026-05-05", "readings": [98, 1e400]}',
                                            "1 readings"),
        "data/health/cgm/2026-05-06.json": ('{"date": "2026-05-06", "readings": [98, NaN, 120],'
                                            ' "mean": Infinity}', "2 readings"),
        "data/health/garmin/2026-05-07.json": (f'{{"date": "2026-05-07", "steps": {BIG}, '
                                               '"resting_hr": 55}', "resting HR 55"),
        "data/meetings/processed/sync.json": (
            '{"title": "Sync", "date": "2026-05-05", "segments": [{"speaker": "Ana", "start": '
            '1e400, "text": "hello there"}, {"speaker": "Ben", "start": 5, "text": "budget '
            'review"}]}', "budget review"),
        "data/voice/memo.json": ('{"title": "memo", "date": "2026-05-05", "segments": '
                                 '[{"start": -1e400, "text": "call the plumber"}]}',
                                 "call the plumber"),
        "data/interviews/sessions/s1.json": (f'{{"date": "2026-05-05", "duration_min": {BIG}, '
                                             '"question_count": 12, "topic": "values"}',
                                             "values\nDuration: 12 questions"),
        "data/journal/2026.jsonl": (f'{{"date": "2026-05-05", "text": "rode to the coast", '
                                    f'"mood": {BIG}}}\n', "rode to the coast"),
    }
    for rel, (text, _) in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return {rel: found for rel, (_, found) in files.items()}


def test_a_number_out_of_range_leaves_out_that_value_and_keeps_the_file(tmp_path):
    root = make_root(tmp_path / "root")
    expected = hostile_numbers(root)
    stats = reindex(config=load_config(root))
    assert not stats.errors and stats.retry_files == 0
    warned = {w.source_file: w.message for w in stats.warnings}
    conn = connect(load_config(root).db_path)
    try:
        for rel, found in expected.items():
            text = "\n".join(r[0] for r in conn.execute(
                "SELECT content FROM chunks WHERE source_file = ?", (rel,)))
            assert found in text, (rel, text)
            assert "out of range" in warned[rel] and "read as missing" in warned[rel]
        # recorded as done: the next run reads none of them again
        assert reindex(config=load_config(root)).files == 0
    finally:
        conn.close()


def test_a_note_of_only_headings_or_frontmatter_is_indexed_and_nothing_goes_unnamed(
        tmp_path, capsys):
    root = make_root(tmp_path / "root")
    notes = {"notes/todo.md": "# buy oat milk and zucchini tomorrow\n",
             "notes/outline.md": "# Trip\n\n## Bookings\n\n## Packing\n",
             "notes/props.md": "---\ntitle: Reading list\ntags: [books, later]\n---\n",
             "notes/blank.md": "\n  \n"}
    for rel, text in notes.items():
        (root / rel).write_text(text)
    stats = reindex(config=load_config(root))
    conn = connect(load_config(root).db_path)
    try:
        contents = {r[0]: r[1] for r in conn.execute(
            "SELECT source_file, content FROM chunks WHERE source_file IN (?, ?, ?, ?)",
            list(notes))}
    finally:
        conn.close()
    assert contents["notes/todo.md"] == "buy oat milk and zucchini tomorrow"
    assert contents["notes/outline.md"] == "Trip\nTrip > Bookings\nTrip > Packing"
    assert contents["notes/props.md"] == "Reading list\n\ntitle: Reading list\ntags: books, later"
    # the one file that holds nothing to index is named in the run and in the statistics
    assert "notes/blank.md" not in contents
    assert [w.source_file for w in stats.warnings] == ["notes/blank.md"]
    code, out, _ = run_cli(capsys, "stats", "--root", str(root))
    assert code == 0 and "no chunk: notes/blank.md: read, holds nothing" in out
    code, out, _ = run_cli(capsys, "stats", "--root", str(root), "--json")
    assert json.loads(out)["no_chunk"] == ["notes/blank.md"]


def test_a_root_where_no_file_matches_a_route_says_so(tmp_path, capsys):
    root = tmp_path / "root"
    (root / "stuff").mkdir(parents=True)
    (root / "stuff/todo.txt").write_text("buy oat milk\n")  # no route reads .txt there
    code, out, err = run_cli(capsys, "reindex", "--root", str(root))
    assert code == 0 and out.startswith("indexed 0 files")
    assert ("warning: (root): no file under the root matches a route: `memlens discover` "
            "lists the routes") in err
    code, out, _ = run_cli(capsys, "reindex", "--root", str(root), "--json")
    assert [w["source_file"] for w in json.loads(out)["warnings"]] == ["(root)"]
