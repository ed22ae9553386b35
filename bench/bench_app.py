"""The app's own latency targets.

    cd bench && PYTHONPATH=.. python bench_app.py --root <500k root> [--small-root DIR]
        [--starts 5] [--queries 120] [--skip cold,keys]

cold: cold start to first paint. Each start is a fresh interpreter (``python -c``) that builds
  the real app (``MemlensApp(load_config(root))``, the same objects ``memlens`` builds) and runs
  it headless at 120x40. The clock is CLOCK_MONOTONIC, shared by the processes: it starts in
  this process just before the child is spawned (so interpreter start-up and every import
  count) and stops in the child when the first frame of the main screen has been composited
  (``first_paint``), and again when the header has been rendered with the index overview
  (``overview_painted``: its counts come from a worker thread). A headless driver composites every frame like a
  terminal one and only skips writing the escape codes. Median (and all runs) of ``--starts``
  starts, on the big root and on the small demo root (``--small-root``, default
  a folder in the bench cache, generated and indexed if missing).

keys: keystroke to results painted, on the big root, in ``app.run_test(size=(120, 40))``.
  The app is warmed first (the first search loads the vector index: seconds at 500k; the
  time is reported). Then for each natural query (3-6 content words from random chunks, as in
  bench_search.py) the query box gets all but the last character (without a search), and the
  last character is typed with ``pilot.press``. Measured per query, on the UI thread's clock:
  key -> debounce timer fires -> answer applied to the result list -> the result list has been
  rendered into a frame (its ``render_lines`` ran for the new rows). Reported: key-to-painted
  including the debounce, and excluding it (timer fired -> painted, i.e. the search plus
  everything the UI does), with the engine's own total and the UI's share separately, and
  when the preview of the first result was painted (it follows the list, one frame later).

Targets: keystroke-to-results p50 < 150 ms at 500k (excluding the debounce, which is a fixed,
deliberate wait: DEBOUNCE_SECONDS), cold start < 1.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from bench_search import natural_queries  # noqa: E402
from common import BENCH_CACHE, REPO, machine, percentiles  # noqa: E402

SIZE = (120, 40)
TARGET_KEY_P50_MS = 150.0
TARGET_COLD_S = 1.5

CHILD = r"""
import time
T0 = time.monotonic()
import json, sys
from pathlib import Path

root, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
marks = {"interpreter_up": T0}
from engine.config import load_config
from tui.app import MemlensApp
marks["imported"] = time.monotonic()
from textual.screen import Screen
from tui.widgets.bars import InfoBar

composite, render_lines = Screen._compositor_refresh, InfoBar.render_lines


def timed_composite(self):  # a frame of the main screen has been composited
    composite(self)
    if type(self).__name__ == "MainScreen" and self is self.app.screen:
        marks.setdefault("first_paint", time.monotonic())


def timed_render_lines(self, crop):  # the header rendered with the overview's counts
    lines = render_lines(self, crop)
    if "overview_applied" in marks and "overview_painted" not in marks:
        marks["overview_painted"] = time.monotonic()
        self.app.exit(0)
    return lines


Screen._compositor_refresh = timed_composite
InfoBar.render_lines = timed_render_lines


class Probe(MemlensApp):
    def on_mount(self) -> None:
        self.set_timer(60, lambda: self.exit(1))  # never hang the benchmark

    def on_overview_loaded(self, message) -> None:  # after the main screen applied it
        marks.setdefault("overview_applied", time.monotonic())


