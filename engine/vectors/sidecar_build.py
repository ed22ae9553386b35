"""Writing the vector sidecar (engine/vectors/sidecar_file.py holds its format and checks):
from the rows of ``chunks``, as a new segment for what changed or whole; and the same
structure built in memory for a reader that finds no valid sidecar.

Writers only (reindex, maintenance), under the writer lock: files are written under new
names, fsynced, and published by replacing the manifest; the generation log is pruned only up
to a published sidecar.
"""

from __future__ import annotations

import json
import os
import secrets
import zlib
from pathlib import Path

import numpy as np

from engine.schema import get_meta, set_meta, stored_embedder, vector_generation
from engine.storage.db import Connection, transaction
from engine.vectors.sidecar_file import (
    FORMAT,
    MAGIC,
    Sidecar,
    SidecarInvalid,
    changed_since,
    current_vectors,
    index_state,
    layout,
    load_sidecar,
    segment_view,
    sidecar_dir,
    snapshot,
)
from engine.vectors.sign_codes import WORDS, Basis, components, encode, fit_basis, head_of

SAMPLE = 20_000  # vectors the principal basis is computed from
COMPACT_SHARE = 0.1  # rewrite everything when this share of the rows is masked out
MAX_SEGMENTS = 16
_BATCH_ROWS = 8_192  # vector rows read per batch while a segment is written


def update_sidecar(conn: Connection, db_path: str | Path) -> dict:
    """Bring the sidecar to the index's current generation: append a segment for what
    changed, or rewrite it whole when it is missing, invalid or too fragmented. Then prune the
    generation log up to it. Returns what was done."""
    if stored_embedder(conn) is None:
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
    dim = stored_embedder(conn).dim
    floor = int(get_meta(conn, "vector_floor", "0"))
    if vector_generation(conn) > floor:  # a run that changed no vector writes nothing here
        _unembed_other_sizes(conn, dim, since=floor)
    gen = vector_generation(conn)
    if old is not None and old.gen == gen:
        result = {"sidecar": "current", "gen": gen}
    elif old is not None and _can_append(old, conn):
        result = _append(conn, db_path, old, gen)
    else:
        result = rebuild_sidecar(conn, db_path)
        result.setdefault("reason", why if old is None else "compacted")
        if result["rows"] != vector_count(conn):  # one not in the log: look at every row
            _unembed_other_sizes(conn, dim, since=None)
    _prune(conn, result["gen"])
    return result


def _unembed_other_sizes(conn: Connection, dim: int, since: int | None) -> None:
    """A vector of another size than the embedder's is no vector: its chunk becomes pending,
    so every count agrees with what is searched and the next reindex embeds it again. No
    writer stores one (each checks its provider's answers); a row changed by hand can. Looks
    at the rows logged after generation ``since``, or at every row."""
    scope = "" if since is None else \
        " AND rowid IN (SELECT chunk_rowid FROM vector_changes WHERE gen > ?)"
    with transaction(conn):
        conn.execute("UPDATE chunks SET embedding = NULL WHERE embedding IS NOT NULL AND "
                     f"length(embedding) != ?{scope}", (4 * dim, *(() if since is None
                                                                 else (since,))))


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
    """Write the sidecar whole from ``chunks.embedding``, in one read transaction."""
    info = stored_embedder(conn)
    folder = sidecar_dir(db_path)
    if folder.exists() and not folder.is_dir():
        raise OSError(f"{folder.name} beside the index is a file, not the folder of the vector "
                      "search file: move it away, then run `memlens reindex`")
    folder.mkdir(exist_ok=True)

    def segment_file(size: int) -> np.ndarray:
        name = f"seg-{secrets.token_hex(6)}.bin"
        return np.memmap(folder / name, np.uint8, mode="w+", shape=(size,))

    with snapshot(conn):
        gen, _, epoch = index_state(conn)
        pdim = components(info.dim)
        basis = _basis(conn, info.dim, pdim)
        n, buf, types, crc = _filled(conn, basis, head_of(pdim), segment_file)
        buf.flush()
        name = Path(buf.filename).name
        with open(folder / name, "rb+") as f:
            os.fsync(f.fileno())
        del buf
    entry = {"file": name, "rows": n, "crc": crc, "dead": []}
    basis_name = f"basis-{secrets.token_hex(6)}.bin"
    _write_file(folder / basis_name, basis.to_bytes())
    _publish(folder, {"format": FORMAT, "dim": info.dim, "pdim": pdim, "head": head_of(pdim),
                      "embedder": info.describe(), "epoch": epoch, "gen": gen,
                      "basis": basis_name, "basis_crc": zlib.crc32(basis.to_bytes()),
                      "types": types, "segments": [entry]})
    return {"sidecar": "rebuilt", "gen": gen, "rows": n}


def in_memory_sidecar(conn: Connection, dim: int, stamp=None) -> Sidecar:
    """The sidecar a writer would publish, built in memory from the rows: what a reader
    searches until a valid sidecar file exists (it reads every vector once). ``stamp``: the
    sidecar file as it was when this was built (a newer one is worth mapping)."""
    with snapshot(conn):
        gen, _, epoch = index_state(conn)
        pdim = components(dim)
        head = head_of(pdim)
        basis = _basis(conn, dim, pdim)
        n, buf, types, _ = _filled(conn, basis, head, lambda size: np.zeros(size, np.uint8))
    segment = segment_view(buf, n, dim, head, np.zeros(0, np.int64))
    return Sidecar(gen, epoch, dim, basis, head, types, [segment], manifest=None, stamp=stamp)


