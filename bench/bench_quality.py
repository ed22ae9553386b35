"""Retrieval quality: every collection under ../shared/bench-data × mode × installed embedder.

Each collection becomes a data root under --work (built and indexed once per embedder, then
reused), its queries run through the public Searcher.search() in keyword, semantic and hybrid
mode, and a plain SQLite FTS5 bm25 OR query of every word of the question as written (stop
words and repeats kept) over the same chunks is scored as the baseline. Collections and metrics: bench/quality_sets.py. A collection whose queries
carry their own clock (LoCoMo-dev: each conversation's last turn) runs twice, with the real
clock and "now at end", where recency decay acts as a person meets it, plus that clock without
decay. Prints a summary (each collection's headline metric), a markdown table per collection
(for docs/benchmarks.md) and, with --json, one JSON line per row.

    python bench/bench_quality.py [--embedders local,minilm,e5] [--collections LoCoMo-dev,LISA]
                                  [--work <folder>]
                                  [--set semantic_weight=0.3 --set message_share=0.6]

``--set`` overrides a ``[search]`` number for the searches (not the index), as memlens.toml
would: how the weights in docs/benchmarks.md were swept on built roots.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

from common import BENCH_CACHE, machine, percentiles
from quality_sets import Collection, Query, available

from engine.config import load_config
from engine.indexer import reindex
from engine.retrieval.fts_query import quote, tokenize
from engine.searcher import Searcher

NOW = datetime(2026, 11, 30, tzinfo=UTC)
MODES = ("keyword", "semantic", "hybrid")


def installed_embedders() -> list[str]:
    """local always; minilm when its runtime imports (never installed by this script). e5 only
    when asked (--embedders e5): embedding SciFact alone takes about half an hour here."""
    found = ["local"]
    if importlib.util.find_spec("sentence_transformers") is not None:
        found.append("minilm")
    return found


def plain_fts5(searcher: Searcher, q: Query, depth: int) -> list[tuple[str, list | None]]:
    """The baseline: one FTS5 OR query over every word of the question as written (stop words
    and repeats kept, as a plain FTS5 user would type them), bm25 order, same filter."""
    words = tokenize(q.text)
    if not words:
        return []
    match = " OR ".join(quote(w) for w in words)
    prefix = q.filters.get("path_prefix") or ""
    rows = searcher.connection().execute(
        "SELECT c.source_file, json_extract(c.metadata, '$.lines') FROM chunks_fts "
        "JOIN chunks c ON c.rowid = chunks_fts.rowid WHERE chunks_fts MATCH ? "
        "AND substr(c.source_file, 1, ?) = ? ORDER BY bm25(chunks_fts) LIMIT ?",
        (match, len(prefix), prefix, depth)).fetchall()
    return [(r[0], json.loads(r[1]) if r[1] else None) for r in rows]


def run(collection: Collection, searcher: Searcher, mode: str | None,
        clock: str = "real", decay: bool = True) -> dict:
    """Mean metrics over the collection's queries; mode None is the plain FTS5 baseline.
    ``clock`` "real": today (a 2023 conversation is old, every chunk at the decay floor);
    "end": each query's own clock (the conversation's last turn), decay as a person meets it."""
    totals = dict.fromkeys(collection.metrics, 0.0)
    latencies = []
    queries = collection.queries()
    for q in queries:
        t = time.perf_counter()
        if mode is None:
            rows = plain_fts5(searcher, q, collection.depth)
        else:
            now = q.now if clock == "end" and q.now is not None else NOW
            response = searcher.search(q.text, limit=collection.depth, mode=mode, now=now,
                                       decay=decay, **q.filters)
            rows = [(r.source_file, r.metadata.get("lines")) for r in response]
        latencies.append((time.perf_counter() - t) * 1000)
        for name, value in collection.score(rows, q).items():
            totals[name] += value
    out = {name: round(value / len(queries), 4) for name, value in totals.items()}
    return {"queries": len(queries), **out, "p50_ms": percentiles(latencies)["p50"]}


SETTABLE = ("semantic_weight", "message_share", "similarity_threshold", "decay_weight")


def index(collection: Collection, work: Path, embedder: str,
          overrides: dict[str, float]) -> Searcher:
    root = collection.build(work / f"{collection.name.lower()}-{embedder}")
    os.environ["MEMLENS_EMBEDDER"] = embedder
    config = load_config(root)
    reindex(config=config)  # incremental: a second run only checks the files
    return Searcher(dataclasses.replace(config, **overrides))


def overrides_of(pairs: list[str]) -> dict[str, float]:
    """``--set key=value`` pairs as search settings."""
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in SETTABLE:
            raise SystemExit(f"--set: {key!r} is not one of {', '.join(SETTABLE)}")
        try:
            out[key] = float(value)
        except ValueError:
            raise SystemExit(f"--set {key}: {value!r} is not a number") from None
    return out


def print_summary(table: list, collections: list[Collection], embedders: list[str]) -> None:
    """One line per collection × clock × embedder on the collection's headline metric
    (``Collection.headline``): the table docs/benchmarks.md shows. ``margin`` is the hybrid
    minus the better of its two arms."""
    print("| collection | metric | plain FTS5 OR | keyword arm | semantic | hybrid | margin |")
    print("|---|---|---|---|---|---|---|")
    for collection in collections:
        metric = collection.headline
        by_run = {(arm, emb): result[metric] for c, arm, emb, result in table if c is collection}
        plain = by_run[("plain FTS5 OR", "—")]
        for suffix in ("", ", now at end"):
            keyword = by_run.get(("keyword arm" + suffix, "—"))
            if keyword is None:
                continue
            for embedder in embedders:
                semantic = by_run[("semantic" + suffix, embedder)]
                hybrid = by_run[("hybrid" + suffix, embedder)]
                name = f"{collection.name}{suffix} ({embedder})"
                print(f"| {name} | {metric} | {plain:.4f} | {keyword:.4f} | {semantic:.4f} "
                      f"| **{hybrid:.4f}** | {hybrid - max(keyword, semantic):+.4f} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedders", help="comma-separated (default: every installed one)")
    parser.add_argument("--collections",
                        help="comma-separated names (default: every one found), e.g. SciFact")
    parser.add_argument("--work", type=Path, default=BENCH_CACHE / "quality")
    parser.add_argument("--json", action="store_true", help="also print one JSON line a row")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help=f"a search setting for this run: {', '.join(SETTABLE)}")
    args = parser.parse_args()
    overrides = overrides_of(args.set)
    collections = available()
    if not collections:
        raise SystemExit("no collection found under ../shared/bench-data")
    if args.collections:
        wanted = {name.strip().lower() for name in args.collections.split(",")}
        collections = [c for c in collections if c.name.lower() in wanted]
        if not collections:
            raise SystemExit(f"no collection named {args.collections!r} was found")
    embedders = args.embedders.split(",") if args.embedders else installed_embedders()
    shown = "".join(f"; {k} = {v}" for k, v in overrides.items())
    print(f"machine: {machine()}; embedders: {', '.join(embedders)}{shown}\n")
    table = []
    for collection in collections:
        baseline_done = False
        for embedder in embedders:
            searcher = index(collection, args.work, embedder, overrides)
            if not baseline_done:
                table.append((collection, "plain FTS5 OR", "—", run(collection, searcher, None)))
                baseline_done = True
            clocks = ("real", "end") if any(q.now for q in collection.queries()) else ("real",)
            for clock in clocks:
                suffix = "" if clock == "real" else ", now at end"
                for mode in MODES:
                    if mode == "keyword" and embedder != embedders[0]:
                        continue  # the keyword arm does not depend on the embedder
                    arm = ("keyword arm" if mode == "keyword" else mode) + suffix
                    shown = "—" if mode == "keyword" else embedder
                    table.append((collection, arm, shown, run(collection, searcher, mode,
                                                              clock)))
                if clock == "end":  # decay's own cost: the same hybrid without it
                    table.append((collection, "hybrid, now at end, no decay", embedder,
                                  run(collection, searcher, "hybrid", clock, decay=False)))
            searcher.close()
    print_summary(table, collections, embedders)
    for collection in collections:
        rows = [t for t in table if t[0] is collection]
        names = collection.metrics
        print(f"### {collection.name} ({rows[0][3]['queries']} queries)\n")
        print("| run | embedder | " + " | ".join(names) + " | p50 ms |")
        print("|---|---|" + "---|" * len(names) + "---|")
        for _, arm, embedder, result in rows:
            cells = " | ".join(f"{result[n]:.4f}" for n in names)
            print(f"| {arm} | {embedder} | {cells} | {result['p50_ms']} |")
        print()
    if args.json:
        for collection, arm, embedder, result in table:
            print(json.dumps({"collection": collection.name, "run": arm,
                              "embedder": embedder, **result}))


if __name__ == "__main__":
    main()
