"""Indexing one file: level two of change detection, in one transaction.

Each file is diffed at chunk level by content_hash, so appending to a chat log embeds only its
last window and the new ones. Every file is one transaction: a crash (even SIGKILL) loses at
most the file in flight, and the next run redoes it. A file that changes while it is read (its
inode, size, mtime or ctime differ before and after) is rolled back and read again; the last of
READ_ATTEMPTS reads is kept (a log that is written to all the time still gets indexed) but
recorded with the CHANGED_MTIME sentinel, so the next run reads the whole file again.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC
from pathlib import Path

from engine.config import Config
from engine.dates import clock
from engine.dates.message_days import store as store_message_days
from engine.dates.spans import record_spans, span_days
from engine.extractors import Chunk, Problems, get_extractor
from engine.extractors.bounds import bounded, short
from engine.extractors.messaging import MessagingExtractor, ResumePoint
from engine.extractors.reading import open_regular
from engine.index.embed_stage import EmbedStage, blob, reopen_backfill
from engine.index.run_report import FileError, IndexStats
from engine.scanner import SourceFile
from engine.schema import max_rowid, mirror_new_rows
from engine.storage import term_counts
from engine.storage.db import Connection, transaction
from engine.vectors.message_vectors import store as store_messages

READ_ATTEMPTS = 3
CHANGED_MTIME = -1.0  # no file has it: "read while it changed", never up to date


class _Changed(Exception):
    """The file changed while it was read: the transaction is rolled back, read it again."""


class NotRegular(Exception):
    """The path is no longer a regular file (a FIFO, a link…): it is not opened."""


def now() -> str:
    return clock.now().astimezone(UTC).isoformat(timespec="seconds")


def signature(path: Path) -> tuple[tuple[int, ...], os.stat_result]:
    """What proves a file unchanged between two moments, and its stat."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular("no longer a regular file; not read, left for the next run")
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns), st


def _write_batch(conn: Connection, batch: list[tuple[Chunk, bool]], embed: EmbedStage,
                 indexed_at: str) -> None:
    """Embed and write one sub-batch: changed chunks are replaced, new ones inserted, a chat
    window's message vectors with it (engine/vectors/message_vectors.py: one unit, one transaction)."""
    got = embed.embed([(chunk.id, chunk.content) for chunk, _ in batch])
    replaced = [(chunk.id,) for chunk, exists in batch if exists]
    if replaced:
        conn.executemany("DELETE FROM chunks WHERE id = ?", replaced)
    before = max_rowid(conn)
    conn.executemany(
        "INSERT INTO chunks(id, source_file, source_type, content, metadata, embedding, "
        "indexed_at, content_hash, content_date, first_date, embedding_truncated) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(c.id, c.source_file, c.source_type, c.content,
          json.dumps(c.metadata, ensure_ascii=False, default=str), blob(e.vector), indexed_at,
          c.content_hash, c.content_date, c.first_date, int(e.truncated))
         for (c, _), e in zip(batch, got, strict=True)])
    mirror_new_rows(conn, before)
    record_spans(conn, (span_days(c.content_date, c.first_date) for c, _ in batch))
    reopen_backfill(conn, embed, [(c.id, e) for (c, _), e in zip(batch, got, strict=True)])
    messages = {c.id: e.messages for (c, _), e in zip(batch, got, strict=True)
                if e.messages is not None}
    marked = {c.id: c for c, _ in batch if c.message_marks}
    if messages or marked:  # keyed by the rowids the insert just gave
        rowids = conn.execute("SELECT id, rowid FROM chunks WHERE rowid > ?",
                              (before,)).fetchall()
        store_messages(conn, [(rowid, messages[cid]) for cid, rowid in rowids
                              if cid in messages])
        store_message_days(conn, [(rowid, cid, marked[cid].source_type, marked[cid].message_marks)
                                  for cid, rowid in rowids if cid in marked])


def _existing(conn: Connection, rel: str, chat: bool) -> dict[str, str]:
    """The file's chunk ids and hashes. A chat window without its message rows (one an older
    index could not read back, engine/dates/message_days.py) has no hash: it is written again."""
    if not chat:
        return dict(conn.execute(
            "SELECT id, content_hash FROM chunks WHERE source_file = ?", (rel,)).fetchall())
    return dict(conn.execute(
        "SELECT id, CASE WHEN EXISTS (SELECT 1 FROM message_days WHERE chunk_rowid = "
        "chunks.rowid) THEN content_hash ELSE '' END FROM chunks WHERE source_file = ?",
        (rel,)).fetchall())


def _delete_ids(conn: Connection, ids: Iterable[str]) -> int:
    ids = list(ids)
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        conn.execute(f"DELETE FROM chunks WHERE id IN ({','.join('?' * len(part))})", part)
    return len(ids)


def record_state(conn: Connection, f: SourceFile, error: str | None,
                 resume: dict | None = None, prefix: str | None = None,
                 notice: str | None = None) -> None:
    """What the index knows of a file; ``notice`` says what a bound cut or split in it
    (engine/extractors/bounds.py), shown by ``memlens stats`` until the file is read again."""
    conn.execute(
        "INSERT INTO index_state(source_file, mtime, indexed_at, source_type, error, size, "
        "resume, prefix_hash, notice) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(source_file) DO UPDATE "
        "SET mtime = excluded.mtime, indexed_at = excluded.indexed_at, "
        "source_type = excluded.source_type, error = excluded.error, size = excluded.size, "
        "resume = excluded.resume, prefix_hash = excluded.prefix_hash, notice = excluded.notice",
        (f.rel, f.mtime, now(), f.source_type, error, f.size,
         json.dumps(resume) if resume else None, prefix, notice))


