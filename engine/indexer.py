"""reindex(): discover changed files, extract chunks, embed what changed, write per file.

Change detection is two-level (seed): the scanner keeps only files whose mtime moved, then each
file is diffed at chunk level by content_hash, so appending to a chat log embeds only its last
window and the new ones. Every file is one transaction: a crash (even SIGKILL) loses at most the
file in flight, and the next run redoes it. A chunk whose embedding fails is still written
(keyword-searchable) with a NULL embedding and embedded by the pending pass of a later run.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from .config import Config, ConfigError, load_config, resolve_root
from .db import Connection, connect, transaction
from .embedder import Embedder, EmbeddingError, get_embedder
from .extractors import Chunk, ExtractError, Problems, get_extractor
from .extractors.messaging import ResumePoint
from .lock import writer_lock
from .provider_guard import BatchIsolation
from .scanner import SourceFile, discover, indexed_mtimes, needs_indexing, vanished
from .schema import (
    ensure_schema,
    ensure_vec_index,
    max_rowid,
    mirror_new_rows,
    set_meta,
    stored_embedder,
    switch_embedder,
)


@dataclass
class FileError:
    source_file: str
    message: str


@dataclass
class IndexStats:
    files: int = 0  # files (re)indexed in this run
    chunks: int = 0  # chunks written (new or changed); see pending_embeddings for unembedded
    skipped: int = 0  # files whose mtime had not moved
    unchanged_chunks: int = 0
    deleted_chunks: int = 0
    removed_files: int = 0  # files gone from disk whose chunks were removed
    embedded: int = 0  # vectors computed in this run (new chunks + pending pass)
    pending_embeddings: int = 0  # chunks still without a vector after the run
    errors: list[FileError] = field(default_factory=list)  # files that could not be indexed
    warnings: list[FileError] = field(default_factory=list)  # skipped records, bad bytes
    embedding_errors: list[str] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Progress:
    phase: str  # "scan" | "remove" | "index" | "pending" | "done"
    files_total: int = 0
    files_done: int = 0
    chunks_embedded: int = 0
    current_file: str | None = None
    pending_total: int = 0
    pending_done: int = 0


ProgressCallback = Callable[[Progress], None]
CancelFlag = Callable[[], bool] | threading.Event | None


def _cancel_check(cancel: CancelFlag) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class _EmbedStage:
    """Embeds texts for one run; remembers when the provider is down so a dead provider costs
    one failed call per run, not one per batch."""

    def __init__(self, embedder: Embedder, config: Config, stats: IndexStats):
        self.embedder = embedder
        self.batch_size = max(1, config.embedding_batch_size)
        self.max_chars = config.max_embed_chars
        self.stats = stats
        self.provider_down = False
        self.isolation = BatchIsolation(embedder)

    def _fail(self, exc: EmbeddingError) -> None:
        message = f"{exc.kind}: {exc}"
        if message not in self.stats.embedding_errors:
            self.stats.embedding_errors.append(message)

    def _embed_batch(self, texts: list[str]) -> list[np.ndarray | None]:
        # refused inputs are isolated at a bounded cost (engine/provider_guard.py)
        result = self.isolation.embed(texts)
        for exc in result.errors:
            self._fail(exc)
        self.provider_down = self.isolation.stopped
        return result.vectors

    def vectors(self, contents: list[str]) -> tuple[list[np.ndarray | None], list[bool]]:
        truncated = [len(c) > self.max_chars for c in contents]
        texts = [c[: self.max_chars] for c in contents]
        out: list[np.ndarray | None] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            out.extend([None] * len(batch) if self.provider_down else self._embed_batch(batch))
        self.stats.embedded += sum(v is not None for v in out)
        return out, truncated


def _blob(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def _write_batch(conn: Connection, batch: list[tuple[Chunk, bool]], embed: _EmbedStage,
                 indexed_at: str) -> None:
    """Embed and write one sub-batch: changed chunks are replaced, new ones inserted."""
    vectors, truncated = embed.vectors([chunk.content for chunk, _ in batch])
    replaced = [(chunk.id,) for chunk, exists in batch if exists]
    if replaced:
        conn.executemany("DELETE FROM chunks WHERE id = ?", replaced)
    before = max_rowid(conn)
    conn.executemany(
        "INSERT INTO chunks(id, source_file, source_type, content, metadata, embedding, "
        "indexed_at, content_hash, content_date, embedding_truncated) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(c.id, c.source_file, c.source_type, c.content,
          json.dumps(c.metadata, ensure_ascii=False, default=str), _blob(v), indexed_at,
          c.content_hash, c.content_date, int(t))
         for (c, _), v, t in zip(batch, vectors, truncated, strict=True)])
    mirror_new_rows(conn, before)


def _delete_ids(conn: Connection, ids: Iterable[str]) -> int:
    ids = list(ids)
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        conn.execute(f"DELETE FROM chunks WHERE id IN ({','.join('?' * len(part))})", part)
    return len(ids)


def _record_state(conn: Connection, f: SourceFile, error: str | None,
                  resume: dict | None = None, prefix_hash: str | None = None) -> None:
    conn.execute(
        "INSERT INTO index_state(source_file, mtime, indexed_at, source_type, error, size, "
        "resume, prefix_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(source_file) DO UPDATE "
        "SET mtime = excluded.mtime, indexed_at = excluded.indexed_at, "
        "source_type = excluded.source_type, error = excluded.error, size = excluded.size, "
        "resume = excluded.resume, prefix_hash = excluded.prefix_hash",
        (f.rel, f.mtime, _now(), f.source_type, error, f.size,
         json.dumps(resume) if resume else None, prefix_hash))


def prefix_hash(path: Path, length: int) -> str:
    """sha1 of a file's first ``length`` bytes (~60 ms for 84 MB): proves a log only grew."""
    h = hashlib.sha1()
    with path.open("rb") as fh:
        remaining = length
        while remaining > 0:
            block = fh.read(min(remaining, 1 << 20))
            if not block:
                break
            h.update(block)
            remaining -= len(block)
    return h.hexdigest()


