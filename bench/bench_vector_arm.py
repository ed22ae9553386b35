"""The vector arm's first pass: the engine's path and alternatives, in one run (issue:
performance, 4).

    python bench/bench_vector_arm.py --root /tmp/h24-500k [--queries 100] [--repeat 3]

Every variant answers the same queries (k = 50) over the root's vector sidecar and is scored
against exact float32 over vec0 (recall@50 by rowid, mean and min). The variants run
interleaved, ``--repeat`` rounds, so a burst of load from other jobs hits each alike;
latencies are pooled over the rounds and ``p50_vs_engine`` compares them within the run.

- engine: ``SidecarIndex.search`` as shipped (head components, pool, all 128, float16).
- format 1: the previous path, emulated on a row-major copy of the 128 projected columns
  written to a temporary file and mapped (the page cache holds it after the first query):
  one product over all 128 columns into a new array, argpartition of the negated scores.
- format 1 + threshold: the same matrix, scores into a reused buffer, ``best_rows``.
- 2 BLAS threads / 2 row blocks: the engine's path with OpenBLAS allowed two threads, or
  its head product split into two row blocks on two Python threads (numpy drops the GIL).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from bench_search import exact_float32, natural_queries
from common import machine, percentiles
from threadpoolctl import threadpool_limits

from engine.config import load_config
from engine.searcher import Searcher
from engine.sidecar_index import RESCORE_DEPTH, best_rows

POOL = ThreadPoolExecutor(max_workers=1)


def row_major_copy(index, folder: Path) -> np.ndarray:
    seg = index.sidecar.segments[0]
    path = folder / "projected.bin"
    np.hstack([seg.head, seg.tail]).astype(np.float32).tofile(path)
    return np.memmap(path, np.float32, mode="r", shape=(len(seg.rowids), index.basis.shape[1]))


def format1(index, matrix, threshold: bool):
    """The pre-split search over the main segment (the few appended rows scored exactly)."""
    seg = index.sidecar.segments[0]
    n = len(matrix)
    dead = np.flatnonzero(~index._live[:n])
    rest = [s for s in index.sidecar.segments[1:]]
    rest_ids = np.concatenate([s.rowids for s in rest] or [np.zeros(0, np.int64)])
    rest_full = np.concatenate([s.full for s in rest] or [np.zeros((0, index.dim))])
    keep = index._live[n:]
    rest_ids, rest_full = rest_ids[keep], rest_full[keep].astype(np.float32)
    out = np.empty(n, np.float32)

    def search(query, k, rescore=RESCORE_DEPTH):
        query = np.asarray(query, np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        pq = query @ index.basis
        if threshold:
            scores = np.matmul(matrix, pq, out=out)
            scores[dead] = -np.inf
            idx = best_rows(scores, rescore)
        else:
            scores = matrix @ pq
            scores[dead] = -np.inf
            idx = np.sort(np.argpartition(-scores, rescore - 1)[:rescore])
        sims = np.concatenate([seg.full[idx].astype(np.float32) @ query, rest_full @ query])
        ids = np.concatenate([seg.rowids[idx], rest_ids])
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(ids[i]), float(sims[i])) for i in order]

    return search


def two_row_blocks(index):
    """The engine's search with its head product split over two threads."""
    buf = np.empty(len(index._seg_rowids), np.float32)

    def scores(pq_head):
        for seg, start in zip(index.sidecar.segments, index._starts, strict=False):
            rows = len(seg.rowids)
            if rows < 100_000:
                np.matmul(seg.head, pq_head, out=buf[start:start + rows])
                continue
            half = rows // 2
            fut = POOL.submit(np.matmul, seg.head[half:], pq_head,
                              out=buf[start + half:start + rows])
            np.matmul(seg.head[:half], pq_head, out=buf[start:start + half])
            fut.result()
        return buf

    def search(query, k):
        own = index._scores
        index._scores = scores
        try:
            return index.search(query, k)
        finally:
            index._scores = own

    return search


def two_blas_threads(index):
    def search(query, k):
        with threadpool_limits(limits=2, user_api="blas"):
            return index.search(query, k)

    return search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    searcher = Searcher(load_config(args.root))
    conn = searcher.connection()
    queries = natural_queries(conn, args.queries)
    index = searcher.vector_index()
    rowids, matrix = exact_float32(conn, index.dim)
    vecs = [searcher.embedder.embed_single(q).astype(np.float32) for q in queries]
    truths = [set(rowids[np.argpartition(-(matrix @ v), 50)[:50]].tolist()) for v in vecs]
    del matrix
    with tempfile.TemporaryDirectory() as tmp:
        row_major = row_major_copy(index, Path(tmp))
        engine = "engine: 96 head, pool 50,000 on 128, rescore 8,000"
        run({engine: index.search,
             "engine, rescore 6,000": lambda v, k: index.search(v, k, rescore=6000),
             "format 1: 128 row-major, argpartition (before)": format1(index, row_major, False),
             "format 1 + reused buffer + best_rows": format1(index, row_major, True)},
            vecs, truths, args.repeat, len(rowids))
        # apart: OpenBLAS's idle threads spin for a while and would slow whatever runs next
        run({engine: index.search, "engine, 2 BLAS threads": two_blas_threads(index),
             "engine, head product in 2 row blocks": two_row_blocks(index)},
            vecs, truths, args.repeat, len(rowids))


def run(variants: dict, vecs: list, truths: list, repeat: int, vectors: int) -> None:
    ms = {n: [] for n in variants}
    recalls = {n: [] for n in variants}
    print(json.dumps({"machine": machine(), "vectors": vectors, "queries": len(vecs),
                      "load_before": [round(x, 2) for x in os.getloadavg()]}), flush=True)
    for v in vecs[:5]:  # fault the maps in
        for fn in variants.values():
            fn(v, 50)
    for rnd in range(repeat):
        for vec, truth in zip(vecs, truths, strict=True):
            for name, fn in variants.items():
                t = time.perf_counter()
                got = fn(vec, 50)
                ms[name].append((time.perf_counter() - t) * 1000)
                if rnd == 0:
                    recalls[name].append(len({r for r, _ in got} & truth) / 50)
    base = statistics.median(next(iter(ms.values())))
    for name in variants:
        print(json.dumps({"variant": name, "ms": percentiles(ms[name]),
                          "p50_vs_engine": round(statistics.median(ms[name]) / base, 2),
                          "recall@50_mean": round(statistics.fmean(recalls[name]), 4),
                          "recall@50_min": round(min(recalls[name]), 3)}), flush=True)
    print(json.dumps({"load_after": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
