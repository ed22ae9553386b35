"""Helpers shared by the benchmark scripts: percentiles, RSS, machine description."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
SHARED = REPO.parent / "shared"

# Where benchmarks keep what they build (data roots, reused between runs) unless told
# otherwise: the user's cache folder, never a path of this machine.
BENCH_CACHE = Path(os.environ.get("MEMLENS_BENCH_CACHE")
                   or Path.home() / ".cache" / "memlens-bench")

def percentiles(samples_ms: list[float]) -> dict[str, float]:
    xs = sorted(samples_ms)
    if not xs:
        return {}

    def pct(p: float) -> float:
        i = min(len(xs) - 1, max(0, round(p / 100 * (len(xs) - 1))))
        return round(xs[i], 2)

    return {"n": len(xs), "p50": pct(50), "p95": pct(95), "max": round(xs[-1], 2),
            "mean": round(statistics.fmean(xs), 2)}


def rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, {platform.system()}")