def _resume_point(conn: Connection, f: SourceFile, extractor) -> ResumePoint | None:
    """Where an append-only log can be re-read from, if it only grew since it was indexed."""
    if not extractor.resumable:
        return None
    row = conn.execute("SELECT size, resume, prefix_hash FROM index_state WHERE source_file = ?",
                       (f.rel,)).fetchone()
    if row is None or not row["resume"] or row["size"] is None or f.size < row["size"]:
        return None
    point = ResumePoint(**json.loads(row["resume"]))
    if prefix_hash(f.path, point.offset) != row["prefix_hash"]:
        return None  # something before the last window changed: read it all
    return point


def index_file(conn: Connection, f: SourceFile, embed: _EmbedStage, config: Config,
               stats: IndexStats, on_batch: Callable[[], None] | None = None,
               full: bool = False) -> None:
    """Level two of change detection for one file, in one transaction.

    An append-only log that only grew is read from its last window on (the bytes before it are
    proven unchanged by their hash), so appending to a 500k-message log costs milliseconds.
    """
    extractor = get_extractor(f.source_type)
    problems = Problems()
    resume = None if full else _resume_point(conn, f, extractor)
    existing = dict(conn.execute(
        "SELECT id, content_hash FROM chunks WHERE source_file = ?", (f.rel,)).fetchall())
    written = unchanged = 0
    if resume is not None:  # the windows before the resume point are proven unchanged
        tail = {cid: h for cid, h in existing.items()
                if (extractor.window_of(cid) or 0) >= resume.window}
        unchanged = len(existing) - len(tail)
        existing = tail
    seen: set[str] = set()
    indexed_at = _now()
    chunks = (extractor.extract(f.path, f.rel, problems, resume) if extractor.resumable
              else extractor.extract(f.path, f.rel, problems))
    with transaction(conn):
        batch: list[tuple[Chunk, bool]] = []
        for chunk in chunks:
            if chunk.id in seen:
                problems.add(f"duplicate chunk id {chunk.id!r} skipped")
                continue
            seen.add(chunk.id)
            old_hash = existing.get(chunk.id)
            if old_hash == chunk.content_hash:
                unchanged += 1
                continue
            batch.append((chunk, old_hash is not None))
            if len(batch) >= config.chunk_batch_size:
                _write_batch(conn, batch, embed, indexed_at)
                written += len(batch)
                batch = []
                if on_batch:
                    on_batch()
        if batch:
            _write_batch(conn, batch, embed, indexed_at)
            written += len(batch)
        deleted = _delete_ids(conn, existing.keys() - seen)
        point = getattr(extractor, "resume_point", None)
        _record_state(conn, f, None, point.to_json() if point else None,
                      prefix_hash(f.path, point.offset) if point else None)
    stats.chunks += written
    stats.unchanged_chunks += unchanged
    stats.deleted_chunks += deleted
    stats.files += 1
    if problems:
        shown = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)"
                                           if len(problems) > 5 else "")
        stats.warnings.append(FileError(f.rel, shown))


def remove_file(conn: Connection, rel: str) -> int:
    with transaction(conn):
        cur = conn.execute("DELETE FROM chunks WHERE source_file = ?", (rel,))
        conn.execute("DELETE FROM index_state WHERE source_file = ?", (rel,))
    return max(cur.rowcount, 0)


