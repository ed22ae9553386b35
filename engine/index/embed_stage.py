"""Embedding inside a reindex: batches, isolation of refused inputs, the pending pass, and
the message vectors of chat windows for embedders that use them (engine/vectors/message_vectors.py).

A provider failure never fails a file: its chunks are written keyword-searchable with a NULL
embedding and embedded by the pending pass of a later run (docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from engine.config import Config
from engine.embed.provider_guard import BatchIsolation
from engine.embedder import Embedder
from engine.index.run_report import IndexStats, Progress
from engine.retrieval.passages import WINDOW_ID
from engine.schema import get_meta, set_meta
from engine.storage.db import Connection, transaction
from engine.vectors.message_vectors import META_KEY as MESSAGES_DONE
from engine.vectors.message_vectors import message_share, message_texts, pack, semantic_text
from engine.vectors.message_vectors import store as store_messages


@dataclass
class Embedded:
    """What one chunk got from the embedder."""

    vector: np.ndarray | None  # None: not embedded (pending, both it and its messages)
    truncated: bool
    # a chat window's message vectors, packed (engine/vectors/message_vectors.py); None: none to store
    messages: bytes | None = None


class EmbedStage:
    """Embeds texts for one run; remembers when the provider is down so a dead provider costs
    one failed call per run, not one per batch."""

    def __init__(self, embedder: Embedder, config: Config, stats: IndexStats, *,
                 hold_files: bool = False):
        self.embedder = embedder
        self.batch_size = max(1, config.embedding_batch_size)
        self.max_chars = config.max_embed_chars
        self.stats = stats
        self.provider_down = False
        self.isolation = BatchIsolation(embedder)
        self.defer_part_batches = bool(getattr(embedder, "prefers_full_batches", False))
        # a staged re-embed (engine/index/re_embed.py): a file's chunks get no vector of this
        # embedder in the index; the staging pass gives them theirs
        self.hold_files = hold_files
        # chat windows also get a vector per message (engine/vectors/message_vectors.py), as this
        # embedder's calibration says unless the config turns them off
        self.per_message = message_share(config, embedder.provider) > 0

    def _fail(self, message: str) -> None:
        if message not in self.stats.embedding_errors:
            self.stats.embedding_errors.append(message)

    def _embed_batch(self, texts: list[str]) -> list[np.ndarray | None]:
        # refused inputs are isolated at a bounded cost; any other failure (a hostile answer,
        # a client bug) marks the provider down for the run (engine/embed/provider_guard.py)
        result = self.isolation.embed(texts)
        for exc in result.errors:
            self._fail(f"{exc.kind}: {exc}")
        self.provider_down = self.isolation.stopped
        return result.vectors

    def _embed_texts(self, texts: list[str]) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            out.extend([None] * len(batch) if self.provider_down else self._embed_batch(batch))
        return out

    def embed(self, chunks: Sequence[tuple[str, str]], *, gathered: bool = False
              ) -> list[Embedded]:
        """A vector (and a chat window's message vectors) per (chunk id, content).

        For an embedder that prefers full batches, a part batch of a file is left pending
        unless ``gathered``: the pending pass embeds it with other files' chunks (every file's
        chunk is left so while a re-embed is staged: ``hold_files``). A window
        whose messages could not be embedded because the provider went down stays pending
        whole, so the next run embeds both.
        """
        texts = [semantic_text(content) for _, content in chunks]
        truncated = [len(t) > self.max_chars for t in texts]
        held = self.hold_files or (self.defer_part_batches and len(texts) < self.batch_size)
        if held and not gathered:
            return [Embedded(None, t) for t in truncated]
        vectors = self._embed_texts([t[: self.max_chars] for t in texts])
        messages: list[bytes | None] = [None] * len(chunks)
        if self.per_message:
            done = [i for i, v in enumerate(vectors) if v is not None]
            each = [message_texts(*chunks[i]) for i in done]
            for i, ms, packed in zip(done, each, self._pack_messages(each), strict=True):
                messages[i] = packed
                if ms and packed is None:  # its messages wait for the provider: so does it
                    vectors[i] = None
        self.stats.embedded += sum(v is not None for v in vectors)
        return [Embedded(v, t, m) for v, t, m in zip(vectors, truncated, messages, strict=True)]

    def message_vectors(self, chunks: Sequence[tuple[str, str]]) -> list[bytes | None]:
        """Packed message vectors per (chunk id, content): None for a chunk that is not a chat
        window, or whose messages wait for the provider (``provider_down``). A message the
        provider refuses is left out; the window keeps the others."""
        return self._pack_messages([message_texts(cid, content) for cid, content in chunks])

    def _pack_messages(self, texts: list[list[str] | None]) -> list[bytes | None]:
        flat = [m[: self.max_chars] for ms in texts if ms for m in ms]
        vectors = iter(self._embed_texts(flat))
        out: list[bytes | None] = []
        for ms in texts:
            got = [next(vectors) for _ in ms or ()]
            if ms is None or (self.provider_down and any(v is None for v in got)):
                out.append(None)
            else:
                out.append(pack([v for v in got if v is not None]))
        return out


def reopen_backfill(conn: Connection, embed: EmbedStage,
                    chunks: Sequence[tuple[str, Embedded]]) -> None:
    """In the transaction writing these (chunk id, what it got): a run that stores no message
    vectors and gives a chat window its vector clears the backfill's done mark, so a later run
    that stores them looks again, even if this one is cancelled or fails before its end."""
    if not embed.per_message and any(e.vector is not None and WINDOW_ID.match(cid)
                                     for cid, e in chunks):
        conn.execute("DELETE FROM meta WHERE key = ?", (MESSAGES_DONE,))


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
            "SELECT rowid, id, content FROM chunks WHERE embedding IS NULL AND rowid > ? "
            "ORDER BY rowid LIMIT ?", (after, embed.batch_size * 4)).fetchall()
        if not rows:
            break
        after = rows[-1][0]
        got = embed.embed([(r[1], r[2]) for r in rows], gathered=True)
        with transaction(conn):
            conn.executemany(
                "UPDATE chunks SET embedding = ?, embedding_truncated = ? WHERE rowid = ?",
                [(blob(e.vector), int(e.truncated), r[0])
                 for r, e in zip(rows, got, strict=True) if e.vector is not None])
            store_messages(conn, [(r[0], e.messages) for r, e in zip(rows, got, strict=True)
                                  if e.messages is not None])
            reopen_backfill(conn, embed, [(r[1], e) for r, e in zip(rows, got, strict=True)])
        done += len(rows)
        if progress:
            progress(Progress("pending", base.files_total, base.files_done, embed.stats.embedded,
                              None, total, done))


def embed_messages(conn: Connection, embed: EmbedStage, *,
                   progress: Callable[[Progress], None] | None,
                   cancelled: Callable[[], bool], base: Progress) -> None:
    """Give message vectors to the chat windows embedded before their embedder stored them
    (an index built by an older memlens): once per index and embedder, recorded in meta."""
    done_for = f"{embed.embedder.provider}:{embed.embedder.model}"
    if not embed.per_message or get_meta(conn, MESSAGES_DONE) == done_for:
        return
    # a pending window is not counted: the pending pass gives it both vectors at once
    missing = ("FROM chunks c WHERE c.id GLOB '*#w[0-9]*' AND c.embedding IS NOT NULL AND "
               "NOT EXISTS (SELECT 1 FROM message_vectors m WHERE m.chunk_rowid = c.rowid)")
    total = conn.execute(f"SELECT count(*) {missing}").fetchone()[0]
    done, after = 0, 0
    while not embed.provider_down and not cancelled():
        rows = conn.execute(
            f"SELECT c.rowid, c.id, c.content {missing} AND c.rowid > ? ORDER BY c.rowid "
            "LIMIT ?",
            (after, embed.batch_size)).fetchall()
        if not rows:
            with transaction(conn):
                set_meta(conn, MESSAGES_DONE, done_for)
            return
        after = rows[-1][0]
        packed = embed.message_vectors([(r[1], r[2]) for r in rows])
        with transaction(conn):
            store_messages(conn, [(r[0], p) for r, p in zip(rows, packed, strict=True)
                                  if p is not None])
        done += len(rows)
        if progress:
            progress(Progress("messages", base.files_total, base.files_done,
                              embed.stats.embedded, None, total, done))
