"""The activity calendar: a year of days (a column per week, Monday on top) shaded by how many
messages and entries each day holds (``engine.dates.timeline_types.Activity.level``), the timeline's
range marked."""

from __future__ import annotations

from datetime import date, timedelta

from textual.content import Content
from textual.widget import Widget

from engine.display import units_text

from ..widgets.text import plain

# level 0 (nothing) .. 4 (the busiest days)
SHADES = ("#30363d", "#0e4429", "#006d32", "#26a641", "#39d353")
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
DAY_LABELS = ("Mon", "", "Wed", "", "Fri", "", "Sun")
LABEL = 4


def weeks_of(year: int) -> list[date]:
    """The Monday of every week holding a day of ``year``."""
    first = date(year, 1, 1)
    monday = first - timedelta(days=first.weekday())
    out = []
    while monday.year <= year:
        out.append(monday)
        monday += timedelta(weeks=1)
    return out


def calendar_content(activity, marked: tuple[date, date] | None, width: int,
                     title: str = "") -> Content:
    """Month names, then seven rows of cells (two cells wide when the width allows)."""
    weeks = weeks_of(activity.year)
    cell = 2 if width >= LABEL + 2 * len(weeks) else 1
    head = [" " * LABEL]
    used = LABEL
    for i, monday in enumerate(weeks):
        last = monday + timedelta(days=6)
        if last.day <= 7 and last.year == activity.year and used <= LABEL + i * cell:
            name = MONTHS[last.month - 1]
            head.append(" " * (LABEL + i * cell - used) + name)
            used = LABEL + i * cell + len(name)
    rows = [Content.assemble(("".join(head), "dim"))]
    for weekday in range(7):
        parts: list = [(f"{DAY_LABELS[weekday]:<{LABEL}}", "dim")]
        for monday in weeks:
            day = monday + timedelta(days=weekday)
            if day.year != activity.year:
                parts.append(" " * cell)
                continue
            style = SHADES[activity.level(day.isoformat())]
            inside = marked is not None and marked[0] <= day <= marked[1]
            glyph = "◆" if inside else "■"
            parts.append((glyph.ljust(cell), style + (" bold" if inside else "")))
        rows.append(Content.assemble(*parts))
    busiest = f"busiest day {activity.max:,}" if activity.max else "nothing dated"
    legend = [(f"{' ' * LABEL}{plain(title)} {activity.year}: "
               f"{units_text(activity.messages, activity.entries)} · {busiest} · less ", "dim")]
    legend += [("■", s) for s in SHADES]
    legend += [(" more  ·  ◆ the range shown", "dim")]
    rows.append(Content.assemble(*legend))
    return Content("\n").join(rows)


class ActivityCalendar(Widget):
    """Shows an ``Activity`` (``set_data``); renders for its width."""

    DEFAULT_CSS = "ActivityCalendar { height: 9; }"

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.activity = None
        self.marked: tuple[date, date] | None = None
        self.title = "all sources"

    def set_data(self, activity, marked: tuple[date, date] | None, title: str) -> None:
        self.activity, self.marked, self.title = activity, marked, title
        self.refresh()

    def render(self) -> Content:
        if self.activity is None:
            return Content.styled("loading the activity calendar…", "dim")
        return calendar_content(self.activity, self.marked, self.content_region.width or 110,
                                self.title)
