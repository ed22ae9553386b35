"""Re-embedding without losing search: the new embedder's vectors are staged beside the current
ones, which keep serving, and swapped in at once when they cover the index.

A re-embed (another embedder configured, or the same one again) writes each chunk's new vector
and its chat messages' vectors into ``staged_vectors``, committing batch by batch: a killed or
cancelled run keeps what it staged and the next run (``memlens reindex`` while that embedder is
configured, the watcher's or the app's) goes on from there. Meanwhile the index's own vectors,
embedder and vector sidecar are untouched, so searches stay hybrid, embedding queries with the
embedder that made those vectors (engine/searcher.py). When every chunk has a staged row, one
transaction moves them into ``chunks`` and records the new embedder: a crash
leaves the old index or the new one, never a mix. docs/reliability.md, "Switching embedders".

Files read while a re-embed is staged get no vector in ``chunks`` (the old embedder's would be
of the wrong kind); they are keyword-searchable and get their new vector with the swap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.index.run_report import Progress
from engine.schema import EmbedderInfo, record_embedder, set_meta
from engine.schema_migrations import MESSAGES_DONE_KEY
from engine.storage.db import Connection, averages, transaction

if TYPE_CHECKING:  # a reader asks only staged(): the embedding stage loads with a writer
    from engine.index.embed_stage import EmbedStage

STAGED_DDL = [
    # embedding NULL: the provider refused that chunk's text; it stays pending after the swap
    "CREATE TABLE IF NOT EXISTS staged_vectors (chunk_rowid INTEGER PRIMARY KEY, "
    "embedding BLOB, truncated INTEGER NOT NULL DEFAULT 0, messages BLOB)",
    "CREATE TRIGGER IF NOT EXISTS staged_vectors_ad AFTER DELETE ON chunks BEGIN "
    "DELETE FROM staged_vectors WHERE chunk_rowid = old.rowid; END",
    "CREATE TRIGGER IF NOT EXISTS staged_vectors_au AFTER UPDATE OF content ON chunks "
    "WHEN new.content IS NOT old.content BEGIN "
    "DELETE FROM staged_vectors WHERE chunk_rowid = old.rowid; END",
]
STAGED_OBJECTS = ("staged_vectors_ad", "staged_vectors_au")
# meta: the staged embedder, and how far it got (for readers: a count(*) of the staged table
# reads every vector)
KEYS = ("staged_provider", "staged_model", "staged_dim", "staged_done", "staged_total")

_TODO = ("FROM chunks c WHERE NOT EXISTS "
         "(SELECT 1 FROM staged_vectors s WHERE s.chunk_rowid = c.rowid)")


@dataclass(frozen=True)
class ReEmbedState:
    """A staged re-embed: whose vectors, and how many of the index's chunks have one."""

    embedder: EmbedderInfo
    done: int
    total: int

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 100

    def describe(self) -> str:
        return (f"re-embedding with {self.embedder.describe()}: {self.done:,} of "
                f"{self.total:,} chunks ({self.percent}%)")


def staged(conn: Connection) -> ReEmbedState | None:
    """The re-embed staged in this index, if any (one read of meta: cheap for readers)."""
    found = dict(conn.execute(f"SELECT key, value FROM meta WHERE key IN "
                              f"({','.join('?' * len(KEYS))})", KEYS).fetchall())
    if "staged_provider" not in found:
        return None
    info = EmbedderInfo(found["staged_provider"], found.get("staged_model", ""),
                        int(found.get("staged_dim", 0)))
    return ReEmbedState(info, int(found.get("staged_done", 0)),
                        int(found.get("staged_total", 0)))


def begin(conn: Connection, info: EmbedderInfo) -> None:
    """Stage ``info``'s vectors: go on with a re-embed already staged for it, else start
    one (dropping another embedder's staged vectors)."""
    current = staged(conn)
    if current is not None and current.embedder == info:
        return
    with transaction(conn):
        _drop(conn)
        for statement in STAGED_DDL:
            conn.execute(statement)
        set_meta(conn, "staged_provider", info.provider)
        set_meta(conn, "staged_model", info.model)
        set_meta(conn, "staged_dim", str(info.dim))
        set_meta(conn, "staged_done", "0")
        set_meta(conn, "staged_total", str(_chunk_count(conn)))


