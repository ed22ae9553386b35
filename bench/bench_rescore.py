"""The learned re-scoring (engine/rank/rescore.py): its signals dumped from real searches, the
model fitted with cross-validation, and every fold's held-out figure measured through the
real pipeline.

    python bench/bench_rescore.py dump  [--work <built roots>] [--embedder local] [--dump F]
    python bench/bench_rescore.py fit   [--dump F] [--l2 1.0]       # folds, offline figures
    python bench/bench_rescore.py check [--dump F]                  # folds through search()
    python bench/bench_rescore.py cost  [--dump F]                  # ms the stage adds
    python bench/bench_rescore.py ship  [--dump F]                  # fit on all, write model

``dump`` runs every query of every collection once in hybrid mode (depth 50, the ranking a
first page comes from) and records, for each of the fused candidates the model would
re-score, its signals and what it covers of the query's judgements (LoCoMo: evidence lines;
the others: the relevant document). Folds: LoCoMo-dev leaves one conversation out, every
other collection leaves itself out; a fold's model never saw the queries it is scored on.
``fit`` prints each fold's offline figure (the head re-ordered by the model, the fusion's
order below; no decay or diversity); ``check`` installs each fold's model and runs the held-out
queries through Searcher.search(), with the real clock and LoCoMo's "now at end", beside the
fusion alone (``rescore = false``). ``ship`` fits on every query and writes
engine/rank/rescore_models.json for the embedder.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
from bench_quality import NOW, index, run
from common import BENCH_CACHE, machine
from quality_sets import Collection, available

import engine.rank.rescore as rescore_mod
from engine.rank.rescore import FEATURES, MODELS, RESCORE_DEPTH, Model

DUMP = BENCH_CACHE / "rescore-{embedder}.json"


# --- dump -----------------------------------------------------------------------------------

class _Capture:
    """Stands in for the re-scoring stage: records the first ranking of each query (depth 50)
    and leaves the fused order as it is."""

    def __init__(self):
        self.query = None
        self.rows: list[dict] = []
        self.keep_text = False

    def __call__(self, cands, query, model):
        if self.query is None:
            return cands
        head = cands[:RESCORE_DEPTH]
        q, collection = self.query
        self.rows.append({
            "collection": collection.name, "query": q.id, "group": group_of(collection, q),
            "judged": len(q.judge),
            "x": rescore_mod.signals(head, query),
            "covers": [covers(collection, q, c) for c in head],
            "doc": [c.source_file for c in head],
            "id": [c.id for c in head],
            "text": q.text, "content": [c.content for c in head] if self.keep_text else None,
        })
        self.query = None  # deeper rankings of the same query are not recorded
        return cands


def group_of(collection: Collection, q) -> str:
    """The fold a query belongs to: its conversation in LoCoMo-dev, else its collection."""
    if collection.name == "LoCoMo-dev":
        return f"LoCoMo-dev/{q.id.split('/')[0]}"
    return collection.name


def covers(collection: Collection, q, c) -> list:
    """What of the query's judgements a candidate holds: evidence lines, or its document."""
    if collection.name == "LoCoMo-dev":
        span = c.metadata.get("lines")
        return [ln for ln in q.judge if span and span[0] <= ln <= span[1]]
    doc = Path(c.source_file).stem
    return [doc] if c.source_file.startswith("notes/") and doc in q.judge else []


def chosen(args) -> list[Collection]:
    """The collections found, or those --collections names."""
    found = available()
    if not args.collections:
        return found
    wanted = {n.strip().lower() for n in args.collections.split(",")}
    return [c for c in found if c.name.lower() in wanted]


def dump(args) -> None:
    capture = _Capture()
    capture.keep_text = args.text
    real = rescore_mod.rescore
    rescore_mod.rescore = capture
    rescore_mod.set_model(args.embedder, Model((0.0,) * len(FEATURES)))
    print(f"machine: {machine()}; embedder {args.embedder}", flush=True)
    try:
        for collection in chosen(args):
            searcher = index(collection, args.work, args.embedder, {})
            for q in collection.queries():
                capture.query = (q, collection)
                searcher.search(q.text, limit=collection.depth, mode="hybrid",
                                now=q.now or NOW, **q.filters)
            searcher.close()
            print(f"{collection.name}: {sum(r['collection'] == collection.name for r in capture.rows)}"
                  " queries", flush=True)
    finally:
        rescore_mod.rescore = real
        rescore_mod.set_model(args.embedder, None)
    args.dump.write_text(json.dumps({"features": list(FEATURES), "rows": capture.rows}))
    print(f"wrote {args.dump}")


# --- fit ------------------------------------------------------------------------------------

def load(path: Path) -> list[dict]:
    data = json.loads(path.read_text())
    if data["features"] != list(FEATURES):
        raise SystemExit(f"{path} holds other signals: run dump again")
    return [r for r in data["rows"] if r["x"]]


