"""The table of time points: every pattern that names a day, week, month, quarter, season or
year in a query, and the span of dates it means against today.

:func:`find_points` returns them leftmost-longest; ``engine/dates/timephrase.py`` joins them into
phrases (intent words, ranges) and states the rules.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from engine.dates.timerange import (
    SEASONS,
    Span,
    month_span,
    season_span,
    shift_month,
    week_span,
    year_span,
)

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
           "a couple of": 2}

_FULL = "|".join(sorted((m.lower() for m in calendar.month_name if m), key=len, reverse=True))
_ANY = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
# "March 14 2025", "March 14, 2025", "March 14,2025"; not "May 3,2000,000 people"
_AND_YEAR = rf"(?:,\s*|\s+){_YEAR}(?!,\d)"
_NUM = r"(?P<n>\d{1,3}|a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|" \
       r"eleven|twelve)"
_WEEKDAY = "|".join(WEEKDAYS)
_SEASON = "|".join(SEASONS)


def _day(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _recent_day(m: int, d: int, today: date) -> date | None:
    """The most recent (month, day) on or before today (Feb 29: the last leap year)."""
    for y in range(today.year, today.year - 9, -1):
        day = _day(y, m, d)
        if day and day <= today:
            return day
    return None


def _month_word(word: str) -> int | None:
    """The month a word names; "may" only capitalised ("I may go")."""
    if word.lower() == "may" and not word[0].isupper():
        return None
    return MONTHS.get(word.lower().rstrip("."))


def _g(m: re.Match, name: str) -> str | None:
    """A named group that not every pattern of the table has."""
    return m.groupdict().get(name)


def _count(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBERS[text]


# -- the point table: (pattern, resolver, needs intent) ------------------------------------------
# A resolver gets the match and today and returns the span, or None when it is no date after all.
Resolver = Callable[[re.Match, date], "Span | None"]


def _r_iso_date(m, today):
    day = _day(int(m["y"]), int(m["m"]), int(m["d"]))
    return (day, day) if day else None


def _r_iso_month(m, today):
    return month_span(int(m["y"]), int(m["m"])) if 1 <= int(m["m"]) <= 12 else None


def _r_iso_week(m, today):
    try:
        monday = date.fromisocalendar(int(m["y"]), int(m["w"]), 1)
    except ValueError:
        return None
    return week_span(monday)


def _r_day_month(m, today):
    month = _month_word(m["mon"])
    if month is None:
        return None
    year = _g(m, "y")
    day = _day(int(year), month, int(m["d"])) if year else _recent_day(month, int(m["d"]), today)
    return (day, day) if day else None


def _r_month_year(m, today):
    month = _month_word(m["mon"])
    return month_span(int(m["y"]), month) if month else None


def _r_month(m, today):
    month = _month_word(m["mon"])
    if month is None:
        return None
    which = (_g(m, "q") or "").lower()
    y = today.year
    if which == "last":
        y -= month >= today.month
    elif which == "next":
        y += month <= today.month
    elif which != "this":
        y -= month > today.month
    return month_span(y, month)


def _r_year(m, today):
    return year_span(int(m["y"]))


def _r_relative(m, today):
    word = m[0].lower()
    if word == "today":
        return today, today
    if word == "yesterday":
        day = today - timedelta(days=1)
        return day, day
    q, unit = m["q"].lower(), m["unit"].lower()
    step = {"this": 0, "last": -1, "next": 1, "past": -1}[q]
    if q == "past":  # rolling: the last 7 days, 1 month, 1 year up to today
        return _rolling(1, unit, today)
    if unit == "week":
        return week_span(today + timedelta(weeks=step))
    if unit == "month":
        return month_span(*shift_month(today.year, today.month, step))
    return year_span(today.year + step)


def _r_weekend(m, today):
    step = {"this": 0, "last": -1, "next": 1}[m["q"].lower()]
    saturday = week_span(today + timedelta(weeks=step))[0] + timedelta(days=5)
    return saturday, saturday + timedelta(days=1)


def _r_quarter(m, today):
    first = 3 * int(m["qn"]) - 2
    return month_span(int(m["y"]), first)[0], month_span(int(m["y"]), first + 2)[1]


def _rolling(n: int, unit: str, today: date) -> Span:
    unit = unit.rstrip("s")
    if unit in ("day", "week"):
        return today - timedelta(days=n * (7 if unit == "week" else 1) - 1), today
    y, mo = shift_month(today.year, today.month, -n * (12 if unit == "year" else 1))
    start = _day(y, mo, today.day) or month_span(y, mo)[1]
    return start + timedelta(days=1), today


def _r_past_n(m, today):
    return _rolling(_count(m["n"]), m["unit"], today)


def _r_ago(m, today):
    n, unit = _count(m["n"]), m["unit"].lower()
    if unit == "day":
        day = today - timedelta(days=n)
        return day, day
    if unit == "week":
        return week_span(today - timedelta(weeks=n))
    if unit == "month":
        return month_span(*shift_month(today.year, today.month, -n))
    return year_span(today.year - n)


def _r_season(m, today):
    name = m["s"].lower()
    if _g(m, "y"):
        return season_span(name, int(_g(m, "y")))
    spans = [season_span(name, y) for y in range(today.year - 2, today.year + 2)]
    ended = [s for s in spans if s[1] < today]
    which = (_g(m, "q") or "this").lower()
    if which == "last":
        return ended[-1]
    if which == "next":
        return next(s for s in spans if s[0] > today)
    return next((s for s in spans if s[0] <= today <= s[1]), ended[-1])


def _r_weekday(m, today):
    wd, which = WEEKDAYS[m["wd"].lower()], (_g(m, "q") or "").lower()
    if which == "this":
        day = week_span(today)[0] + timedelta(days=wd)
    elif which == "next":
        day = today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1)
    else:  # "last": strictly before today; after "on"/"since": on or before today
        back = (today.weekday() - wd) % 7
        day = today - timedelta(days=back or (7 if which == "last" else 0))
    return day, day


def _week_of(resolve: Resolver) -> Resolver:
    """"the week of March 10": the Monday-Sunday week holding the day ``resolve`` finds."""
    def resolver(m, today):
        span = resolve(m, today)
        return week_span(span[0]) if span else None
    return resolver


def _r_before_last(m, today):
    """"the week / weekend / month / year before last": two back from this one."""
    unit = m["unit"].lower()
    if unit == "month":
        return month_span(*shift_month(today.year, today.month, -2))
    if unit == "year":
        return year_span(today.year - 2)
    monday = week_span(today - timedelta(weeks=2))[0]
    if unit == "weekend":
        return monday + timedelta(days=5), monday + timedelta(days=6)
    return monday, monday + timedelta(days=6)


def _p(pattern: str) -> re.Pattern:
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE)


_WEEK_OF = r"(?:the\s+)?week\s+of\s+"
POINTS: list[tuple[re.Pattern, Resolver, bool]] = [
    (_p(rf"{_WEEK_OF}(?P<y>\d{{4}})-(?P<m>\d\d)-(?P<d>\d\d)"), _week_of(_r_iso_date), False),
    (_p(rf"{_WEEK_OF}{_DAY}\s+(?P<mon>{_ANY})\.?(?:{_AND_YEAR})?"), _week_of(_r_day_month), False),
    (_p(rf"{_WEEK_OF}(?P<mon>{_ANY})\.?\s+{_DAY}(?:{_AND_YEAR})?"), _week_of(_r_day_month), False),
    (_p(r"(?:the\s+)?(?P<unit>week|weekend|month|year)\s+before\s+last"), _r_before_last, False),
    (_p(r"(?P<y>\d{4})-(?P<m>\d\d)-(?P<d>\d\d)"), _r_iso_date, False),
    (_p(r"(?P<y>\d{4})-(?P<m>\d\d)"), _r_iso_month, False),
    (_p(r"(?P<y>\d{4})-W(?P<w>\d\d)"), _r_iso_week, False),
    (_p(rf"{_DAY}\s+(?P<mon>{_ANY})\.?(?:{_AND_YEAR})?"), _r_day_month, False),
    (_p(rf"{_DAY}\s+of\s+(?P<mon>{_ANY})\.?{_AND_YEAR}"), _r_day_month, False),
    (_p(rf"{_DAY}\s+of\s+(?P<mon>{_ANY})"), _r_day_month, True),  # "the 4th of July party"
    (_p(rf"(?P<mon>{_ANY})\.?\s+{_DAY}(?:{_AND_YEAR})?"), _r_day_month, False),
    (_p(rf"(?P<mon>{_ANY})\.?{_AND_YEAR}"), _r_month_year, False),
    (_p(rf"(?P<q>last|this|next)\s+(?P<mon>{_FULL})"), _r_month, False),
    (_p(rf"(?P<mon>{_FULL})"), _r_month, True),
    (_p(_YEAR), _r_year, True),
    (_p(r"today|yesterday"), _r_relative, False),
    (_p(r"(?P<q>this|last|next)\s+weekend"), _r_weekend, False),
    (_p(rf"Q(?P<qn>[1-4])\s+{_YEAR}"), _r_quarter, False),
    (_p(rf"{_YEAR}-?Q(?P<qn>[1-4])"), _r_quarter, False),
    (_p(r"(?P<q>this|last|next|past)\s+(?P<unit>week|month|year)"), _r_relative, False),
    (_p(rf"(?:the\s+)?(?:past|last)\s+{_NUM}\s+(?P<unit>days?|weeks?|months?|years?)"),
     _r_past_n, False),
    (_p(rf"{_NUM}\s+(?P<unit>day|week|month|year)s?\s+ago"), _r_ago, False),
    (_p(rf"(?P<q>last|this|next)\s+(?P<s>{_SEASON})"), _r_season, False),
    (_p(rf"(?P<s>{_SEASON})\s+(?:of\s+)?{_YEAR}"), _r_season, False),
    (_p(rf"(?P<s>{_SEASON})"), _r_season, True),
    (_p(rf"(?P<q>last|this|next)\s+(?P<wd>{_WEEKDAY})"), _r_weekday, False),
    (_p(rf"(?P<wd>{_WEEKDAY})"), _r_weekday, True),
]
ON_THIS_DAY = _p(r"on\s+this\s+day")


@dataclass(frozen=True)
class Point:
    """A date named in the query: where, its span, whether it counts only after an intent word
    ("in", "since" ...), and whether it is a bare month (a range may put it in the year before).
    ``free_year`` is (month, day or None) when the year was not written but inferred from today:
    the other end of a range may name it ("between August 11 and August 15 2023")."""

    start: int
    end: int
    span: Span
    needs_intent: bool
    bare_month: bool = False
    free_year: tuple[int, int | None] | None = None

    def in_year(self, year: int) -> Span:
        """The span of a year-free point in ``year`` (Feb 29 of a common year: Feb 28, the
        last day of the February the other end named)."""
        if self.free_year is None:
            return self.span
        month, day = self.free_year
        if day is None:
            return month_span(year, month)
        found = _day(year, month, day) or date(year, month, day - 1)
        return found, found


def find_points(query: str, today: date) -> list[Point]:
    """Every point the table finds, leftmost-longest, not overlapping."""
    found = []
    for pattern, resolve, needs_intent in POINTS:
        for m in pattern.finditer(query):
            span = resolve(m, today)
            if span is not None:
                bare = resolve is _r_month and not _g(m, "q")
                free = None
                if bare:
                    free = (span[0].month, None)
                elif resolve is _r_day_month and not _g(m, "y"):
                    free = (span[0].month, span[0].day)
                found.append(Point(m.start(), m.end(), span, needs_intent, bare, free))
    found.sort(key=lambda p: (p.start, p.start - p.end))
    out: list[Point] = []
    for p in found:
        if not out or p.start >= out[-1].end:
            out.append(p)
    return out
