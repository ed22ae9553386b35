"""Search latency and vector-arm recall on a demo corpus.

    python bench/bench_search.py --root <500k root> [--queries 150] [--no-warm-up]

After a first search, the searcher is warmed up as the app and the MCP server do at start
(``Searcher.warm_up``: the keyword arm's row lengths read in one pass). Prints p50/p95 over natural queries (3-6 content words taken from random chunks) for hybrid,
keyword-only and semantic-only search, the per-stage share, the same for 60-word queries
(60 consecutive words of a random chunk, stop words included, as pasted text would be) with
the plain FTS5 OR query of the same words beside them, the semantic arm's recall@50
against exact float32 search over the stored vectors, and whether a filter on a small source
type finds its chunks when none is in the unfiltered top 250.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from common import machine, peak_rss_mb, percentiles

from engine.config import load_config
from engine.retrieval.fts_query import FTS5_STOP_WORDS
from engine.searcher import Searcher
from engine.vectors.sidecar_scan import RESCORE_DEPTH as DEFAULT_RESCORE

NOW = datetime(2026, 11, 30, tzinfo=UTC)
WORD = re.compile(r"[A-Za-z]{3,}")


def _random_contents(conn, seed: int):
    """Chunk contents at random rowids, endlessly, reproducibly for ``seed``."""
    rng = random.Random(seed)
    max_rowid = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    while True:
        row = conn.execute("SELECT content FROM chunks WHERE rowid >= ? LIMIT 1",
                           (rng.randint(1, max_rowid),)).fetchone()
        yield rng, row[0]


def natural_queries(conn, n: int, seed: int = 11) -> list[str]:
    """3-6 consecutive content words of random chunks."""
    queries: list[str] = []
    for rng, content in _random_contents(conn, seed):
        if len(queries) == n:
            break
        words = [w.lower() for w in WORD.findall(content) if w.lower() not in FTS5_STOP_WORDS]
        words = list(dict.fromkeys(words))
        if len(words) < 3:
            continue
        k = rng.randint(3, min(6, len(words)))
        start = rng.randint(0, len(words) - k)
        queries.append(" ".join(words[start:start + k]))
    return queries


def long_queries(conn, n: int, words: int = 60, seed: int = 13) -> list[str]:
    """``words`` consecutive words (stop words included) of random chunks."""
    queries: list[str] = []
    for rng, content in _random_contents(conn, seed):
        if len(queries) == n:
            break
        found = [w.lower() for w in WORD.findall(content)]
        if len(found) >= words:
            start = rng.randint(0, len(found) - words)
            queries.append(" ".join(found[start:start + words]))
    return queries


def long_query_section(searcher: Searcher, queries: list[str]) -> dict:
    """Both modes over the long queries, and the plain FTS5 OR query of the same words:
    its latency and how much of its top 10 the keyword arm returns."""
    from engine.retrieval.fts_query import build_match, parse_query
    from engine.searcher import Filters

    conn = searcher.connection()
    out = {"queries": len(queries), "words": len(queries[0].split())}
    for mode in ("hybrid", "keyword"):
        latency, stages = timed(searcher, queries, mode=mode)
        out[mode] = {"latency_ms": latency, "stage_p50_ms": stages}
    plain_ms, shares = [], []
    for q in queries:
        parsed = parse_query(q)
        t = time.perf_counter()
        plain = [r[0] for r in conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY bm25(chunks_fts) LIMIT 10", (build_match(parsed, "or"),))]
        plain_ms.append((time.perf_counter() - t) * 1000)
        arm = [c.rowid for c in searcher.keyword_arm(parsed, 50, Filters())][:10]
        shares.append(len(set(arm) & set(plain)) / max(len(plain), 1))
    out["plain_fts5_or_ms"] = percentiles(plain_ms)
    out["keyword_arm_share_of_plain_or_top10"] = round(statistics.fmean(shares), 3)
    return out


def timed(searcher: Searcher, queries: list[str], **kw) -> tuple[dict, dict]:
    latencies, stages = [], {}
    for q in queries:
        t = time.perf_counter()
        r = searcher.search(q, now=NOW, **kw)
        latencies.append((time.perf_counter() - t) * 1000)
        for stage, ms in r.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
    return percentiles(latencies), {s: round(statistics.median(v), 2) for s, v in stages.items()}


def exact_float32(conn, dim: int):
    """Every vector as stored, in ``chunks.embedding`` (the one copy)."""
    rowids, vectors = [], []
    for rowid, blob in conn.execute(
            "SELECT rowid, embedding FROM chunks WHERE embedding IS NOT NULL"):
        rowids.append(rowid)
        vectors.append(blob)
    return (np.asarray(rowids, np.int64),
            np.frombuffer(b"".join(vectors), np.float32).reshape(len(rowids), dim))


def recall_at_50(searcher: Searcher, queries: list[str],
                 depths=(500, 1000, 2000, 4000, 8000)) -> dict:
    """The vector arm against exact float32 over the same vectors: recall@50 by rowid, and
    tie-aware (a hit counts when its exact similarity reaches the 50th; the synthetic corpus
    has many near-duplicate chunks), per rescoring depth."""
    conn = searcher.connection()
    index = searcher.vector_index()
    rowids, matrix = exact_float32(conn, index.dim)
    position = {int(r): i for i, r in enumerate(rowids)}
    vecs = [searcher.embedder.embed_single(q) for q in queries]
    exact_ms, truths = [], []
    for vec in vecs:
        t = time.perf_counter()
        sims = matrix @ vec
        top = np.argpartition(-sims, 50)[:50]
        exact_ms.append((time.perf_counter() - t) * 1000)
        truths.append((set(rowids[top].tolist()), float(sims[top].min()), sims))
    out = {"index": "memory" if index.in_memory else "sidecar file", "projection_dims": int(index.basis.shape[1]),
           "default_rescore_depth": DEFAULT_RESCORE, "numpy_exact_float32_ms":
           percentiles(exact_ms), "by_depth": {}}
    for depth in depths:
        recalls, tie_recalls, ms = [], [], []
        for vec, (truth, floor, sims) in zip(vecs, truths, strict=True):
            t = time.perf_counter()
            got = [r for r, _ in index.search(vec, 50, rescore=depth)]
            ms.append((time.perf_counter() - t) * 1000)
            recalls.append(len(set(got) & truth) / 50)
            tie_recalls.append(sum(sims[position[r]] >= floor - 1e-6 for r in got) / 50)
        out["by_depth"][depth] = {
            "recall@50_mean": round(statistics.fmean(recalls), 4),
            "recall@50_min": round(min(recalls), 3),
            "recall@50_p5": round(float(np.percentile(recalls, 5)), 3),
            "tie_aware_recall@50_mean": round(statistics.fmean(tie_recalls), 4),
            "tie_aware_recall@50_min": round(min(tie_recalls), 3), "ms": percentiles(ms)}
    return out


def small_type_filter(searcher: Searcher, queries: list[str], source_type: str = "cgm") -> dict:
    checked = found = 0
    for q in queries:
        unfiltered = searcher.search(q, limit=50, now=NOW, mode="hybrid")
        top = searcher.search(q, limit=50, now=NOW)  # depth 250 per arm
        if any(r.source_type == source_type for r in list(unfiltered) + list(top)):
            continue
        checked += 1
        # the semantic arm always has neighbours of that type; a hybrid page shows them only
        # past the similarity floor (no keyword evidence), so it may rightly be empty
        filtered = searcher.search(q, limit=10, source_types=[source_type], now=NOW,
                                   mode="semantic")
        found += len(filtered.results) == 10 and all(
            r.source_type == source_type for r in filtered)
    return {"source_type": source_type, "queries_without_it_in_top250": checked,
            "filtered_semantic_page_full_of_that_type": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--long-queries", type=int, default=30)
    parser.add_argument("--skip", default="", help="comma list: recall,filter,long")
    parser.add_argument("--no-warm-up", action="store_true",
                        help="skip Searcher.warm_up (the keyword arm's row lengths then fill "
                             "as the queries meet them)")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    config = load_config(args.root)
    searcher = Searcher(config)
    conn = searcher.connection()
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    queries = natural_queries(conn, args.queries)
    t = time.perf_counter()
    searcher.search("warm up the vector index", now=NOW)
    cold_ms = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    if not args.no_warm_up:
        searcher.warm_up()  # as the app and the MCP server do at start (the row lengths)
    warm_up_ms = (time.perf_counter() - t) * 1000
    for q in queries[:5]:
        searcher.search(q, now=NOW)
    print(json.dumps({"machine": machine(), "load_average": os.getloadavg(),
                      "chunks": chunks, "queries": len(queries),
                      "first_search_ms_incl_vector_load": round(cold_ms, 1),
                      "warm_up_ms": None if args.no_warm_up else round(warm_up_ms, 1),
                      "sample_queries": queries[:5]}))
    for mode in ("hybrid", "keyword", "semantic"):
        latency, stages = timed(searcher, queries, mode=mode)
        print(json.dumps({"mode": mode, "latency_ms": latency, "stage_p50_ms": stages}),
              flush=True)
    if "long" not in skip:
        print(json.dumps({"long_queries": long_query_section(
            searcher, long_queries(conn, args.long_queries))}), flush=True)
    if "recall" not in skip:
        print(json.dumps({"vector_arm": recall_at_50(searcher, queries[:100])}), flush=True)
    if "filter" not in skip:
        print(json.dumps({"filter": small_type_filter(searcher, queries[:40])}), flush=True)
    print(json.dumps({"peak_rss_mb": round(peak_rss_mb(), 1),
                      "load_average": os.getloadavg()}))


if __name__ == "__main__":
    main()