def _notice(conn: Connection, rel: str, problems: Problems, resumed: bool) -> str | None:
    """The file's cut notice: this read's; a resumed read, which saw only the log's tail,
    keeps the one before when it cut nothing."""
    if problems.cuts:
        return short("; ".join(problems.cuts), 600)
    if not resumed:
        return None
    row = conn.execute("SELECT notice FROM index_state WHERE source_file = ?", (rel,)).fetchone()
    return row[0] if row else None


def prefix_hash(path: Path, length: int) -> str:
    """sha1 of a file's first ``length`` bytes (~60 ms for 84 MB): proves a log only grew."""
    h = hashlib.sha1()
    with open_regular(path) as fh:
        remaining = length
        while remaining > 0:
            block = fh.read(min(remaining, 1 << 20))
            if not block:
                break
            h.update(block)
            remaining -= len(block)
    return h.hexdigest()


def _recorded(conn: Connection, rel: str):
    """What the index recorded of the file at its last read (None: never read)."""
    return conn.execute("SELECT source_type, size, resume, prefix_hash FROM index_state "
                        "WHERE source_file = ?", (rel,)).fetchone()


def _resume_point(row, f: SourceFile, extractor) -> ResumePoint | None:
    """Where an append-only log can be re-read from, if it only grew since it was indexed
    (``row``: :func:`_recorded`)."""
    if not extractor.resumable:
        return None
    if row is None or not row["resume"] or row["size"] is None or f.size < row["size"]:
        return None
    point = ResumePoint(**json.loads(row["resume"]))
    if prefix_hash(f.path, point.offset) != row["prefix_hash"]:
        return None  # something before the last window changed: read it all
    return point


def index_file(conn: Connection, f: SourceFile, embed: EmbedStage, config: Config,
               stats: IndexStats, on_batch: Callable[[], None] | None = None,
               full: bool = False) -> None:
    """Bring one file's chunks in step with it."""
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            _index_once(conn, f, embed, config, stats, on_batch, full,
                        last=attempt == READ_ATTEMPTS)
            return
        except _Changed:
            continue



def _index_once(conn: Connection, f: SourceFile, embed: EmbedStage, config: Config,
                stats: IndexStats, on_batch: Callable[[], None] | None, full: bool,
                last: bool) -> None:
    """One read of the file. An append-only log that only grew is read from its last window
    on (the bytes before it are proven unchanged by their hash)."""
    before, st = signature(f.path)
    f = replace(f, mtime=st.st_mtime, size=st.st_size)  # what is recorded is what was read
    extractor = get_extractor(f.source_type)
    problems = Problems()
    existing = _existing(conn, f.rel, chat=isinstance(extractor, MessagingExtractor))
    # read as another source type before (a route changed): every chunk is written again, as
    # a chunk carries its type
    recorded = _recorded(conn, f.rel)
    retyped = bool(existing) and recorded is not None and recorded["source_type"] != f.source_type
    resume = None if full or retyped else _resume_point(recorded, f, extractor)
    stale = existing if retyped else {}
    existing = {} if retyped else existing
    written = 0
    if resume is not None:  # the windows before the resume point are proven unchanged
        tail = {cid: h for cid, h in existing.items()
                if (extractor.window_of(cid) or 0) >= resume.window}
        existing = tail
    seen: set[str] = set()
    indexed_at = now()
    chunks = bounded(extractor.extract(f.path, f.rel, problems, resume) if extractor.resumable
                     else extractor.extract(f.path, f.rel, problems), problems)
    with transaction(conn):
        deleted = _delete_ids(conn, stale.keys())
        batch: list[tuple[Chunk, bool]] = []
        for chunk in chunks:
            if chunk.id in seen:
                problems.add(f"duplicate chunk id {chunk.id!r} skipped")
                continue
            seen.add(chunk.id)
            old_hash = existing.get(chunk.id)
            if old_hash == chunk.content_hash:
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
        if not seen and resume is None and st.st_size and not problems:  # never without a word
            problems.add("no chunk: it holds nothing this source type indexes "
                         "(docs/data-layer.md)")
        deleted += _delete_ids(conn, existing.keys() - seen)
        term_counts.fold(conn)  # the replaced and deleted chunks' words
        point = getattr(extractor, "resume_point", None)
        prefix = prefix_hash(f.path, point.offset) if point else None
        notice = _notice(conn, f.rel, problems, resume is not None)
        if signature(f.path)[0] == before:
            record_state(conn, f, None, point.to_json() if point else None, prefix, notice)
        elif not last:
            raise _Changed  # rolls the transaction back: the old chunks stay
        else:
            record_state(conn, replace(f, mtime=CHANGED_MTIME), None, notice=notice)
            problems.add(f"changed during each of {READ_ATTEMPTS} reads; indexed as last read, "
                         "the next run reads it again")
    stats.chunks += written
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
        term_counts.fold(conn)
    return max(cur.rowcount, 0)
