"""Fusion rules, cross-validated across collections: each arm is run once per query, then
every rule re-fuses the cached arms and the rest of the pipeline (weak-row drop, decay, MMR,
page) runs for real on them.

    python bench/bench_fusion.py [--work <built roots>] [--json rows.jsonl]
                                 [--collections MED,LISA] [--families convex,rrf]
    python bench/bench_fusion.py --report rows.jsonl [more.jsonl]   # the tables, no runs

Families (``rules()``): convex at fixed weights (the default rule), RRF with a semantic vote,
and convex with a per-query weight from the query's length, from the arms' agreement in their
first ten, or from how flat each arm's head is.

Prints, per rule, each collection's headline metric minus the better of its two arms (LoCoMo
with the real clock and with "now at end"), then the cross-validation: for each collection,
the rule (within each family, and over all) that is best on the other five (largest worst
margin, then largest mean), and its margin on the held-out one. Roots are bench_quality.py's
(built there once, reused here); the local embedder unless --embedder says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from bench_quality import NOW, index, run
from common import BENCH_CACHE, machine
from quality_sets import available

import engine.retrieval.search_pipeline as pipeline
from engine.rank.convex import convex_merge
from engine.rank.stages import merge_arms
from engine.retrieval.fts_query import FTS5_STOP_WORDS

_both_arms = pipeline._both_arms
_cache: dict = {}
_current: dict = {}


def cached_arms(reader, parsed, text, mode, depth, filters, query_vec, index_, lap):
    """The arms of a query, run once and reused by every rule."""
    key = (reader.config.root, text, mode, depth, repr(filters))
    if key not in _cache:
        _cache[key] = _both_arms(reader, parsed, text, mode, depth, filters, query_vec,
                                 index_, lap)
    _current["parsed"] = parsed
    return _cache[key]


def content_terms(parsed) -> int:
    return len({t for t in parsed.terms if t not in FTS5_STOP_WORDS}) + len(parsed.phrases)


def convex(w):
    return lambda config, kw, sem, ref: convex_merge(kw, sem, w, ref)


def rrf(vote, k=60):
    def fuse(config, kw, sem, ref):
        def term(arm, rank, hit):
            v = 1.0 if arm == "keyword" else vote
            return v / (k + rank + 1), ""
        return merge_arms(kw, sem, term)
    return fuse


def convex_by_length(w0, slope, pivot=4):
    """The semantic weight grows with the query's content words: a long request's BM25 is an
    OR of many words, its embedding the request's gist."""
    def fuse(config, kw, sem, ref):
        n = content_terms(_current["parsed"])
        w = min(0.7, max(0.05, w0 + slope * (n - pivot)))
        return convex_merge(kw, sem, w, ref)
    return fuse


def convex_by_agreement(w0, gain, pivot=0.3):
    """The semantic weight grows with how much the arms' first ten agree: when they find the
    same chunks the semantic arm is as good a judge as the keyword one (equal votes)."""
    def fuse(config, kw, sem, ref):
        top_kw, top_sem = {c.id for c in kw[:10]}, {c.id for c in sem[:10]}
        overlap = len(top_kw & top_sem) / 10 if kw and sem else 0.0
        w = min(0.5, max(0.05, w0 + gain * (overlap - pivot)))
        return convex_merge(kw, sem, w, ref)
    return fuse


def _tenth(values: list[float]) -> float:
    """The 10th of an arm's scores over its best, 0 with fewer: how flat its head is."""
    return values[9] / values[0] if len(values) >= 10 and values[0] > 0 else 0.0


def convex_by_gap(w0, gain):
    """The semantic weight grows when the keyword arm's head is flatter than the semantic
    arm's (its leader barely ahead: an uncertain arm) and shrinks in the opposite case."""
    def fuse(config, kw, sem, ref):
        flat_kw = _tenth([c.keyword_score if c.keyword_score is not None else (c.bm25 or 0.0)
                          for c in kw])
        low = ref if ref is not None else 0.0
        flat_sem = _tenth([max(0.0, (c.similarity or 0.0) - low) for c in sem])
        w = min(0.5, max(0.05, w0 + gain * (flat_kw - flat_sem)))
        return convex_merge(kw, sem, w, ref)
    return fuse


