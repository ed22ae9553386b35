"""The semantic arm over the vector sidecar (engine/vectors/sidecar_file.py): its files mapped,
or the same structure built in memory from the rows while no valid file exists.

The one implementation of :class:`~engine.vectors.vector_index.VectorIndex`. Rows are the
sidecar's segment rows followed by a small in-memory delta: the vectors of every rowid logged
in ``vector_changes`` after the sidecar's generation, read back from ``chunks`` (so a deleted
or changed chunk's old vector is masked out and its current one, if any, searched exactly).

Search: a first pass over every segment row (engine/vectors/sign_codes.py: a product over the int8
codes of the leading centred principal components plus a popcount over the others' sign bits,
into a reused buffer), then exact rescoring of its best ``rescore`` from the float16 vectors
(docs/benchmarks.md, "The vector arm at 500k").
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from engine.schema import stored_embedder
from engine.storage.db import Connection
from engine.vectors import kernels
from engine.vectors.sidecar_build import in_memory_sidecar
from engine.vectors.sidecar_file import (
    Sidecar,
    SidecarInvalid,
    changed_since,
    current_vectors,
    index_state,
    load_sidecar,
    manifest_stamp,
    snapshot,
)
from engine.vectors.sign_codes import FirstPass

EXACT_BELOW = 20_000  # vectors; below this a full exact scan is cheaper than two passes
RESCORE_DEPTH = 8_000  # candidates rescored exactly (docs/benchmarks.md)
DELTA_MAX = 50_000  # beyond this many changed rows, reload (a writer publishes a newer one)


class SidecarStale(Exception):
    """The index moved past what this sidecar can follow (pruned log, new epoch)."""


class SidecarIndex:
    def __init__(self, sidecar: Sidecar, exact_below: int = EXACT_BELOW):
        self.sidecar = sidecar
        self.dim = sidecar.dim
        self.basis = sidecar.basis.rotation  # (dim, components)
        self.exact_below = exact_below
        self.types = list(sidecar.types)
        segs = sidecar.segments
        self._seg_rowids = _joined([s.rowids for s in segs], np.int64)
        self._seg_types = _joined([s.types for s in segs], np.int16)
        self._starts = np.cumsum([0] + [len(s.rowids) for s in segs])
        self._live = np.ones(len(self._seg_rowids), bool)
        for seg, start in zip(segs, self._starts, strict=False):
            if len(seg.dead):
                self._live[start:start + len(seg.rowids)] &= ~np.isin(seg.rowids, seg.dead)
        self._knock_out()
        self._gen = sidecar.gen
        self._changed = np.zeros(0, np.int64)
        self._delta = (np.zeros(0, np.int64), np.zeros(0, np.int16),
                       np.zeros((0, self.dim), np.float32))
        self._data_version: int | None = None
        self._buffers = threading.local()  # first-pass scores and work arrays, per thread

    @classmethod
    def open(cls, db_path: str | Path, conn: Connection) -> SidecarIndex:
        """Map and check the sidecar in one read transaction; raises SidecarInvalid."""
        with snapshot(conn):
            index = cls(load_sidecar(db_path, conn))
            index._follow(conn)
        return index

    # -- keeping in step with the index -------------------------------------------------------
    def refresh(self, conn: Connection) -> bool:
        """Follow what changed since the last call; raises :class:`SidecarStale` when the
        generation log no longer reaches back to this sidecar."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return False
        with snapshot(conn):
            changed = self._follow(conn)
        self._data_version = version
        return changed

    def _follow(self, conn: Connection) -> bool:
        gen, floor, epoch = index_state(conn)
        if epoch != self.sidecar.epoch or floor > self._gen:
            raise SidecarStale(f"log pruned to {floor}, this copy is at {self._gen}")
        if gen == self._gen:
            return False
        changed = np.union1d(self._changed, changed_since(conn, self._gen))
        if len(changed) > DELTA_MAX:
            raise SidecarStale(f"{len(changed)} rows changed since the sidecar")
        self._live &= ~np.isin(self._seg_rowids, changed)
        self._knock_out()
        ids, stypes, vecs = current_vectors(conn, changed, self.dim)
        for t in stypes:
            if t not in self.types:
                self.types.append(t)
        codes = np.array([self.types.index(t) for t in stypes], np.int16)
        self._delta = (ids, codes, vecs)
        self._changed, self._gen = changed, gen
        return True

    def _knock_out(self) -> None:
        self._dead = np.flatnonzero(~self._live)
        self._n_live = len(self._live) - len(self._dead)

    def __len__(self) -> int:
        return self._n_live + len(self._delta[0])

    def rowids(self) -> np.ndarray:
        """The rowids searchable now, sorted: the segments' live rows and the delta's."""
        return np.sort(np.concatenate([self._seg_rowids[self._live], self._delta[0]]))

    @property
    def in_memory(self) -> bool:
        """Built from the rows (no valid sidecar file when it was opened)."""
        return self.sidecar.manifest is None

    # -- masks over rows: segment rows, then delta rows ----------------------------------------
    def type_mask(self, source_types) -> np.ndarray | None:
        if not source_types:
            return None
        codes = [i for i, t in enumerate(self.types) if t in set(source_types)]
        return np.concatenate([np.isin(self._seg_types, codes), np.isin(self._delta[1], codes)])

    def rowid_mask(self, allowed_rowids: np.ndarray) -> np.ndarray:
        return np.concatenate([np.isin(self._seg_rowids, allowed_rowids),
                               np.isin(self._delta[0], allowed_rowids)])

    # -- searching -----------------------------------------------------------------------------
    def search(self, query: np.ndarray, k: int, mask: np.ndarray | None = None,
               rescore: int = RESCORE_DEPTH) -> list[tuple[int, float]]:
        """Top ``k`` (rowid, cosine similarity), exact over the rescored candidates."""
        if k <= 0 or len(self) == 0:
            return []
        query = np.asarray(query, np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        nseg = len(self._seg_rowids)
        allowed = self._live if mask is None else (self._live & mask[:nseg])
        n_allowed = self._n_live if mask is None else int(allowed.sum())
        depth = max(rescore, k * 4)
        if n_allowed <= max(self.exact_below, depth):
            idx = np.flatnonzero(allowed)
        else:
            idx = self._candidates(query, allowed if mask is not None else None, n_allowed,
                                   depth)
        sims = self._rescore(idx, query)
        ids = self._seg_rowids[idx]
        d_ids, _, d_vecs = self._delta
        if len(d_ids):
            d_allowed = np.ones(len(d_ids), bool) if mask is None else mask[nseg:]
            ids = np.concatenate([ids, d_ids[d_allowed]])
            sims = np.concatenate([sims, d_vecs[d_allowed] @ query])
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(ids[i]), float(sims[i])) for i in order]

    def _candidates(self, query: np.ndarray, allowed: np.ndarray | None, n_allowed: int,
                    depth: int) -> np.ndarray:
        """Sorted segment rows holding at least the ``depth`` best by the first-pass score."""
        scores = self.first_pass(query)
        if allowed is None:  # the common case: only the few dead rows to knock out
            scores[self._dead] = -np.inf
        else:
            scores[~allowed] = -np.inf
        return best_rows(scores, min(n_allowed, depth))

    def first_pass(self, query: np.ndarray) -> np.ndarray:
        """First-pass scores of every segment row, in this thread's buffer (no allocation)."""
        n = len(self._seg_rowids)
        out = getattr(self._buffers, "scores", None)
        if out is None or len(out) != n:
            out = self._buffers.scores = np.empty(n, np.float32)
            self._buffers.work = FirstPass()
        parts = [(s.head, s.words, s.scale) for s in self.sidecar.segments]
        return self._buffers.work.scores(self.sidecar.basis, self.sidecar.head, parts, query,
                                         out)

    def _rescore(self, idx: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Exact similarities of segment rows ``idx`` (sorted), read from the float16 maps."""
        out = np.empty(len(idx), np.float32)
        bounds = np.searchsorted(idx, self._starts)
        for seg, start, lo, hi in zip(self.sidecar.segments, self._starts, bounds[:-1],
                                      bounds[1:], strict=False):
            if hi > lo and kernels.COMPILED:  # no float16 -> float32 copy of the rows
                kernels.rescore(seg.full, np.ascontiguousarray(idx[lo:hi], np.int64),
                                int(start), query, out[lo:hi])
            elif hi > lo:
                rows = np.take(seg.full, idx[lo:hi] - start, axis=0)
                out[lo:hi] = rows.astype(np.float32) @ query
        return out


def best_rows(scores: np.ndarray, m: int) -> np.ndarray:
    """Sorted indices of at least the ``m`` highest ``scores`` (at most 2m), every one finite;
    needs ``m`` finite scores. A floor read off a strided sample, then one comparison pass:
    a third of argpartition's time at 500k (docs/benchmarks.md)."""
    n = len(scores)
    if m >= n:
        return np.arange(n)
    sample = scores[::max(1, n // 32_768)]
    want = min(len(sample), int(1.25 * m * len(sample) / n) + 1)
    floor = np.partition(sample, len(sample) - want)[len(sample) - want]
    if np.isfinite(floor):
        idx = np.flatnonzero(scores >= floor)
        if m <= len(idx) <= 2 * m:
            return idx
        if len(idx) > 2 * m:
            return np.sort(idx[np.argpartition(scores[idx], len(idx) - m)[len(idx) - m:]])
    return np.sort(np.argpartition(scores, n - m)[n - m:])


def stored_dim(conn: Connection) -> int:
    info = stored_embedder(conn)
    if info is None:
        raise SidecarInvalid("the index holds no vectors yet")
    return info.dim


def _joined(parts: list[np.ndarray], dtype) -> np.ndarray:
    """One array over the segments (a single segment's mapped array is used as is)."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def open_vector_index(db_path: str | Path, conn: Connection) -> SidecarIndex:
    """The sidecar's files mapped when they are valid, else the same structure built in
    memory from the rows (reads every vector once)."""
    try:
        return SidecarIndex.open(db_path, conn)
    except (SidecarInvalid, SidecarStale):
        stamp = manifest_stamp(db_path)  # before reading: a sidecar published meanwhile is newer
        with snapshot(conn):
            index = SidecarIndex(in_memory_sidecar(conn, stored_dim(conn), stamp))
            index._follow(conn)
        return index


def refreshed(index: SidecarIndex, db_path: str | Path, conn: Connection) -> SidecarIndex:
    """``index`` in step with the index file; one that can no longer follow is replaced by a
    newer one, and one built in memory gives way to a sidecar a writer publishes later."""
    if index.in_memory and manifest_stamp(db_path) not in (
            None, index.sidecar.stamp):
        index = open_vector_index(db_path, conn)
    try:
        index.refresh(conn)
        return index
    except SidecarStale:
        index = open_vector_index(db_path, conn)
        index.refresh(conn)
        return index
