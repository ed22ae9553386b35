"""A date range (inclusive, either end open, or "on this day") and the calendar steps used by
time phrases and the timeline: months, ISO weeks (Monday-Sunday), years, seasons."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

# first month of each northern meteorological season (docs in engine/dates/timephrase.py)
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

Span = tuple[date, date]


@dataclass(frozen=True)
class TimeRange:
    """Inclusive dates (None: open); with ``month_day``, only that (month, day) in each year."""

    since: date | None = None
    until: date | None = None
    month_day: tuple[int, int] | None = None

    @property
    def kind(self) -> str:
        return "on_this_day" if self.month_day else "range"

    @property
    def month_day_text(self) -> str | None:
        return f"{self.month_day[0]:02d}-{self.month_day[1]:02d}" if self.month_day else None

    @property
    def since_iso(self) -> str | None:
        return self.since.isoformat() if self.since else None

    @property
    def until_iso(self) -> str | None:
        return self.until.isoformat() if self.until else None

    def label(self) -> str:
        """``2026-03-09..2026-03-15``, ``2026-06-01..``, ``..2024-12-31``, ``on this day 12-01``."""
        if self.month_day:
            return f"on this day {self.month_day_text}"
        return f"{self.since_iso or ''}..{self.until_iso or ''}"

    def contains(self, content_date: str | date | None) -> bool:
        """Whether a chunk's ``content_date`` (``YYYY-MM-DD`` or a date) falls here."""
        if content_date is None:
            return False
        text = content_date.isoformat() if isinstance(content_date, date) else content_date[:10]
        if self.since and text < self.since.isoformat():
            return False
        if self.until and text > self.until.isoformat():
            return False
        return not self.month_day or text[5:10] == self.month_day_text

    def sql(self, alias: str = "c", column: str = "content_date") -> tuple[str, list]:
        """The same test as a WHERE fragment over chunks (``since``/``until`` as Filters does),
        on ``column`` (a span's ``first_date`` for the timeline)."""
        clauses, args = [], []
        col = f"{alias}.{column}"
        if self.since:
            clauses.append(f"{col} >= ?")
            args.append(self.since.isoformat())
        if self.until:
            clauses.append(f"{col} <= ?")
            args.append(self.until.isoformat())
        if self.month_day:
            clauses.append(f"substr({col}, 6, 5) = ?")
            args.append(self.month_day_text)
        return " AND ".join(clauses) or "1=1", args


def month_span(y: int, m: int) -> Span:
    return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])


def shift_month(y: int, m: int, by: int) -> tuple[int, int]:
    k = y * 12 + (m - 1) + by
    return k // 12, k % 12 + 1


def week_span(day: date) -> Span:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def year_span(y: int) -> Span:
    return date(y, 1, 1), date(y, 12, 31)


def season_span(name: str, y: int) -> Span:
    first = SEASONS[name]
    end_y, end_m = shift_month(y, first, 2)
    return date(y, first, 1), month_span(end_y, end_m)[1]


def period(day: date, unit: str) -> TimeRange:
    """The day, ISO week or month holding ``day``: what a timeline steps through."""
    if unit == "day":
        return TimeRange(day, day)
    if unit == "week":
        return TimeRange(*week_span(day))
    if unit == "month":
        return TimeRange(*month_span(day.year, day.month))
    raise ValueError(f"unit must be day, week or month, not {unit!r}")


def shift(day: date, unit: str, by: int) -> date:
    """``day`` moved by ``by`` days, weeks or months (a month end kept inside the month)."""
    if unit == "day":
        return day + timedelta(days=by)
    if unit == "week":
        return day + timedelta(weeks=by)
    y, m = shift_month(day.year, day.month, by)
    return date(y, m, min(day.day, month_span(y, m)[1].day))
