"""Retrieval quality on BEIR SciFact (../shared/bench-data/scifact): nDCG@10 and Recall@100.

Each abstract becomes one `note` (notes/<doc id>.md: "# <title>" then the abstract), indexed by
the normal reindex; the 300 test queries run through search() in keyword, semantic and hybrid
mode. Chunks are mapped back to documents by their source file (first occurrence wins).

    python bench/bench_scifact.py [--embedder local|minilm] [--work /tmp/scifact-root]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from common import SHARED, machine, percentiles

from engine.config import load_config
from engine.indexer import reindex
from engine.searcher import Searcher

SCIFACT = SHARED / "bench-data" / "scifact"
NOW = datetime(2026, 11, 30, tzinfo=UTC)


def build_root(work: Path) -> Path:
    notes = work / "notes"
    if not notes.exists():
        notes.mkdir(parents=True)
        with (SCIFACT / "corpus.jsonl").open() as f:
            for line in f:
                doc = json.loads(line)
                title = " ".join(doc["title"].split())
                (notes / f"{doc['_id']}.md").write_text(f"# {title}\n\n{doc['text']}\n")
    return work


def load_queries() -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    queries = {}
    with (SCIFACT / "queries.jsonl").open() as f:
        for line in f:
            q = json.loads(line)
            queries[q["_id"]] = q["text"]
    qrels: dict[str, dict[str, int]] = {}
    with (SCIFACT / "qrels" / "test.tsv").open() as f:
        for row in list(csv.reader(f, delimiter="\t"))[1:]:
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return {q: queries[q] for q in qrels}, qrels


def ndcg_at_10(ranked: list[str], rel: dict[str, int]) -> float:
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    return dcg / sum(r / math.log2(i + 2) for i, r in enumerate(ideal))


def doc_ranking(response) -> list[str]:
    seen: list[str] = []
    for r in response:
        doc = Path(r.source_file).stem
        if r.source_type == "note" and doc not in seen:
            seen.append(doc)
    return seen


def plain_or_quality(searcher: Searcher, queries: dict, qrels: dict) -> dict:
    """The baseline the keyword arm must not fall below: one FTS5 OR query, bm25 order."""
    from engine.fts_query import build_match, parse_query

    conn = searcher.connection()
    total_ndcg = total_recall = 0.0
    for qid, text in queries.items():
        match = build_match(parse_query(text), "or")
        rows = conn.execute(
            "SELECT c.source_file FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            "WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT 500", (match,)).fetchall()
        ranked = list(dict.fromkeys(Path(r[0]).stem for r in rows))
        total_ndcg += ndcg_at_10(ranked, qrels[qid])
        total_recall += len(set(ranked[:100]) & set(qrels[qid])) / len(qrels[qid])
    n = len(queries)
    return {"queries": n, "ndcg@10": round(total_ndcg / n, 4),
            "recall@100": round(total_recall / n, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", default="local", choices=["local", "minilm"])
    parser.add_argument("--work", type=Path)
    parser.add_argument("--modes", default="keyword,semantic,hybrid")
    parser.add_argument("--common-df", type=int, help="keyword_common_df override (the 500k "
                        "default 2000 is 0.4%% of the corpus; 23 is the same share here)")
    parser.add_argument("--plain-or", action="store_true",
                        help="also score the plain FTS5 OR query (the baseline)")
    args = parser.parse_args()
    if not SCIFACT.exists():
        raise SystemExit(f"SciFact is not at {SCIFACT}: this benchmark needs ../shared")
    work = args.work or Path(f"/tmp/memlens-scifact-{args.embedder}")
    os.environ["MEMLENS_EMBEDDER"] = args.embedder
    root = build_root(work)
    config = load_config(root)
    if args.common_df:
        config = config.with_overrides(keyword_common_df=args.common_df)
    t = time.perf_counter()
    stats = reindex(config=config)
    index_s = time.perf_counter() - t
    queries, qrels = load_queries()
    print(json.dumps({"machine": machine(), "embedder": args.embedder,
                      "indexed_chunks": stats.chunks, "index_s": round(index_s, 1)}))
    searcher = Searcher(config)
    if args.plain_or:
        print(json.dumps({"mode": "plain FTS5 OR (baseline)",
                          **plain_or_quality(searcher, queries, qrels)}), flush=True)
    for mode in args.modes.split(","):
        total_ndcg = total_recall = 0.0
        latencies = []
        for qid, text in queries.items():
            t = time.perf_counter()
            response = searcher.search(text, limit=100, mode=mode, now=NOW)
            latencies.append((time.perf_counter() - t) * 1000)
            ranked = doc_ranking(response)
            rel = qrels[qid]
            total_ndcg += ndcg_at_10(ranked, rel)
            total_recall += len(set(ranked[:100]) & set(rel)) / len(rel)
        n = len(queries)
        print(json.dumps({"mode": mode, "queries": n, "ndcg@10": round(total_ndcg / n, 4),
                          "recall@100": round(total_recall / n, 4),
                          "latency_ms": percentiles(latencies)}), flush=True)


if __name__ == "__main__":
    main()
