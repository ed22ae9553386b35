"""A chunk that spans days is dated by its whole span: a chat window that starts on the day a
query names is found by that day, though its newest message is from a later one
(engine/retrieval/filters.py, engine/schema.py migration v6)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest

from engine.config import load_config
from engine.dates.spans import longest_span
from engine.dates.timeline import timeline
from engine.extractors.base import Problems
from engine.extractors.messaging import TelegramExtractor
from engine.indexer import reindex
from engine.searcher import Searcher
from engine.storage.db import connect
from tests.app.conftest import aio, job_panel_text
from tests.conftest import V6_DROPS, CountingEmbedder, migrate_from

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
FIRST_DAY = datetime(2026, 3, 14, 18, 0, tzinfo=UTC)
LATER_DAY = datetime(2026, 3, 20, 9, 0, tzinfo=UTC)
WINDOW = "data/telegram/ana.jsonl#w0"


def chat_lines() -> str:
    """One window of ten: six messages on 14 March (the pottery class), four on 20 March."""
    texts = ["the pottery class tonight was wonderful", "what did you make?",
             "a small blue bowl, glazed twice", "send a photo", "later, it is drying",
             "good night", "morning! the bowl came out of the kiln", "it looks great",
             "thanks, next week a vase", "see you then"]
    lines = []
    for i, text in enumerate(texts):
        when = (FIRST_DAY if i < 6 else LATER_DAY) + timedelta(minutes=i)
        lines.append(json.dumps({"date": when.isoformat(), "from": ("Ana", "Ben")[i % 2],
                                 "text": text}))
    return "\n".join(lines) + "\n"


@pytest.fixture
def root(tmp_path):
    (tmp_path / "data/telegram").mkdir(parents=True)
    (tmp_path / "data/telegram/ana.jsonl").write_text(chat_lines())
    (tmp_path / "data/telegram/same-day.jsonl").write_text(json.dumps(
        {"date": FIRST_DAY.isoformat(), "from": "Ola", "text": "pottery supplies ordered"}) + "\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/clay.md").write_text(
        "---\ndate: 2026-03-14\n---\nPottery wheel notes: centre the clay first.\n")
    reindex(config=load_config(tmp_path), embedder=CountingEmbedder())
    return tmp_path


@contextmanager
def searching(root):
    searcher = Searcher(load_config(root), embedder=CountingEmbedder())
    try:
        yield searcher
    finally:
        searcher.close()


def first_dates(root) -> dict[str, str | None]:
    conn = connect(load_config(root).db_path)
    try:
        return dict(conn.execute("SELECT id, first_date FROM chunks"))
    finally:
        conn.close()


def test_a_window_over_two_days_records_its_first_day_and_a_one_day_chunk_none(tmp_path):
    log = tmp_path / "ana.jsonl"
    log.write_text(chat_lines())
    (chunk,) = TelegramExtractor().extract(log, "data/telegram/ana.jsonl", Problems())
    assert (chunk.first_date, chunk.content_date) == ("2026-03-14", "2026-03-20")
    log.write_text(chat_lines().splitlines()[0] + "\n")
    (one_day,) = TelegramExtractor().extract(log, "data/telegram/ana.jsonl", Problems())
    assert (one_day.first_date, one_day.content_date) == (None, "2026-03-14")


def test_the_index_stores_the_span_and_its_longest_one(root):
    dates = first_dates(root)
    assert dates[WINDOW] == "2026-03-14"
    conn = connect(load_config(root).db_path)
    try:
        assert longest_span(conn) == 6
    finally:
        conn.close()
    assert dates["data/telegram/same-day.jsonl#w0"] is None
    assert all(v is None for k, v in dates.items() if k.startswith("notes/"))


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
@pytest.mark.parametrize("query", ["pottery class on 14 March 2026",
                                   "pottery class between March 10 and March 15 2026"])
def test_a_phrase_naming_the_first_day_finds_the_window(root, mode, query):
    with searching(root) as searcher:
        response = searcher.search(query, mode=mode, now=NOW)
    ids = [r.id for r in response.results]
    assert WINDOW in ids, ids
    # found inside the range, not by the fallback that searches every date
    assert "every date searched" not in (response.time or "")


def test_the_timeline_lists_the_window_on_its_first_day_and_on_its_last(root):
    conn = connect(load_config(root).db_path)
    try:
        first = timeline(conn, "2026-03-14", now=NOW)
        last = timeline(conn, "2026-03-20", now=NOW)
        between = timeline(conn, "2026-03-16", now=NOW)
    finally:
        conn.close()

    def chat_items(tl):
        return [(day.date, item.id, item.timestamp[11:16]) for day in tl.days
                for group in day.groups if group.source_type == "telegram"
                for item in group.items]
    assert (("2026-03-14", WINDOW, "18:00") in chat_items(first)
            and ("2026-03-20", WINDOW, "09:06") in chat_items(last))
    # in messages: six of the window and one of same-day.jsonl, then the window's other four
    assert [g.count for d in first.days for g in d.groups if g.source_type == "telegram"] == [7]
    assert [g.count for d in last.days for g in d.groups if g.source_type == "telegram"] == [4]
    assert chat_items(between) == []  # no message was sent in between


def test_a_range_after_the_span_or_before_it_leaves_the_window_out(root):
    with searching(root) as searcher:
        after = searcher.search("pottery", mode="keyword", now=NOW, since="2026-03-21")
        before = searcher.search("pottery", mode="keyword", now=NOW, until="2026-03-13")
        inside = searcher.search("pottery", mode="keyword", now=NOW, since="2026-03-16",
                                 until="2026-03-18")
    assert WINDOW not in [r.id for r in after.results]
    assert WINDOW not in [r.id for r in before.results]
    # a range inside the span holds none of its messages (14 and 20 March): not the window
    assert [r.id for r in inside.results] == []


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_window_shows_the_time_of_its_messages_inside_the_range(root, mode):
    with searching(root) as searcher:
        later = searcher.search("pottery kiln", mode=mode, now=NOW, since="2026-03-19",
                                until="2026-03-25")
        browse = searcher.search("what did I do", now=NOW, since="2026-03-19",
                                 until="2026-03-25")
    (hit,) = [r for r in later.results if r.id == WINDOW]
    inside = hit.in_range
    assert (inside.first, inside.last, inside.messages, inside.before) == (
        "2026-03-20 09:06", "2026-03-20 09:09", 4, 6)
    assert hit.date_shown == "2026-03-20" and inside.label == "2026-03-20 09:06–09:09"
    # the snippet shows a match among them ("pottery" is only in the messages of 14 March)
    assert [hit.snippet[a:b] for a, b in hit.highlights] == ["kiln"]
    assert "came out of the kiln" in hit.snippet and "class" not in hit.snippet
    # browsing by date: the snippet opens at the first of them
    assert [r.id for r in browse.results] == [WINDOW]
    assert browse.results[0].in_range == inside
    assert browse.results[0].snippet.startswith("…[2026-03-20 09:06] Ana: morning! the bowl")
    assert browse.type_counts == {"telegram": 1}  # a time-only query still has its facets


def test_an_appended_window_that_spans_longer_raises_the_longest_span(root):
    log = root / "data/telegram/ana.jsonl"
    late = datetime(2026, 4, 30, 8, 0, tzinfo=UTC)
    log.write_text(log.read_text() + "".join(json.dumps(
        {"date": (late if i else LATER_DAY + timedelta(hours=1)).isoformat(), "from": "Ana",
         "text": f"more clay news {i}"}) + "\n" for i in range(3)))
    reindex(config=load_config(root), embedder=CountingEmbedder())
    dates = first_dates(root)
    assert dates["data/telegram/ana.jsonl#w1"] == "2026-03-20"
    conn = connect(load_config(root).db_path)
    try:
        assert longest_span(conn) == 41  # 20 March .. 30 April
    finally:
        conn.close()
    with searching(root) as searcher:
        found = searcher.search("clay news", mode="keyword", now=NOW, until="2026-03-21")
    assert "data/telegram/ana.jsonl#w1" in [r.id for r in found.results]


def test_a_v5_index_is_migrated_and_its_windows_get_their_first_day(root):
    config = load_config(root)
    conn = connect(config.db_path)
    # a hand-edited row whose metadata is no JSON must not stop the migration
    conn.execute("UPDATE chunks SET metadata = 'not json {\"first_ts\"' "
                 "WHERE id = 'data/telegram/same-day.jsonl#w0'")
    conn.commit()
    conn.close()
    migrate_from(config.db_path, 5, ("DELETE FROM meta WHERE key = 'longest_span_days'",))
    dates = first_dates(root)
    assert dates[WINDOW] == "2026-03-14"
    assert dates["data/telegram/same-day.jsonl#w0"] is None
    conn = connect(config.db_path)
    try:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_span'"
                            ).fetchone()
        assert longest_span(conn) == 6
    finally:
        conn.close()
    with searching(root) as searcher:
        found = searcher.search("pottery class on 14 March 2026", mode="keyword", now=NOW)
    assert WINDOW in [r.id for r in found.results]


def test_a_migrating_run_says_so_first_and_a_current_index_does_not(root):
    config = load_config(root)
    conn = connect(config.db_path)
    for statement in (*V6_DROPS, "PRAGMA user_version = 5"):  # a v5 index, not yet migrated
        conn.execute(statement)
    conn.commit()
    conn.close()
    phases: list[str] = []
    reindex(config=config, embedder=CountingEmbedder(), progress=lambda p: phases.append(p.phase))
    assert phases[0] == "migrate" and "scan" in phases
    phases.clear()
    reindex(config=config, embedder=CountingEmbedder(), progress=lambda p: phases.append(p.phase))
    assert "migrate" not in phases


def test_the_cli_bar_names_the_upgrade(monkeypatch):
    import io

    from cli.index import progress_printer
    from engine.index.run_report import Progress

    monkeypatch.setattr("sys.stderr", type("Tty", (io.StringIO,), {"isatty": lambda s: True})())
    bar, update = progress_printer(False)
    update(Progress("migrate"))
    assert bar.tasks[0].description == "upgrading the index (once)"


@aio
async def test_the_app_job_panel_names_the_upgrade():
    from engine.index.run_report import Progress

    assert "upgrading the index" in await job_panel_text(Progress("migrate"))


def test_the_command_line_shows_and_returns_the_days_inside_the_range(root, capsys):
    from cli.main import main

    args = ["search", "what did I do", "--root", str(root), "--since", "2026-03-14",
            "--until", "2026-03-15"]
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert rows[WINDOW]["content_date"] == "2026-03-20"
    inside = rows[WINDOW]["in_range"]
    assert {k: v for k, v in inside.items() if k != "end"} == {
        "first": "2026-03-14 18:00", "last": "2026-03-14 18:05", "messages": 6, "start": 0,
        "before": 0}
    assert rows[WINDOW]["content"][:inside["end"]].endswith("Ben: good night")
    assert main(args) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.endswith("ana.jsonl")]
    assert "2026-03-14" in line and "2026-03-20" not in line
