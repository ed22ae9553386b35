"""The vector sidecar: the semantic arm's matrices in memory-mapped files beside the index.

``<db>.vectors/`` holds a basis file and immutable segment files (rowids, source-type codes,
the first pass's codes — the leading centred principal components as int8, one sign bit for
each of the others and a scale a row: engine/vectors/sign_codes.py — and the full vectors as float16
for rescoring) and ``manifest.json``, which names them, the rowids masked out of each segment
and the vector generation the whole reflects. A fresh process maps the files instead of reading
and projecting every vector out of vec0 (4-8 s at 500k chunks; docs/benchmarks.md).

Never stale, by construction. Every insert, delete or change of a chunk's vector or type logs
the chunk's rowid in ``vector_changes`` in the same transaction (triggers: engine/schema.py);
the log's AUTOINCREMENT counter is the generation. A sidecar at generation G is exact for
every rowid not logged after G, and a user of it re-reads each logged rowid from ``chunks``.
The writer prunes the log only up to a generation it has written a sidecar for, and records
that floor in ``meta``: a sidecar older than the floor, of another embedder, from before a
maintenance rebuild (``vector_epoch``) or with a torn or missing file is ignored, never
trusted. Only writers (reindex, maintenance) write it, under the writer lock; files are
written under new names, fsynced, and published by replacing the manifest.
"""

from __future__ import annotations

import json
import os
import secrets
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.schema import get_meta, has_vec_table, set_meta, stored_embedder, vector_generation
from engine.storage.db import Connection, transaction
from engine.vectors.sign_codes import WORDS, Basis, components, encode, fit_basis, head_of

FORMAT = 4  # 4: int8 head + sign bits (3: float32 head, 2: uncentred 96 + 32 columns,
# 1: row-major; all refused, so rewritten by the next writer)
MAGIC = b"MLVSEG01"
HEADER = 32
SAMPLE = 20_000  # vectors the principal basis is computed from
COMPACT_SHARE = 0.1  # rewrite everything when this share of the rows is masked out
MAX_SEGMENTS = 16
_BATCH_VEC_CHUNKS = 16  # vec0 chunks (1,024 slots each) read per write


class SidecarInvalid(Exception):
    """The sidecar is missing, torn or does not match the index: it must not be used."""


def sidecar_dir(db_path: str | Path) -> Path:
    return Path(f"{db_path}.vectors")


def _align(n: int) -> int:
    return (n + 63) // 64 * 64


def _layout(n: int, dim: int, head: int) -> tuple[int, ...]:
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
    manifest: dict


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
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise SidecarInvalid(f"no readable manifest ({type(exc).__name__})") from exc
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
        if manifest["epoch"] != epoch or not floor <= sgen <= gen:
            raise SidecarInvalid(f"generation {sgen} outside [{floor}, {gen}] or other epoch")
        basis = Basis.from_bytes(_read_exact(folder / manifest["basis"], Basis.size(dim, pdim),
                                             manifest["basis_crc"]), dim, pdim)
        segments = [_map_segment(folder, s, dim, head) for s in manifest["segments"]]
        types = [str(t) for t in manifest["types"]]
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise SidecarInvalid(f"manifest or segment unusable ({type(exc).__name__})") from exc
    if any(len(s.types) and int(s.types.max()) >= len(types) for s in segments):
        raise SidecarInvalid("type code out of range")
    return Sidecar(sgen, epoch, dim, basis, head, types, segments, manifest)


def _read_exact(path: Path, size: int, crc: int) -> bytes:
    data = path.read_bytes()
    if len(data) != size or zlib.crc32(data) != crc:
        raise SidecarInvalid(f"{path.name} torn or changed")
    return data


def _map_segment(folder: Path, entry: dict, dim: int, head: int) -> Segment:
    n = int(entry["rows"])
    rows, types, lead, words, scale, full, size = _layout(n, dim, head)
    path = folder / entry["file"]
    if path.stat().st_size != size:
        raise SidecarInvalid(f"{path.name} has the wrong size (torn)")
    mm = np.memmap(path, np.uint8, mode="r", shape=(size,))
    if bytes(mm[:8]) != MAGIC or int(mm[8:16].view(np.int64)[0]) != n:
        raise SidecarInvalid(f"{path.name} has a bad header")
    if zlib.crc32(mm[rows:types + 2 * n]) != int(entry["crc"]):  # rowids, then type codes
        raise SidecarInvalid(f"{path.name} rowids changed")
    return Segment(mm[rows:types].view(np.int64), mm[types:types + 2 * n].view(np.int16),
                   mm[lead:lead + n * head].view(np.int8).reshape(n, head),
                   mm[words:words + 8 * WORDS * n].view(np.uint64).reshape(n, WORDS),
                   mm[scale:scale + 4 * n].view(np.float32),
                   mm[full:full + 2 * n * dim].view(np.float16).reshape(n, dim),
                   np.asarray(entry.get("dead", []), np.int64))


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


