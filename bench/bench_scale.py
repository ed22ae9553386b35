"""memlens at 100k / 500k / 1M / 2M chunks: one row per root, a table and a chart in docs/.

    python bench/bench_index.py --root <1M root> --chunks 1000000 build > <build log>
    python bench/bench_scale.py --root <1M root> --build-log <build log> \\
        [--results bench/scale-results.json] [--queries 150]

Per root: the build's throughput and peak RSS (read from ``bench_index.py build``'s JSON
output), the index and sidecar sizes, a reindex that brings the sidecar up to date (the first
after an upgrade writes it whole), a no-op reindex, appending 100 messages to the largest
Slack log, hybrid p50/p95 over natural queries (bench_search.py's), and the first hybrid
search of a fresh process with a warm page cache (bench_first_query.py's). Rows accumulate in
``--results`` (one root per run: the large builds take long), and every run rewrites
``docs/scale.md`` (the table) and ``docs/scale.png`` (the chart) from all rows.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_first_query import run_child
from bench_index import append, noop
from bench_search import NOW, natural_queries, timed
from common import REPO, machine

from engine.config import load_config
from engine.searcher import Searcher
from engine.vectors.sidecar_file import sidecar_dir

UPDATE = """
import json, resource, sys, time
from engine.config import load_config
from engine.indexer import reindex
t = time.perf_counter()
stats = reindex(config=load_config(sys.argv[1]))
print(json.dumps({"seconds": time.perf_counter() - t, "warnings": len(stats.warnings),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def du_mb(path: Path) -> float:
    files = [path] if path.is_file() else list(path.rglob("*")) if path.exists() else []
    return sum(p.stat().st_size for p in files if p.is_file()) / 2**20


def measure(root: Path, build_log: Path | None, queries: int) -> dict:
    row: dict = {"root": root.name}  # the folder's name: results never hold a machine's path
    if build_log:
        for line in build_log.read_text().splitlines():
            data = json.loads(line)
            if data.get("bench") == "build":
                row.update(chunks_per_s=data["chunks_per_s"], build_peak_rss_mb=data[
                    "peak_rss_mb"], rss_samples_mb=[s for _, s in data["rss_samples_mb"]])
    out = subprocess.run([sys.executable, "-c", UPDATE, str(root)], check=True, cwd=REPO,
                         capture_output=True, text=True).stdout
    update = json.loads(out.strip().splitlines()[-1])
    row["sidecar_update_s"] = round(update["seconds"], 2)
    row["sidecar_update_peak_rss_mb"] = round(update["peak_rss_mb"], 1)
    config = load_config(root)
    row["db_mb"] = round(sum(du_mb(Path(f"{config.db_path}{s}")) for s in ("", "-wal")), 1)
    row["sidecar_mb"] = round(du_mb(sidecar_dir(config.db_path)), 1)
    row["noop_s"] = min(noop(root)["seconds"])
    row["append_s"] = append(root)["seconds"]
    first = run_child(root)
    row["first_search_warm_s"] = round(first["first_search_s"], 3)
    row["first_process_s"] = round(first["process_s"], 3)
    searcher = Searcher(config)
    conn = searcher.connection()
    row["chunks"] = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    qs = natural_queries(conn, queries)
    for q in qs[:5]:
        searcher.search(q, now=NOW)
    latency, _ = timed(searcher, qs, mode="hybrid")
    row["hybrid_p50_ms"], row["hybrid_p95_ms"] = latency["p50"], latency["p95"]
    row["search_peak_rss_mb"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    row["measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return row


COLUMNS = [("chunks", "chunks", "{:,}"), ("chunks_per_s", "build chunks/s", "{:,.0f}"),
           ("build_peak_rss_mb", "build peak RSS MB", "{:.0f}"), ("db_mb", "DB MB", "{:,.0f}"),
           ("sidecar_mb", "sidecar MB", "{:,.0f}"),
           ("sidecar_update_s", "sidecar written s", "{:.1f}"), ("noop_s", "no-op s", "{:.2f}"),
           ("append_s", "append s", "{:.2f}"), ("hybrid_p50_ms", "hybrid p50 ms", "{:.1f}"),
           ("hybrid_p95_ms", "hybrid p95 ms", "{:.1f}"),
           ("first_search_warm_s", "first search s (warm)", "{:.3f}")]


def table(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(c[1] for c in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for r in sorted(rows, key=lambda r: r["chunks"]):
        lines.append("| " + " | ".join(
            fmt.format(r[key]) if r.get(key) is not None else "—" for key, _, fmt in COLUMNS)
            + " |")
    return "\n".join(lines)


def chart(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: r["chunks"])
    x = [r["chunks"] / 1e6 for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ax = axes[0]
    ax.plot(x, [r["hybrid_p50_ms"] for r in rows], "o-", label="hybrid p50")
    ax.plot(x, [r["hybrid_p95_ms"] for r in rows], "s--", label="hybrid p95")
    ax.set(title="search latency (warm)", xlabel="million chunks", ylabel="ms")
    ax.legend()
    ax = axes[1]
    ax.plot(x, [r["first_search_warm_s"] * 1000 for r in rows], "o-",
            label="first search, fresh process")
    ax.plot(x, [r["noop_s"] * 1000 for r in rows], "s--", label="no-op reindex")
    ax.plot(x, [r["append_s"] * 1000 for r in rows], "^:", label="append 100 messages")
    ax.set(title="start and update", xlabel="million chunks", ylabel="ms")
    ax.legend()
    ax = axes[2]
    ax.plot(x, [r["db_mb"] / 1024 for r in rows], "o-", label="index file GB")
    ax.plot(x, [r["sidecar_mb"] / 1024 for r in rows], "s--", label="vector sidecar GB")
    ax.plot(x, [(r.get("build_peak_rss_mb") or float("nan")) / 1024 for r in rows], "^:",
            label="build peak RSS GB")
    ax.set(title="size and memory", xlabel="million chunks", ylabel="GB")
    ax.legend()
    fig.suptitle(f"memlens demo corpus, {machine()}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="measure this root (else only re-render)")
    parser.add_argument("--build-log", type=Path)
    parser.add_argument("--results", type=Path, default=REPO / "bench/scale-results.json")
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args()
    rows = json.loads(args.results.read_text()) if args.results.exists() else []
    if args.root:
        row = measure(args.root, args.build_log, args.queries)
        print(json.dumps(row), flush=True)
        rows = [r for r in rows if r["chunks"] != row["chunks"]] + [row]
        args.results.write_text(json.dumps(rows, indent=1) + "\n")
    (REPO / "docs/scale.md").write_text(
        f"Measured by `bench/bench_scale.py` on {machine()} (rows from "
        f"`{args.results.name}`).\n\n{table(rows)}\n\n![memlens at scale](scale.png)\n")
    chart(rows, REPO / "docs/scale.png")
    print(table(rows))


if __name__ == "__main__":
    main()
