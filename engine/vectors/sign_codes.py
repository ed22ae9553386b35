"""The vector sidecar's first pass (format 4): int8 leading components, one sign bit for each
of the next 128.

Rows are centred and rotated onto their principal components, ``y = (x - mean) @ rotation``.
A query's first-pass score of a row estimates ``y · (q @ rotation)`` (the same order as
``x · q``): over the leading ``head`` components from int8 codes (``step``: each component's
largest |y_j| in the basis sample over 127; an error far below the sign bits'), and over the rest
from the signs alone, as ``scale · Σ_j w_j sign(y_j)`` with ``w_j = q_j · spread_j`` (``spread``:
the mean |y_j| over the sample the basis came from; ``scale``: the row's own |y_j| fitted to
``spread`` by least squares, stored per row). The |w_j| are quantised to 0-3 and split into two
bit planes, so the sum over the sign bits is a few ``np.bitwise_count`` passes over 16 bytes a
row. Short queries keep ~40% of their energy outside the leading components, where chunks keep
little: these bits are what a head-only pass lost (docs/benchmarks.md, "The vector arm at
500k").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.vectors import kernels

HEAD = 48  # leading components scored exactly
WORDS = 2  # uint64 sign words a row: components HEAD..HEAD+127 (later ones: rescoring)
WEIGHT_BITS = 2  # a query's weights quantised to 0-3 (1 bit lost recall: 0.96 at 500k)
BLOCK = 16_384  # rows per popcount step: the work arrays stay in the core's cache


def components(dim: int) -> int:
    return min(dim, HEAD + 64 * WORDS)


def head_of(pdim: int) -> int:
    return min(HEAD, pdim)


@dataclass
class Basis:
    mean: np.ndarray  # float32 (dim,)
    rotation: np.ndarray  # float32 (dim, pdim), principal directions, largest first
    spread: np.ndarray  # float32 (pdim,), mean |component| over the sample
    step: np.ndarray  # float32 (pdim,), a component's int8 unit: max |component| / 127

    def to_bytes(self) -> bytes:
        return b"".join(a.tobytes() for a in (self.mean, self.rotation, self.spread, self.step))

    @staticmethod
    def size(dim: int, pdim: int) -> int:
        return 4 * (dim + dim * pdim + 2 * pdim)

    @classmethod
    def from_bytes(cls, data: bytes, dim: int, pdim: int) -> Basis:
        flat = np.frombuffer(data, np.float32)
        rot = dim + dim * pdim
        return cls(flat[:dim], flat[dim:rot].reshape(dim, pdim), flat[rot:rot + pdim],
                   flat[rot + pdim:])


def fit_basis(sample: np.ndarray, pdim: int) -> Basis:
    """Principal directions of the centred ``sample`` (float32 rows)."""
    sample = np.asarray(sample, np.float32)
    mean = sample.mean(axis=0)
    centred = sample - mean
    _, vectors = np.linalg.eigh(centred.T.astype(np.float64) @ centred)
    rotation = np.ascontiguousarray(vectors[:, ::-1][:, :pdim], np.float32)
    y = np.abs(centred @ rotation)
    spread, step = y.mean(axis=0), y.max(axis=0) / 127
    return Basis(mean.astype(np.float32), rotation, np.maximum(spread, 1e-12).astype(np.float32),
                 np.maximum(step, 1e-12).astype(np.float32))


def encode(vectors: np.ndarray, basis: Basis, head: int):
    """(leading components int8 (m, head), sign words uint64 (m, WORDS), scale float32 (m,))
    of float32 ``vectors``; a component beyond the sample's largest is clipped."""
    y = (np.asarray(vectors, np.float32) - basis.mean) @ basis.rotation
    rest, spread = y[:, head:], basis.spread[head:]
    bits = np.zeros((len(y), 8 * WORDS), np.uint8)
    bits[:, :(rest.shape[1] + 7) // 8] = np.packbits(rest > 0, axis=1)
    scale = np.abs(rest) @ spread / max(float(spread @ spread), 1e-30)
    lead = np.clip(np.rint(y[:, :head] / basis.step[:head]), -127, 127).astype(np.int8)
    return lead, bits.view(np.uint64), scale.astype(np.float32)


class FirstPass:
    """One thread's work arrays for :meth:`scores` (reused: no allocation per query)."""

    def __init__(self):
        self.xor = np.empty((BLOCK, WORDS), np.uint64)
        self.masked = np.empty((BLOCK, WORDS), np.uint64)
        self.counts = np.empty((WEIGHT_BITS, BLOCK, WORDS), np.uint8)
        self.high = np.empty(BLOCK, np.uint16)
        self.acc = np.empty(BLOCK, np.float32)
        self.lead = np.empty(BLOCK * HEAD, np.float32)  # a block of int8 codes as float32

    def scores(self, basis: Basis, head: int, parts, query: np.ndarray,
               out: np.ndarray) -> np.ndarray:
        """First-pass scores of every row of ``parts`` ((head codes, sign words, scale) per
        segment, in order) into ``out``."""
        qy = np.asarray(query, np.float32) @ basis.rotation
        qhead = np.ascontiguousarray(qy[:head] * basis.step[:head])  # int8 codes -> y
        weights = qy[head:] * basis.spread[head:]
        top = float(np.abs(weights).max()) if len(weights) else 0.0
        unit = top / (2 ** WEIGHT_BITS - 1)
        levels = (np.rint(np.abs(weights) / unit) if top else np.zeros(len(weights))
                  ).astype(np.uint8)
        sign = _packed(weights > 0)
        planes = [_packed((levels >> b) & 1 == 1) for b in range(WEIGHT_BITS)]
        total = float(levels.sum())
        start = 0
        if kernels.COMPILED:  # one fused loop a row instead of numpy's passes
            for lead, words, scale in parts:
                kernels.first_pass(lead, head, words, scale, qhead, _pair(sign),
                                   (_pair(planes[0]), _pair(planes[1])), total * unit, unit,
                                   out[start:start + len(words)])
                start += len(words)
            return out
        sign = _tiled(sign)
        planes = [_tiled(p) for p in planes]
        for lead, words, scale in parts:
            for lo in range(0, len(words), BLOCK):
                hi = min(len(words), lo + BLOCK)
                rows = self.lead[:(hi - lo) * head].reshape(hi - lo, head)
                np.copyto(rows, lead[lo:hi], casting="unsafe")
                np.matmul(rows, qhead, out=out[start + lo:start + hi])
                if top:
                    self._add_bits(words[lo:hi], scale[lo:hi], sign, planes, total * unit,
                                   unit, out[start + lo:start + hi])
            start += len(words)
        return out

    def _add_bits(self, words, scale, sign, planes, total, unit, out) -> None:
        """out += scale · (total − 2 · unit · Σ_b 2^b popcount((words ^ sign) & plane_b)):
        Σ_j |w_j| (±1 as the row's sign agrees with w_j's), quantised."""
        m = len(words)
        xor, masked, high, acc = self.xor[:m], self.masked[:m], self.high[:m], self.acc[:m]
        counts = self.counts[:, :m]
        np.bitwise_xor(words, sign[:m], out=xor)
        for b, plane in enumerate(planes):
            np.bitwise_and(xor, plane[:m], out=masked)
            np.bitwise_count(masked, out=counts[b])
        np.left_shift(counts[1], 1, out=counts[1])  # WEIGHT_BITS = 2: a word's sum ≤ 192
        np.add(counts[0], counts[1], out=counts[0])
        pair = counts[0].view(np.uint16).reshape(m)  # the two words' sums of a row, one each
        np.right_shift(pair, 8, out=high)  # byte, added as uint16 (≤ 384)
        np.bitwise_and(pair, 0xFF, out=pair)
        np.add(pair, high, out=pair)
        np.copyto(acc, pair, casting="unsafe")
        np.multiply(acc, -2.0 * unit, out=acc)
        np.add(acc, total, out=acc)
        np.multiply(acc, scale, out=acc)
        np.add(out, acc, out=out)


def _packed(flags: np.ndarray) -> np.ndarray:
    """The ``flags`` packed into one row of sign words (uint64 (WORDS,))."""
    packed = np.zeros(8 * WORDS, np.uint8)
    packed[:(len(flags) + 7) // 8] = np.packbits(flags)
    return packed.view(np.uint64)


def _tiled(words: np.ndarray) -> np.ndarray:
    """One row of words repeated BLOCK times (a same-shape operand: numpy's broadcast over a
    4-wide last axis is ~4x slower)."""
    return np.tile(words, (BLOCK, 1))


def _pair(words: np.ndarray) -> tuple[int, int]:
    return int(words[0]), int(words[1])
