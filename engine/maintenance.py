"""rebuild_vec_index(): reclaim vec0 dead-slot bloat by rebuilding it from chunks.embedding.

It also rewrites the vector sidecar whole (engine/vectors/sidecar_file.py) under a new epoch.

vec0 soft-deletes: every changed or deleted vector leaves a dead slot that is still stored and
scanned, so churn grows the file and slows KNN. The rebuild drops and recreates chunks_vec from
the authoritative ``chunks.embedding`` column, optimizes FTS5 and (unless told not to) VACUUMs
to hand the pages back to the file system. It holds the writer lock, so it never races a
reindex.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from engine.index.contents import db_size, vec_bloat
from engine.schema import (
    create_vec_index,
    drop_vec_index,
    ensure_schema,
    optimize_text_indexes,
    stored_embedder,
)
from engine.storage.db import connect, transaction
from engine.storage.lock import writer_lock
from engine.vectors.sidecar_file import new_epoch, update_sidecar


def rebuild_vec_index(db_path: str | Path, *, vacuum: bool = True) -> dict:
    """Rebuild chunks_vec (+ FTS5 optimize, + VACUUM); returns sizes, counts and timings."""
    db_path = Path(db_path)
    if not db_path.exists():
        raise FileNotFoundError(f"no index at {db_path}: run `memlens reindex` first")
    timings: dict[str, float] = {}
    with writer_lock(db_path, "maintenance"):
        conn = connect(db_path, mmap=False)
        try:
            ensure_schema(conn)
            info = stored_embedder(conn)
            if info is None:
                raise RuntimeError("the index has no embedder recorded yet: run a reindex first")
            size_before = db_size(db_path)
            bloat_before = vec_bloat(conn)
            t = time.perf_counter()
            with transaction(conn):
                drop_vec_index(conn)
                create_vec_index(conn, info)
            timings["vec_rebuild_s"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            optimize_text_indexes(conn)
            timings["fts_optimize_s"] = round(time.perf_counter() - t, 3)
            if vacuum:
                t = time.perf_counter()
                conn.execute("VACUUM")
                timings["vacuum_s"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            new_epoch(conn)  # VACUUM may renumber rowids: no older sidecar is trusted
            sidecar = update_sidecar(conn, db_path)
            timings["sidecar_s"] = round(time.perf_counter() - t, 3)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            vectors = conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()[0]
            bloat_after = vec_bloat(conn)
        finally:
            conn.close()
    size_after = db_size(db_path)
    return {
        "db_path": str(db_path),
        "size_before": size_before,
        "size_after": size_after,
        "reclaimed_bytes": size_before - size_after,
        "chunks": chunks,
        "vectors": vectors,
        "pending_embeddings": chunks - vectors,
        "dead_slots_before": bloat_before.dead_slots if bloat_before else 0,
        "dead_slots_after": bloat_after.dead_slots if bloat_after else 0,
        "vacuumed": vacuum,
        "sidecar_rows": sidecar.get("rows", 0),
        "timings": timings,
    }


if __name__ == "__main__":  # ``python -m engine.maintenance`` is ``memlens maintenance --json``
    from engine.command_line import run

    sys.exit(run(["maintenance", "--json", *sys.argv[1:]]))
