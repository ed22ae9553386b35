"""Time phrases in a query ("last week", "in March", "2026-03-01..2026-03-15") as date ranges.

:func:`parse_time_phrase` finds at most one phrase, resolves it against an injectable ``now``
and returns a :class:`TimeQuery`: the range (or None), the query with the phrase removed, and
the phrase as written. "Today" is ``now.date()`` in ``now``'s own zone: content dates are local
dates as written (docs/data-layer.md), so callers pass a local ``now``.

Why a small grammar and not ``dateparser``. Measured on this machine (dateparser 1.5.0,
20 typical queries, ``search_dates`` with ``languages=["en"]``): import 130-190 ms, first call
220 ms, then 1.9 ms per query on average with 5-13 ms for "last week", "two weeks ago" and
"between March and May". Over the 1 ms per keystroke budget, and it returns points, not
ranges ("last week" -> the same hour seven days ago), and dates "I may go", "march on" and
"Sunday roast recipe" -- exactly the false positives to avoid. The table
(``engine/dates/timepoints.py``) imports in 9-13 ms and takes 0.02 ms per query (0.05 ms at worst)
on the same 20 queries, and its rules are stated below.

The rules (tested in tests/time/test_timephrase.py):

- A week is Monday-Sunday (ISO). Ranges are whole periods, ends inclusive ("this month" is the
  whole month, future days included).
- A bare month is its most recent occurrence, the current month included ("in December" on
  2026-12-01 is 2026-12); "last March" is the most recent March before the current month;
  "this March" is this year's, "next March" the first one after this month. A day without a
  year ("on 14 March", "March 14") is its most recent occurrence on or before today.
- Seasons are northern meteorological: spring Mar-May, summer Jun-Aug, autumn/fall Sep-Nov,
  winter Dec-Feb, a winter named by the year of its December ("winter 2025" = 2025-12-01 ..
  2026-02-28). "last summer" is the most recent summer that has ended; "this summer" the one
  under way, else the most recent one.
- "N days ago" is that day; "N weeks ago" that ISO week; "N months ago" that calendar month;
  "N years ago" that calendar year. "past/last N days|weeks|months|years" ends today.
- "since X" starts at X; "after X" starts the day after X ends; "before X" ends the day
  before X starts; "until X" ends with X; "between X and Y" / "from X to Y" / "X..Y" (and
  "X - Y" between full dates) span both; a year written on one end only is the other end's
  too ("between August 11 and August 15 2023"; "between December 28 and January 3 2024"
  starts in 2023); a bare first month later than the second is taken from the year before.
  A year may follow a day with a comma and no space ("December 1,2023"). "from X" alone is no
  date ("a message from June"): only in ranges, or beside nothing but the words of asking
  what filled a period ("show me everything from March", engine/retrieval/fts_query.py).
- "the week of March 10" is the Monday-Sunday week holding that day; "the week / weekend /
  month / year before last" is two back from this one.
- Also: "this/last/next weekend" (Saturday-Sunday of that ISO week), quarters "Q2 2026" /
  "2026-Q2", ISO weeks "2026-W11". A trailing 's belongs to the phrase ("today's weather").
  Not understood: slash dates (14/03 vs 3/14 is ambiguous) and holidays by name.
- "on this day" is the same month-day in every earlier year (:attr:`TimeRange.month_day`).
- Date intent. Words that only look like dates never filter: a bare month name or year counts
  only after one of in/during/on/since/after/before/until/till/between/from (or with
  last/this/next, a day number or a year: "March 14", "March 2026"); "May" must also be
  capitalised ("I may go" stays text); month abbreviations need a day or a year ("Mar 14");
  weekday names only with last/this/next or after such a word ("Sunday roast recipe" stays
  text); seasons need last/this/next, a year, or such a word ("summer camp ideas" stays text);
  and "the 4th of July party" stays text: the "Nth of Month" form names holidays, so without a
  year it needs such a word ("on the 4th of July").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from engine.dates.timepoints import ON_THIS_DAY, Point, find_points
from engine.dates.timerange import Span, TimeRange
from engine.retrieval.fts_query import asks_for_the_period, parse_query

_INTENT = re.compile(r"\b(between|from|since|after|before|until|till|in|during|on)\s+"
                     r"(?:the\s+)?$", re.IGNORECASE)
_THE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_JOIN = re.compile(r"\s*(?:\.\.|\band\b|\bto\b|\buntil\b|\btill\b|\bthrough\b|–|-)\s*",
                   re.IGNORECASE)


@dataclass(frozen=True)
class TimeQuery:
    """What :func:`parse_time_phrase` found: iterable as (range, text, phrase)."""

    range: TimeRange | None
    text: str  # the query with the phrase removed (unchanged when there is none)
    phrase: str | None  # as written, e.g. "last week"
    span: tuple[int, int] | None = None  # where the phrase was in the query

    def __iter__(self):
        return iter((self.range, self.text, self.phrase))

    def header(self) -> str | None:
        """``time: 2026-03-09..2026-03-15 (from "last week")`` for --json and MCP headers."""
        return None if self.range is None else f'time: {self.range.label()} (from "{self.phrase}")'


def _phrase(query: str, points: list[Point], i: int, implied: bool, from_alone: bool = False
            ) -> tuple[int, int, TimeRange] | None:
    """The phrase around point ``i`` (its intent word, a second point of a range), if any."""
    p = points[i]
    intent = _INTENT.search(query, 0, p.start)
    word = intent[1].lower() if intent else None
    start = intent.start() if intent else p.start
    nxt = points[i + 1] if i + 1 < len(points) else None
    join = _JOIN.match(query, p.end) if nxt else None
    if nxt and join and join.end() == nxt.start and (
            word in ("between", "from") or join[0].strip() == ".."
            or (join[0].strip() in "-–" and not (p.needs_intent or nxt.needs_intent))):
        first, last = _one_year(p, nxt)
        since, until = first[0], last[1]
        if since > until:  # "between November and February": the year before; else swapped
            since, until = ((since.replace(year=since.year - 1), until) if p.bare_month
                            else (nxt.span[0], p.span[1]))
        return start, _possessive(query, nxt.end), TimeRange(since, until)
    if word == "from" and not from_alone:  # "from June" is a sender as often as a date
        word, start = None, p.start
    if word is None and p.needs_intent and not implied:
        return None
    if word is None:
        the = _THE.search(query, 0, p.start)  # "the summer of 2025"
        start = the.start() if the else start
    since, until = p.span
    rng = {"since": TimeRange(since),
           "after": TimeRange(until + timedelta(days=1)),
           "before": TimeRange(None, since - timedelta(days=1)),
           "until": TimeRange(None, until), "till": TimeRange(None, until)
           }.get(word, TimeRange(since, until))
    return start, _possessive(query, p.end), rng


def _one_year(p: Point, nxt: Point) -> tuple[Span, Span]:
    """The ends' spans, a year written on one end given to the other when its year was only
    inferred from today: "between August 11 and August 15 2023" is all in 2023, and
    "between December 28 and January 3 2024" starts in 2023. With no year on either end, the
    first is read in the last one's year: "from Feb 29 to Mar 3" is no two-year range."""
    first, last = p.span, nxt.span
    if p.free_year:
        year = last[1].year
        first = p.in_year(year)
        if first[0] > last[1]:
            first = p.in_year(year - 1)
    elif nxt.free_year:
        year = first[0].year
        last = nxt.in_year(year)
        if last[1] < first[0]:
            last = nxt.in_year(year + 1)
    return first, last


