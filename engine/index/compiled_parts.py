"""Whether the compiled parts (engine/csrc/) serve this process, for every statistics view.

Each has a slower path that gives the same results (numpy, FTS5's own bm25, Python), so a
build without a C compiler works; these lines make the difference visible instead of silent
(`memlens stats`, the app's statistics screen, MCP ``index_status``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class CompiledPart:
    name: str
    source: str  # the C file under engine/csrc/
    loaded: bool
    # what serves without it, and why it is not in use: "not built", "turned off by ..."
    fallback: str | None = None



def _why(switch: str, built: bool) -> str:
    if built and os.environ.get(switch, "1") == "0":
        return f"turned off by {switch}=0"
    return "not built: no C compiler at install" if not built else "built but did not load"


def compiled_parts(rank_loaded: bool) -> list[CompiledPart]:
    """The three compiled parts; ``rank_loaded``: the statistics' connection has memlens_bm25
    (loaded per connection: engine/storage/rank_extension.py)."""
    from engine.retrieval import passages
    from engine.storage import rank_extension
    from engine.vectors import kernels

    parts = [
        # name, C file, in use, built, what serves without it, its off switch
        ("vector kernels", "kernels.c", kernels.COMPILED, kernels.BUILT, "numpy",
         "MEMLENS_KERNELS"),
        ("bm25 with known counts", "memlensrank.c", rank_loaded,
         rank_extension.LIBRARY is not None, "FTS5's bm25", "MEMLENS_RANK_EXTENSION"),
        ("passage scans", "passages.c", passages.COMPILED, passages.BUILT, "Python",
         "MEMLENS_KERNELS"),
    ]
    return [CompiledPart(name, f"engine/csrc/{source}", loaded,
                         None if loaded else f"{slower} serves ({_why(switch, built)})")
            for name, source, loaded, built, slower, switch in parts]


def summary(parts: list[CompiledPart]) -> list[str]:
    """What every view says: "vector kernels, bm25 with known counts, passage scans: in use",
    then each part that is not, with what serves instead."""
    used = [p.name for p in parts if p.loaded]
    said = ([f"{', '.join(used)}: in use"] if used else []) + [
        f"{p.name}: {p.fallback}" for p in parts if not p.loaded]
    return said or ["none"]
