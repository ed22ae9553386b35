"""The vector arm's first pass: the engine's path and the one before it, in one run.

    python bench/bench_vector_arm.py --root <500k root> [--queries 100] [--repeat 3]
        [--sidecar-dir <folder>]

Every variant answers the same queries (k = 50) over the root's vector sidecar and is scored
against exact float32 over the stored vectors (recall@50 by rowid, mean and min). The variants run
interleaved, ``--repeat`` rounds, so a burst of load from other jobs hits each alike;
latencies are pooled over the rounds and ``p50_vs_engine`` compares them within the run.

A root whose sidecar is of another format (or missing) is given one of the current format
written into ``--sidecar-dir`` from its index, opened read-only: the root is never written.

- engine: ``SidecarIndex.search`` as shipped (format 3: 48 float components plus sign bits of
  the other 208, the best 8,000 rescored from float16), and with other rescoring depths.
- format 2 (before): 96 uncentred principal components as float32, the best 50,000 completed
  on 128, 8,000 rescored — emulated on blocks written to a temporary file from the sidecar's
  float16 vectors and mapped; the few appended rows are scored exactly.
- the first passes alone: the 96-column product against the format-3 scores.

Both layouts are read through fresh page-cache pages (written by this run or just before).
``--evict`` drops the files' cached pages first (``posix_fadvise``, these files only), so both
are read back through the mapping, as after the page cache let them go.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_search import exact_float32, natural_queries
from common import machine, percentiles

from engine.config import load_config
from engine.searcher import Searcher
from engine.vectors.sidecar_build import rebuild_sidecar
from engine.vectors.sidecar_file import FORMAT, SidecarInvalid, sidecar_dir
from engine.vectors.sidecar_scan import RESCORE_DEPTH, SidecarIndex, best_rows


def principal_basis(vectors: np.ndarray, dims: int, seed: int = 0) -> np.ndarray:
    """The top ``dims`` uncentred principal directions (format 2's basis)."""
    rng = np.random.default_rng(seed)
    take = rng.choice(len(vectors), min(len(vectors), 20_000), replace=False)
    sample = vectors[np.sort(take)].astype(np.float32)
    _, eigenvectors = np.linalg.eigh(sample.T @ sample)
    return np.ascontiguousarray(eigenvectors[:, ::-1][:, :dims], dtype=np.float32)


def current_sidecar(searcher: Searcher, folder: Path | None) -> tuple[SidecarIndex, Path]:
    """The index and its sidecar folder."""
    conn = searcher.connection()
    try:  # not searcher.vector_index(): without a sidecar it reads every vector into memory
        own = searcher.config.db_path
        return SidecarIndex.open(own, conn), sidecar_dir(own)
    except SidecarInvalid:
        pass
    if folder is None:
        raise SystemExit(f"no format-{FORMAT} sidecar at this root: pass --sidecar-dir")
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "memlens.db"  # only names the sidecar: <folder>/memlens.db.vectors
    try:
        return SidecarIndex.open(db, conn), sidecar_dir(db)
    except SidecarInvalid:
        t = time.perf_counter()
        print(json.dumps({"sidecar": rebuild_sidecar(conn, db),
                          "written_s": round(time.perf_counter() - t, 1)}), flush=True)
        return SidecarIndex.open(db, conn), sidecar_dir(db)


def evict(paths) -> None:
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def format2(index: SidecarIndex, folder: Path, pool: int = 50_000, head: int = 96):
    """The format-2 search over the main segment (the appended rows scored exactly)."""
    seg = index.sidecar.segments[0]
    n = len(seg.rowids)
    basis = principal_basis(np.asarray(seg.full[::max(1, n // 20_000)], np.float32), 128)
    blocks = {}
    for name, cols in (("head", slice(0, head)), ("tail", slice(head, 128))):
        path = folder / f"{name}.bin"
        with open(path, "wb") as f:
            for a in range(0, n, 65_536):
                f.write((seg.full[a:a + 65_536].astype(np.float32) @ basis[:, cols]).tobytes())
        width = cols.stop - cols.start
        blocks[name] = np.memmap(path, np.float32, mode="r", shape=(n, width))
    dead = np.flatnonzero(~index._live[:n])
    rest = index.sidecar.segments[1:]
    keep = index._live[n:]
    rest_ids = np.concatenate([s.rowids for s in rest] or [np.zeros(0, np.int64)])[keep]
    rest_full = np.concatenate([s.full for s in rest] or [np.zeros((0, index.dim))])[keep]
    rest_full = rest_full.astype(np.float32)
    out = np.empty(n, np.float32)

    def search(query, k, rescore=RESCORE_DEPTH):
        query = np.asarray(query, np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        pq = query @ basis
        scores = np.matmul(blocks["head"], pq[:head], out=out)
        scores[dead] = -np.inf
        idx = best_rows(scores, pool)
        full = scores[idx] + np.take(blocks["tail"], idx, axis=0) @ pq[head:]
        idx = np.sort(idx[np.argpartition(full, len(idx) - rescore)[len(idx) - rescore:]])
        sims = np.concatenate([np.take(seg.full, idx, axis=0).astype(np.float32) @ query,
                               rest_full @ query])
        ids = np.concatenate([seg.rowids[idx], rest_ids])
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(ids[i]), float(sims[i])) for i in order]

    def head_only(query, k):
        query = np.asarray(query, np.float32)
        return np.matmul(blocks["head"], (query / np.linalg.norm(query)) @ basis[:, :head],
                         out=out)

    return search, head_only


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sidecar-dir", type=Path)
    parser.add_argument("--evict", action="store_true")
    args = parser.parse_args()
    searcher = Searcher(load_config(args.root))
    conn = searcher.connection()
    queries = natural_queries(conn, args.queries)
    index, folder = current_sidecar(searcher, args.sidecar_dir)
    rowids, matrix = exact_float32(conn, index.dim)
    vecs = [searcher.embedder.embed_single(q).astype(np.float32) for q in queries]
    truths = [set(rowids[np.argpartition(-(matrix @ v), 50)[:50]].tolist()) for v in vecs]
    del matrix
    with tempfile.TemporaryDirectory() as tmp:
        before, before_head = format2(index, Path(tmp))
        if args.evict:
            evict([*Path(tmp).iterdir(), *(folder / s["file"]
                                           for s in index.sidecar.manifest["segments"])])
        run({"engine: format 3, rescore 8,000": index.search,
             "engine, rescore 4,000": lambda v, k: index.search(v, k, rescore=4000),
             "engine, rescore 12,000": lambda v, k: index.search(v, k, rescore=12000),
             "format 2: 96 head, pool 50,000 on 128, rescore 8,000 (before)": before,
             "first pass only: format 3": lambda v, k: index.first_pass(v / np.linalg.norm(v)),
             "first pass only: format 2's 96 columns": before_head},
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
                if rnd == 0 and isinstance(got, list):
                    recalls[name].append(len({r for r, _ in got} & truth) / 50)
    base = statistics.median(next(iter(ms.values())))
    for name in variants:
        row = {"variant": name, "ms": percentiles(ms[name]),
               "p50_vs_engine": round(statistics.median(ms[name]) / base, 2)}
        if recalls[name]:
            row.update({"recall@50_mean": round(statistics.fmean(recalls[name]), 4),
                        "recall@50_min": round(min(recalls[name]), 3)})
        print(json.dumps(row), flush=True)
    print(json.dumps({"load_after": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
