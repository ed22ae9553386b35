"""What the vector tests share: clustered unit vectors, rows added straight into an index, and
embedders under a provider that stores message vectors (one that goes down after some calls)."""

from __future__ import annotations

import numpy as np

from engine.embedder import EmbeddingError
from engine.schema import (
    get_meta,
    mirror_new_rows,
)
from engine.storage.db import connect, transaction
from tests.conftest import CountingEmbedder


class MessageEmbedder(CountingEmbedder):
    """The local model under the name of a provider whose calibration stores message vectors."""

    provider = "minilm"


def message_rows(config) -> dict[str, int]:
    """Chunk id -> how many message vectors it has."""
    conn = connect(config.db_path)
    try:
        dim = int(get_meta(conn, "embedding_dim"))
        return {cid: len(blob) // (2 * dim) for cid, blob in conn.execute(
            "SELECT c.id, m.vectors FROM message_vectors m JOIN chunks c "
            "ON c.rowid = m.chunk_rowid")}
    finally:
        conn.close()


def cli_progress_task(monkeypatch, progress):
    """The CLI's progress bar task after one ``progress`` event, as a terminal shows it."""
    import io

    from cli.index import progress_printer

    monkeypatch.setattr("sys.stderr", type("Tty", (io.StringIO,), {"isatty": lambda s: True})())
    bar, update = progress_printer(False)
    update(progress)
    return bar.tasks[0]


def add(conn, ids: list[str], vectors: np.ndarray, source_type: str = "slack") -> None:
    with transaction(conn):
        after = conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]
        conn.executemany(
            "INSERT INTO chunks(id, source_file, source_type, content, embedding, indexed_at, "
            "content_hash) VALUES (?, 'f.jsonl', ?, 'text', ?, 'now', 'h')",
            [(i, source_type, v.tobytes()) for i, v in zip(ids, vectors, strict=True)])
        mirror_new_rows(conn, after)


def rowid_of(conn, chunk_id: str) -> int:
    return conn.execute("SELECT rowid FROM chunks WHERE id = ?", (chunk_id,)).fetchone()[0]


DIM = 64


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, DIM))
    return unit(centres[rng.integers(0, 40, n)] + 0.6 * rng.normal(size=(n, DIM)))


class DownAfter(MessageEmbedder):
    """Answers ``calls`` embedding requests, then is down (provider_error)."""

    def __init__(self, calls: int):
        super().__init__()
        self.left = calls

    def embed(self, texts):
        if self.left <= 0:
            raise EmbeddingError("provider_error", "connection reset (test)")
        self.left -= 1
        return super().embed(texts)
