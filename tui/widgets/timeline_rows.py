"""The timeline's rows: a day line, a line per source type with its count, then its items."""

from __future__ import annotations

from datetime import date

from textual.content import Content
from textual.widgets.option_list import Option

from .badges import type_badge
from .text import one_line, plain

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def weekday(day: str) -> str:
    try:
        return WEEKDAYS[date.fromisoformat(day).weekday()]
    except ValueError:
        return ""


def clock(item) -> str:
    """``09:12`` for an item written at a time of day, else blank."""
    stamp = item.timestamp or ""
    return stamp[11:16] if len(stamp) >= 16 and stamp[13:14] == ":" else ""


def _fit(text: str, cells: int) -> str:
    text = plain(one_line(text))
    return text if len(text) <= cells else text[: max(cells - 1, 0)] + "…"


def timeline_options(timeline, width: int = 116) -> tuple[list[Option], list]:
    """(options, items): an item's option id is ``i<n>``, its index in ``items``; day and type
    lines are disabled (the cursor skips them). An item is one line of ``width`` cells."""
    options: list[Option] = []
    items: list = []
    if not timeline.days:
        options.append(Option(Content.styled("  nothing dated in this range: move on with ] } "
                                             "> or go to a date with /", "dim"), disabled=True))
        return options, items
    for day in timeline.days:
        options.append(Option(Content.assemble(
            (f"{day.date} {weekday(day.date)}", "bold $text-accent"),
            (f"  {day.count:,} chunk{'s' if day.count != 1 else ''}", "dim")), disabled=True))
        for group in day.groups:
            options.append(Option(Content.assemble(
                "  ", type_badge(group.source_type), (f" {group.count:,}", "bold")),
                disabled=True))
            for item in group.items:
                name = _fit(item.source_file.rsplit("/", 1)[-1], 30)
                room = max(width - 10 - 2 - len(name) - 1, 12)
                options.append(Option(Content.assemble(
                    (f"    {clock(item):5} ", "dim"),
                    Content.styled(_fit(item.title, room), "", strip_control_codes=False),
                    (f"  {name}", "dim")), id=f"i{len(items)}"))
                items.append(item)
            hidden = group.count - len(group.items)
            if hidden > 0:
                options.append(Option(Content.styled(
                    f"    … {hidden:,} more {group.source_type} (a shorter range or s shows "
                    "them)", "dim"), disabled=True))
    return options, items
