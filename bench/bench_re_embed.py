"""Switching embedders at scale: a re-embed staged beside the current vectors, searched
throughout, then swapped in (engine/index/re_embed.py).

Builds (or reuses) a demo root of --chunks chunks with the local embedder, then re-embeds it
(the local embedder again, so the run measures the staging and the swap, not a model) while a
second thread searches it in hybrid mode every --every seconds. Prints the staging throughput,
how long the swap transaction took, the searches' p50/p95 during the staging and during the
swap, how many answers were not hybrid (must be 0), the index size before, staged and after,
and the peak RSS.

    python bench/bench_re_embed.py [--chunks 100000] [--work <folder>] [--every 0.05]
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

from common import BENCH_CACHE, machine, peak_rss_mb, percentiles

from engine.config import load_config
from engine.demo import generate_demo_root
from engine.indexer import reindex
from engine.searcher import Searcher

QUERIES = ["climbing trip", "tax deadline receipts", "sourdough starter", "harbor bridge launch",
           "dentist appointment", "what did Maya say about the kite", "running pace"]


def size_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--work", type=Path, default=BENCH_CACHE)
    ap.add_argument("--every", type=float, default=0.05, help="seconds between searches")
    args = ap.parse_args()
    root = args.work / f"re-embed-{args.chunks}"
    print(f"machine: {machine()}; root {root}")
    if not (root / "memlens.toml").exists() and not root.exists():
        generate_demo_root(root, chunks=args.chunks)
    config = load_config(root)
    stats = reindex(config=config)
    print(f"index: {stats.unchanged_chunks + stats.chunks:,} chunks, "
          f"{size_mb(config.db_path):,.0f} MB")

    phase = {"now": "staging"}
    swap_started: list[float] = []
    latencies: dict[str, list[float]] = {"staging": [], "swap": []}
    not_hybrid: list[str] = []
    done = threading.Event()
    staged_size: list[float] = []

    def progress(p) -> None:
        if p.phase == "re-embed" and p.pending_done >= p.pending_total:
            phase["now"] = "swap"  # staging covered the index: the swap transaction follows
            swap_started.append(time.perf_counter())
            staged_size.append(size_mb(config.db_path))

    def searching() -> None:
        searcher = Searcher(config)
        i = 0
        while not done.is_set():
            t = time.perf_counter()
            r = searcher.search(QUERIES[i % len(QUERIES)], limit=10)
            latencies[phase["now"]].append((time.perf_counter() - t) * 1000)
            if r.arms != "both":
                not_hybrid.append(r.arms)
            i += 1
            time.sleep(args.every)
        searcher.close()

    reader = threading.Thread(target=searching)
    reader.start()
    started = time.perf_counter()
    result = reindex(config=config, re_embed=True, progress=progress)
    ended = time.perf_counter()
    done.set()
    reader.join()
    staging_s = (swap_started[0] if swap_started else ended) - started
    swap_s = ended - swap_started[0] if swap_started else float("nan")
    print(f"re-embed: {result.embedded:,} chunks staged in {staging_s:.1f} s "
          f"({result.embedded / max(staging_s, 1e-9):,.0f}/s), swap and sidecar {swap_s:.1f} s, "
          f"swapped: {result.re_embedded}")
    for name, xs in latencies.items():
        p = percentiles(xs)
        if p:
            print(f"searches during the {name}: {p['n']}, p50 {p['p50']} ms, p95 {p['p95']} ms, "
                  f"max {p['max']} ms")
    print(f"answers not hybrid: {len(not_hybrid)}")
    print(f"index size: staged {staged_size[0] if staged_size else float('nan'):,.0f} MB, "
          f"after {size_mb(config.db_path):,.0f} MB (WAL included); peak RSS "
          f"{peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
