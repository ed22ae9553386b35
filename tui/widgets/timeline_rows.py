"""The timeline's rows: a day line, a line per source type with its count in messages or
entries, then its items (a conversation's day lists its messages under its title)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from textual.content import Content
from textual.widgets.option_list import Option

from engine.display import in_units, units_text
from engine.library import split_units

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
        messages, entries = split_units(day.counts)
        options.append(Option(Content.assemble(
            (f"{day.date} {weekday(day.date)}", "bold $text-accent"),
            (f"  {units_text(messages, entries)}", "dim")), disabled=True))
        for group in day.groups:
            options.append(Option(Content.assemble(
                "  ", type_badge(group.source_type),
                (f" {in_units(group.count, group.unit)}", "bold")), disabled=True))
            for item in group.items:
                options += _item_options(item, items, width)
            hidden = group.count - sum(i.message_count or 1 for i in group.items)
            if hidden > 0:
                options.append(Option(Content.styled(
                    f"    … {in_units(hidden, group.unit)} more (a shorter range or s shows "
                    "them)", "dim"), disabled=True))
    return options, items


def _item_options(item, items: list, width: int) -> list[Option]:
    """An entry: one line. A conversation's day: its title line, then a line per message
    listed (each opens the conversation at its window), then "N more"."""
    name = _fit(item.source_file.rsplit("/", 1)[-1], 30)
    room = max(width - 10 - 2 - len(name) - 1, 12)
    out = [Option(Content.assemble(
        (f"    {clock(item):5} ", "dim"),
        Content.styled(_fit(item.title, room), "", strip_control_codes=False),
        (f"  {name}", "dim")), id=f"i{len(items)}")]
    items.append(item)
    for m in item.messages:
        sender = _fit(m.sender, 24)
        out.append(Option(Content.assemble(
            (f"      {m.time[11:16]} ", "dim"), (sender, "bold"), ": ",
            Content.styled(_fit(m.text, max(width - 14 - len(sender), 12)), "",
                           strip_control_codes=False)), id=f"i{len(items)}"))
        items.append(replace(item, id=m.chunk_id, timestamp=m.time.replace(" ", "T")))
    if item.more:
        out.append(Option(Content.styled(
            f"      … {item.more:,} more message{'s' if item.more != 1 else ''} (enter opens "
            "the conversation)", "dim"), disabled=True))
    return out
