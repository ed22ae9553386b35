"""The vector sidecar: the semantic arm's search structure, in memory-mapped files beside the index.

Each vector is stored once, in ``chunks.embedding`` (written in the chunk's own transaction);
the sidecar is derived from those rows and can always be rebuilt from them.

``<db>.vectors/`` holds a basis file and immutable segment files (rowids, source-type codes,
the first pass's codes — the leading centred principal components as int8, one sign bit for
each of the others and a scale a row: engine/vectors/sign_codes.py — and the full vectors as float16
for rescoring) and ``manifest.json``, which names them, the rowids masked out of each segment
and the vector generation the whole reflects. A fresh process maps the files instead of reading
and encoding every vector (seconds at 500k chunks; docs/benchmarks.md); a reader that finds no
valid sidecar builds the same structure in memory. Writing it: engine/vectors/sidecar_build.py.

Never stale, by construction. Every insert, delete or change of a chunk's vector or type logs
the chunk's rowid in ``vector_changes`` in the same transaction (triggers: engine/schema.py);
the log's AUTOINCREMENT counter is the generation. A sidecar at generation G is exact for
every rowid not logged after G, and a user of it re-reads each logged rowid from ``chunks``.
The writer prunes the log only up to a generation it has written a sidecar for, and records
that floor in ``meta``: a sidecar older than the floor, of another embedder, from before a
maintenance rebuild (``vector_epoch``) or with a torn or missing file is ignored, never
trusted. Only writers (reindex, maintenance) write it, under the writer lock.
"""

from __future__ import annotations

import json
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.schema import get_meta, stored_embedder, vector_generation
from engine.storage.db import Connection
from engine.vectors.sign_codes import WORDS, Basis

FORMAT = 4  # 4: int8 head + sign bits (3: float32 head, 2: uncentred 96 + 32 columns,
# 1: row-major; all refused, so rewritten by the next writer)
MAGIC = b"MLVSEG01"
HEADER = 32


class SidecarInvalid(Exception):
    """The sidecar is missing, torn or does not match the index: it must not be used."""


def sidecar_dir(db_path: str | Path) -> Path:
    return Path(f"{db_path}.vectors")


def manifest_stamp(db_path: str | Path) -> tuple | None:
    """The published manifest's identity (a writer replaces it to publish), or None."""
    try:
        st = (sidecar_dir(db_path) / "manifest.json").stat()
        return st.st_mtime_ns, st.st_ino
    except OSError:
        return None


def _align(n: int) -> int:
    return (n + 63) // 64 * 64


def layout(n: int, dim: int, head: int) -> tuple[int, ...]:
    """Offsets of rowids, types, head block, sign words, scales, full vectors; file size."""
    rows, types = HEADER, HEADER + 8 * n
    lead = _align(types + 2 * n)
    words = _align(lead + n * head)
    scale = _align(words + 8 * WORDS * n)
    full = _align(scale + 4 * n)
    return rows, types, lead, words, scale, full, full + 2 * n * dim


@dataclass
class Segment:
    rowids: np.ndarray  # int64 (n,)
    types: np.ndarray  # int16 (n,), codes into Manifest.types
    head: np.ndarray  # int8 (n, head), the leading components' codes, memory-mapped
    words: np.ndarray  # uint64 (n, WORDS), sign bits of the other components, memory-mapped
    scale: np.ndarray  # float32 (n,), memory-mapped
    full: np.ndarray  # float16 (n, dim), memory-mapped
    dead: np.ndarray  # int64 rowids masked out of this segment


@dataclass
class Sidecar:
    gen: int
    epoch: str
    dim: int
    basis: Basis
    head: int  # leading components in each segment's head block
    types: list[str]
    segments: list[Segment]
    manifest: dict | None  # None: built in memory from the rows (no file behind it)
    stamp: tuple | None = None  # the manifest file as it was when this was built or read


@contextmanager
def snapshot(conn: Connection):
    """One read transaction (the generation and the rows it describes read together), or the
    caller's own if one is open."""
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        conn.execute("COMMIT")


# -- reading -----------------------------------------------------------------------------
def index_state(conn: Connection) -> tuple[int, int, str]:
    """(generation, floor, epoch) of the index, read in the caller's transaction."""
    return (vector_generation(conn), int(get_meta(conn, "vector_floor", "0")),
            get_meta(conn, "vector_epoch", ""))


