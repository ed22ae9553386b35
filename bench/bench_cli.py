"""The command line end to end, a process per call: `memlens search` in keyword and hybrid
mode, and `memlens mcp` until it answers `initialize`.

Each is started --runs times after --warmup runs (page cache and bytecode warm) and timed from
the spawn to its answer; prints p50 / p95 wall in ms. --repo runs another checkout's code (a
before/after comparison on the same machine and root); compile its bytecode first (`python -m
compileall engine cli mcp_server tui` in it), or with PYTHONDONTWRITEBYTECODE set every call
recompiles every module (~90 ms).

    python bench/bench_cli.py --root <data root> [--query Q] [--runs 15] [--warmup 2]
                              [--repo <checkout>]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from common import REPO, machine, percentiles

QUERY = "climbing trip with maya"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}}


def search_ms(repo: Path, root: Path, query: str, mode: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli", "search", query, "--mode", mode, "--root",
                    str(root), "--limit", "10"], cwd=repo, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def mcp_ms(repo: Path, root: Path) -> float:
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "cli", "mcp", "--root", str(root)],
                              cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        elapsed = (time.perf_counter() - started) * 1000
        if "result" not in answer:
            raise SystemExit(f"initialize failed: {answer}")
        return elapsed
    finally:
        server.kill()
        server.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--query", default=QUERY, help=f"default {QUERY!r} (it finds chat windows, "
                    "so the keyword arm also loads the related-word vocabulary)")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--repo", type=Path, default=REPO, help="the checkout whose code runs")
    args = ap.parse_args()
    print(f"machine: {machine()}; code {args.repo}; root {args.root}; query {args.query!r}")
    runs = {"memlens search --mode keyword": lambda: search_ms(args.repo, args.root, args.query,
                                                              "keyword"),
            "memlens search (hybrid)": lambda: search_ms(args.repo, args.root, args.query,
                                                         "hybrid"),
            "memlens mcp, initialize answered": lambda: mcp_ms(args.repo, args.root)}
    for name, run in runs.items():
        for _ in range(args.warmup):
            run()
        p = percentiles([run() for _ in range(args.runs)])
        print(f"{name:34} p50 {p['p50']:7.1f} ms  p95 {p['p95']:7.1f} ms  (n={p['n']})")


if __name__ == "__main__":
    main()
