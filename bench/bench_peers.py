"""memlens's two arms next to what a user could pick instead, in one run.

    pip install -e '.[bench]'   # tantivy, faiss-cpu, matplotlib: benchmark-only
    python bench/bench_peers.py --root <100k root> [--queries 100]

Keyword: memlens's bm25 top 50 (the keyword arm's retrieval, what tantivy is asked for), the
keyword arm as served (chat windows re-ranked by passage evidence and related words), a plain
FTS5 bm25 OR query of the same words (the exact reference), and tantivy (BM25, English
stemmer) over the same chunk texts, top 50 each; latency and the share of the plain OR
query's top 50 (and top 10) each one returns. Each store's files are read into the OS page
cache just before its rows are timed (``page_in``).
Vector: memlens's vector arm (the sidecar when present), exact numpy float32, FAISS exact
(IndexFlatIP) and FAISS HNSW (M=32, efSearch 64 and 256), on the same vectors and queries,
top 50; latency and recall@50 against exact float32. Every library is pinned to one thread,
as memlens's BLAS is (the other core runs the keyword arm).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_search import exact_float32, natural_queries
from common import machine, percentiles

from engine.config import load_config
from engine.retrieval.fts_query import build_match, parse_query
from engine.retrieval.keyword_arm import keyword_search
from engine.searcher import Filters, Searcher


def timed(fn, items) -> tuple[list, dict]:
    out, ms = [], []
    for item in items:
        t = time.perf_counter()
        out.append(fn(item))
        ms.append((time.perf_counter() - t) * 1000)
    return out, percentiles(ms)


def overlap(got: list, truth: list, k: int) -> float:
    return len(set(got[:k]) & set(truth[:k])) / max(len(truth[:k]), 1)


def agreement(results: list[list], truths: list[list]) -> dict:
    return {f"top{k}_of_plain_or": round(statistics.fmean(
        overlap(g, t, k) for g, t in zip(results, truths, strict=True)), 4) for k in (10, 50)}


def tantivy_index(conn, folder: Path):
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("content", stored=False, tokenizer_name="en_stem")
    builder.add_integer_field("rowid", stored=True, indexed=False, fast=True)
    schema = builder.build()
    index = tantivy.Index(schema, path=str(folder))
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for rowid, content in conn.execute("SELECT rowid, content FROM chunks"):
        writer.add_document(tantivy.Document(content=content, rowid=rowid))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def page_in(paths: list[Path]) -> float:
    """Read ``paths`` whole, so the OS page cache holds them: seconds taken. This VM pages
    out files idle for a few seconds (DAMON), so the rows a first pass reads came from disk
    (bm25 top 50 max 113-288 ms, p95 28-66 ms, in runs of 7 Dec), while tantivy's index is
    timed just after it is written. Each store is paged in just before its rows."""
    t = time.perf_counter()
    for path in paths:
        if path.exists():
            with path.open("rb") as f:
                while f.read(1 << 22):
                    pass
    return round(time.perf_counter() - t, 2)


def keyword_section(searcher: Searcher, queries: list[str], tmp: Path) -> dict:
    conn = searcher.connection()
    parsed = [parse_query(q) for q in queries]
    db = searcher.config.db_path
    db_files = [db, db.with_name(db.name + "-wal")]

    def plain_or(p):
        return [r[0] for r in conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY bm25(chunks_fts) LIMIT 50", (build_match(p, "or"),))]

    def bm25_top50(p):  # the arm's retrieval alone: what tantivy is asked for
        rows, _ = keyword_search(conn, p, 50, "1=1", [], searcher.config.keyword_common_df)
        return [r["rowid"] for r in rows]

    def arm(p):  # as served: chat windows re-ranked by passage evidence and related words
        return [c.rowid for c in searcher.keyword_arm(p, 50, Filters())]

    paged_s = page_in(db_files)
    truth, plain_ms = timed(plain_or, parsed)
    paged_s += page_in(db_files)
    ranked, ranked_ms = timed(bm25_top50, parsed)
    paged_s += page_in(db_files)
    ours, ours_ms = timed(arm, parsed)
    out = {"paged_in_s": round(paged_s, 2), "plain_fts5_or": {"ms": plain_ms},
           "memlens_bm25_top50": {"ms": ranked_ms, **agreement(ranked, truth)},
           "memlens_keyword_arm": {"ms": ours_ms, **agreement(ours, truth)}}
    t = time.perf_counter()
    index = tantivy_index(conn, tmp)
    build_s = time.perf_counter() - t
    search = index.searcher()
    page_in(sorted(f for f in tmp.rglob("*") if f.is_file()))

    def tantivy_search(p):
        query = index.parse_query(" ".join(p.terms + [w for ph in p.phrases for w in ph]),
                                  ["content"])
        return [search.doc(addr)["rowid"][0] for _, addr in search.search(query, 50).hits]

    theirs, tantivy_ms = timed(tantivy_search, parsed)
    out["tantivy"] = {"ms": tantivy_ms, "build_s": round(build_s, 1),
                      **agreement(theirs, truth)}
    out["ratio_p50_memlens_over_tantivy"] = round(ours_ms["p50"] / tantivy_ms["p50"], 2)
    out["ratio_p50_memlens_bm25_over_tantivy"] = round(ranked_ms["p50"] / tantivy_ms["p50"], 2)
    out["ratio_p50_memlens_over_plain_or"] = round(ours_ms["p50"] / plain_ms["p50"], 2)
    return out


def recall(results: list[list], truths: list[tuple]) -> dict:
    """recall@50 by rowid, and tie-aware: a hit counts when its exact similarity reaches the
    50th best (the synthetic corpus holds many chunks with identical vectors)."""
    rs = [len(set(g) & t) / 50 for g, (t, _) in zip(results, truths, strict=True)]
    ties = [sum(sims_of(r) >= floor - 1e-5 for r in g) / 50
            for g, (_, (floor, sims_of)) in zip(results, truths, strict=True)]
    return {"recall@50_mean": round(statistics.fmean(rs), 4), "recall@50_min": round(min(rs), 3),
            "tie_aware_recall@50_mean": round(statistics.fmean(ties), 4),
            "tie_aware_recall@50_min": round(min(ties), 3)}


def vector_section(searcher: Searcher, queries: list[str]) -> dict:
    import faiss

    faiss.omp_set_num_threads(1)
    conn = searcher.connection()
    index = searcher.vector_index()
    rowids, matrix = exact_float32(conn, index.dim)
    vecs = [searcher.embedder.embed_single(q).astype(np.float32) for q in queries]

    def exact(v):
        return rowids[np.argpartition(-(matrix @ v), 50)[:50]].tolist()

    truth, exact_ms = timed(exact, vecs)
    position = {int(r): i for i, r in enumerate(rowids)}
    truths = []
    for v, t in zip(vecs, truth, strict=True):
        sims = matrix @ v
        floor = float(np.sort(sims)[-50])
        truths.append((set(t), (floor, lambda r, sims=sims: sims[position[int(r)]])))
    ours, ours_ms = timed(lambda v: [r for r, _ in index.search(v, 50)], vecs)
    out = {"vectors": len(rowids), "dim": index.dim,
           "numpy_exact_float32": {"ms": exact_ms},
           "memlens_vector_arm": {"index": type(index).__name__, "ms": ours_ms,
                                  **recall(ours, truths)}}
    flat = faiss.IndexFlatIP(index.dim)
    flat.add(matrix)
    got, ms = timed(lambda v: rowids[flat.search(v[None, :], 50)[1][0]].tolist(), vecs)
    out["faiss_flat_ip"] = {"ms": ms, **recall(got, truths)}
    t = time.perf_counter()
    hnsw = faiss.IndexHNSWFlat(index.dim, 32, faiss.METRIC_INNER_PRODUCT)
    hnsw.hnsw.efConstruction = 80
    hnsw.add(matrix)
    build_s = time.perf_counter() - t
    for ef in (64, 256):
        hnsw.hnsw.efSearch = ef
        got, ms = timed(lambda v: rowids[hnsw.search(v[None, :], 50)[1][0]].tolist(), vecs)
        out[f"faiss_hnsw_ef{ef}"] = {"ms": ms, "build_s": round(build_s, 1),
                                     "memory_mb": round(matrix.nbytes / 2**20 * 1.25), **recall(
                                         got, truths)}
    out["ratio_p50_memlens_over_numpy_exact"] = round(ours_ms["p50"] / exact_ms["p50"], 2)
    out["ratio_p50_memlens_over_faiss_hnsw_ef64"] = round(
        ours_ms["p50"] / out["faiss_hnsw_ef64"]["ms"]["p50"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    searcher = Searcher(load_config(args.root))
    conn = searcher.connection()
    queries = natural_queries(conn, args.queries)
    searcher.warm_up()  # as the app and the MCP server do at start (the rows' lengths)
    searcher.search("warm up", limit=10)
    chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    print(json.dumps({"machine": machine(), "chunks": chunks, "queries": len(queries)}))
    # keyword first: the vector section leaves ~1 GB of matrices and FAISS's threads behind,
    # which slowed the keyword rows measured after it (14.6 against 8.2 ms p50, 7 Dec)
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps({"keyword": keyword_section(searcher, queries, Path(tmp))}),
              flush=True)
    print(json.dumps({"vector": vector_section(searcher, queries)}), flush=True)


if __name__ == "__main__":
    main()