def load_sidecar(db_path: str | Path, conn: Connection) -> Sidecar:
    """Map the sidecar of ``db_path``; raises :class:`SidecarInvalid` unless every check
    against the index (read on ``conn``) and every file passes."""
    folder = sidecar_dir(db_path)
    stamp = manifest_stamp(db_path)
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except FileNotFoundError as exc:
        raise SidecarInvalid("not written yet") from exc
    except (OSError, ValueError) as exc:
        raise SidecarInvalid("its manifest is unreadable") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise SidecarInvalid("another sidecar format")
    info = stored_embedder(conn)
    gen, floor, epoch = index_state(conn)
    try:
        dim, pdim, sgen = int(manifest["dim"]), int(manifest["pdim"]), int(manifest["gen"])
        head = int(manifest["head"])
        if not 0 < head <= pdim <= dim or pdim - head > 64 * WORDS:
            raise ValueError("head outside the projection")
        if info is None or manifest["embedder"] != info.describe() or dim != info.dim:
            raise SidecarInvalid("written for another embedder")
        if manifest["epoch"] != epoch:
            raise SidecarInvalid("written before the index was last compacted")
        if not floor <= sgen <= gen:
            raise SidecarInvalid("older than the index's change log reaches" if sgen < floor
                                 else "newer than the index (a restored copy?)")
        basis = Basis.from_bytes(_read_exact(folder / manifest["basis"], Basis.size(dim, pdim),
                                             manifest["basis_crc"]), dim, pdim)
        segments = [_map_segment(folder, s, dim, head) for s in manifest["segments"]]
        types = [str(t) for t in manifest["types"]]
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise SidecarInvalid("a file of it is missing or unreadable") from exc
    if any(len(s.types) and int(s.types.max()) >= len(types) for s in segments):
        raise SidecarInvalid("type code out of range")
    return Sidecar(sgen, epoch, dim, basis, head, types, segments, manifest, stamp)


def _read_exact(path: Path, size: int, crc: int) -> bytes:
    data = path.read_bytes()
    if len(data) != size or zlib.crc32(data) != crc:
        raise SidecarInvalid(f"{path.name} torn or changed")
    return data


def _map_segment(folder: Path, entry: dict, dim: int, head: int) -> Segment:
    n = int(entry["rows"])
    rows, types, lead, words, scale, full, size = layout(n, dim, head)
    path = folder / entry["file"]
    if path.stat().st_size != size:
        raise SidecarInvalid(f"{path.name} is torn (its size is wrong)")
    mm = np.memmap(path, np.uint8, mode="r", shape=(size,))
    if bytes(mm[:8]) != MAGIC or int(mm[8:16].view(np.int64)[0]) != n:
        raise SidecarInvalid(f"{path.name} has a bad header")
    if zlib.crc32(mm[rows:types + 2 * n]) != int(entry["crc"]):  # rowids, then type codes
        raise SidecarInvalid(f"{path.name} rowids changed")
    return segment_view(mm, n, dim, head, np.asarray(entry.get("dead", []), np.int64))


def segment_view(mm: np.ndarray, n: int, dim: int, head: int, dead: np.ndarray) -> Segment:
    """The arrays of a segment's bytes (a mapped file, or memory), without copying."""
    rows, types, lead, words, scale, full, _ = layout(n, dim, head)
    return Segment(mm[rows:types].view(np.int64), mm[types:types + 2 * n].view(np.int16),
                   mm[lead:lead + n * head].view(np.int8).reshape(n, head),
                   mm[words:words + 8 * WORDS * n].view(np.uint64).reshape(n, WORDS),
                   mm[scale:scale + 4 * n].view(np.float32),
                   mm[full:full + 2 * n * dim].view(np.float16).reshape(n, dim), dead)


def changed_since(conn: Connection, gen: int) -> np.ndarray:
    """Rowids whose vector or type may have changed after generation ``gen``."""
    return np.fromiter((r[0] for r in conn.execute(
        "SELECT DISTINCT chunk_rowid FROM vector_changes WHERE gen > ?", (gen,))), np.int64)


def current_vectors(conn: Connection, rowids: np.ndarray, dim: int):
    """(rowids, source types, float32 vectors) of those of ``rowids`` that have a vector now."""
    ids, types, vecs = [], [], []
    for start in range(0, len(rowids), 500):
        part = [int(r) for r in rowids[start:start + 500]]
        for rowid, stype, blob in conn.execute(
                f"SELECT rowid, source_type, embedding FROM chunks WHERE rowid IN "
                f"({','.join('?' * len(part))}) AND embedding IS NOT NULL", part):
            if len(blob) == 4 * dim:
                ids.append(rowid)
                types.append(stype)
                vecs.append(np.frombuffer(blob, np.float32))
    return (np.asarray(ids, np.int64), types,
            np.vstack(vecs) if vecs else np.zeros((0, dim), np.float32))


@dataclass
class SidecarHealth:
    """How the search structure stands against the rows (for statistics; reads, never writes)."""
    bytes: int  # its files on disk
    segments: int
    rows: int  # vectors it holds, masked ones included
    masked: int  # rows masked out: changed or deleted since their segment was written
    behind: int  # vector changes logged since it was written (searched from the rows)
    problem: str | None  # why it is not used (a reader then builds it in memory)


def sidecar_health(db_path: str | Path, conn: Connection) -> SidecarHealth:
    folder = sidecar_dir(db_path)
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) \
        if folder.is_dir() else 0
    with snapshot(conn):
        try:
            sidecar = load_sidecar(db_path, conn)
        except SidecarInvalid as exc:
            return SidecarHealth(size, 0, 0, 0, 0, str(exc))
        behind = conn.execute("SELECT count(*) FROM vector_changes WHERE gen > ?",
                              (sidecar.gen,)).fetchone()[0]
    return SidecarHealth(size, len(sidecar.segments),
                         sum(len(s.rowids) for s in sidecar.segments),
                         sum(len(s.dead) for s in sidecar.segments), behind, None)
