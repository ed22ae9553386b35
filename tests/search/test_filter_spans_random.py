"""The three forms of a date filter select the same chunks on random spans (a seeded loop:
hypothesis is not installed): the SQL pushed into the keyword arm, the vector arm's rowid
mask (UNION ALL of disjoint branches) and the in-memory re-check (engine/retrieval/filters.py).
A window spanning days has messages on its first and last day and on some days between, so a
range or a month-day inside its span may hold none of them."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import pytest

from engine.dates.message_days import MESSAGE_DAYS_DDL, parse_marks, store
from engine.dates.spans import span_days
from engine.rank.candidates import Candidate
from engine.retrieval.filters import Filters
from engine.storage.db import connect

BASE = date(2025, 12, 24)  # spans cross a new year: month-days and years both move


def day(rnd: random.Random) -> str:
    return (BASE + timedelta(days=rnd.randrange(0, 20))).isoformat()


def chunk_dates(rnd: random.Random) -> tuple[str | None, str | None]:
    """(content_date, first_date) as the writers make them, and the odd forms a hand-edited
    or older index holds: a time after the date, a first day that is no earlier."""
    last = day(rnd)
    roll = rnd.random()
    if roll < 0.05:
        return None, rnd.choice([None, last])  # undated (a first day left by a hand edit)
    if roll < 0.15:
        last += "T23:59:00"
    if rnd.random() < 0.5:
        return last, None
    first = (date.fromisoformat(last[:10]) - timedelta(days=rnd.randrange(0, 9))).isoformat()
    if rnd.random() < 0.1:
        first += "T08:00:00"
    return last, first


def random_filters(rnd: random.Random, longest: int) -> Filters:
    since = day(rnd) if rnd.random() < 0.6 else None
    until = day(rnd) if rnd.random() < 0.6 else None
    month_day = day(rnd)[5:] if rnd.random() < 0.25 else None
    bound = rnd.choice([None, longest, longest + rnd.randrange(1, 5)])
    years = rnd.choice([None, (2025, 2026), (2020, 2030)])  # "on this day": every date, its days
    return Filters.build(since=since, until=until, month_day=month_day, span_days=bound,
                         years=years)


def window(rnd: random.Random, last: str | None, first: str | None) -> tuple[str, dict]:
    """The content and metadata of a window over ``first``..``last``: a message on each end
    day and on some days between (none for the odd forms: their content does not read back)."""
    if not (last and first) or len(last) > 10 or len(first) > 10 or first >= last:
        return "", {}
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    days = [first, *sorted({(start + timedelta(days=rnd.randrange(1, (end - start).days))
                             ).isoformat() for _ in range(rnd.randrange(0, 3))
                            if (end - start).days > 1}), last]
    content = "\n".join(f"[{d} 09:{k:02}] Ana: message {k}" for k, d in enumerate(days))
    return content, {"participants": ["Ana"], "message_count": len(days)}


@pytest.mark.parametrize("seed", range(6))
def test_sql_mask_and_memory_agree_on_random_spans(tmp_path, seed):
    rnd = random.Random(seed)
    rows = [(f"c{i}", *chunk_dates(rnd)) for i in range(120)]
    windows = {cid: window(rnd, last, first) for cid, last, first in rows}
    conn = connect(tmp_path / "t.db")
    conn.execute("CREATE TABLE chunks (id TEXT, source_type TEXT, source_file TEXT, "
                 "content_date TEXT, metadata TEXT, first_date TEXT, content TEXT)")
    for ddl in MESSAGE_DAYS_DDL:
        if "day_counts" not in ddl:
            conn.execute(ddl)
    for n, (cid, last, first) in enumerate(rows):
        content, meta = windows[cid]
        rowid = conn.execute("INSERT INTO chunks VALUES (?, 'telegram', 'data/telegram/x.jsonl', "
                             "?, ?, ?, ?)", (cid, last, json.dumps(meta), first, content)
                             ).lastrowid
        if meta:
            store(conn, [(rowid, f"data/telegram/x.jsonl#w{n}", "telegram",
                          parse_marks(content, meta["participants"], meta["message_count"]))])
    longest = max(span_days(last, first) for _, last, first in rows)
    for _ in range(150):
        filters = random_filters(rnd, longest)
        where, args = filters.sql("c")
        by_sql = {r[0] for r in conn.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}
        by_memory = {cid for cid, last, first in rows if filters.matches(Candidate(
            id=cid, content=windows[cid][0], source_file="data/telegram/x.jsonl",
            source_type="telegram", content_date=last, first_date=first,
            metadata=windows[cid][1]))}
        assert by_sql == by_memory, filters
        (sql, margs), = filters.rowid_queries() or [("SELECT rowid FROM chunks", [])]
        rowids = [r[0] for r in conn.execute(sql, margs)]
        assert len(rowids) == len(set(rowids)), filters  # the branches are disjoint
        by_mask = {r[0] for r in conn.execute(
            f"SELECT id FROM chunks WHERE rowid IN ({','.join('?' * len(rowids))})", rowids)}
        assert by_mask == by_sql, filters
    conn.close()
