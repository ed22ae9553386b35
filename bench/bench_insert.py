"""Write paths into chunks (each vector in its row) + FTS5, without embedding.

    python bench/bench_insert.py [--rows 100000]

triggers:   a per-row AFTER INSERT trigger into chunks_fts (the textbook way)
set-based:  what the indexer does: each 200-row batch into chunks, then one INSERT ... SELECT
            per derived table for that rowid range, in the same transaction
bulk:       every row first, then one FTS5 'rebuild' (a first build)
no-generation: set-based without the vector generation triggers (engine/vectors/sidecar_file.py):
            the write cost of logging every vector change, by difference
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np
from common import machine

from engine.schema import EmbedderInfo, ensure_schema, max_rowid, mirror_new_rows, record_embedder
from engine.storage.db import connect, transaction

WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "ne", "su", "ta", "vo", "ri") for b in
         ("ber", "cant", "dol", "fen", "gar", "hul", "jin", "mos", "pral", "ster", "tor", "wun")]

TRIGGERS = [
    "CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, "
    "content, source_file, source_type) VALUES (new.rowid, new.content, new.source_file, "
    "new.source_type); END",
]


def rows(n: int, seed: int = 3):
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).normal(size=(n, 256)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i in range(n):
        text = " ".join(rng.choices(WORDS, k=130))  # ~900 characters, like a chat window
        yield (f"f{i // 100}.jsonl#w{i % 100}", f"f{i // 100}.jsonl", "slack", text, "{}",
               vectors[i].tobytes(), "", f"{i:016x}", "2026-01-01", 0)


INSERT = ("INSERT INTO chunks(id, source_file, source_type, content, metadata, embedding, "
          "indexed_at, content_hash, content_date, embedding_truncated) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def fresh(path: Path):
    conn = connect(path, mmap=False)
    ensure_schema(conn)
    with transaction(conn):
        record_embedder(conn, EmbedderInfo("bench", "random", 256))
    return conn


def run(path: Path, how: str, n: int) -> dict:
    conn = fresh(path)
    if how == "no-generation":
        with transaction(conn):
            for t in ("chunks_gen_ai", "chunks_gen_ad", "chunks_gen_au"):
                conn.execute(f"DROP TRIGGER {t}")
    if how == "triggers":
        with transaction(conn):
            for t in TRIGGERS:
                conn.execute(t)
    t0 = time.perf_counter()
    batch: list = []
    timings = {}
    for row in rows(n):
        batch.append(row)
        if len(batch) == 200:
            with transaction(conn):
                before = max_rowid(conn)
                conn.executemany(INSERT, batch)
                if how in ("set-based", "no-generation"):
                    mirror_new_rows(conn, before)
            batch = []
    if how == "bulk":
        timings["rows_s"] = round(time.perf_counter() - t0, 1)
        t = time.perf_counter()
        with transaction(conn):
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")
        timings["fts_rebuild_s"] = round(time.perf_counter() - t, 1)
    seconds = time.perf_counter() - t0
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    vec = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL").fetchone()[0]
    conn.close()
    assert vec == n
    return {"path": how, "rows": n, "seconds": round(seconds, 1),
            "rows_per_s": round(n / seconds), **timings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="triggers, set-based, bulk (the default three) or no-generation")
    args = parser.parse_args()
    args.paths = args.paths or ["triggers", "set-based", "bulk"]
    unknown = set(args.paths) - {"triggers", "set-based", "bulk", "no-generation"}
    if unknown:
        parser.error(f"unknown path: {', '.join(sorted(unknown))}")
    print(json.dumps({"machine": machine()}))
    with tempfile.TemporaryDirectory() as tmp:
        for i, how in enumerate(args.paths):
            print(json.dumps(run(Path(tmp) / f"{i}-{how}.db", how, args.rows)), flush=True)


if __name__ == "__main__":
    main()
