"""Edges of chunks that span days (engine/dates/spans.py): "on this day" on a first day in a year
no chunk ends in, the timeline's limit over both ends of a span, and the writers."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from engine.config import load_config
from engine.dates.timeline import on_this_day, timeline
from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import CountingEmbedder

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
NEW_YEAR = "data/telegram/party.jsonl#w0"


def write_log(path, stamps: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"date": ts, "from": ("Ana", "Ben")[i % 2],
                                        "text": f"party plans {i}"}) + "\n"
                            for i, ts in enumerate(stamps)))


@pytest.fixture
def root(tmp_path):
    # one window from New Year's Eve 2024 to 2 January 2025: no chunk ends in 2024
    write_log(tmp_path / "data/telegram/party.jsonl",
              ["2024-12-31T22:00:00", "2024-12-31T23:50:00", "2025-01-02T10:00:00"])
    reindex(config=load_config(tmp_path), embedder=CountingEmbedder())
    return tmp_path


def listed(tl) -> list[tuple[str, str]]:
    return [(d.date, item.id) for d in tl.days for g in d.groups for item in g.items]


def test_on_this_day_finds_a_first_day_in_a_year_no_chunk_ends_in(root):
    conn = connect(load_config(root).db_path)
    try:
        eve = on_this_day(conn, now=NOW, month_day=(12, 31))
        second = on_this_day(conn, now=NOW, month_day=(1, 2))
    finally:
        conn.close()
    assert listed(eve) == [("2024-12-31", NEW_YEAR)]
    assert listed(second) == [("2025-01-02", NEW_YEAR)]


def test_a_span_listed_on_both_ends_keeps_the_limit_and_the_counts_coherent(root):
    conn = connect(load_config(root).db_path)
    try:
        both = timeline(conn, "2024-12-31..2025-01-02", now=NOW)
        one = timeline(conn, "2024-12-31..2025-01-02", now=NOW, limit=1)
    finally:
        conn.close()
    # the window's messages, each on its own day: two on New Year's Eve, one on 2 January
    assert listed(both) == [("2024-12-31", NEW_YEAR), ("2025-01-02", NEW_YEAR)]
    assert both.total == sum(d.count for d in both.days) == 3 and both.shown == 2
    assert [[m.time for m in i.messages] for d in both.days for g in d.groups
            for i in g.items] == [["2024-12-31 22:00", "2024-12-31 23:50"],
                                  ["2025-01-02 10:00"]]
    assert not both.truncated
    # the limit stops after one item; the later day keeps its count, without items
    assert listed(one) == [("2024-12-31", NEW_YEAR)] and one.shown == 1 and one.truncated
    assert [d.count for d in one.days] == [2, 1]


def test_the_timeline_rows_render_a_span_on_both_ends(root):
    from tui.widgets.timeline_rows import clock, timeline_options

    conn = connect(load_config(root).db_path)
    try:
        tl = timeline(conn, "2024-12-31..2025-01-02", now=NOW)
    finally:
        conn.close()
    options, items = timeline_options(tl, 100)
    # each day: the conversation's line, then a line per message
    assert [o.id for o in options if o.id] == ["i0", "i1", "i2", "i3", "i4"]
    assert [(it.id, clock(it)) for it in items] == [
        (NEW_YEAR, "22:00"), (NEW_YEAR, "22:00"), (NEW_YEAR, "23:50"),
        (NEW_YEAR, "10:00"), (NEW_YEAR, "10:00")]


def spans_of(db_path) -> tuple[dict, str | None, set]:
    conn = connect(db_path)
    try:
        dates = {cid: (first, last) for cid, first, last in conn.execute(
            "SELECT id, first_date, content_date FROM chunks")}
        meta = conn.execute("SELECT value FROM meta WHERE key = 'longest_span_days'").fetchone()
        indexes = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE name IN ('chunks_span', 'chunks_first_day')")}
        return dates, meta and meta[0], indexes
    finally:
        conn.close()


def test_every_writer_keeps_a_resumed_windows_first_day(tmp_path):
    from engine.maintenance import maintain_index

    log = tmp_path / "data/telegram/trip.jsonl"
    write_log(log, ["2026-04-01T10:00:00", "2026-04-01T10:05:00"])  # a partial last window
    config = load_config(tmp_path)
    reindex(config=config, embedder=CountingEmbedder())
    with log.open("a") as fh:  # read again from the window's first line (the resume point)
        fh.write(json.dumps({"date": "2026-04-09T08:00:00", "from": "Ana", "text": "back"}) + "\n")
    reindex(config=config, embedder=CountingEmbedder())
    want = ({"data/telegram/trip.jsonl#w0": ("2026-04-01", "2026-04-09")}, "8",
            {"chunks_span", "chunks_first_day"})
    assert spans_of(config.db_path) == want
    reindex(config=config, embedder=CountingEmbedder(), full=True)
    assert spans_of(config.db_path) == want
    reindex(config=config, embedder=CountingEmbedder(), re_embed=True)
    assert spans_of(config.db_path) == want
    maintain_index(config.db_path)
    assert spans_of(config.db_path) == want
    log.unlink()  # the chunks go; the bound stays, an upper bound (never lowered)
    reindex(config=config, embedder=CountingEmbedder())
    assert spans_of(config.db_path) == ({}, "8", {"chunks_span", "chunks_first_day"})


MIGRATED = [  # id, source_type, content_date, metadata: the first day a v5 row gets
    ("w-span", "telegram", "2026-03-20", {"first_ts": "2026-03-14T18:00:00"}, "2026-03-14"),
    ("w-after", "telegram", "2026-03-20", {"first_ts": "2026-03-22T08:00:00"}, None),
    ("w-number", "telegram", "2026-03-20", {"first_ts": 1773500000}, None),
    ("w-zone", "telegram", "2026-03-20", {"first_ts": "2026-03-19T23:30:00-08:00",
                                          "last_ts": "2026-03-20T00:30:00+01:00"}, "2026-03-19"),
    ("w-unpadded", "telegram", "2026-03-20", {"first_ts": "2026-3-1T08:00"}, None),
    ("w-null", "telegram", "2026-03-20", None, None),
    ("w-undated", "telegram", None, {"first_ts": "2026-03-14T18:00:00"}, None),
    # a note whose metadata happens to hold the key: a fresh index gives it no first day
    ("note-key", "note", "2026-03-20", {"first_ts": "2026-03-01T08:00:00"}, None),
]


@pytest.mark.parametrize("meta_rows", ["kept", "none"])
def test_a_v5_index_migrates_every_odd_row_without_losing_one(tmp_path, meta_rows):
    from engine.dates.spans import longest_span
    from tests.conftest import migrate_from

    config = load_config(tmp_path)
    write_log(tmp_path / "data/telegram/a.jsonl", ["2026-03-20T08:00:00"])
    reindex(config=config, embedder=CountingEmbedder())
    conn = connect(config.db_path)
    conn.executemany(
        "INSERT INTO chunks(id, source_file, source_type, content, metadata, indexed_at, "
        "content_hash, content_date) VALUES (?, 'x', ?, 'text', ?, 'now', 'h', ?)",
        [(cid, kind, None if meta is None else json.dumps(meta), last)
         for cid, kind, last, meta, _ in MIGRATED])
    conn.commit()
    before = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    conn.close()
    migrate_from(config.db_path, 5, ("DELETE FROM meta",) if meta_rows == "none" else
                 ("DELETE FROM meta WHERE key = 'longest_span_days'",))
    conn = connect(config.db_path)
    try:
        got = dict(conn.execute("SELECT id, first_date FROM chunks WHERE source_file = 'x'"))
        assert got == {cid: first for cid, _, _, _, first in MIGRATED}
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == before
        assert longest_span(conn) == 6
    finally:
        conn.close()


def test_a_windows_days_are_taken_as_written_whatever_their_offsets(tmp_path):
    from engine.extractors.base import Problems
    from engine.extractors.messaging import TelegramExtractor

    log = tmp_path / "zones.jsonl"
    # 07:30 UTC on the 15th, then 23:30 UTC on the 14th: as written, the 14th to the 15th
    write_log(log, ["2026-03-14T23:30:00-08:00", "2026-03-15T00:30:00+01:00"])
    (chunk,) = TelegramExtractor().extract(log, "data/telegram/zones.jsonl", Problems())
    assert (chunk.first_date, chunk.content_date) == ("2026-03-14", "2026-03-15")
    # the other way round, the last day as written is the earlier: no span is recorded, never
    # a first day after the last (docs/data-layer.md: content_date is the last message's)
    write_log(log, ["2026-03-15T00:30:00+01:00", "2026-03-14T23:30:00-08:00"])
    (chunk,) = TelegramExtractor().extract(log, "data/telegram/zones.jsonl", Problems())
    assert (chunk.first_date, chunk.content_date) == (None, "2026-03-14")


@pytest.mark.parametrize("value", ["-3", "x", ""])
def test_a_hand_edited_longest_span_that_is_no_span_is_not_trusted(root, value):
    from engine.searcher import Searcher

    config = load_config(root)
    conn = connect(config.db_path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'longest_span_days'", (value,))
    conn.commit()
    conn.close()
    searcher = Searcher(config, embedder=CountingEmbedder())
    try:
        found = searcher.search("party plans", mode="keyword", now=NOW, until="2024-12-31")
    finally:
        searcher.close()
    assert NEW_YEAR in [r.id for r in found.results]


@pytest.mark.parametrize("bound", ["recorded", "unknown"])
def test_the_activity_calendar_counts_a_span_on_the_days_the_timeline_lists_it(root, bound):
    from engine.dates.timeline import activity

    conn = connect(load_config(root).db_path)
    if bound == "unknown":
        conn.execute("DELETE FROM meta WHERE key = 'longest_span_days'")
        conn.commit()
    try:
        cells = {**activity(conn, 2024).days, **activity(conn, 2025).days}
        listed_days = {d.date: d.count for d in timeline(conn, "2024-12-01..2025-01-31",
                                                         now=NOW).days}
        telegram = activity(conn, 2024, "telegram")
        totals = [activity(conn, year).total for year in (2024, 2025)]
    finally:
        conn.close()
    assert cells == listed_days == {"2024-12-31": 2, "2025-01-02": 1}
    assert telegram.days == {"2024-12-31": 2}
    assert totals == [2, 1]  # each message on the day it was sent


ON_JAN_5 = [  # id, first_date, content_date: "on this day" on 5 January 2026
    ("this-year", "2025-12-30", "2026-01-05"),  # its 5 January is today's, not an earlier one
    ("first-end", "2025-01-05", "2025-01-08"),
    ("last-end", "2024-12-30", "2025-01-05"),
]


@pytest.mark.parametrize("years", [None, (2024, 2026)])  # every date compared; the days sought
def test_on_this_day_matches_an_end_on_that_day_in_an_earlier_year_only(tmp_path, years):
    from engine.dates.message_days import MESSAGE_DAYS_DDL, parse_marks, store
    from engine.rank.candidates import Candidate
    from engine.retrieval.filters import Filters

    def content(first: str, last: str) -> str:  # a message on each end
        return f"[{first} 09:00] Ana: hello\n[{last} 10:00] Ana: bye"

    meta = {"participants": ["Ana"], "message_count": 2}
    conn = connect(tmp_path / "t.db")
    conn.execute("CREATE TABLE chunks (id TEXT, source_type TEXT, content_date TEXT, "
                 "first_date TEXT, content TEXT)")
    conn.execute(MESSAGE_DAYS_DDL[0])
    for n, (cid, first, last) in enumerate(ON_JAN_5):
        text = content(first, last)
        rowid = conn.execute("INSERT INTO chunks VALUES (?, 'telegram', ?, ?, ?)",
                             (cid, last, first, text)).lastrowid
        store(conn, [(rowid, f"x#w{n}", "telegram", parse_marks(text, ["Ana"], 2))])
    for span in (None, 6):
        filters = Filters.build(month_day="01-05", until="2025-12-31", span_days=span,
                                years=years)
        where, args = filters.sql("c")
        by_sql = {r[0] for r in conn.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}
        by_memory = {cid for cid, first, last in ON_JAN_5 if filters.matches(Candidate(
            id=cid, content=content(first, last), source_file="x", source_type="telegram",
            content_date=last, first_date=first, metadata=meta))}
        assert by_sql == by_memory == {"first-end", "last-end"}
    conn.close()
