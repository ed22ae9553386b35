"""The semantic arm's fast path: an in-memory copy of vec0's vectors, kept in step with vec0.

vec0's brute-force KNN reads every float of every vector (406 ms at 500k x 256 here, without
SIMD). This index reads vec0's own shadow tables once (vec0 stays the store of record), keeps
every vector projected onto its top principal components as float32 for a first pass, and the
full vectors as float16 to rescore the best candidates exactly. The projection keeps far more
of the ranking than a plain prefix of the dimensions (WordLlama's first 64 dimensions gave
recall@50 0.87 where 64 principal components gave 0.96; see docs/benchmarks.md). Small indexes
(up to EXACT_BELOW vectors) are searched exactly.

Staying in step is cheap: a change shows as a moved ``PRAGMA data_version``; then each vec0
chunk's validity bitmap (128 bytes per 1,024 slots) is compared with the cached one, and only
changed chunks are re-read.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from engine.storage.db import Connection

EXACT_BELOW = 20_000  # vectors; below this a full exact scan is cheaper than two passes
PCA_SAMPLE = 20_000
RESCORE_DEPTH = 2_000  # first-pass candidates rescored exactly


@dataclass
class _VecChunk:
    validity: bytes
    rowids: np.ndarray  # int64, live slots only
    full: np.ndarray  # float16 (n, dim)
    source_type: str
    projected: np.ndarray | None = None  # float32 (n, pdim), once a basis exists


def projection_dims(dim: int) -> int:
    # short queries keep only ~60% of their energy in WordLlama's top 96 components (chunks:
    # 93%): 96 gave recall@50 0.953 at 500k, 128 gives 0.99+ (docs/benchmarks.md)
    return min(dim, max(128, dim // 4))


class VectorIndex:
    def __init__(self, dim: int):
        self.dim = dim
        self.pdim = projection_dims(dim)
        self.basis: np.ndarray | None = None  # (dim, pdim) float32, fixed once computed
        self._chunks: dict[int, _VecChunk] = {}
        self._data_version: int | None = None
        self._lock = threading.Lock()
        self._matrix: tuple | None = None  # assembled (rowids, projected, full, type codes)
        self.types: list[str] = []

    # -- keeping in step with vec0 ------------------------------------------------------
    def refresh(self, conn: Connection) -> bool:
        """Re-read what changed in vec0 since the last call; returns whether anything did."""
        with self._lock:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._data_version and self._matrix is not None:
                return False
            rows = conn.execute(
                "SELECT chunk_id, validity, partition00 FROM chunks_vec_chunks").fetchall()
            current = {r[0]: (bytes(r[1]), r[2]) for r in rows}
            changed = [cid for cid, (validity, _) in current.items()
                       if cid not in self._chunks or self._chunks[cid].validity != validity]
            removed = [cid for cid in self._chunks if cid not in current]
            for cid in removed:
                del self._chunks[cid]
            for cid in changed:
                self._chunks[cid] = self._read_chunk(conn, cid, *current[cid])
            self._data_version = version
            if changed or removed or self._matrix is None:
                self._assemble()
                return True
            return False

    def _read_chunk(self, conn: Connection, cid: int, validity: bytes,
                    source_type: str) -> _VecChunk:
        rowids_blob = conn.execute(
            "SELECT rowids FROM chunks_vec_chunks WHERE chunk_id = ?", (cid,)).fetchone()[0]
        vectors_blob = conn.execute(
            "SELECT vectors FROM chunks_vec_vector_chunks00 WHERE rowid = ?", (cid,)).fetchone()[0]
        size = len(rowids_blob) // 8
        live = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:size]
        live = live.astype(bool)
        rowids = np.frombuffer(rowids_blob, np.int64)[live]
        full = np.frombuffer(vectors_blob, np.float32).reshape(size, self.dim)[live]
        return _VecChunk(validity, rowids.copy(), full.astype(np.float16), source_type)

    def _assemble(self) -> None:
        chunks = [self._chunks[c] for c in sorted(self._chunks)]
        self.types = sorted({c.source_type for c in chunks})
        code = {t: i for i, t in enumerate(self.types)}
        if chunks:
            rowids = np.concatenate([c.rowids for c in chunks])
            full = np.concatenate([c.full for c in chunks])
            types = np.concatenate([np.full(len(c.rowids), code[c.source_type], np.int16)
                                    for c in chunks])
        else:
            rowids = np.zeros(0, np.int64)
            full = np.zeros((0, self.dim), np.float16)
            types = np.zeros(0, np.int16)
        projected = None
        if len(rowids) > EXACT_BELOW:
            if self.basis is None:
                self.basis = principal_basis(full, self.pdim)
            for c in chunks:
                if c.projected is None:
                    c.projected = project(c.full, self.basis)
            projected = np.concatenate([c.projected for c in chunks])
        self._matrix = (rowids, projected, full, types)

    def __len__(self) -> int:
        return 0 if self._matrix is None else len(self._matrix[0])

    # -- searching --------------------------------------------------------------------------
    def type_mask(self, source_types) -> np.ndarray | None:
        if not source_types:
            return None
        rowids, _, _, types = self._matrix
        codes = [i for i, t in enumerate(self.types) if t in set(source_types)]
        return np.isin(types, codes)

    def rowid_mask(self, allowed_rowids: np.ndarray) -> np.ndarray:
        return np.isin(self._matrix[0], allowed_rowids)

    def search(self, query: np.ndarray, k: int, mask: np.ndarray | None = None,
               rescore: int = RESCORE_DEPTH) -> list[tuple[int, float]]:
        """Top ``k`` (rowid, cosine similarity), exact over the rescored candidates."""
        rowids, projected, full, _ = self._matrix
        if len(rowids) == 0 or k <= 0:
            return []
        query = np.asarray(query, np.float32)
        query = query / (np.linalg.norm(query) or 1.0)
        candidates = np.flatnonzero(mask) if mask is not None else None
        if projected is None or (candidates is not None and len(candidates) <= EXACT_BELOW):
            return self._exact(query, candidates if candidates is not None
                               else np.arange(len(rowids)), k)
        scores = projected @ (query @ self.basis)
        if mask is not None:
            scores[~mask] = -np.inf
        depth = min(len(scores), max(rescore, k * 4))
        top = np.argpartition(-scores, depth - 1)[:depth]
        top = top[np.isfinite(scores[top])]
        return self._exact(query, top, k)

    def _exact(self, query: np.ndarray, idx: np.ndarray, k: int) -> list[tuple[int, float]]:
        rowids, _, full, _ = self._matrix
        if len(idx) == 0:
            return []
        sims = full[idx].astype(np.float32) @ query
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(rowids[idx[i]]), float(sims[i])) for i in order]


def principal_basis(vectors: np.ndarray, dims: int, seed: int = 0) -> np.ndarray:
    """The top ``dims`` principal directions (uncentred: dot products are what we rank by)."""
    rng = np.random.default_rng(seed)
    take = rng.choice(len(vectors), min(len(vectors), PCA_SAMPLE), replace=False)
    sample = vectors[np.sort(take)].astype(np.float32)
    eigenvalues, eigenvectors = np.linalg.eigh(sample.T @ sample)
    return np.ascontiguousarray(eigenvectors[:, ::-1][:, :dims], dtype=np.float32)


def project(vectors: np.ndarray, basis: np.ndarray, block: int = 65_536) -> np.ndarray:
    """float16 vectors onto the basis, in blocks so the float32 copy stays small."""
    out = np.empty((len(vectors), basis.shape[1]), np.float32)
    for start in range(0, len(vectors), block):
        out[start:start + block] = vectors[start:start + block].astype(np.float32) @ basis
    return out
