"""``memlens timeline [WHEN] [--source TYPE ...] [--limit N] [--json]``: every chunk dated in a
day, range or time phrase, day by day and by source type, with counts (engine/dates/timeline.py,
read through engine.library). Without WHEN: today; ``on this day`` lists today's month-day
in earlier years. Printed text goes through engine/display.py like every command's.
"""

from __future__ import annotations

import argparse
import re
from datetime import date

from engine.display import json_dumps, one_line, plural

from .errors import UsageError


def _fit(text: str, cells: int, keep_end: bool = False) -> str:
    from .table import _fit as fit  # rich's cell widths load only when a timeline prints

    return fit(text, cells, keep_end)

ISO = re.compile(r"[\d.\-]+")  # a date or range as typed: the label says it already
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def cmd_timeline(args) -> int:
    from engine.library import Library, TimelineError

    from .args import load_root_config
    from .search import _output_width

    config = load_root_config(args)
    library = Library(config)
    when = " ".join(args.when).strip() or date.today().isoformat()
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


def timeline_header(timeline, when: str) -> str:
    """``2026-03-09..2026-03-15 (from "last week") · 57 chunks · slack 40, garmin 7``."""
    head = timeline.range.label()
    if timeline.phrase and not ISO.fullmatch(timeline.phrase):
        head += f' (from "{one_line(timeline.phrase)[:60]}")'
    counts = ", ".join(f"{one_line(t)} {n}" for t, n in timeline.counts.items())
    head += f" · {plural(timeline.total, 'chunk')}" + (f" · {counts}" if counts else "")
    if timeline.truncated:
        head += f" · first {timeline.shown} shown (--limit)"
    return head


def timeline_lines(timeline, when: str, width: int) -> list[str]:
    lines = [_fit(timeline_header(timeline, when), width)]
    if not timeline.days:
        lines.append("nothing dated in that range")
    for day in timeline.days:
        lines.append(_fit(f"{day.date} {_weekday(day.date)}  {plural(day.count, 'chunk')}",
                          width))
        for group in day.groups:
            lines.append(_fit(f"  {one_line(group.source_type)} ({group.count})", width))
            for item in group.items:
                lines.append(_fit(f"    {one_line(item.title)}", width))
                lines.append(_fit(f"      {one_line(item.source_file)}", width, keep_end=True))
            if len(group.items) < group.count and timeline.truncated:
                lines.append(f"    … {group.count - len(group.items)} more")
    return lines


def timeline_json(timeline, when: str) -> dict:
    return {
        "time": timeline.range.label(), "phrase": timeline.phrase, "asked": when,
        "total": timeline.total, "shown": timeline.shown, "truncated": timeline.truncated,
        "counts": timeline.counts,
        "days": [{"date": d.date, "count": d.count, "groups": [
            {"source_type": g.source_type, "count": g.count, "items": [
                {"id": i.id, "source_file": i.source_file, "title": i.title, "head": i.head,
                 "timestamp": i.timestamp} for i in g.items]} for g in d.groups]}
            for d in timeline.days],
    }


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
                   help="only this source type (repeatable)")
    p.add_argument("--limit", type=_items_count, default=200,
                   help="items listed at most (counts cover the whole range; default 200)")
    p.add_argument("--json", action="store_true", help="days, groups and items as JSON")
    p.set_defaults(func=cmd_timeline)