# -- writing (writers only, under the writer lock) ----------------------------------------
def update_sidecar(conn: Connection, db_path: str | Path) -> dict:
    """Bring the sidecar to the index's current generation: append a segment for what
    changed, or rewrite it whole when it is missing, invalid or too fragmented. Then prune the
    generation log up to it. Returns what was done."""
    if not has_vec_table(conn) or stored_embedder(conn) is None:
        return {"sidecar": "none", "reason": "no vectors yet"}
    if not get_meta(conn, "vector_epoch"):
        with transaction(conn):
            set_meta(conn, "vector_epoch", secrets.token_hex(8))
    try:
        old = load_sidecar(db_path, conn)
    except SidecarInvalid as exc:
        old, why = None, str(exc)
    if old is not None and (old.basis.rotation.shape[1] != components(old.dim)
                            or old.head != head_of(components(old.dim))):
        old, why = None, "another projection size"
    gen = vector_generation(conn)
    if old is not None and old.gen == gen:
        result = {"sidecar": "current", "gen": gen}
    elif old is not None and _can_append(old, conn):
        result = _append(conn, db_path, old, gen)
    else:
        result = rebuild_sidecar(conn, db_path)
        result.setdefault("reason", why if old is None else "compacted")
    _prune(conn, result["gen"])
    return result


def _can_append(old: Sidecar, conn: Connection) -> bool:
    rows = sum(len(s.rowids) for s in old.segments)
    dead = sum(len(s.dead) for s in old.segments)
    pending = conn.execute("SELECT count(*) FROM vector_changes WHERE gen > ?",
                           (old.gen,)).fetchone()[0]
    return len(old.segments) < MAX_SEGMENTS and dead + pending <= COMPACT_SHARE * max(rows, 1)


def _append(conn: Connection, db_path: str | Path, old: Sidecar, gen: int) -> dict:
    folder = sidecar_dir(db_path)
    changed = changed_since(conn, old.gen)
    ids, stypes, vecs = current_vectors(conn, changed, old.dim)
    types = list(old.types)
    codes = np.array([_code(types, t) for t in stypes], np.int16)
    entries = []
    for seg, entry in zip(old.segments, old.manifest["segments"], strict=True):
        hit = seg.rowids[np.isin(seg.rowids, changed)]
        dead = np.union1d(seg.dead, hit)
        entries.append({**entry, "dead": [int(r) for r in dead]})
    if len(ids):
        entries.append(_write_segment(folder, ids, codes, encode(vecs, old.basis, old.head),
                                      vecs.astype(np.float16)))
    _publish(folder, {**old.manifest, "gen": gen, "types": types, "segments": entries})
    return {"sidecar": "appended", "gen": gen, "rows": int(len(ids)),
            "masked": int(len(changed))}


def rebuild_sidecar(conn: Connection, db_path: str | Path) -> dict:
    """Write the sidecar whole from vec0's shadow tables, in one read transaction."""
    info = stored_embedder(conn)
    folder = sidecar_dir(db_path)
    folder.mkdir(exist_ok=True)
    with snapshot(conn):
        gen, _, epoch = index_state(conn)
        chunks = conn.execute(
            "SELECT chunk_id, validity, partition00 FROM chunks_vec_chunks "
            "ORDER BY chunk_id").fetchall()
        live = {cid: int(np.unpackbits(np.frombuffer(v, np.uint8)).sum())
                for cid, v, _ in chunks}
        types: list[str] = []
        pdim = components(info.dim)
        basis = fit_basis(_sample(conn, chunks, live, info.dim), pdim)
        entry = _stream_segment(conn, folder, chunks, sum(live.values()), types, basis,
                                head_of(pdim))
    basis_name = f"basis-{secrets.token_hex(6)}.bin"
    _write_file(folder / basis_name, basis.to_bytes())
    _publish(folder, {"format": FORMAT, "dim": info.dim, "pdim": pdim, "head": head_of(pdim),
                      "embedder": info.describe(), "epoch": epoch, "gen": gen,
                      "basis": basis_name, "basis_crc": zlib.crc32(basis.to_bytes()),
                      "types": types, "segments": [entry]})
    return {"sidecar": "rebuilt", "gen": gen, "rows": entry["rows"]}


def _vec_chunk(conn: Connection, cid: int, validity: bytes, dim: int):
    rowids_blob = conn.execute(
        "SELECT rowids FROM chunks_vec_chunks WHERE chunk_id = ?", (cid,)).fetchone()[0]
    vectors = conn.execute(
        "SELECT vectors FROM chunks_vec_vector_chunks00 WHERE rowid = ?", (cid,)).fetchone()[0]
    size = len(rowids_blob) // 8
    alive = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[:size]
    alive = alive.astype(bool)
    return (np.frombuffer(rowids_blob, np.int64)[alive],
            np.frombuffer(vectors, np.float32).reshape(size, dim)[alive])


