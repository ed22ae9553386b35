"""The timeline: everything dated in a range, day by day and by source type, in messages and
entries. A chat log counts and lists the messages sent each day, each on the day it was sent,
whatever window holds it (engine/dates/message_days.py); every other type counts its chunks
(entries) on their day. So every count below (a day, a type, the range, the activity calendar)
is the same sum of the same rows, and no message is counted twice or missed.

Counts come from ``day_counts`` (one row per type and day, kept by triggers): a year's counts
read ~366 rows per type. Items are read only for the days the ``limit`` reaches: entries from
the index ``chunks_source_type_date``, a chat day's messages from ``message_days_by_day`` with
their windows' content. A conversation's day is one item listing its first ``fold`` messages
("N more" says the rest). "On this day" is a list of dates (the same month-day in each earlier
year), so it is index lookups too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from engine.dates import clock
from engine.dates.message_days import DayMessage, chat_types, message_at
from engine.dates.timeline_types import (
    Activity,
    Timeline,
    TimelineDay,
    TimelineError,
    TimelineItem,
    TypeGroup,
)
from engine.dates.timephrase import resolve_time
from engine.dates.timerange import TimeRange
from engine.extractors import channel_name
from engine.library_types import parse_metadata
from engine.storage.db import Connection

# How a day reads: the day's own records first, then conversations, then documents.
TYPE_ORDER = ("journal", "checkin", "garmin", "cgm", "event", "experiment", "meeting",
              "voice", "slack", "telegram", "whatsapp", "signal", "email_catalog", "interview",
              "interview_meta", "transcript", "note", "scratch", "story", "quote",
              "observation", "podcast_digest", "board_summary", "entity_file", "codebase_doc",
              "rwgps_memory")
HEAD_CHARS = 400  # of content read per item: enough for a one-line head
TITLE_CHARS = 160
FOLD = 8  # messages listed per conversation and day; "N more" says the rest
MAX_DAYS_IN = 64  # up to this many days, items are read by an IN list, past it by a range


def source_types(conn: Connection, wanted: Sequence[str] | None = None) -> list[str]:
    """The types to scan: ``wanted``, else every type with something dated: one seek per
    type in day_counts' key (a DISTINCT would read all of it: ~20k rows at 500k chunks)."""
    if wanted:
        return list(dict.fromkeys(wanted))
    out: list[str] = []
    while (row := conn.execute("SELECT min(source_type) FROM day_counts WHERE source_type > ?",
                               (out[-1] if out else "",)).fetchone()) and row[0] is not None:
        out.append(row[0])
    return out


class _TypeRank(dict):
    """source type -> its place in a day (TYPE_ORDER, then other types by name)."""

    def __missing__(self, source_type: str) -> tuple[int, str]:
        rank = self[source_type] = (
            TYPE_ORDER.index(source_type) if source_type in TYPE_ORDER else len(TYPE_ORDER),
            source_type)
        return rank


TYPE_RANK = _TypeRank()