def embed_pending(conn: Connection, embed: _EmbedStage, *, progress: ProgressCallback | None,
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
        vectors, truncated = embed.vectors([r[1] for r in rows])
        with transaction(conn):
            conn.executemany(
                "UPDATE chunks SET embedding = ?, embedding_truncated = ? WHERE rowid = ?",
                [(_blob(v), int(t), r[0]) for r, v, t in zip(rows, vectors, truncated, strict=True)
                 if v is not None])
        done += len(rows)
        if progress:
            progress(Progress("pending", base.files_total, base.files_done, embed.stats.embedded,
                              None, total, done))


def reindex(root: str | Path | None = None, *, config: Config | None = None,
            db_path: str | Path | None = None, embedder: Embedder | None = None,
            progress: ProgressCallback | None = None, cancel: CancelFlag = None,
            re_embed: bool = False, full: bool = False) -> IndexStats:
    """Bring the index in step with the data root; returns what was done.

    ``full`` re-reads every file regardless of mtime (chunks whose hash is unchanged are still
    not re-embedded); ``re_embed`` drops every vector and embeds all chunks with ``embedder``
    (resumable: an interrupted re-embed continues on the next run). Raises
    :class:`~engine.lock.WriterBusy` if another writer holds the index and
    :class:`~engine.schema.EmbedderMismatch` if the index holds another embedder's vectors.
    """
    started = time.perf_counter()
    if config is None:
        config = load_config(resolve_root(root)[0], db_path)
    embedder = embedder or get_embedder(config.embedder, config.root)
    cancelled = _cancel_check(cancel)
    stats = IndexStats()

    def report(p: Progress) -> None:
        if progress:
            progress(p)

    if not embedder.dim:
        try:
            embedder.discover_dim()
        except EmbeddingError as exc:
            raise RuntimeError(
                f"cannot learn the embedding size from {embedder.provider} ({exc}); set "
                "[embedder] dimensions in memlens.toml to index without it") from exc
    with writer_lock(config.db_path, "re-embed" if re_embed else "reindex"):
        conn = connect(config.db_path, mmap=False)
        try:
            ensure_schema(conn)
            if re_embed and stored_embedder(conn) is not None:
                switch_embedder(conn, embedder.info)
            else:
                ensure_vec_index(conn, embedder.info)
            embed = _EmbedStage(embedder, config, stats)

            report(Progress("scan"))
            files = list(discover(config.root, config.routes))
            mtimes = indexed_mtimes(conn)
            for rel in vanished(files, mtimes):
                stats.deleted_chunks += remove_file(conn, rel)
                stats.removed_files += 1
            todo = files if full else needs_indexing(files, mtimes)
            stats.skipped = len(files) - len(todo)

            for done, f in enumerate(todo):
                if cancelled():
                    stats.cancelled = True
                    break
                current = Progress("index", len(todo), done, stats.embedded, f.rel)
                report(current)
                try:
                    index_file(conn, f, embed, config, stats, full=full,
                               on_batch=lambda c=current: report(
                                   Progress("index", c.files_total, c.files_done,
                                            stats.embedded, c.current_file)))
                except Exception as exc:  # noqa: BLE001 - one bad file never stops the run
                    message = str(exc) if isinstance(exc, ExtractError) else (
                        f"{type(exc).__name__}: {exc}")
                    stats.errors.append(FileError(f.rel, message))
                    # keep the file's previous chunks; remember the mtime so an unchanged
                    # broken file is not re-parsed every run, only reported by `stats`
                    with transaction(conn):
                        _record_state(conn, f, message)
                gc.collect(0)

            files_done = stats.files + len(stats.errors)
            if not stats.cancelled:
                embed_pending(conn, embed, progress=progress, cancelled=cancelled,
                              base=Progress("pending", len(todo), files_done))
                stats.cancelled = cancelled()
            stats.pending_embeddings = conn.execute(
                "SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]
            stats.seconds = round(time.perf_counter() - started, 3)
            with transaction(conn):
                set_meta(conn, "last_reindex_at", _now())
                set_meta(conn, "last_reindex_stats", json.dumps(stats.to_dict()))
            conn.execute("PRAGMA optimize")
            report(Progress("done", len(todo), files_done, stats.embedded))
        finally:
            conn.close()
    return stats


def main(argv: list[str] | None = None) -> int:
    """``python -m engine.indexer``: reindex changed files and print the stats."""
    parser = argparse.ArgumentParser(prog="python -m engine.indexer", description=main.__doc__)
    parser.add_argument("--root")
    parser.add_argument("--db")
    parser.add_argument("--full", action="store_true", help="re-read every file")
    parser.add_argument("--re-embed", action="store_true", help="re-embed every chunk")
    args = parser.parse_args(argv)
    try:
        config = load_config(resolve_root(args.root)[0], args.db)
        stats = reindex(config=config, full=args.full, re_embed=args.re_embed)
    except (ConfigError, RuntimeError, OSError) as exc:
        print(f"memlens: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(stats.to_dict(), indent=2))
    return 1 if stats.errors and not stats.files else 0


if __name__ == "__main__":
    sys.exit(main())
