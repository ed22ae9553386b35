"""The first hybrid search of a fresh process.

    python bench/bench_first_query.py --root <500k root> [--runs 3] [--drop-caches]
                                      [--no-sidecar] [--mode semantic]

Each run spawns a new Python process that opens a Searcher, loads the embedder (timed apart),
then times its first ``search()`` (``--mode``, hybrid by default, limit 10, including opening the vector index,
also timed alone) and a second one. ``--drop-caches`` runs
``sync; echo 3 > /proc/sys/vm/drop_caches`` before each child (root only). ``--no-sidecar``
moves ``<db>.vectors`` aside for the run (and back), to time the in-memory path it replaces.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import REPO, machine

CHILD = """
import json, sys, time
t0 = time.perf_counter()
from engine.config import load_config
from engine.searcher import Searcher
t_import = time.perf_counter()
s = Searcher(load_config(sys.argv[1]))
s.embedder.embed(["warm"])
t_embedder = time.perf_counter()
s.vector_index()
t_vectors = time.perf_counter()
r = s.search("climbing trip with maya", limit=10, mode=sys.argv[2])  # no time phrase: one search
t_first = time.perf_counter()
s.search("budget review for the atlas migration", limit=10, mode=sys.argv[2])
t_second = time.perf_counter()
print(json.dumps({"import_s": t_import - t0, "embedder_s": t_embedder - t_import,
                  "vector_index_s": t_vectors - t_embedder,
                  "first_search_s": t_first - t_embedder, "second_search_s": t_second - t_first,
                  "results": len(r.results), "index": type(s.vector_index()).__name__}))
"""


def drop_caches() -> str | None:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return None
    except OSError as exc:
        return f"cannot drop caches: {exc.strerror}"


def run_child(root: Path, mode: str = "hybrid") -> dict:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), mode], cwd=REPO, check=True,
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - t
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--drop-caches", action="store_true")
    parser.add_argument("--no-sidecar", action="store_true")
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "semantic", "keyword"])
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from engine.config import load_config
    from engine.vectors.sidecar_file import sidecar_dir

    folder = sidecar_dir(load_config(args.root).db_path)
    aside = folder.with_name(folder.name + ".aside")
    if args.no_sidecar:
        folder.rename(aside)
    try:
        run_child(args.root, args.mode)  # the page cache holds whatever a first run reads
        runs, problem = [], None
        for _ in range(args.runs):
            if args.drop_caches:
                problem = drop_caches() or problem
            runs.append(run_child(args.root, args.mode))
    finally:
        if args.no_sidecar:
            aside.rename(folder)
    summary = {k: round(statistics.median(r[k] for r in runs), 3)
               for k in ("import_s", "embedder_s", "vector_index_s", "first_search_s", "second_search_s",
                         "process_s")}
    print(json.dumps({"machine": machine(), "root": str(args.root), "runs": len(runs),
                      "mode": args.mode, "caches": "dropped" if args.drop_caches and not problem else "warm",
                      "problem": problem, "index": runs[-1]["index"], "median": summary,
                      "first_search_s_all": [round(r["first_search_s"], 3) for r in runs]}))


if __name__ == "__main__":
    main()