app = Probe(load_config(Path(root)))
marks["app_built"] = time.monotonic()
app.run(headless=True, size=(width, height))
print("MARKS " + json.dumps(marks), flush=True)
"""


# -- cold start ------------------------------------------------------------------------------

def cold_start_once(root: Path) -> dict[str, float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), str(SIZE[0]), str(SIZE[1])],
                          capture_output=True, text=True, env=env, timeout=180)
    t_exit = time.monotonic()
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("MARKS ")), None)
    if line is None:
        raise RuntimeError(f"the app did not report (exit {proc.returncode}):\n"
                           f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    marks = json.loads(line[6:])
    out = {name: round((t - t0) * 1000, 1) for name, t in marks.items()}
    out["process_exited"] = round((t_exit - t0) * 1000, 1)
    return out


def cold_start(root: Path, starts: int) -> dict:
    runs = [cold_start_once(root) for _ in range(starts)]
    keys = list(runs[0])
    median = {k: round(statistics.median(r[k] for r in runs), 1) for k in keys if
              all(k in r for r in runs)}
    return {"root": str(root), "starts": starts, "median_ms": median,
            "first_paint_ms_runs": [r.get("first_paint") for r in runs],
            "target_s": TARGET_COLD_S,
            "target_met": median.get("first_paint", 1e9) < TARGET_COLD_S * 1000}


def ensure_small_root(root: Path) -> Path:
    from engine.config import load_config

    if load_config(root).db_path.exists():
        return root
    from engine.demo import generate_demo_root
    from engine.indexer import reindex

    generate_demo_root(root)
    reindex(config=load_config(root))
    return root


# -- keystroke to results --------------------------------------------------------------------

class Probe:
    """Hooks on the live app (instance attributes, so the app's code runs unchanged)."""

    def __init__(self, main) -> None:
        self.main = main
        self.armed = False
        self.fired: float | None = None
        self.answered: float | None = None
        self.applied: float | None = None
        self.painted: float | None = None
        self.preview_painted: float | None = None
        self.done = asyncio.Event()
        self.preview_done = asyncio.Event()
        results = main.results
        empty = main.query_one("#empty")
        body = main.query_one("#pv-body")
        fire, show = main._fire, results.show

        def timed_fire() -> None:
            if self.armed and self.fired is None:
                self.fired = time.perf_counter()
            fire()

        def timed_show(rows, **kw) -> None:
            start = time.perf_counter()
            show(rows, **kw)
            if self.armed and self.answered is None and main.session.answered == main.session.seq \
                    and main.request.query == self.query:
                self.answered, self.applied = start, time.perf_counter()

        def painted(render_lines):
            def render(crop):
                lines = render_lines(crop)
                if self.armed and self.applied is not None and self.painted is None:
                    self.painted = time.perf_counter()
                    self.done.set()
                return lines
            return render

        def preview_painted(render_lines):
            def render(crop):
                lines = render_lines(crop)
                if self.armed and self.applied is not None and self.preview_painted is None \
                        and main.preview.result is not None \
                        and main.preview.result is main.results.current:
                    self.preview_painted = time.perf_counter()
                    self.preview_done.set()
                return lines
            return render

        main._fire = timed_fire
        results.show = timed_show
        results.render_lines = painted(results.render_lines)
        empty.render_lines = painted(empty.render_lines)
        body.render_lines = preview_painted(body.render_lines)

    def arm(self, query: str) -> None:
        self.query = query
        self.fired = self.answered = self.applied = self.painted = None
        self.preview_painted = None
        self.done.clear()
        self.preview_done.clear()
        self.armed = True


async def wait_idle(pilot, timeout: float) -> None:
    main = pilot.app.main
    deadline = time.monotonic() + timeout
    while not main.idle:
        if time.monotonic() > deadline:
            raise TimeoutError("the search did not finish")
        await asyncio.sleep(0.01)
    await pilot.pause()


async def keystrokes(root: Path, n: int) -> dict:
    from textual.widgets import Input

    from engine.config import load_config
    from engine.storage.db import connect
    from tui.app import MemlensApp
    from tui.session import DEBOUNCE_SECONDS
    from tui.widgets.query import QueryInput

    config = load_config(root)
    conn = connect(config.db_path, readonly=True)
    try:
        queries = natural_queries(conn, n)
    finally:
        conn.close()
    app = MemlensApp(config)
    samples: dict[str, list[float]] = {k: [] for k in (
        "key_to_painted", "fired_to_painted", "fired_to_preview_painted", "debounce",
        "engine_total",
        "worker_overhead", "apply", "apply_to_painted", "ui_total")}
    warm: dict[str, float] = {}
    stages: dict[str, list[float]] = {}
    arms: dict[str, int] = {}
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        deadline = time.monotonic() + 120
        while main.overview is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        query = main.query_one(QueryInput)
        t = time.perf_counter()
        query.value = "warm up the vector index"
        await wait_idle(pilot, 300)
        warm["first_search_incl_vector_load_ms"] = round((time.perf_counter() - t) * 1000, 1)
        for q in queries[:5]:  # untimed: caches, the first page of each arm
            query.value = q
            await wait_idle(pilot, 60)
        probe = Probe(main)
        for q in queries:
            prefix, last = q[:-1], q[-1]
            with query.prevent(Input.Changed):  # no search for the prefix
                query.value = prefix
                query.cursor_position = len(prefix)
            await pilot.pause()
            probe.arm(q)
            t_key = time.perf_counter()
            await pilot.press(last)
            await asyncio.wait_for(probe.done.wait(), 60)
            await asyncio.wait_for(probe.preview_done.wait(), 10)
            probe.armed = False
            assert query.value == q and main.request.query == q, (query.value, q)
            engine = float(main.response.timings_ms.get("total", 0.0))
            for stage, value in main.response.timings_ms.items():
                stages.setdefault(stage, []).append(float(value))
            arms[main.response.arms] = arms.get(main.response.arms, 0) + 1
            ms = 1000.0
            samples["key_to_painted"].append((probe.painted - t_key) * ms)
            samples["fired_to_painted"].append((probe.painted - probe.fired) * ms)
            samples["fired_to_preview_painted"].append((probe.preview_painted - probe.fired) * ms)
            samples["debounce"].append((probe.fired - t_key) * ms)
            samples["engine_total"].append(engine)
            samples["worker_overhead"].append((probe.answered - probe.fired) * ms - engine)
            samples["apply"].append((probe.applied - probe.answered) * ms)
            samples["apply_to_painted"].append((probe.painted - probe.applied) * ms)
            samples["ui_total"].append((probe.painted - probe.fired) * ms - engine)
            await wait_idle(pilot, 60)
        results_shown = main.results.option_count
    out = {name: percentiles(v) for name, v in samples.items()}
    return {"root": str(root), "queries": len(queries), "sample_queries": queries[:3],
            "debounce_setting_ms": DEBOUNCE_SECONDS * 1000, "results_per_query": results_shown,
            **warm, "arms": arms, "latency_ms": out,
            "engine_stage_p50_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()}, "target_p50_ms": TARGET_KEY_P50_MS,
            "target_met_excl_debounce": out["fired_to_painted"]["p50"] < TARGET_KEY_P50_MS,
            "target_met_incl_debounce": out["key_to_painted"]["p50"] < TARGET_KEY_P50_MS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path, help="the big indexed root")
    parser.add_argument("--small-root", type=Path, default=BENCH_CACHE / "demo-small",
                        help="the small demo root (generated and indexed if missing)")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--skip", default="", help="comma list: cold,keys")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    print(json.dumps({"machine": machine(), "size": list(SIZE)}), flush=True)
    if "cold" not in skip:
        small = ensure_small_root(args.small_root)
        for root in (args.root, small):
            print(json.dumps({"cold_start": cold_start(root, args.starts)}), flush=True)
    if "keys" not in skip:
        print(json.dumps({"keystroke_to_results": asyncio.run(keystrokes(args.root,
                                                                         args.queries))}),
              flush=True)


if __name__ == "__main__":
    main()
