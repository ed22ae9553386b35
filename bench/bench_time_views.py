"""The app's timeline and conversation views: how long from the key to the screen shown.

    python bench/bench_time_views.py --root <100k root>
    python bench/bench_time.py --root <100k root> --views   (the same, inside bench_time's JSON)

Headless app (120x40, no searcher: the views never search). Each view is pushed and timed
until its first page is on screen (``loaded``), 5 times, median and max; the facade calls
the screen makes are timed alone too: the week around the newest date with the year's
activity calendar (what F5 reads), and the middle window of the largest messaging log
(what ``c`` reads, 30 messages each way).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from datetime import date, datetime

from common import machine

from engine.config import load_config
from engine.dates.timerange import period
from engine.library import Library

RUNS = 5


class NoSearcher:
    """The views read only the facade; a real searcher would load the vectors meanwhile."""


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _summary(samples: list[float]) -> dict:
    return {"median_ms": round(statistics.median(samples), 1), "max_ms": round(max(samples), 1)}


def newest_and_log(library: Library) -> tuple[date, str | None]:
    """The newest date of the index and the middle window of its largest messaging log."""
    every = "1900-01-01..2100-12-31"
    newest = max((d.date for d in library.timeline(every, None, 0).days),
                 default=date.today().isoformat())
    per_file: dict[str, int] = {}  # messages per chat log: ten to a window
    for day in library.timeline(every, ["slack", "telegram", "signal"], 1_000_000).days:
        for group in day.groups:
            for item in group.items:
                per_file[item.source_file] = per_file.get(item.source_file, 0) + \
                    item.message_count
    log = max(per_file, key=per_file.get, default=None)
    middle = f"{log}#w{per_file[log] // 20}" if log else None
    return date.fromisoformat(newest), middle


async def _open(app, screen_factory, runs: int) -> list[float]:
    out = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        for _ in range(runs):
            start = time.perf_counter()
            screen = screen_factory()
            app.push_screen(screen)
            while not screen.loaded:
                await asyncio.sleep(0.001)
            await pilot.pause()  # painted
            out.append(_ms(start))
            app.pop_screen()
            await pilot.pause(0.05)
    return out


def views(root: str) -> dict:
    from tui.app import MemlensApp
    from tui.screens.conversation import ConversationScreen
    from tui.screens.timeline import TimelineScreen

    config = load_config(root)
    library = Library(config)
    newest, middle = newest_and_log(library)
    facade_tl = []
    for _ in range(RUNS):
        start = time.perf_counter()
        library.timeline(period(newest, "week"), None, 300)
        library.activity(newest.year)
        facade_tl.append(_ms(start))
    out = {"newest": newest.isoformat(), "timeline_week_facade": _summary(facade_tl)}
    now = datetime.combine(newest, datetime.min.time()).astimezone()
    app = MemlensApp(config, now=now, searcher=NoSearcher(), frozen=True)
    out["timeline_screen"] = _summary(asyncio.run(
        _open(app, lambda: TimelineScreen(newest, "week"), RUNS)))
    if middle is not None:
        facade_conv = []
        for _ in range(RUNS):
            start = time.perf_counter()
            library.conversation(middle, 30, 30)
            library.chunk(middle)
            facade_conv.append(_ms(start))
        out["conversation_at"] = middle
        out["conversation_facade"] = _summary(facade_conv)
        app = MemlensApp(config, now=now, searcher=NoSearcher(), frozen=True)
        out["conversation_screen"] = _summary(asyncio.run(
            _open(app, lambda: ConversationScreen(middle), RUNS)))
    library.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    print(json.dumps({"machine": machine(), **views(args.root)}, indent=2))


if __name__ == "__main__":
    main()
