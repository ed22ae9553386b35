"""The message-vector stage at size: rescoring the KNN's hits with their messages' vectors.

Builds an index of N chat windows (ten 384-d messages each, MiniLM's size) through the
engine's schema and engine/vectors/message_vectors.py, then times `rescore` over 100 hits (the KNN's
depth: max(depth, 100)) drawn at random, page cache warm, and prints p50/p95, the write
throughput and peak memory. No model runs: the vectors are random unit rows, which costs the
stage the same.

    python bench/bench_message_vectors.py [--windows 100000] [--work <folder>]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import time
from pathlib import Path

import numpy as np
from common import BENCH_CACHE, machine, percentiles

from engine.schema import ensure_schema
from engine.storage.db import connect, transaction
from engine.vectors.message_vectors import pack, rescore, store

DIM, MESSAGES, HITS = 384, 10, 100


def build(db: Path, windows: int, rng: np.random.Generator) -> float:
    """Windows/s written: chunks rows and their message vectors, 2,000 a transaction."""
    conn = connect(db)
    ensure_schema(conn)
    started = time.perf_counter()
    for start in range(0, windows, 2000):
        n = min(2000, windows - start)
        with transaction(conn):
            conn.executemany(
                "INSERT INTO chunks(rowid, id, source_file, source_type, content, indexed_at, "
                "content_hash) VALUES (?, ?, 'chat.jsonl', 'telegram', '', '', '')",
                [(start + i + 1, f"chat.jsonl#w{start + i}") for i in range(n)])
            store(conn, [(start + i + 1, pack(list(rng.standard_normal((MESSAGES, DIM)))))
                         for i in range(n)])
    conn.close()
    return windows / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--work", type=Path, default=BENCH_CACHE / "message-vectors")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    db = args.work / "memlens.db"
    rate = build(db, args.windows, rng)
    size = db.stat().st_size / 2**20
    conn = connect(db, readonly=True)
    conn.execute("SELECT sum(length(vectors)) FROM message_vectors").fetchone()  # warm the cache
    laps = []
    for _ in range(args.queries):
        rowids = rng.choice(args.windows, HITS, replace=False) + 1
        hits = sorted(((int(r), float(s)) for r, s in zip(rowids, rng.random(HITS),
                                                           strict=True)), key=lambda h: -h[1])
        query = rng.standard_normal(DIM).astype(np.float32)
        t = time.perf_counter()
        out = rescore(conn, hits, query, 0.5)
        laps.append((time.perf_counter() - t) * 1000)
        assert len(out.parts) == HITS
    conn.close()
    p = percentiles(laps)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {machine()}")
    print(f"{args.windows:,} windows × {MESSAGES} messages × {DIM}-d: written at "
          f"{rate:,.0f} windows/s, index {size:,.0f} MB")
    print(f"rescore {HITS} hits, {args.queries} queries, warm: p50 {p['p50']} ms, "
          f"p95 {p['p95']} ms; peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
