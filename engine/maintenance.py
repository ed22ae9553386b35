"""maintain_index(): give a churned index back its compact shape.

Deletes and rewrites leave free pages in the file (a VACUUM hands them back) and rows masked
out of the vector sidecar's segments (a rewrite from ``chunks.embedding`` drops them: the
sidecar is derived, engine/vectors/sidecar_file.py). Maintenance merges the text indexes
(FTS5 'optimize'), VACUUMs unless told not to, and rewrites the sidecar whole under a new
epoch. It holds the writer lock, so it never races a reindex.

The next writer after a migration that dropped a table (the vec0 copy of the vectors an older
memlens kept) runs :func:`compact_if_pending` once: the same VACUUM and sidecar rewrite.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine.index.contents import db_size, free_bytes, pending_embeddings
from engine.schema import ensure_schema, get_meta, optimize_text_indexes, stored_embedder
from engine.schema_migrations import COMPACT_KEY
from engine.storage.db import Connection, connect, transaction
from engine.storage.lock import writer_lock
from engine.vectors.sidecar_build import new_epoch, update_sidecar


def maintain_index(db_path: str | Path, *, vacuum: bool = True) -> dict:
    """Optimize FTS5, VACUUM, rewrite the vector sidecar; returns sizes, counts and timings."""
    db_path = Path(db_path)
    if not db_path.exists():
        raise FileNotFoundError(f"no index at {db_path}: run `memlens reindex` first")
    timings: dict[str, float] = {}
    with writer_lock(db_path, "maintenance"):
        conn = connect(db_path, mmap=False)
        try:
            ensure_schema(conn)
            if stored_embedder(conn) is None:
                raise RuntimeError("the index has no embedder recorded yet: run a reindex first")
            size_before, free_before = db_size(db_path), free_bytes(conn)
            t = time.perf_counter()
            optimize_text_indexes(conn)
            timings["fts_optimize_s"] = round(time.perf_counter() - t, 3)
            if vacuum or get_meta(conn, COMPACT_KEY) is not None:  # an upgrade's, once
                t = time.perf_counter()
                _vacuum(conn)
                _compacted(conn)
                timings["vacuum_s"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            new_epoch(conn)  # VACUUM may renumber rowids: no older sidecar is trusted
            sidecar = update_sidecar(conn, db_path)  # so rewritten whole from the rows
            timings["sidecar_s"] = round(time.perf_counter() - t, 3)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            pending = pending_embeddings(conn)
            free_after = free_bytes(conn)
        finally:
            conn.close()
    size_after = db_size(db_path)
    return {
        "db_path": str(db_path),
        "size_before": size_before,
        "size_after": size_after,
        "reclaimed_bytes": size_before - size_after,
        "free_bytes_before": free_before,
        "free_bytes_after": free_after,
        "chunks": chunks,
        "vectors": chunks - pending,
        "pending_embeddings": pending,
        "vacuumed": "vacuum_s" in timings,
        "sidecar_rows": sidecar.get("rows", 0),
        "timings": timings,
    }


def compact_if_pending(conn: Connection, db_path: str | Path) -> bool:
    """VACUUM once after a migration dropped a table, then rewrite the sidecar; a run killed
    half way leaves the mark, so the next writer does it again (VACUUM is one transaction)."""
    if get_meta(conn, COMPACT_KEY) is None:
        return False
    _vacuum(conn)
    new_epoch(conn)
    update_sidecar(conn, db_path)
    _compacted(conn)
    return True


def _compacted(conn: Connection) -> None:
    with transaction(conn):
        conn.execute("DELETE FROM meta WHERE key = ?", (COMPACT_KEY,))


def _vacuum(conn: Connection) -> None:
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the file shrinks only once checkpointed


if __name__ == "__main__":  # ``python -m engine.maintenance`` is ``memlens maintenance --json``
    from engine.command_line import run

    sys.exit(run(["maintenance", "--json", *sys.argv[1:]]))
