"""Embedding inside a reindex: batches, isolation of refused inputs, the pending pass.

A provider failure never fails a file: its chunks are written keyword-searchable with a NULL
embedding and embedded by the pending pass of a later run (docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .config import Config
from .db import Connection, transaction
from .embedder import Embedder
from .index_stats import IndexStats, Progress
from .provider_guard import BatchIsolation
from .semantic_text import semantic_text


class EmbedStage:
    """Embeds texts for one run; remembers when the provider is down so a dead provider costs
    one failed call per run, not one per batch."""

    def __init__(self, embedder: Embedder, config: Config, stats: IndexStats):
        self.embedder = embedder
        self.batch_size = max(1, config.embedding_batch_size)
        self.max_chars = config.max_embed_chars
        self.stats = stats
        self.provider_down = False
        self.isolation = BatchIsolation(embedder)
        self.defer_part_batches = bool(getattr(embedder, "prefers_full_batches", False))

    def _fail(self, message: str) -> None:
        if message not in self.stats.embedding_errors:
            self.stats.embedding_errors.append(message)

    def _embed_batch(self, texts: list[str]) -> list[np.ndarray | None]:
        # refused inputs are isolated at a bounded cost; any other failure (a hostile answer,
        # a client bug) marks the provider down for the run (engine/provider_guard.py)
        result = self.isolation.embed(texts)
        for exc in result.errors:
            self._fail(f"{exc.kind}: {exc}")
        self.provider_down = self.isolation.stopped
        return result.vectors

    def vectors(self, contents: list[str], *, gathered: bool = False
                ) -> tuple[list[np.ndarray | None], list[bool]]:
        """One vector (None: not embedded) and a truncation flag per chunk content.

        For an embedder that prefers full batches, a part batch of a file is left pending
        (None) unless ``gathered``: the pending pass embeds it with other files' chunks.
        """
        texts = [semantic_text(c) for c in contents]
        truncated = [len(t) > self.max_chars for t in texts]
        texts = [t[: self.max_chars] for t in texts]
        if self.defer_part_batches and not gathered and len(texts) < self.batch_size:
            return [None] * len(texts), truncated
        out: list[np.ndarray | None] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            out.extend([None] * len(batch) if self.provider_down else self._embed_batch(batch))
        self.stats.embedded += sum(v is not None for v in out)
        return out, truncated


def blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def embed_pending(conn: Connection, embed: EmbedStage, *,
                  progress: Callable[[Progress], None] | None,
                  cancelled: Callable[[], bool], base: Progress) -> None:
    """Give a vector to every chunk that has none (failed before, or a re-embed)."""
    total = conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]
    done, after = 0, 0
    while total and not embed.provider_down and not cancelled():
        rows = conn.execute(
            "SELECT rowid, content FROM chunks WHERE embedding IS NULL AND rowid > ? "
            "ORDER BY rowid LIMIT ?", (after, embed.batch_size * 4)).fetchall()
        if not rows:
            break
        after = rows[-1][0]
        vectors, truncated = embed.vectors([r[1] for r in rows], gathered=True)
        with transaction(conn):
            conn.executemany(
                "UPDATE chunks SET embedding = ?, embedding_truncated = ? WHERE rowid = ?",
                [(blob(v), int(t), r[0]) for r, v, t in zip(rows, vectors, truncated, strict=True)
                 if v is not None])
        done += len(rows)
        if progress:
            progress(Progress("pending", base.files_total, base.files_done, embed.stats.embedded,
                              None, total, done))