def _tuples(conn: Connection, sql: str, args: Sequence = ()) -> list[tuple]:
    """Rows as plain tuples: a year reads ~6,000 count rows, and a named row costs twice as
    much to make."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, args).fetchall()


def _in(values: Sequence[str]) -> str:
    return ",".join("?" * len(values))


def _day_clause(column: str, rng: TimeRange | None, days: Sequence[str] | None
                ) -> tuple[str, list]:
    """``column`` in ``days`` (an IN list when short, else their range: the caller keeps only
    the days asked for), else in ``rng``."""
    if days is not None:
        if len(days) <= MAX_DAYS_IN:
            return f"{column} IN ({_in(days)})", list(days)
        return f"{column} >= ? AND {column} <= ?", [min(days), max(days)]
    assert rng is not None
    where, args = rng.sql("x", column)
    return f"{column} IS NOT NULL AND {where.replace('x.', '')}", args


def day_counts(conn: Connection, scan: Sequence[str], rng: TimeRange | None,
               days: Sequence[str] | None = None) -> dict[str, dict[str, int]]:
    """day -> source type -> messages (chat types) or entries (the others), days with none
    left out."""
    where, args = _day_clause("day", rng, days)
    chat = chat_types()
    wanted = set(days) if days is not None else None
    out: dict[str, dict[str, int]] = {}
    rows = _tuples(conn,
        f"SELECT day, source_type, CASE WHEN source_type IN ({_in(chat)}) THEN messages "
        f"ELSE entries END AS n FROM day_counts WHERE source_type IN ({_in(scan)}) "
        f"AND {where} AND n > 0", [*chat, *scan, *args])
    for day, source_type, n in rows:
        if wanted is None or day in wanted:
            by_type = out.get(day)
            if by_type is None:
                by_type = out[day] = {}
            by_type[source_type] = n
    return out


def _month_day_dates(conn: Connection, rng: TimeRange, types: list[str]) -> list[str]:
    """The dates "on this day" means: that month-day in every year from the oldest day on."""
    month, day = rng.month_day
    oldest = conn.execute(f"SELECT min(day) FROM day_counts WHERE source_type IN ({_in(types)})",
                          types).fetchone()[0]
    if not oldest or not oldest[:4].isdigit():
        return []
    last = (rng.until or clock.today()).year
    out = []
    for year in range(max(int(oldest[:4]), 1), last + 1):
        try:
            d = date(year, month, day)
        except ValueError:  # Feb 29 outside leap years
            continue
        if rng.contains(d):
            out.append(d.isoformat())
    return out


def resolve_when(when: TimeRange | date | str, now: datetime | date | None = None
                 ) -> tuple[TimeRange, str | None]:
    """A range from a TimeRange, a date, or text (a date, a range or any phrase)."""
    if isinstance(when, TimeRange):
        return when, None
    if isinstance(when, date):
        day = when.date() if isinstance(when, datetime) else when
        return TimeRange(day, day), None
    rng = resolve_time(str(when), now or clock.now())
    if rng is None:
        raise TimelineError(f"not a date, range or time phrase: {str(when)[:80]!r} "
                            "(try 2026-03-14, 2026-03-01..2026-03-15, March, last week)")
    return rng, str(when).strip()


def timeline(conn: Connection, when: TimeRange | date | str, *,
             now: datetime | date | None = None, types: Sequence[str] | None = None,
             limit: int = 200, newest_first: bool = False, fold: int = FOLD) -> Timeline:
    """Every message and entry dated in ``when``, grouped by day then source type, with counts.

    ``when`` is a :class:`TimeRange`, a date, or text ("2026-03-14", "2026-03-01..2026-03-15",
    "March", "last week", "on this day"). Counts cover the whole range; items (entries and
    conversations' days, each listing up to ``fold`` messages) stop after ``limit``, in day
    order (oldest first unless ``newest_first``).
    """
    rng, phrase = resolve_when(when, now)
    scan = source_types(conn, types)
    days = _month_day_dates(conn, rng, scan) if scan and rng.month_day else None
    if not scan or days == []:
        return Timeline(rng, [], 0, {}, 0, phrase)
    per_day = day_counts(conn, scan, rng, days)
    order = sorted(per_day, reverse=newest_first)
    items: dict[tuple[str, str], list[TimelineItem | LogDay]] = {}
    at = 0
    while at < len(order) and sum(map(len, items.values())) < limit:
        # the next days whose messages and entries could fill the limit (a conversation's day
        # is one item however many messages it holds, so a batch may fall short: read on)
        batch, want = [], limit - sum(map(len, items.values()))
        while at < len(order) and want > 0:
            batch.append(order[at])
            want -= sum(per_day[order[at]].values())
            at += 1
        items.update(_items(conn, scan, batch))
    out_days, shown = [], 0
    for day in order:
        groups = []
        for source_type in sorted(per_day[day], key=TYPE_RANK.__getitem__):
            group = TypeGroup(source_type, per_day[day][source_type])
            for item in items.get((day, source_type), []):
                if shown < limit:
                    group.items.append(item)
                    shown += 1
            groups.append(group)
        out_days.append(TimelineDay(day, sum(per_day[day].values()), groups))
    _list_messages(conn, [g for d in out_days for g in d.groups], fold)
    counts: dict[str, int] = {}
    for by_type in per_day.values():
        for source_type, n in by_type.items():
            counts[source_type] = counts.get(source_type, 0) + n
    truncated = at < len(order) or shown < sum(map(len, items.values()))
    return Timeline(rng, out_days, sum(counts.values()),
                    dict(sorted(counts.items(), key=lambda kv: TYPE_RANK[kv[0]])), shown, phrase,
                    truncated)


def on_this_day(conn: Connection, *, now: datetime | date | None = None,
                month_day: tuple[int, int] | None = None, types: Sequence[str] | None = None,
                limit: int = 200, fold: int = FOLD) -> Timeline:
    """The same month-day (today's, or ``month_day``) in every earlier year, newest first."""
    today = now.date() if isinstance(now, datetime) else (now or clock.today())
    rng = TimeRange(None, date(today.year - 1, 12, 31), month_day or (today.month, today.day))
    return timeline(conn, rng, types=types, limit=limit, newest_first=True, fold=fold)


def activity(conn: Connection, year: int, source_type: str | None = None) -> Activity:
    """Messages and entries per day of ``year`` (all types, or one), summed in day_counts."""
    scan = [source_type] if source_type else source_types(conn)
    chat = chat_types()
    days: dict[str, int] = {}
    messages = entries = 0
    for day, m, e in _tuples(
            conn, f"SELECT day, sum(CASE WHEN source_type IN ({_in(chat)}) THEN messages ELSE 0 END), "
            f"sum(CASE WHEN source_type IN ({_in(chat)}) THEN 0 ELSE entries END) "
            f"FROM day_counts WHERE source_type IN ({_in(scan)}) AND day >= ? AND day <= ? "
            f"GROUP BY day ORDER BY day",
            [*chat, *chat, *scan, f"{year:04d}-01-01", f"{year:04d}-12-31"]) if scan else ():
        if m + e > 0:
            days[day] = m + e
            messages, entries = messages + m, entries + e
    return Activity(year, source_type, days, messages + entries, max(days.values(), default=0),
                    messages, entries)


# -- items ---------------------------------------------------------------------------------------

@dataclass
class LogDay:
    """A chat log's day before its messages are read: only those the limit lists are."""

    day: str
    source_type: str
    source_file: str
    count: int
    first_time: str
    windows: list[tuple[int, int, str, str]]  # (window, rowid, marks, first minute), in order


def _items(conn: Connection, scan: list[str], days: list[str]
           ) -> dict[tuple[str, str], list[TimelineItem | LogDay]]:
    """The items of ``days`` by (day, type): entries, then each chat log's day."""
    wanted = set(days)
    out: dict[tuple[str, str], list] = {}
    chat = chat_types()
    entry_types = [t for t in scan if t not in chat]
    if entry_types:
        where, args = _day_clause("content_date", None, days)
        for row in _tuples(
                conn, f"SELECT id, source_type, source_file, content_date, "
                f"substr(content, 1, {HEAD_CHARS}), metadata FROM chunks "
                f"WHERE source_type IN ({_in(entry_types)}) AND {where}", [*entry_types, *args]):
            if row[3] in wanted:
                item = _item(row)
                out.setdefault((item.content_date, item.source_type), []).append(item)
    for group in out.values():
        group.sort(key=lambda it: (it.timestamp or "", it.lines or (0, 0), it.line or 0,
                                   it.section or 0, it.id))
    chat_scan = [t for t in scan if t in chat]
    if chat_scan:
        out.update(_log_days(conn, chat_scan, days))
    return out


def _log_days(conn: Connection, chat_scan: list[str], days: list[str]
              ) -> dict[tuple[str, str], list[LogDay]]:
    """Per (day, type), a chat log's day per log, in the order they started: message_days
    alone, no window's row (a busy day at 500k chunks has ~700 windows in ~300 logs)."""
    where, args = _day_clause("day", None, days)
    wanted = set(days)
    logs: dict[tuple[str, str, str], LogDay] = {}
    for day, source_type, source_file, window, rowid, count, first_time, marks in _tuples(
            conn,
            f"SELECT day, source_type, source_file, window, chunk_rowid, messages, first_time, "
            f"marks FROM message_days WHERE source_type IN ({_in(chat_scan)}) AND {where}",
            [*chat_scan, *args]):
        if day not in wanted:
            continue
        log = logs.get((day, source_type, source_file))
        if log is None:
            log = logs[day, source_type, source_file] = LogDay(
                day, source_type, source_file, 0, "", [])
        log.count += count
        log.windows.append((window, rowid, marks, first_time))
    out: dict[tuple[str, str], list[LogDay]] = {}
    for log in logs.values():
        log.windows.sort()
        log.first_time = log.windows[0][3]  # the first message of the day, in file order
        out.setdefault((log.day, log.source_type), []).append(log)
    for group in out.values():
        group.sort(key=lambda log: (log.first_time, log.source_file))
    return out


def _list_messages(conn: Connection, groups: list[TypeGroup], fold: int) -> None:
    """Turn each chat log's day the limit lists into its item: its first ``fold`` messages,
    read from as few windows as hold them, in batched reads."""
    logs = [log for g in groups for log in g.items if isinstance(log, LogDay)]
    listed: dict[int, list[DayMessage]] = {id(log): [] for log in logs}
    todo = [(log, 0) for log in logs]
    while todo:
        rowids = [log.windows[i][1] for log, i in todo]
        chunks: dict[int, tuple[str, str]] = {}
        for start in range(0, len(rowids), 500):
            part = rowids[start:start + 500]
            rows = _tuples(conn, f"SELECT rowid, id, content FROM chunks "
                           f"WHERE rowid IN ({_in(part)})", part)
            chunks.update((rowid, (chunk_id, content)) for rowid, chunk_id, content in rows)
        again = []
        for log, i in todo:
            _, rowid, raw_marks, _ = log.windows[i]
            out = listed[id(log)]
            chunk_id, content = chunks.get(rowid, ("", ""))
            for mark in _marks(raw_marks)[:fold - len(out)]:
                out.append(DayMessage(*message_at(content, mark), chunk_id))
            if len(out) < fold and i + 1 < len(log.windows):
                again.append((log, i + 1))
        todo = again
    for group in groups:
        group.items = [_conversation_item(it, listed[id(it)]) if isinstance(it, LogDay) else it
                       for it in group.items]


def _conversation_item(log: LogDay, listed: list[DayMessage]) -> TimelineItem:
    """A chat log's day: titled by its channel (as the extractor names it, from the file's
    name), its messages that day and who sent those listed."""
    channel = channel_name(log.source_type, log.source_file)
    senders = list(dict.fromkeys(m.sender for m in listed))
    people = ", ".join(senders[:3]) + ("…" if len(senders) > 3 else "")
    noun = "message" if log.count == 1 else "messages"
    first = listed[0] if listed else None
    return TimelineItem(
        first.chunk_id if first else f"{log.source_file}#w{log.windows[0][0]}", log.source_type,
        log.source_file,
        log.day, _cut(f"{channel}: {log.count} {noun}" + (f" — {people}" if people else "")),
        _cut(first.text) if first else "", first.time.replace(" ", "T") if first else None,
        metadata={"channel": channel, "participants": senders},
        messages=tuple(listed), message_count=log.count)


def _marks(raw: str) -> list[list[int]]:
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return [m for m in value if isinstance(m, list) and len(m) == 3] \
        if isinstance(value, list) else []


def _item(row) -> TimelineItem:
    chunk_id, source_type, source_file, content_date, head, raw = tuple(row)
    meta = parse_metadata(raw)
    first = next((line for line in head.splitlines() if line.strip()), "")
    lines = meta.get("lines")
    return TimelineItem(
        chunk_id, source_type, source_file, content_date, _title(source_type, meta, first),
        _cut(first), meta.get("timestamp") if isinstance(meta.get("timestamp"), str) else None,
        tuple(lines) if isinstance(lines, list) and len(lines) == 2 else None,
        meta.get("line") if isinstance(meta.get("line"), int) else None,
        meta.get("section") if isinstance(meta.get("section"), int) else None, meta)


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


def _title(source_type: str, meta: dict, first_line: str) -> str:
    """A one-line title from what the extractor recorded (docs/data-layer.md), else the head."""
    if "participants" in meta and "message_count" in meta:
        people = ", ".join(str(p) for p in meta["participants"][:3])
        more = "…" if len(meta["participants"]) > 3 else ""
        return _cut(f"{meta.get('channel', '')}: {meta['message_count']} messages — "
                    f"{people}{more}")
    for key in ("subject", "title", "name", "episode", "question"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            path = meta.get("section_path")
            if isinstance(path, list) and path and key == "title":
                return _cut(" > ".join([value, *[str(p) for p in path if p != value]]))
            return _cut(value)
    return _cut(first_line)