def _sample(conn: Connection, chunks, live: dict, dim: int) -> np.ndarray:
    """Vectors of evenly spaced vec0 chunks, about SAMPLE of them, for the basis."""
    total = sum(live.values())
    per_chunk = max(total / max(len(chunks), 1), 1.0)
    step = max(1, int(len(chunks) // max(SAMPLE / per_chunk, 1.0)))
    parts = [_vec_chunk(conn, cid, v, dim)[1] for cid, v, _ in chunks[::step]]
    parts = [p for p in parts if len(p)]
    return np.vstack(parts) if parts else np.zeros((1, dim), np.float32)


def _stream_segment(conn: Connection, folder: Path, chunks, n: int, types: list[str],
                    basis: Basis, head: int) -> dict:
    """One segment of every live vec0 vector, written in batches (memory stays bounded)."""
    dim = len(basis.mean)
    o_rows, o_types, o_lead, o_words, o_scale, o_full, size = _layout(n, dim, head)
    name = f"seg-{secrets.token_hex(6)}.bin"
    crc, done = 0, 0
    codes_all = []
    with open(folder / name, "wb") as f:
        f.truncate(size)
        f.write(MAGIC + np.array([n], np.int64).tobytes())
        fd = f.fileno()
        for start in range(0, len(chunks), _BATCH_VEC_CHUNKS):
            ids, vecs, codes = [], [], []
            for cid, validity, stype in chunks[start:start + _BATCH_VEC_CHUNKS]:
                r, v = _vec_chunk(conn, cid, validity, dim)
                ids.append(r)
                vecs.append(v)
                codes.append(np.full(len(r), _code(types, stype), np.int16))
            r, v, c = np.concatenate(ids), np.vstack(vecs), np.concatenate(codes)
            m = len(r)
            os.pwrite(fd, r.tobytes(), o_rows + 8 * done)
            os.pwrite(fd, c.tobytes(), o_types + 2 * done)
            lead, words, scale = encode(v, basis, head)
            os.pwrite(fd, lead.tobytes(), o_lead + head * done)
            os.pwrite(fd, words.tobytes(), o_words + 8 * WORDS * done)
            os.pwrite(fd, scale.tobytes(), o_scale + 4 * done)
            os.pwrite(fd, v.astype(np.float16).tobytes(), o_full + 2 * dim * done)
            crc = zlib.crc32(r.tobytes(), crc)
            codes_all.append(c)
            done += m
        f.flush()
        os.fsync(fd)
    if done != n:
        raise RuntimeError("vec0 changed while the sidecar was written")
    crc = zlib.crc32(np.concatenate(codes_all or [np.zeros(0, np.int16)]).tobytes(), crc)
    return {"file": name, "rows": n, "crc": crc, "dead": []}


def _write_segment(folder: Path, ids, codes, encoded, full) -> dict:
    lead, words, scale = encoded
    n, dim = full.shape
    o_rows, o_types, o_lead, o_words, o_scale, o_full, size = _layout(n, dim, lead.shape[1])
    buf = bytearray(size)
    buf[:16] = MAGIC + np.array([n], np.int64).tobytes()
    buf[o_rows:o_types] = ids.astype(np.int64).tobytes()
    buf[o_types:o_types + 2 * n] = codes.tobytes()
    for offset, part in ((o_lead, lead), (o_words, words), (o_scale, scale), (o_full, full)):
        data = np.ascontiguousarray(part).tobytes()
        buf[offset:offset + len(data)] = data
    name = f"seg-{secrets.token_hex(6)}.bin"
    _write_file(folder / name, bytes(buf))
    return {"file": name, "rows": n, "dead": [],
            "crc": zlib.crc32(ids.astype(np.int64).tobytes() + codes.tobytes())}


def _code(types: list[str], stype: str) -> int:
    if stype not in types:
        types.append(stype)
    return types.index(stype)


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _publish(folder: Path, manifest: dict) -> None:
    """Replace the manifest atomically, then delete the files it no longer names."""
    tmp = folder / "manifest.json.tmp"
    _write_file(tmp, json.dumps(manifest).encode())
    os.replace(tmp, folder / "manifest.json")
    try:  # make the rename durable (POSIX); Windows cannot open a folder this way
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
    keep = {manifest["basis"], "manifest.json", *(s["file"] for s in manifest["segments"])}
    for path in folder.iterdir():
        if path.name not in keep:  # a reader still mapping one keeps its inode alive
            path.unlink(missing_ok=True)


def _prune(conn: Connection, gen: int) -> None:
    """The log up to ``gen`` is no longer needed: a sidecar at ``gen`` is published."""
    with transaction(conn):
        conn.execute("DELETE FROM vector_changes WHERE gen <= ?", (gen,))
        set_meta(conn, "vector_floor", str(gen))


def new_epoch(conn: Connection) -> None:
    """Invalidate every sidecar (maintenance may renumber rowids: VACUUM)."""
    with transaction(conn):
        set_meta(conn, "vector_epoch", secrets.token_hex(8))
