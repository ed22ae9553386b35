"""The ``timeline`` tool and ``get_neighborhood(messages=true)``: what was dated in a range,
and the individual messages around a chat, meeting or transcript hit.

Rows follow the search page (mcp_server/page.py): a JSON object of the note-controlled fields
{"title","path","tags","preview_kind","preview"}, every value a JSON string, then server
fields separated by `` | ``. A message line is one JSON object of strings too, so a message
holding ``", "sender": "x"`` cannot forge a field.
"""

from __future__ import annotations

from datetime import date, timedelta

from .args import ToolFailure, check_keys, int_arg, str_list
from .page import FIELD_SEP, fit_rows, tags_of
from .text import cap, flat, jobject, jstr, one_line

TIMELINE_KEYS = ("when", "source_types", "limit")
DEFAULT_ITEMS, MAX_ITEMS = 50, 200
PREVIEW_CHARS = 300
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
DEFAULT_MESSAGES, MAX_MESSAGES = 10, 50
TEXT_CHARS = 2000  # of one message


def timeline_text(library, args: dict, max_chars: int, known_types) -> str:
    check_keys(args, TIMELINE_KEYS)
    when = args.get("when")
    if not isinstance(when, str) or not when.strip():
        raise ToolFailure("when must be a date (2026-03-14), a range (2026-03-01..2026-03-15) "
                          "or a time phrase (\"last week\", \"March\", \"on this day\")")
    when = when.strip()
    types = str_list(args, "source_types")
    for st in types or ():
        if st not in known_types:
            raise ToolFailure(f"unknown source type {jstr(st)}; known types: "
                              f"{', '.join(known_types)}")
    limit = int_arg(args, "limit", DEFAULT_ITEMS, 1, MAX_ITEMS)
    from engine.library import TimelineError

    try:
        if one_line(when).lower() in ("on this day", "this day"):
            timeline = library.on_this_day(types=types, limit=limit)
        else:
            timeline = library.timeline(when, types, limit)
    except TimelineError as exc:
        raise ToolFailure(one_line(exc)) from None
    from engine.library import unit_of

    days = len(timeline.days)
    header = [f"time: {timeline.range.label()}" + (
        f" (from {jstr(timeline.phrase)})" if timeline.phrase else ""),
        f"total: {timeline.total} ({_in_units(timeline.messages, 'message')}, "
        f"{_in_units(timeline.entries, 'entry')}) in "
        f"{days} day{'s' if days != 1 else ''}",
        "counts: " + (", ".join(f"{t} {_in_units(n, unit_of(t))}"
                                for t, n in timeline.counts.items()) or "-"),
        f"shown: {timeline.shown} rows" + (
            f" (the first {timeline.shown} in day order; counts cover the whole range)"
            if timeline.truncated else "")]
    if not timeline.days:
        return "\n".join([*header, "nothing dated in this range"])
    overview = count_lines(timeline, max_chars // 2)
    rows = [item_row(item) for day in timeline.days for group in day.groups
            for item in group.items]
    text, _ = fit_rows([*header, *overview], rows, max_chars)
    return text


def _in_units(n: int, unit: str) -> str:
    from engine.display import in_units

    return in_units(n, unit).replace(",", "")


def _counts_of(by_type: dict[str, int]) -> str:
    from engine.library import unit_of

    return ", ".join(f"{t} {_in_units(n, unit_of(t))}" for t, n in by_type.items())


def count_lines(timeline, budget: int) -> list[str]:
    """The range's counts, a day: line per day when they fit ``budget`` characters, else folded
    to week: or month: lines with the busiest days named: a year answers within the page."""
    days = [(d.date, d.counts) for d in timeline.days]
    lines = [f"day: {day} ({_weekday(day)}) {sum(c.values())}: {_counts_of(c)}"
             for day, c in days]
    for unit in ("week", "month", "year"):
        if len("\n".join(lines)) <= budget:
            break
        periods: dict[str, dict[str, int]] = {}
        for day, counts in days:
            key = _period_label(day, unit)
            for t, n in counts.items():
                periods.setdefault(key, {})[t] = periods.get(key, {}).get(t, 0) + n
        busiest = sorted(days, key=lambda dc: (-sum(dc[1].values()), dc[0]))[:5]
        lines = [f"counts_by: {unit} ({len(days)} day: lines would not fit the page; ask a "
                 "shorter range for them)",
                 "busiest: " + ", ".join(f"{d} ({_weekday(d)}) {sum(c.values())}"
                                         for d, c in busiest),
                 *(f"{unit}: {key} {sum(c.values())}: {_counts_of(_ordered(c, timeline))}"
                   for key, c in periods.items())]
    return lines


def _ordered(counts: dict[str, int], timeline) -> dict[str, int]:
    """``counts`` in the order the timeline lists its types."""
    return {t: counts[t] for t in timeline.counts if t in counts}


def _period_label(day: str, unit: str) -> str:
    try:
        d = date.fromisoformat(day)
    except ValueError:
        return day
    if unit == "week":
        monday = d - timedelta(days=d.weekday())
        return f"{monday.isoformat()}..{(monday + timedelta(days=6)).isoformat()}"
    return day[:7] if unit == "month" else day[:4]


def item_row(item) -> str:
    """An entry's row, or a conversation's day: its messages as the preview, one per line."""
    if item.message_count:
        preview = "\n".join(f"{m.time[11:16]} {flat(m.sender)}: {flat(m.text)}"
                             for m in item.messages)
        fields = {"title": item.title, "path": item.source_file, "tags": "",
                  "preview_kind": "messages", "preview": cap(preview, PREVIEW_CHARS * 3)}
    else:
        fields = {"title": item.title, "path": item.source_file,
                  "tags": tags_of(item), "preview_kind": "head",
                  "preview": cap(flat(item.head), PREVIEW_CHARS)}
    server = [f"id: {jstr(item.id)}", f"type: {item.source_type}",
              f"date: {item.content_date}"]
    if item.timestamp:
        server.append(f"time: {jstr(item.timestamp)}")
    if item.message_count:
        server.append(f"messages: {item.message_count}" + (
            f" ({len(item.messages)} listed)" if item.more else ""))
    return FIELD_SEP.join([jobject(fields), *server])


def _weekday(day: str) -> str:
    try:
        return WEEKDAYS[date.fromisoformat(day).weekday()]
    except ValueError:
        return "?"


# -- get_neighborhood(messages=true) ----------------------------------------------------------

def messages_text(library, chunk_id: str, args: dict, max_chars: int) -> str:
    """The messages of ``chunk_id`` and up to before/after messages around them."""
    from engine.library import ConversationError

    before = int_arg(args, "before", DEFAULT_MESSAGES, 0, MAX_MESSAGES)
    after = int_arg(args, "after", DEFAULT_MESSAGES, 0, MAX_MESSAGES)
    try:
        page = library.conversation(chunk_id, before=before, after=after)
    except ConversationError as exc:
        raise ToolFailure(f"{one_line(exc)}; get_neighborhood without messages shows the "
                          "chunks around it") from None
    header = [f"id: {jstr(chunk_id)}", f"type: {page.source_type}",
              f"path: {jstr(page.source_file)}", f"conversation: {jstr(page.title)}",
              f"stale: {'true' if page.stale else 'false'}" + (
                  " (the file changed since it was indexed: positions may be off)"
                  if page.stale else ""),
              f"more_before: {'true' if page.before else 'false'}, more_after: "
              f"{'true' if page.after else 'false'}"]
    lines = [(i, message_line(m)) for i, m in enumerate(page.messages)]
    hits = [i for i, m in enumerate(page.messages) if m.hit]
    center = (hits[0] + hits[-1]) / 2 if hits else len(lines) / 2
    dropped = 0
    while len("\n".join([*header, *(t for _, t in lines)])) > max_chars - 120 and \
            len(lines) > 1:
        lines.remove(max(lines, key=lambda e: abs(e[0] - center)))
        dropped += 1
    out = [*header, *(t for _, t in lines)]
    if dropped:
        out.append(f"truncated: {dropped} outer message{'s' if dropped != 1 else ''} dropped "
                   f"to stay under {max_chars} characters; ask for fewer before/after")
    return "\n".join(out)


def message_line(m) -> str:
    role = "heading" if m.kind == "heading" else ("hit" if m.hit else "context")
    return jobject({"role": role, "position": str(m.position), "sender": m.sender,
                    "time": m.time or "", "text": cap(m.text, TEXT_CHARS)})
