"""Indexing benchmarks.

    python bench/bench_index.py --root <100k root> --chunks 100000 build
    python bench/bench_index.py --root <500k root> --chunks 500000 build noop append

build: full first build with the local embedder (chunks/s, peak RSS, RSS sampled as it grows)
noop: a second reindex with nothing changed (seconds)
append: 100 messages appended to the largest Slack log (seconds, chunks embedded)
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import machine, peak_rss_mb, rss_mb

from engine.config import load_config
from engine.demo import generate_demo_root
from engine.indexer import reindex


def build(root: Path, chunks: int) -> dict:
    t = time.perf_counter()
    generate_demo_root(root, chunks=chunks)
    generated_s = time.perf_counter() - t
    config = load_config(root)
    if config.db_path.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(config.db_path) + suffix).unlink(missing_ok=True)
    samples: list[tuple[int, float]] = []
    next_sample = [0]

    def progress(p) -> None:
        if p.chunks_embedded >= next_sample[0]:
            samples.append((p.chunks_embedded, round(rss_mb(), 1)))
            next_sample[0] += max(chunks // 10, 1000)

    t = time.perf_counter()
    stats = reindex(config=config, progress=progress)
    seconds = time.perf_counter() - t
    return {
        "bench": "build", "chunks": stats.chunks, "files": stats.files,
        "generate_s": round(generated_s, 1), "index_s": round(seconds, 1),
        "chunks_per_s": round(stats.chunks / seconds, 1),
        "peak_rss_mb": round(peak_rss_mb(), 1), "rss_samples_mb": samples,
        "db_mb": round(config.db_path.stat().st_size / 2**20, 1),
        "errors": len(stats.errors), "pending": stats.pending_embeddings,
    }


def noop(root: Path) -> dict:
    config = load_config(root)
    reindex(config=config)  # make sure it is current
    times = []
    for _ in range(3):
        t = time.perf_counter()
        stats = reindex(config=config)
        times.append(time.perf_counter() - t)
        assert stats.files == 0 and stats.chunks == 0, stats
    return {"bench": "noop", "seconds": [round(x, 3) for x in times], "files": stats.skipped}


def append(root: Path) -> dict:
    config = load_config(root)
    logs = sorted((root / "data/slack").glob("*.jsonl"), key=lambda p: p.stat().st_size)
    largest = logs[-1]
    backup = largest.with_suffix(".bak")
    shutil.copyfile(largest, backup)
    try:
        reindex(config=config)
        t0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone(timedelta(hours=-8)))
        with largest.open("a") as f:
            for i in range(100):
                f.write(json.dumps({"ts": (t0 + timedelta(minutes=i)).isoformat(),
                                    "user": "Bench Person",
                                    "text": f"appended benchmark message {i}"}) + "\n")
        t = time.perf_counter()
        stats = reindex(config=config)
        seconds = time.perf_counter() - t
    finally:
        shutil.move(backup, largest)
        reindex(config=config)  # restore the index to the original file
    lines = sum(1 for _ in largest.open())
    return {"bench": "append", "file": largest.name, "messages_in_file": lines,
            "seconds": round(seconds, 3), "chunks_embedded": stats.embedded,
            "unchanged_chunks": stats.unchanged_chunks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("what", nargs="+", choices=["build", "noop", "append"])
    args = parser.parse_args()
    print(json.dumps({"machine": machine()}))
    for what in args.what:
        result = build(args.root, args.chunks) if what == "build" else (
            noop(args.root) if what == "noop" else append(args.root))
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
