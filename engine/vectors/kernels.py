"""The compiled scans of the vector sidecar (engine/csrc/kernels.c), when the install built them.

``COMPILED`` says whether they exist; callers keep a numpy path for when they do not (a machine
without a C compiler), with the same results up to float32 rounding order. ``MEMLENS_KERNELS=0``
turns them off (a benchmark's A/B, or a suspected kernel bug).
"""

from __future__ import annotations

import os

try:
    from engine.vectors import _kernels
except ImportError:  # built without a compiler: the numpy passes serve
    _kernels = None

BUILT = _kernels is not None  # the install compiled them
COMPILED = BUILT and os.environ.get("MEMLENS_KERNELS", "1") != "0"  # and they are used


def first_pass(lead, head: int, words, scale, qhead, sign: tuple[int, int],
               planes: tuple[tuple[int, int], tuple[int, int]], total: float, unit: float,
               out) -> None:
    """out[i] = lead[i]·qhead + scale[i]·(total − 2·unit·Σ_b 2^b popcount((words[i] ^ sign)
    & planes[b])): ``lead`` int8 codes, two sign words, two weight planes
    (engine/vectors/sign_codes.py)."""
    _kernels.first_pass(lead, len(out), head, words, scale, qhead, sign, planes[0], planes[1],
                        total, unit, out)


def rescore(full, idx, start: int, query, out) -> None:
    """out[j] = float32(full[idx[j] − start]) · query, ``full`` float16 (rows, dim)."""
    _kernels.rescore(full, full.shape[0], full.shape[1], idx, len(idx), start, query, out)


def use_simd(flag: bool) -> bool:
    """Use the AVX2 bodies (the default when the CPU has them); returns whether they are on."""
    return bool(_kernels.set_simd(flag))