def vector_count(conn: Connection) -> int:
    """Chunks that hold a vector: all but the pending ones (two index seeks, no table scan)."""
    return conn.execute(
        "SELECT (SELECT count(*) FROM chunks) - "
        "(SELECT count(*) FROM chunks WHERE embedding IS NULL)").fetchone()[0]


def _filled(conn: Connection, basis: Basis, head: int, new_buffer):
    """(rows, buffer, source types, checksum): every vector row written into a segment's
    bytes from ``new_buffer(size)``, sized by :func:`vector_count`. A vector of another size
    than the embedder's (no writer stores one: each checks its provider's answers) is left
    out of the search; then the rows are counted as written and written again."""
    n = vector_count(conn)
    buf = new_buffer(layout(n, len(basis.mean), head)[-1])
    types: list[str] = []
    done, crc = _fill_segment(conn, buf, n, basis, head, types)
    if done != n:
        n, buf, types = done, new_buffer(layout(done, len(basis.mean), head)[-1]), []
        done, crc = _fill_segment(conn, buf, n, basis, head, types)
    if done != n:
        raise SidecarInvalid("the vectors changed while the sidecar was written")
    return n, buf, types, crc


def _row_batches(conn: Connection, dim: int, batch: int = _BATCH_ROWS):
    """(rowids, source types, float32 vectors) of every chunk with a vector of ``dim``, in
    rowid order."""
    after = 0
    while True:
        rows = conn.execute(
            "SELECT rowid, source_type, embedding FROM chunks WHERE rowid > ? "
            "AND embedding IS NOT NULL ORDER BY rowid LIMIT ?", (after, batch)).fetchall()
        if not rows:
            return
        after = rows[-1][0]
        rows = [r for r in rows if len(r[2]) == 4 * dim]
        data = b"".join(r[2] for r in rows)
        yield (np.fromiter((r[0] for r in rows), np.int64, len(rows)), [r[1] for r in rows],
               np.frombuffer(data, np.float32).reshape(len(rows), dim))


def _basis(conn: Connection, dim: int, pdim: int) -> Basis:
    """The principal basis of a sample of the vectors, on one BLAS thread: on a busy 2-core
    machine a second one only fights for a core (a new user saw the demo's 256 x 256 fit take
    1.2 s instead of 0.1; the searcher pins its KNN to one thread for the same reason)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return fit_basis(_sample(conn, dim), pdim)


def _sample(conn: Connection, dim: int) -> np.ndarray:
    """About SAMPLE vectors at evenly spaced rowids, for the basis (seeks, not a scan)."""
    top = conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]
    wanted = np.unique(np.linspace(1, max(top, 1), min(SAMPLE, max(top, 1))).astype(np.int64))
    ids, _, vecs = current_vectors(conn, wanted, dim)
    if len(ids) < min(SAMPLE // 4, vector_count(conn)):  # rowids mostly deleted: read in order
        vecs = np.vstack([v for _, _, v in _first_batches(conn, dim, SAMPLE)] or [vecs])
    return vecs if len(vecs) else np.zeros((1, dim), np.float32)


def _first_batches(conn: Connection, dim: int, limit: int):
    taken = 0
    for batch in _row_batches(conn, dim):
        if taken >= limit:
            return
        taken += len(batch[0])
        yield batch


def _fill_segment(conn: Connection, buf: np.ndarray, n: int, basis: Basis, head: int,
                  types: list[str]) -> tuple[int, int]:
    """Write every vector row into ``buf`` (a segment's bytes, laid out for ``n`` rows: a
    file's map or memory), in batches so memory stays bounded; returns the rows written and
    the checksum of their rowids and type codes."""
    dim = len(basis.mean)
    o_rows, o_types, o_lead, o_words, o_scale, o_full, size = layout(n, dim, head)
    buf[:16] = np.frombuffer(MAGIC + np.array([n], np.int64).tobytes(), np.uint8)
    done, crc, codes_all = 0, 0, []
    for ids, stypes, vecs in _row_batches(conn, dim):
        m = len(ids)
        if done + m > n:
            raise SidecarInvalid("the vectors changed while the sidecar was written")
        codes = np.array([_code(types, t) for t in stypes], np.int16)
        lead, words, scale = encode(vecs, basis, head)
        for offset, width, part in ((o_rows, 8, ids), (o_types, 2, codes),
                                    (o_lead, head, lead), (o_words, 8 * WORDS, words),
                                    (o_scale, 4, scale), (o_full, 2 * dim,
                                                          vecs.astype(np.float16))):
            data = np.ascontiguousarray(part).view(np.uint8).reshape(-1)
            buf[offset + width * done:offset + width * (done + m)] = data
        crc = zlib.crc32(ids.tobytes(), crc)
        codes_all.append(codes)
        done += m
    return done, zlib.crc32(np.concatenate(codes_all or [np.zeros(0, np.int16)]).tobytes(), crc)


def _write_segment(folder: Path, ids, codes, encoded, full) -> dict:
    lead, words, scale = encoded
    n, dim = full.shape
    o_rows, o_types, o_lead, o_words, o_scale, o_full, size = layout(n, dim, lead.shape[1])
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
