"""``memlens timeline [WHEN] [--source TYPE ...] [--limit N] [--json]``: every message and entry
dated in a day, range or time phrase, day by day and by source type, with counts in messages
(chat) and entries (the rest) (engine/dates/timeline.py, read through engine.library). Without
WHEN: today; ``on this day`` lists today's month-day in earlier years. Printed text goes
through engine/display.py like every command's.
"""

from __future__ import annotations

import argparse
import re
from datetime import date

from engine.display import (
    in_units,
    json_dumps,
    one_line,
    plural,
    shown_path,
    type_label,
    units_text,
)

from .errors import UsageError


def _fit(text: str, cells: int, keep_end: bool = False) -> str:
    from .table import _fit as fit  # rich's cell widths load only when a timeline prints

    return fit(text, cells, keep_end)

ISO = re.compile(r"[\d.\-]+")  # a date or range as typed: the label says it already
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def cmd_timeline(args) -> int:
    from engine.dates import now as clock_now
    from engine.library import Library, TimelineError

    from .args import load_root_config, source_types_arg
    from .search import _output_width

    config = load_root_config(args)
    args.source = source_types_arg(args.source, config.routes)
    library = Library(config)
    when = " ".join(args.when).strip() or clock_now().date().isoformat()
    try:
        if when.lower() in ("on this day", "this day"):
            timeline = library.on_this_day(types=args.source or None, limit=args.limit)
        else:
            timeline = library.timeline(when, args.source or None, args.limit)
    except TimelineError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json_dumps(timeline_json(timeline, when)))
    else:
        print("\n".join(timeline_lines(timeline, when, _output_width())))
    return 0


def type_counts(counts: dict[str, int]) -> str:
    """``journal 101 entries, Slack 850 messages``: each type by its label, in its unit."""
    from engine.library import unit_of

    return ", ".join(f"{type_label(t)} {in_units(n, unit_of(t))}" for t, n in counts.items())


def timeline_header(timeline, when: str) -> str:
    """``2026-03-09..2026-03-15 (from "last week") · 40 messages · 7 entries · slack 40
    messages, garmin 7 entries``."""
    head = timeline.range.label()
    if timeline.phrase and not ISO.fullmatch(timeline.phrase):
        head += f' (from "{one_line(timeline.phrase)[:60]}")'
    counts = type_counts(timeline.counts)
    head += f" · {units_text(timeline.messages, timeline.entries)}" + (
        f" · {counts}" if counts else "")
    if timeline.truncated:
        head += f" · first {plural(timeline.shown, 'item')} listed (--limit)"
    return head


def timeline_lines(timeline, when: str, width: int) -> list[str]:
    from engine.library import split_units

    lines = [_fit(timeline_header(timeline, when), width)]
    if not timeline.days:
        lines.append("nothing dated in that range")
    for day in timeline.days:
        messages, entries = split_units(day.counts)
        lines.append(_fit(f"{day.date} {_weekday(day.date)}  {units_text(messages, entries)}",
                          width))
        for group in day.groups:
            lines.append(_fit(f"  {type_label(group.source_type)} "
                              f"({in_units(group.count, group.unit)})", width))
            for item in group.items:
                lines += _item_lines(item, width)
            hidden = group.count - sum(i.message_count or 1 for i in group.items)
            if hidden > 0:
                lines.append(f"    … {in_units(hidden, group.unit)} more (--limit)")
    return lines


def _item_lines(item, width: int) -> list[str]:
    """An entry: its title and file. A conversation's day: its title, its messages (time,
    sender, text; the rest as "N more") and its file."""
    out = [_fit(f"    {one_line(item.title)}", width)]
    for m in item.messages:
        out.append(_fit(f"      {m.time[11:16]} {one_line(m.sender)}: {one_line(m.text)}",
                        width))
    if item.more:
        out.append(f"      … {plural(item.more, 'more message')}")
    out.append(_fit(f"      {shown_path(item.source_file)}", width, keep_end=True))
    return out


def timeline_json(timeline, when: str) -> dict:
    from engine.library import unit_of

    return {
        "time": timeline.range.label(), "phrase": timeline.phrase, "asked": when,
        "total": timeline.total, "messages": timeline.messages, "entries": timeline.entries,
        "shown": timeline.shown, "truncated": timeline.truncated,
        "counts": timeline.counts, "units": {t: unit_of(t) for t in timeline.counts},
        "days": [{"date": d.date, "count": d.count, "groups": [
            {"source_type": g.source_type, "count": g.count, "unit": g.unit, "items": [
                _item_json(i) for i in g.items]} for g in d.groups]}
            for d in timeline.days],
    }


def _item_json(item) -> dict:
    out = {"id": item.id, "source_file": item.source_file, "title": item.title,
           "head": item.head, "timestamp": item.timestamp}
    if item.message_count:
        out["message_count"] = item.message_count
        out["messages"] = [{"time": m.time, "sender": m.sender, "text": m.text,
                            "chunk_id": m.chunk_id} for m in item.messages]
    return out


def _weekday(day: str) -> str:
    try:
        return WEEKDAYS[date.fromisoformat(day).weekday()]
    except ValueError:
        return "   "


def _items_count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"must be a number from 1 to 10000, not {one_line(text)!r}")
    return int(text)


def add_parser(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("timeline", parents=[common],
                       help="everything dated in a day, range or phrase, day by day")
    p.add_argument("when", nargs="*", metavar="WHEN",
                   help="2026-03-14, 2026-03-01..2026-03-15, March, last week, on this day "
                   "(default: today)")
    p.add_argument("--source", action="append", metavar="TYPE",
                   help="only this source type: its id, label or a prefix, e.g. email "
                   "(repeatable)")
    p.add_argument("--limit", type=_items_count, default=200,
                   help="items listed at most: an entry, or a chat's day with its first 8 "
                   "messages (counts cover the whole range; default 200)")
    p.add_argument("--json", action="store_true", help="days, groups and items as JSON")
    p.set_defaults(func=cmd_timeline)
