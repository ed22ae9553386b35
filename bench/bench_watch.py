"""Watch-mode benchmarks: a real watcher (engine/index/watch.py) on a demo root.

    python -m cli demo --chunks 100000 --root <100k root> --no-app
    python bench/bench_watch.py --root <100k root> latency idle burst

latency: 10 messages appended to the largest Slack log, one write each; seconds until the last
         one is found by a keyword search (polled every 20 ms), 5 rounds
idle:    CPU seconds the watching process uses over --idle-seconds with nothing changing
burst:   1,000 appends (one open/write/close each) over 5 Slack logs, as fast as possible and
         then paced at --pace writes/s (a sync that runs for a while); reindex runs until the
         last line is searchable and 3 s have passed quietly

Appended lines stay in the root (it is a bench root).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import machine

from engine.config import load_config
from engine.index.watch import Watcher
from engine.index.watch_events import Reindexed
from engine.searcher import Searcher

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone(timedelta(hours=-8)))


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # every thread of the process
    return usage.ru_utime + usage.ru_stime


class Runs:
    def __init__(self):
        self.runs: list[Reindexed] = []
        self.lock = threading.Lock()

    def __call__(self, event) -> None:
        if isinstance(event, Reindexed):
            with self.lock:
                self.runs.append(event)


def start(root: Path) -> tuple[Watcher, Runs]:
    runs = Runs()
    watcher = Watcher(load_config(root), runs).start()
    while not runs.runs:  # the catch-up run
        time.sleep(0.05)
    return watcher, runs


def slack_logs(root: Path) -> list[Path]:
    return sorted((root / "data/slack").glob("*.jsonl"), key=lambda p: p.stat().st_size)


def message(token: str, i: int) -> str:
    return json.dumps({"ts": (T0 + timedelta(minutes=i)).isoformat(), "user": "Bench Person",
                       "text": f"watch benchmark message {token}"}) + "\n"


def wait_found(searcher: Searcher, token: str, timeout: float = 60.0) -> float:
    start_t = time.perf_counter()
    while time.perf_counter() - start_t < timeout:
        if searcher.search(token, mode="keyword", limit=1).results:
            return time.perf_counter()
        time.sleep(0.02)
    raise SystemExit(f"{token} not searchable within {timeout:.0f}s")


def latency(root: Path) -> dict:
    watcher, _ = start(root)
    searcher = Searcher(load_config(root))
    largest = slack_logs(root)[-1]
    rounds = []
    try:
        for r in range(5):
            stamp = f"{int(time.time())}{r}"
            tokens = [f"wlat{stamp}x{i}" for i in range(10)]
            for i, token in enumerate(tokens):
                with largest.open("a") as f:
                    f.write(message(token, r * 10 + i))
            written = time.perf_counter()
            rounds.append(round(wait_found(searcher, tokens[-1]) - written, 3))
            time.sleep(1.0)
    finally:
        searcher.close()
        watcher.stop()
    return {"bench": "latency", "file": largest.name,
            "messages_in_file": sum(1 for _ in largest.open()), "seconds": rounds,
            "median_s": statistics.median(rounds), "max_s": max(rounds)}


def idle(root: Path, seconds: float) -> dict:
    watcher, runs = start(root)
    time.sleep(2.0)  # let the catch-up run's aftermath settle
    before, n = cpu_seconds(), len(runs.runs)
    time.sleep(seconds)
    used = cpu_seconds() - before
    watcher.stop()
    return {"bench": "idle", "seconds": seconds, "cpu_s": round(used, 4),
            "runs_meanwhile": len(runs.runs) - n}


def burst(root: Path, pace: float = 0.0) -> dict:
    watcher, runs = start(root)
    searcher = Searcher(load_config(root))
    logs = slack_logs(root)[-5:]
    stamp = str(int(time.time()))
    n0 = len(runs.runs)
    t = time.perf_counter()
    try:
        for i in range(1000):
            with logs[i % len(logs)].open("a") as f:
                f.write(message(f"wburst{stamp}x{i}", i))
            if pace:
                time.sleep(1 / pace)
        written = time.perf_counter()
        found_at = wait_found(searcher, f"wburst{stamp}x999")
        time.sleep(3.0)
    finally:
        searcher.close()
        watcher.stop()
    burst_runs = runs.runs[n0:]
    return {"bench": "burst", "writes": 1000, "files": len(logs), "pace_per_s": pace or None,
            "write_s": round(written - t, 3), "last_searchable_after_s":
            round(found_at - written, 3), "reindex_runs": len(burst_runs),
            "run_seconds": [r.stats.seconds for r in burst_runs]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--pace", type=float, default=100.0, help="writes/s of the paced burst")
    parser.add_argument("what", nargs="+", choices=["latency", "idle", "burst"])
    args = parser.parse_args()
    print(json.dumps({"machine": machine()}))
    for what in args.what:
        if what == "burst":
            results = [burst(args.root), burst(args.root, args.pace)]
        else:
            results = [latency(args.root) if what == "latency" else
                       idle(args.root, args.idle_seconds)]
        for result in results:
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
