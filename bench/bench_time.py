"""Time and context costs: phrase parsing per keystroke, timeline and conversation opens.

    python bench/bench_time.py --root <500k root>

Prints JSON: the time-phrase detector per query (every prefix of 20 queries, as typed), the
timeline over a day / week / month / year, a year's activity calendar and the facade's year read
(both; each the median of 15 after a warm-up), and opening the
largest messaging log of the index at its middle window (first open in this process, reopen,
and a page of 40 back, through the read facade), and searches with a time phrase and with a
person filter (median of 5 after one warm-up).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import UTC, datetime

from common import machine, percentiles

from engine.config import load_config
from engine.dates.timeline import activity, timeline
from engine.dates.timephrase import parse_time_phrase
from engine.library import Library
from engine.storage.db import connect

QUERIES = ["what did I do in March", "dinner with Maya last week", "how did I sleep yesterday",
           "since June", "before 2025", "between March and May", "two weeks ago", "on 14 March",
           "2026-03-14", "I may go to the gym", "march on", "Sunday roast recipe",
           "route importer GPX elevation", "climbing trip logistics", "last summer",
           "March 2026", "this month", "on this day", "a date with Sam", "second opinion"]

SEARCHES = [("dinner with Maya", {}), ("dinner with Maya last week", {}),
            ("what did I do in March", {}), ("dinner", {"person": "Maya Chen"}),
            ("", {"person": "Maya Chen"})]


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def median_of(fn, runs: int = 15) -> tuple[float, object]:
    """The median time of ``runs`` calls after a warm-up, and the last answer."""
    timed(fn)
    samples = [timed(fn) for _ in range(runs)]
    return statistics.median(ms for ms, _ in samples), samples[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--views", action="store_true",
                        help="also the app's timeline and conversation screens (bench_time_views)")
    args = parser.parse_args()
    config = load_config(args.root)
    conn = connect(config.db_path, readonly=True)
    library = Library(config)
    now = datetime.now(UTC)
    keystrokes = [q[:i] for q in QUERIES for i in range(1, len(q) + 1)]
    parse = [timed(lambda q=q: parse_time_phrase(q, now))[0] for q in keystrokes]
    latest = conn.execute("SELECT max(content_date) FROM chunks").fetchone()[0]
    spans = {"day": latest, "week": "last week", "month": "last month", "year": latest[:4]}
    tl = {}
    for label, when in spans.items():
        ms, out = median_of(lambda w=when: timeline(conn, w, now=now))
        tl[label] = {"ms": round(ms, 2), "messages": out.messages, "entries": out.entries,
                     "items": out.shown}
    act_ms, act = median_of(lambda: activity(conn, int(latest[:4])))
    # what the facade does for a year: the timeline (200 items) and its activity calendar
    year_ms, _ = median_of(lambda: (library.timeline(latest[:4], None, 200),
                                    library.activity(int(latest[:4]))))
    log = conn.execute("SELECT source_file, source_type, count(*) n FROM chunks WHERE source_type "
                       "IN ('slack', 'telegram', 'signal') GROUP BY source_file "
                       "ORDER BY n DESC LIMIT 1").fetchone()
    conv = {}
    if log is not None:
        middle = f"{log[0]}#w{log[2] // 2}"
        size = (config.root / log[0]).stat().st_size
        first_ms, page = timed(lambda: library.conversation(middle))
        again_ms, _ = timed(lambda: library.conversation(middle))
        back_ms, _ = timed(lambda: library.conversation_page(log[0], log[1], page.before, -1))
        conv = {"log": log[0], "windows": log[2], "mb": round(size / 1e6, 1),
                "open_middle_ms": round(first_ms, 2), "reopen_ms": round(again_ms, 2),
                "page_back_40_ms": round(back_ms, 2)}
    searches = {}
    for query, options in SEARCHES:
        library.search(query, 10, now=now, **options)
        runs = sorted(timed(lambda q=query, o=options: library.search(q, 10, now=now, **o))[0]
                      for _ in range(5))
        searches[f"{query} {options or ''}".strip()] = round(runs[2], 2)
    library.close()
    print(json.dumps({"machine": machine(), "chunks": conn.execute(
        "SELECT count(*) FROM chunks").fetchone()[0],
        "phrase_per_keystroke_ms": percentiles(parse), "timeline": tl,
        "activity_year": {"ms": round(act_ms, 2), "days": len(act.days)},
        "facade_year_read_ms": round(year_ms, 2),
        "conversation": conv, "search_ms": searches, **_views(args)}, indent=2))


def _views(args) -> dict:
    if not args.views:
        return {}
    from bench_time_views import views  # imports the app: only when asked

    return {"views": views(args.root)}


if __name__ == "__main__":
    main()
