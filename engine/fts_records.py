"""The few FTS5 records memlens reads directly: each is a run of SQLite varints.

The averages record (``<table>_data`` id 1) holds the row count, then each column's token
total; a ``<table>_docsize`` row holds one row's token count per column. FTS5's bm25 reads
its N and average length from the first (engine/keyword_arm.py, engine/word_bm25.py,
engine/cjk.py).
"""

from __future__ import annotations

from .db import Connection


def varints(blob: bytes, count: int | None = None) -> list[int]:
    """The first ``count`` (default: every) big-endian varints of ``blob``."""
    out, i = [], 0
    while (count is None or len(out) < count) and i < len(blob):
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def averages(conn: Connection, table: str = "chunks_fts") -> list[int]:
    """[rows, tokens of column 0, tokens of column 1, ...]; [] for an empty index."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return varints(row[0]) if row and row[0] else []