def fit_listwise(rows: list[dict], l2: float) -> Model:
    """Weighted L2-regularised listwise softmax (ListNet with the judged candidates as the
    target, each query one list) by Newton's method with a line search."""
    per: dict[str, int] = {}
    for r in rows:
        per[r["collection"]] = per.get(r["collection"], 0) + 1
    lists = []
    for r in rows:
        t = np.array([1.0 if c else 0.0 for c in r["covers"]])
        if t.sum() == 0 or t.sum() == len(t):
            continue  # nothing to learn from a list with no judged candidate (or only those)
        lists.append((np.array(r["x"]), t / t.sum(), 1.0 / per[r["collection"]]))
    scale = len(lists) / sum(w for *_, w in lists)

    # every weight but the fused score's is pulled to 0: a strong pull leaves the fusion's order
    reg = np.full(len(FEATURES), l2)
    reg[list(FEATURES).index("fused")] = 0.0

    def loss(beta):
        total = 0.5 * beta @ (reg * beta)
        for x, t, w in lists:
            z = x @ beta
            z = z - z.max()
            total -= w * scale * (t @ (z - np.log(np.exp(z).sum())))
        return total

    beta = np.zeros(len(FEATURES))
    current = loss(beta)
    for _ in range(50):  # Newton's method with a backtracking line search
        grad = reg * beta
        hess = np.diag(reg + 1e-6)
        for x, t, w in lists:
            z = x @ beta
            p = np.exp(z - z.max())
            p /= p.sum()
            grad += w * scale * (x.T @ (p - t))
            xp = x.T @ p
            hess += w * scale * ((x * p[:, None]).T @ x - np.outer(xp, xp))
        step = np.linalg.solve(hess, grad)
        size = 1.0
        while size > 1e-4 and loss(beta - size * step) > current - 1e-4 * size * grad @ step:
            size /= 2
        if size <= 1e-4:
            break
        beta -= size * step
        current = loss(beta)
        if np.abs(size * step).max() < 1e-6:
            break
    return Model(tuple(float(b) for b in beta))


def offline(rows: list[dict], model: Model | None) -> float:
    """Mean headline metric of the rows' queries with the head ordered by ``model`` (None:
    the fusion's order): R@5 for LoCoMo-dev, nDCG@10 over documents for the others."""
    total = 0.0
    for r in rows:
        order = list(range(len(r["x"])))
        if model is not None:
            wts = np.array(model.weights)
            z = np.array(r["x"]) @ wts
            order = sorted(order, key=lambda i: -z[i])
        if r["collection"] == "LoCoMo-dev":
            got = {ln for i in order[:5] for ln in r["covers"][i]}
            total += len(got) / r["judged"]
        else:
            docs, rel = [], set()
            for i in order:
                if r["doc"][i] not in docs:
                    docs.append(r["doc"][i])
                    if r["covers"][i]:
                        rel.add(r["doc"][i])
            dcg = sum(1 / math.log2(k + 2) for k, d in enumerate(docs[:10]) if d in rel)
            ideal = sum(1 / math.log2(k + 2) for k in range(min(r["judged"], 10)))
            total += dcg / ideal
    return total / len(rows)


def train(rows: list[dict], l2: float) -> Model:
    return fit_listwise(rows, l2)


def folds(rows: list[dict]) -> list[str]:
    return sorted({r["group"] for r in rows})


def fit_folds(rows: list[dict], l2: float) -> dict[str, Model]:
    out = {}
    for g in folds(rows):
        out[g] = train([r for r in rows if r["group"] != g], l2)
    return out


def fit(args) -> None:
    rows = load(args.dump)
    models = fit_folds(rows, args.l2)
    print("| fold | queries | fusion | re-scored (held out) |")
    print("|---|---|---|---|")
    for g, model in models.items():
        held = [r for r in rows if r["group"] == g]
        print(f"| {g} | {len(held)} | {offline(held, None):.4f} | {offline(held, model):.4f} |")
    loc = [r for r in rows if r["collection"] == "LoCoMo-dev"]
    if loc:
        got = sum(offline([r], models[r["group"]]) for r in loc) / len(loc)
        print(f"| LoCoMo-dev (all folds) | {len(loc)} | {offline(loc, None):.4f} | {got:.4f} |")
        ceiling = sum(max((len(c) for c in r["covers"]), default=0) / r["judged"]
                      for r in loc) / len(loc)
        print(f"\nceiling (the best single candidate of the first {RESCORE_DEPTH} first): "
              f"R@1 {ceiling:.4f}")
    whole = train(rows, args.l2)
    print("\nweights fitted on every query:")
    for name, w in zip(FEATURES, whole.weights, strict=True):
        print(f"  {name:22s} {w:+.3f}")


# --- check through the real pipeline -------------------------------------------------------

