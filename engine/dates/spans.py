"""Chunks that span days: a chat window's messages can be sent over two sessions, days apart.

Such a chunk keeps its newest day in ``content_date`` (recency decay, sorting by date) and its
first day in ``first_date`` (NULL for a chunk of one day), so a date filter can keep every chunk
whose span overlaps the range (engine/retrieval/filters.py). The longest span in the index (``meta``,
kept by every write, never lowered) bounds the filter's extra branch: a chunk that starts by
``until`` and ends after it ends at most that many days after it, so the branch reads only those
days of the index ``chunks_span`` instead of every chunk that spans days (a week's filter at
500k chunks: 1.2 ms, as before spans; the first, unbounded version took 340 ms;
docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from engine.storage.db import Connection

LONGEST_SPAN_KEY = "longest_span_days"
SPAN_INDEX = ("CREATE INDEX IF NOT EXISTS chunks_span ON chunks(content_date, first_date) "
              "WHERE first_date IS NOT NULL")
# the timeline lists a spanning chunk on its first day too: per type, by that day
FIRST_DAY_INDEX = ("CREATE INDEX IF NOT EXISTS chunks_first_day ON chunks(source_type, first_date) "
                   "WHERE first_date IS NOT NULL")


def ends_before(day: str, longest: int | None) -> str:
    """The first day no chunk starting by ``day`` can end on, given the longest span: the upper
    bound of a read of chunks_span (past every date when the longest is unknown, or past 9999)."""
    if longest is None:
        return "9999-12-32"
    try:
        return (date.fromisoformat(day) + timedelta(days=longest + 1)).isoformat()
    except OverflowError:
        return "9999-12-32"


def span_days(content_date: str | None, first_date: str | None) -> int:
    """Whole days from a chunk's first day to its last (0 for one day, or dates unreadable)."""
    if not content_date or not first_date:
        return 0
    try:
        return max(0, (date.fromisoformat(content_date[:10])
                       - date.fromisoformat(first_date[:10])).days)
    except ValueError:
        return 0


def record_spans(conn: Connection, spans: Iterable[int]) -> None:
    """Raise the index's longest span to the longest of ``spans`` (the writer's transaction)."""
    longest = max(spans, default=0)
    if longest > 0:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
            "max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
            (LONGEST_SPAN_KEY, str(longest)))


def longest_span(conn: Connection) -> int | None:
    """The longest span any chunk has had (None when the index never recorded one: a filter
    then takes the unbounded branch, which is exact too; so does a hand-edited value that is
    no count of days)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (LONGEST_SPAN_KEY,)).fetchone()
    try:
        days = int(row[0]) if row else None
    except (TypeError, ValueError):
        return None
    return days if days is None or days >= 0 else None


def index_years(conn: Connection) -> tuple[int, int] | None:
    """The first and last year the index holds a day of, a chunk's or a message's (the
    per-day counts: a few hundred rows a type); None for an empty or unreadable index."""
    try:
        first, last = conn.execute("SELECT min(day), max(day) FROM day_counts").fetchone()
        return (int(first[:4]), int(last[:4])) if first and last else None
    except (TypeError, ValueError):
        return None


def backfill_first_dates(conn: Connection) -> int:
    """Give every chunk of a v5 index that spans days its first date (migration v6): the date
    part of ``first_ts`` in its metadata, kept only when it is a date before its own. A row
    whose metadata is no JSON is left alone, and so is one of a type whose extractor keeps no
    first day (a note whose metadata happens to hold the key). Records the longest span."""
    from engine.extractors import EXTRACTORS  # here: the extractors are no part of the schema
    from engine.extractors.messaging import MessagingExtractor

    chat = sorted(t for t, cls in EXTRACTORS.items() if issubclass(cls, MessagingExtractor))
    first = ("CASE WHEN json_valid(metadata) THEN CASE WHEN json_type(metadata, '$.first_ts') "
             "= 'text' THEN substr(json_extract(metadata, '$.first_ts'), 1, 10) END END")
    done = conn.execute(
        f"UPDATE chunks SET first_date = {first} WHERE metadata LIKE '%\"first_ts\"%' "
        f"AND source_type IN ({','.join('?' * len(chat))}) "
        f"AND content_date IS NOT NULL AND {first} < content_date "
        f"AND {first} GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'", chat).rowcount
    rows = conn.execute(
        "SELECT content_date, first_date FROM chunks WHERE first_date IS NOT NULL").fetchall()
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '0')", (LONGEST_SPAN_KEY,))
    record_spans(conn, (span_days(last, first) for last, first in rows))
    return done