def discard(conn: Connection) -> None:
    """Forget a staged re-embed (its embedder is no longer the configured one)."""
    if staged(conn) is not None:
        with transaction(conn):
            _drop(conn)


def stage(conn: Connection, embed: EmbedStage, *, progress: Callable[[Progress], None] | None,
          cancelled: Callable[[], bool], base: Progress) -> bool:
    """Stage a vector for every chunk that has none staged; True when it went through (the
    run may swap: :func:`swap` checks that every chunk has one). A provider outage or a cancel stops it with what it staged kept."""
    from engine.index.embed_stage import blob

    total = _chunk_count(conn)
    done = total - conn.execute(f"SELECT count(*) {_TODO}").fetchone()[0]
    after = 0
    while not embed.provider_down and not cancelled():
        rows = conn.execute(f"SELECT c.rowid, c.id, c.content {_TODO} AND c.rowid > ? "
                            "ORDER BY c.rowid LIMIT ?",
                            (after, embed.batch_size * 4)).fetchall()
        if not rows:
            break
        after = rows[-1][0]
        got = embed.embed([(r[1], r[2]) for r in rows], gathered=True)
        # no vector and the provider up: it refused the text; staged as such (pending after
        # the swap, as any refused chunk). Provider down: not staged, the next run asks again
        kept = [(r[0], e) for r, e in zip(rows, got, strict=True)
                if e.vector is not None or not embed.provider_down]
        done += len(kept)
        with transaction(conn):
            conn.executemany(
                "INSERT OR REPLACE INTO staged_vectors(chunk_rowid, embedding, truncated, "
                "messages) VALUES (?, ?, ?, ?)",
                [(rowid, blob(e.vector), int(e.truncated),
                  e.messages if e.vector is not None else None) for rowid, e in kept])
            set_meta(conn, "staged_done", str(done))
            set_meta(conn, "staged_total", str(total))
        if progress:
            progress(Progress("re-embed", base.files_total, base.files_done,
                              embed.stats.embedded, None, total, done))
    # the loop ends with no row left unless the provider went down or the run was cancelled
    return not embed.provider_down and not cancelled()


def swap(conn: Connection, info: EmbedderInfo, per_message: bool) -> bool:
    """Put the staged vectors in place of the index's, in one transaction; False (nothing
    changed) if some chunk has none staged."""
    with transaction(conn):
        if _uncovered(conn):
            return False
        conn.execute("UPDATE chunks SET embedding = s.embedding, embedding_truncated = "
                     "s.truncated FROM staged_vectors s WHERE s.chunk_rowid = chunks.rowid")
        conn.execute("DELETE FROM message_vectors")
        conn.execute("INSERT INTO message_vectors(chunk_rowid, vectors) SELECT chunk_rowid, "
                     "messages FROM staged_vectors WHERE messages IS NOT NULL "
                     "AND embedding IS NOT NULL")
        if per_message:  # every window staged with a vector got its messages' too
            set_meta(conn, MESSAGES_DONE_KEY, f"{info.provider}:{info.model}")
        else:
            conn.execute("DELETE FROM meta WHERE key = ?", (MESSAGES_DONE_KEY,))
        record_embedder(conn, info)  # the sidecar of the old one is no longer trusted
        _drop(conn)
    return True


def _uncovered(conn: Connection) -> bool:
    return conn.execute(f"SELECT 1 {_TODO} LIMIT 1").fetchone() is not None


def _chunk_count(conn: Connection) -> int:
    counts = averages(conn)  # the text index's own row count: one record, not a scan
    return counts[0] if counts else 0


def _drop(conn: Connection) -> None:
    for trigger in STAGED_OBJECTS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE IF EXISTS staged_vectors")
    conn.execute(f"DELETE FROM meta WHERE key IN ({','.join('?' * len(KEYS))})", KEYS)