def _possessive(query: str, end: int) -> int:
    """Past a trailing 's ("today's weather", "last week's run")."""
    return end + 2 if query.startswith(("'s", "’s"), end) else end


def _today(now: datetime | date) -> date:
    return now.date() if isinstance(now, datetime) else now


def _without(query: str, start: int, end: int) -> str:
    text = " ".join((query[:start] + " " + query[end:]).split())
    return re.sub(r"\s+([?.!,;:])", r"\1", text).strip(" ,;")


def parse_time_phrase(query: str, now: datetime | date, *, implied: bool = False,
                      from_alone: bool = False) -> TimeQuery:
    """The first time phrase in ``query`` relative to ``now`` (see the module rules).

    ``implied`` treats the text as a date on its own (a bare "March" or "2025" counts): for a
    timeline's date argument, not for search queries. ``from_alone`` reads "from March" as a
    date outside a range too.
    """
    today = _today(now)
    on_day = ON_THIS_DAY.search(query)
    points = find_points(query, today)
    for i, p in enumerate(points):
        if on_day and on_day.start() <= p.start:
            break
        found = _phrase(query, points, i, implied, from_alone)
        if found:
            start, end, rng = found
            return TimeQuery(rng, _without(query, start, end), query[start:end], (start, end))
    if on_day:
        earlier = date(today.year - 1, 12, 31)
        rng = TimeRange(None, earlier, (today.month, today.day))
        return TimeQuery(rng, _without(query, *on_day.span()), on_day[0], on_day.span())
    return TimeQuery(None, query, None)


def resolve_time(text: str, now: datetime | date) -> TimeRange | None:
    """``text`` as one date expression ("March", "2025", "last week", "2026-03-01..2026-03-15"),
    or None when it is not wholly one: a timeline's DATE|RANGE|PHRASE argument."""
    found = parse_time_phrase(text.strip(), now, implied=True)
    return found.range if found.range is not None and not found.text else None


@dataclass(frozen=True)
class SearchTime:
    """What a search runs with once the query's time phrase is applied (:func:`search_time`)."""

    text: str  # what the arms see
    since: str | None  # ISO dates for Filters
    until: str | None
    month_day: str | None  # "MM-DD" for "on this day", else None
    found: TimeQuery  # the phrase, applied or not
    applied: bool  # False when explicit since/until won, or there was no phrase

    @property
    def header(self) -> str | None:
        if self.applied:
            return self.found.header()
        if self.found.range is not None:  # explicit since/until won over the phrase
            return f'time: "{self.found.phrase}" not applied: the dates given win'
        return None


def search_time(query: str, now: datetime | date, since: str | None = None,
                until: str | None = None) -> SearchTime:
    """The search's text and date filters: the phrase becomes the filters, and its words
    leave the text either way; explicit ``since``/``until`` win over it (the header says
    so)."""
    found = parse_time_phrase(query, now)
    if found.range is None and "from" in query.lower():  # "everything from March": no
        asked = parse_time_phrase(query, now, from_alone=True)  # sender beside question words
        if asked.range is not None and asks_for_the_period(parse_query(asked.text)):
            found = asked
    if found.range is None:
        return SearchTime(query, since, until, None, found, False)
    if since or until:
        return SearchTime(found.text, since, until, None, found, False)
    rng = found.range
    return SearchTime(found.text, rng.since_iso, rng.until_iso, rng.month_day_text, found, True)