class _Only(Collection):
    """A collection's queries of one fold."""

    def __init__(self, base: Collection, keep):
        super().__init__(base.name, base.metrics, base.depth)
        self.base, self.keep = base, keep

    def queries(self):
        return [q for q in self.base.queries() if self.keep(q)]

    def score(self, rows, q):
        return self.base.score(rows, q)


def check(args) -> None:
    rows = load(args.dump)
    models = fit_folds(rows, args.l2)
    print(f"machine: {machine()}; embedder {args.embedder}; l2 {args.l2}\n", flush=True)
    print("| fold | clock | queries | keyword arm | fusion | re-scored | gain |")
    print("|---|---|---|---|---|---|---|")
    totals: dict[tuple[str, str], list[float]] = {}
    for collection in chosen(args):
        searcher = index(collection, args.work, args.embedder, {})
        clocks = ("real", "end") if any(q.now for q in collection.queries()) else ("real",)
        for g in [g for g in models if g.split("/")[0] == collection.name]:
            part = _Only(collection, lambda q, g=g, c=collection: group_of(c, q) == g)
            n = len(part.queries())
            for clock in clocks:
                metric = collection.headline
                rescore_mod.set_model(args.embedder, models[g])
                mine = run(part, searcher, "hybrid", clock)[metric]
                keyword = run(part, searcher, "keyword", clock)[metric]
                rescore_mod.set_model(args.embedder, None)  # the fusion alone
                base = run(part, searcher, "hybrid", clock)[metric]
                for key, value in (("keyword", keyword), ("fusion", base), ("rescored", mine)):
                    totals.setdefault((collection.name, clock, key), []).append(value * n)
                totals.setdefault((collection.name, clock, "n"), []).append(n)
                print(f"| {g} | {clock} | {n} | {keyword:.4f} | {base:.4f} | {mine:.4f} | "
                      f"{mine - base:+.4f} |", flush=True)
        searcher.close()
    rescore_mod.set_model(args.embedder, None)
    print("\nheld-out totals (each query scored by the fold that did not see it):\n")
    print("| collection | clock | keyword arm | fusion | re-scored | over fusion | over keyword |")
    print("|---|---|---|---|---|---|---|")
    for name, clock, _ in [k for k in totals if k[2] == "n"]:
        n = sum(totals[(name, clock, "n")])
        kw, fu, re_ = (sum(totals[(name, clock, k)]) / n for k in ("keyword", "fusion", "rescored"))
        print(f"| {name} | {clock} | {kw:.4f} | {fu:.4f} | {re_:.4f} | {re_ - fu:+.4f} | "
              f"{re_ - kw:+.4f} |")


def cost(args) -> None:
    """Milliseconds the stage adds a query (the response's ``rescore`` lap) with the model
    fitted on every query installed: p50, p95 per collection, at the depth a first page is
    ranked at (50)."""
    from common import percentiles

    rescore_mod.set_model(args.embedder, train(load(args.dump), args.l2))
    print(f"machine: {machine()}; embedder {args.embedder}\n")
    print("| collection | queries | rescore p50 ms | p95 ms | whole query p50 ms |")
    print("|---|---|---|---|---|")
    for collection in chosen(args):
        searcher = index(collection, args.work, args.embedder, {})
        laps, totals = [], []
        for q in collection.queries():
            response = searcher.search(q.text, limit=10, mode="hybrid", now=q.now or NOW,
                                       **q.filters)
            laps.append(response.timings_ms.get("rescore", 0.0))
            totals.append(response.timings_ms["total"])
        searcher.close()
        p, t = percentiles(laps), percentiles(totals)
        print(f"| {collection.name} | {len(laps)} | {p['p50']} | {p['p95']} | {t['p50']} |",
              flush=True)
    rescore_mod.set_model(args.embedder, None)


def ship(args) -> None:
    rows = load(args.dump)
    model = train(rows, args.l2)
    shipped = json.loads(MODELS.read_text()) if MODELS.exists() else {}
    shipped[args.embedder] = {
        "features": list(FEATURES), "weights": [round(w, 6) for w in model.weights],
        "about": f"listwise softmax, L2 {args.l2}, fitted by bench/bench_rescore.py on "
                 f"{len(rows)} queries of {', '.join(sorted({r['collection'] for r in rows}))}",
    }
    MODELS.write_text(json.dumps(shipped, indent=1) + "\n")
    print(f"wrote {MODELS}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("step", choices=("dump", "fit", "check", "cost", "ship"))
    ap.add_argument("--work", type=Path, default=BENCH_CACHE / "quality")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--l2", type=float, default=10.0)
    ap.add_argument("--collections", help="comma-separated names (default: every one found)")
    ap.add_argument("--text", action="store_true", help="dump: keep each candidate's text too")
    args = ap.parse_args()
    args.dump = args.dump or Path(str(DUMP).format(embedder=args.embedder))
    {"dump": dump, "fit": fit, "check": check, "cost": cost, "ship": ship}[args.step](args)


if __name__ == "__main__":
    main()