def rules() -> dict[str, dict[str, object]]:
    families: dict[str, dict[str, object]] = {
        "convex": {f"convex w={w}": convex(w) for w in (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)},
        "rrf": {f"rrf v={v}": rrf(v) for v in (0.25, 0.5, 0.75, 1.0)},
        "convex_len": {f"convex len w0={w0} s={s}": convex_by_length(w0, s)
                       for w0 in (0.1, 0.15, 0.2) for s in (0.005, 0.01, 0.02, 0.03)},
        "convex_agree": {f"convex agree w0={w0} g={g}": convex_by_agreement(w0, g)
                         for w0 in (0.15, 0.2) for g in (0.1, 0.25, 0.5)},
        "convex_gap": {f"convex gap w0={w0} g={g}": convex_by_gap(w0, g)
                       for w0 in (0.15, 0.2) for g in (0.1, 0.25, 0.5)},
    }
    return families


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, default=BENCH_CACHE / "quality")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--json", type=Path, help="write every (rule, collection) row here")
    ap.add_argument("--collections", help="comma-separated names (default: every one found)")
    ap.add_argument("--families", help="comma-separated: only these rule families")
    ap.add_argument("--report", type=Path, nargs="*",
                    help="no runs: the report of rows written by --json runs")
    args = ap.parse_args()
    families = rules()
    if args.families:
        families = {f: families[f] for f in args.families.split(",")}
    if args.report:
        rows = [json.loads(line) for path in args.report for line in path.read_text().splitlines()]
        report({(r.pop("collection"), r.pop("clock")): r for r in rows}, families)
        return
    pipeline._both_arms = cached_arms
    collections = available()
    if args.collections:
        wanted = {n.strip().lower() for n in args.collections.split(",")}
        collections = [c for c in collections if c.name.lower() in wanted]
    print(f"machine: {machine()}; embedder {args.embedder}; now {NOW:%Y-%m-%d}\n", flush=True)
    # (collection, clock) -> {"keyword": m, "semantic": m, rule: m}
    table: dict[tuple[str, str], dict[str, float]] = {}
    fuse = pipeline.fuse
    for collection in collections:
        searcher = index(collection, args.work, args.embedder, {})
        metric = collection.headline
        clocks = ("real", "end") if any(q.now for q in collection.queries()) else ("real",)
        for clock in clocks:
            row = table.setdefault((collection.name, clock), {})
            for mode in ("keyword", "semantic"):
                row[mode] = run(collection, searcher, mode, clock)[metric]
            for family in families.values():
                for name, rule in family.items():
                    pipeline.fuse = rule
                    row[name] = run(collection, searcher, "hybrid", clock)[metric]
            pipeline.fuse = fuse
            row["default"] = run(collection, searcher, "hybrid", clock)[metric]
            print(json.dumps({"collection": collection.name, "clock": clock, **row}),
                  flush=True)
        searcher.close()
        _cache.clear()
    if args.json:
        args.json.write_text("".join(json.dumps({"collection": c, "clock": k, **row}) + "\n"
                                     for (c, k), row in table.items()))
    report(table, families)


def margins(table, name):
    return {key: row[name] - max(row["keyword"], row["semantic"]) for key, row in table.items()}


def fit(table, name, train) -> tuple[float, float]:
    """How a rule does on the training collections: its worst margin, then its mean."""
    m = margins(table, name)
    return min(m[k] for k in train), statistics.fmean(m[k] for k in train)


def report(table, families) -> None:
    keys = list(table)
    print("\n| rule | " + " | ".join(f"{c} ({k})" for c, k in keys) + " | worst | mean |")
    print("|---|" + "---|" * (len(keys) + 2))
    names = ["default", *(n for f in families.values() for n in f)]
    for name in names:
        m = margins(table, name)
        cells = " | ".join(f"{m[k]:+.4f}" for k in keys)
        print(f"| {name} | {cells} | {min(m.values()):+.4f} | "
              f"{statistics.fmean(m.values()):+.4f} |")
    print("\nCross-validation: the rule best on the other collections (worst margin, then "
          "mean), its margin on the one held out")
    groups = {"all": names[1:], **{f: list(rs) for f, rs in families.items()}}
    held = sorted({c for c, _ in keys})
    print("| family | " + " | ".join(held) + " |")
    print("|---|" + "---|" * len(held))
    for family, members in groups.items():
        cells = []
        for out in held:
            train = [k for k in keys if k[0] != out]
            best = max(members, key=lambda name, train=train: fit(table, name, train))
            test = [margins(table, best)[k] for k in keys if k[0] == out]
            cells.append(f"{best}: {min(test):+.4f}")
        print(f"| {family} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    os.environ.setdefault("MEMLENS_EMBEDDER", "local")
    main()
