"""The timeline: everything whose ``content_date`` falls in a range, day by day, across sources.
A chunk that spans days (a chat window over two sessions, engine/dates/spans.py) is also listed on its
first day, at its first message's time: the days its messages were sent, not those between.

Every query keys on the index ``chunks_source_type_date (source_type, content_date)``: the
source types are listed explicitly (``source_type IN (...)``), so each type is one range scan
of that index, and the per-day counts are read from the index alone. Items are then fetched
only for the days the ``limit`` reaches. "On this day" is a list of dates (the same month-day
in each earlier year), so it is index lookups too, never a scan of every chunk.

Measured on a 100k-chunk demo index (2 shared cores): a day 1.4 ms, a week 4 ms, a month 6 ms,
a whole year 22 ms (counts of 92k chunks, 200 items), a year's activity calendar 18 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from engine.dates.spans import ends_before, longest_span
from engine.dates.timephrase import resolve_time
from engine.dates.timerange import TimeRange
from engine.library_types import parse_metadata
from engine.storage.db import Connection

# How a day reads: the day's own records first, then conversations, then documents.
TYPE_ORDER = ("journal", "checkin", "garmin", "cgm", "event", "experiment", "meeting",
              "voice", "slack", "telegram", "signal", "email_catalog", "interview",
              "interview_meta", "transcript", "note", "scratch", "story", "quote",
              "observation", "podcast_digest", "board_summary", "entity_file", "codebase_doc",
              "rwgps_memory")
HEAD_CHARS = 400  # of content read per item: enough for a one-line head
TITLE_CHARS = 160


class TimelineError(ValueError):
    """A date argument that is no date, range or phrase (one line, for the user)."""


@dataclass(frozen=True)
class TimelineItem:
    id: str
    source_type: str
    source_file: str
    content_date: str
    title: str  # one line: subject, meeting title, channel and senders, section path...
    head: str  # the first line of the content, flattened
    timestamp: str | None = None
    lines: tuple[int, int] | None = None  # messaging windows: first and last line in the file
    line: int | None = None  # records: the JSONL line
    section: int | None = None  # markdown: the section number
    metadata: dict = field(default_factory=dict)


@dataclass
class TypeGroup:
    source_type: str
    count: int  # chunks of this type on this day (items may hold fewer past the limit)
    items: list[TimelineItem] = field(default_factory=list)


@dataclass
class TimelineDay:
    date: str
    count: int
    groups: list[TypeGroup] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {g.source_type: g.count for g in self.groups}


@dataclass
class Timeline:
    range: TimeRange
    days: list[TimelineDay]  # every day with content, in the order asked for
    total: int  # chunks in the range
    counts: dict[str, int]  # per source type, over the range
    shown: int  # items carried (at most the limit)
    phrase: str | None = None  # the phrase the range came from, when it came from one

    @property
    def truncated(self) -> bool:
        return self.shown < self.total


@dataclass
class Activity:
    """Chunks per day of one year: an activity calendar's cells."""

    year: int
    source_type: str | None
    days: dict[str, int]  # "YYYY-MM-DD" -> chunks, days without any left out
    total: int  # chunks with a day in the year (one that spans days is on two above)
    max: int

    def level(self, day: str, levels: int = 4) -> int:
        """0 for an empty day, else 1..levels by the day's share of the busiest day."""
        n = self.days.get(day, 0)
        return 0 if n == 0 or self.max == 0 else max(1, -(-n * levels // self.max))


def source_types(conn: Connection, wanted: Sequence[str] | None = None) -> list[str]:
    """The types to scan: ``wanted``, else every type the index has files of."""
    if wanted:
        return list(dict.fromkeys(wanted))
    rows = conn.execute("SELECT DISTINCT source_type FROM index_state "
                        "WHERE source_type IS NOT NULL").fetchall()
    return sorted(r[0] for r in rows)


def _type_key(source_type: str) -> tuple[int, str]:
    return (TYPE_ORDER.index(source_type) if source_type in TYPE_ORDER else len(TYPE_ORDER),
            source_type)


def _in(values: Sequence[str]) -> str:
    return ",".join("?" * len(values))


def _date_clause(rng: TimeRange, days: list[str] | None,
                 column: str = "content_date") -> tuple[str, list]:
    if days is not None:
        return f"{column} IN ({_in(days)})", list(days)
    where, args = rng.sql("chunks", column)
    return f"{column} IS NOT NULL AND {where}", args


def _month_day_dates(conn: Connection, rng: TimeRange, types: list[str]) -> list[str]:
    """The dates "on this day" means: that month-day in every year from the oldest chunk on."""
    month, day = rng.month_day
    # a span's first day can be in a year no chunk ends in (New Year's Eve to 2 January)
    oldest = [conn.execute(f"SELECT min({column}) FROM chunks WHERE source_type = ? AND "
                           f"{column} IS NOT NULL", (t,)).fetchone()[0]
              for t in types for column in ("content_date", "first_date")]
    first = min((int(o[:4]) for o in oldest if o and o[:4].isdigit()), default=None)
    last = (rng.until or date.today()).year
    if first is None:
        return []
    out = []
    for year in range(max(first, 1), last + 1):
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
    rng = resolve_time(str(when), now or datetime.now().astimezone())
    if rng is None:
        raise TimelineError(f"not a date, range or time phrase: {str(when)[:80]!r} "
                            "(try 2026-03-14, 2026-03-01..2026-03-15, March, last week)")
    return rng, str(when).strip()


def timeline(conn: Connection, when: TimeRange | date | str, *,
             now: datetime | date | None = None, types: Sequence[str] | None = None,
             limit: int = 200, newest_first: bool = False) -> Timeline:
    """Every chunk dated in ``when``, grouped by day then source type, with counts.

    ``when`` is a :class:`TimeRange`, a date, or text ("2026-03-14", "2026-03-01..2026-03-15",
    "March", "last week", "on this day"). Counts cover the whole range; items stop after
    ``limit`` (in day order, oldest first unless ``newest_first``).
    """
    rng, phrase = resolve_when(when, now)
    scan = source_types(conn, types)
    if not scan:
        return Timeline(rng, [], 0, {}, 0, phrase)
    days = _month_day_dates(conn, rng, scan) if rng.month_day else None
    if days == []:
        return Timeline(rng, [], 0, {}, 0, phrase)
    rows = []
    for column in ("content_date", "first_date"):  # a chunk that spans days is on both ends
        where, args = _date_clause(rng, days, column)
        rows += conn.execute(
            f"SELECT source_type, {column}, count(*) FROM chunks WHERE source_type IN "
            f"({_in(scan)}) AND {where} GROUP BY source_type, {column}",  # the index's order
            [*scan, *args]).fetchall()
    per_day: dict[str, dict[str, int]] = {}
    for source_type, day, n in rows:
        per_day.setdefault(day, {})[source_type] = per_day.get(day, {}).get(source_type, 0) + n
    order = sorted(per_day, reverse=newest_first)
    wanted, running = [], 0
    for day in order:
        if running >= limit:
            break
        wanted.append(day)
        running += sum(per_day[day].values())
    items = _items(conn, scan, wanted) if wanted and limit > 0 else {}
    out_days, shown = [], 0
    for day in order:
        groups = []
        for source_type in sorted(per_day[day], key=_type_key):
            group = TypeGroup(source_type, per_day[day][source_type])
            for item in items.get((day, source_type), []):
                if shown < limit:
                    group.items.append(item)
                    shown += 1
            groups.append(group)
        out_days.append(TimelineDay(day, sum(per_day[day].values()), groups))
    counts: dict[str, int] = {}
    for by_type in per_day.values():
        for source_type, n in by_type.items():
            counts[source_type] = counts.get(source_type, 0) + n
    return Timeline(rng, out_days, sum(counts.values()),
                    dict(sorted(counts.items(), key=lambda kv: _type_key(kv[0]))), shown, phrase)


def on_this_day(conn: Connection, *, now: datetime | date | None = None,
                month_day: tuple[int, int] | None = None, types: Sequence[str] | None = None,
                limit: int = 200) -> Timeline:
    """The same month-day (today's, or ``month_day``) in every earlier year, newest first."""
    today = now.date() if isinstance(now, datetime) else (now or date.today())
    rng = TimeRange(None, date(today.year - 1, 12, 31), month_day or (today.month, today.day))
    return timeline(conn, rng, types=types, limit=limit, newest_first=True)


def activity(conn: Connection, year: int, source_type: str | None = None) -> Activity:
    """Chunks per day of ``year`` (all types, or one): read from the index alone. A chunk that
    spans days counts on its first day too, as the timeline lists it; the total counts each
    chunk with a day in the year once."""
    scan = [source_type] if source_type else source_types(conn)
    days: dict[str, int] = {}
    total = 0
    bounds = [f"{year:04d}-01-01", f"{year:04d}-12-31"]
    for column in ("content_date", "first_date") if scan else ():
        for day, n in conn.execute(  # grouped in the index's order: no temporary b-tree
                f"SELECT {column}, count(*) FROM chunks WHERE source_type IN ({_in(scan)}) "
                f"AND {column} >= ? AND {column} <= ? GROUP BY source_type, {column}",
                [*scan, *bounds]):
            days[day] = days.get(day, 0) + n
            total += n if column == "content_date" else 0
    if scan:  # those starting in the year and ending after it: by the index chunks_span, on
        # the days after it the longest span reaches (engine/dates/spans.py; 0.01 ms, not 3 ms)
        after = (f"{year + 1:04d}-01-01", ends_before(bounds[1], longest_span(conn)))
        total += conn.execute(
            f"SELECT count(*) FROM chunks WHERE +source_type IN ({_in(scan)}) AND "
            "+first_date >= ? AND +first_date <= ? AND content_date >= ? AND content_date < ? "
            "AND first_date IS NOT NULL", [*scan, *bounds, *after]).fetchone()[0]
    days = dict(sorted(days.items()))
    return Activity(year, source_type, days, total, max(days.values(), default=0))


# -- items ---------------------------------------------------------------------------------------

def _items(conn: Connection, scan: list[str], days: list[str]
           ) -> dict[tuple[str, str], list[TimelineItem]]:
    """The items of ``days`` by (day, type): a chunk under content_date, and a chunk that spans
    days under its first day too, stamped with its first message's time there."""
    lo, hi = min(days), max(days)
    wanted = set(days)
    out: dict[tuple[str, str], list[TimelineItem]] = {}
    for column in ("content_date", "first_date"):
        where = (f"{column} IN ({_in(days)})" if len(days) < 64
                 else f"{column} >= ? AND {column} <= ?")
        rows = conn.execute(
            f"SELECT id, source_type, source_file, content_date, "
            f"substr(content, 1, {HEAD_CHARS}), metadata, {column} FROM chunks "
            f"WHERE source_type IN ({_in(scan)}) AND {where}",
            [*scan, *(days if len(days) < 64 else [lo, hi])]).fetchall()
        for row in rows:
            if row[6] not in wanted:
                continue
            item = _item(row[:6])
            if column == "first_date":
                first_ts = item.metadata.get("first_ts")
                item = replace(item, timestamp=first_ts if isinstance(first_ts, str) else None)
            out.setdefault((row[6], item.source_type), []).append(item)
    for group in out.values():
        group.sort(key=lambda it: (it.timestamp or "", it.lines or (0, 0), it.line or 0,
                                   it.section or 0, it.id))
    return out


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
