"""reindex(): discover changed files, extract chunks, embed what changed, write per file.

Change detection is two-level: the scanner keeps only files whose mtime moved, then each file is
diffed at chunk level by content_hash (``engine/index/index_file.py``). Every file is one
transaction, so a crash (even SIGKILL) loses at most the file in flight. A chunk whose embedding
fails is still written (keyword-searchable) with a NULL embedding and embedded by the pending
pass of a later run. What a bad file, an unreadable folder or a failing disk can and cannot do:
docs/reliability.md.
"""

from __future__ import annotations

import gc
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from engine.config import Config, ConfigError, config_missing, load_config, resolve_root
from engine.embedder import Embedder, EmbeddingError, get_embedder
from engine.extractors import ExtractError
from engine.index import re_embed as re_embedding
from engine.index.embed_stage import EmbedStage, embed_messages, embed_pending
from engine.index.index_file import NotRegular, index_file, now, record_state, remove_file
from engine.index.run_report import FileError, IndexStats, Progress
from engine.index.sources import PREFIX as SOURCE_PREFIX
from engine.index.sources import is_mount_point
from engine.index.walk import WalkProblem
from engine.index.warnings_seen import mark_new, remember
from engine.scanner import (
    MOUNTED_SOURCES,
    SourceFile,
    classify_missing_files,
    discover_files,
    indexed_files,
    mounted_sources,
    needs_indexing,
    source_folders,
)
from engine.schema import (
    EmbedderInfo,
    ensure_embedder,
    ensure_schema,
    get_meta,
    needs_migration,
    optimize_text_indexes,
    set_meta,
    stored_embedder,
)
from engine.schema_migrations import COMPACT_KEY, SCHEMA_VERSION
from engine.storage.db import Error as DBError
from engine.storage.db import averages, connect, transaction
from engine.storage.lock import writer_lock

__all__ = ["FileError", "IndexStats", "Progress", "reindex"]

ProgressCallback = Callable[[Progress], None]
CancelFlag = Callable[[], bool] | threading.Event | None


def _cancel_check(cancel: CancelFlag) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def _one_line(exc: BaseException) -> str:
    """An exception as one short line without the machine's paths."""
    if isinstance(exc, OSError):
        text = exc.strerror or str(exc)
    elif isinstance(exc, MemoryError | RecursionError):
        text = type(exc).__name__
    else:
        text = f"{type(exc).__name__}: {exc}" if not isinstance(exc, DBError) else str(exc)
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


ROOT_WARNING = "(root)"  # a warning about the whole root, not one of its files
NO_ROUTED_FILE = ("no file under the root matches a route: `memlens discover` lists the "
                  "routes, README \"Data layer formats\" what each source type holds")


def _scan(conn, config: Config, stats: IndexStats) -> list[SourceFile]:
    """Walk the root and the sources, report what was refused, remove what is known to be gone
    (the files of a source no longer declared among them)."""
    problems: list[WalkProblem] = []
    mounted = mounted_sources(conn)
    folders = source_folders(config, mounted)
    files = list(discover_files(config, problems, folders))
    present = {f.rel for f in files}
    missing = [rel for rel in indexed_files(conn) if rel not in present]
    remove, kept = classify_missing_files(config, missing, problems, folders)
    _record_mounted_sources(conn, config, folders, mounted)
    for p in problems + kept:
        serious = p.unlisted and not p.absent  # an unmounted source is a state, not a fault
        (stats.errors if serious else stats.warnings).append(FileError(p.path, p.message))
    if not files and not problems:  # "indexed 0 files" alone reads as success
        stats.warnings.append(FileError(ROOT_WARNING, NO_ROUTED_FILE))
    stats.unlisted_dirs = sum(p.unlisted and not p.absent for p in problems)
    for rel in remove:
        try:
            stats.deleted_chunks += remove_file(conn, rel)
        except DBError as exc:  # a full disk: the chunks stay, the next run removes them
            stats.errors.append(FileError(rel, f"not removed: {_one_line(exc)}"))
            continue
        stats.removed_files += 1
    return files


def _record_mounted_sources(conn, config: Config, folders, before: dict[str, str]) -> None:
    """Which declared sources were read from a disk mounted at their folder: when that folder
    is later found on its parent's file system, the disk is not mounted and the source counts
    as not there (engine/index/sources.py); a source not read now keeps its record."""
    now_mounted = {}
    for s in config.sources:
        real = folders[s.name].real
        if real is None:
            if s.name in before:
                now_mounted[s.name] = before[s.name]
        elif is_mount_point(real):
            now_mounted[s.name] = str(s.path)
    if now_mounted != before:
        with transaction(conn):
            set_meta(conn, MOUNTED_SOURCES, json.dumps(now_mounted, sort_keys=True))


def _file_sources(config: Config) -> tuple | None:
    """The sources memlens.toml declares now; None when it is gone, empty or does not load
    (it says nothing of them then, and a configuration built in code keeps its own)."""
    if config_missing(config.root):
        return None
    try:
        return load_config(config.root, config.db_path).sources
    except (ConfigError, OSError):
        return None


def _drop_sources_removed_meanwhile(conn, config: Config, declared: set[str] | None,
                                    stats: IndexStats) -> None:
    """A source removed from memlens.toml while this run indexed (`memlens source remove`
    finds the writer lock held and says this run deletes its files): its files go now, so
    no chunk outlives its source. Only names memlens.toml declared when the run began count,
    so a configuration built in code is never taken for a removal."""
    found = _file_sources(config)
    if declared is None or found is None:
        return
    now = {s.name for s in found}
    for name in sorted(declared & {s.name for s in config.sources} - now):
        prefix = f"{SOURCE_PREFIX}{name}/"
        for rel in [r for r in indexed_files(conn) if r.startswith(prefix)]:
            try:
                stats.deleted_chunks += remove_file(conn, rel)
            except DBError as exc:
                stats.errors.append(FileError(rel, f"not removed: {_one_line(exc)}"))
                continue
            stats.removed_files += 1


def _index_one(conn, f: SourceFile, embed: EmbedStage, config: Config, stats: IndexStats,
               full: bool, on_batch: Callable[[], None]) -> None:
    """Index one file; one bad file never stops the run. Only a fault of the file's own
    content is recorded as done; any other failure leaves the file for the next run."""
    try:
        index_file(conn, f, embed, config, stats, full=full, on_batch=on_batch)
    except ExtractError as exc:
        stats.errors.append(FileError(f.rel, str(exc)))
        try:  # keep the previous chunks; an unchanged broken file is not re-parsed every run
            with transaction(conn):
                record_state(conn, f, str(exc))
        except DBError:
            stats.retry_files += 1
    except NotRegular as exc:
        stats.warnings.append(FileError(f.rel, str(exc)))
    except Exception as exc:  # noqa: BLE001 - disk full, I/O error, a bug: retried next run
        stats.retry_files += 1
        stats.errors.append(FileError(f.rel, f"{_one_line(exc)}; not recorded, the next run "
                                      "retries it"))


def reindex(root: str | Path | None = None, *, config: Config | None = None,
            db_path: str | Path | None = None, embedder: Embedder | None = None,
            progress: ProgressCallback | None = None, cancel: CancelFlag = None,
            re_embed: bool = False, full: bool = False) -> IndexStats:
    """Bring the index in step with the data root; returns what was done.

    ``full`` re-reads every file regardless of mtime (chunks whose hash is unchanged are still
    not re-embedded); ``re_embed`` embeds every chunk again with ``embedder`` (staged beside the current vectors, which keep serving, and swapped in when complete:
    engine/index/re_embed.py; an interrupted re-embed continues on the next run). Raises
    :class:`~engine.storage.lock.WriterBusy` if another writer holds the index and
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
            embedder.discover_dim(patient=True)  # a writer may wait out a cold start
        except EmbeddingError as exc:
            raise RuntimeError(
                f"cannot learn the embedding size from {embedder.provider} ({exc}); set "
                "[embedder] dimensions in memlens.toml to index without it") from exc
    with writer_lock(config.db_path, "re-embed" if re_embed else "reindex"):
        # memlens.toml's sources as they are now that this run holds the lock: a source added
        # or removed while it waited (a slow embedder start) is walked, or dropped, by it
        found = _file_sources(config)
        if found is not None:
            config = replace(config, sources=found)
        declared = None if found is None else {s.name for s in found}
        conn = connect(config.db_path, mmap=False)
        try:
            stats.upgraded = _upgrade(conn, config.db_path, report)
            staging = _staging(conn, embedder.info, re_embed)
            if staging:
                re_embedding.begin(conn, embedder.info)
            else:
                ensure_embedder(conn, embedder.info)
            embed = EmbedStage(embedder, config, stats, hold_files=staging)

            report(Progress("scan"))
            files = _scan(conn, config, stats)
            todo = files if full else needs_indexing(files, indexed_files(conn))
            stats.skipped = len(files) - len(todo)

            walk_warnings = len(stats.warnings)  # those after it, until the loop ends: read
            files_done = 0
            for f in todo:
                if cancelled():
                    stats.cancelled = True
                    break
                current = Progress("index", len(todo), files_done, stats.embedded, f.rel)
                report(current)
                _index_one(conn, f, embed, config, stats, full, lambda c=current: report(
                    Progress("index", c.files_total, c.files_done, stats.embedded,
                             c.current_file)))
                files_done += 1
                gc.collect(0)
            read_warnings = range(walk_warnings, len(stats.warnings))

            if not stats.cancelled:
                try:
                    if staging:
                        _re_embed(conn, embed, stats, progress, cancelled,
                                  Progress("re-embed", len(todo), files_done))
                    else:
                        embed_pending(conn, embed, progress=progress, cancelled=cancelled,
                                      base=Progress("pending", len(todo), files_done))
                        embed_messages(conn, embed, progress=progress, cancelled=cancelled,
                                       base=Progress("messages", len(todo), files_done))
                except DBError as exc:  # the vectors not written stay pending for next run
                    stats.errors.append(FileError("(index)", "embedding pending chunks "
                                                  f"stopped: {_one_line(exc)}"))
                stats.cancelled = cancelled()
            _drop_sources_removed_meanwhile(conn, config, declared, stats)
            if not stats.cancelled:
                _update_sidecar(conn, config.db_path, stats)
                _merge_after_bulk(conn, stats)
            stats.pending_embeddings = conn.execute(
                "SELECT count(*) FROM chunks WHERE embedding IS NULL").fetchone()[0]
            # every chunk this run did not write, skipped files' too: the index's own row
            # count (one FTS5 record), not a count(*) of the table (1 s cold at 2M chunks)
            counts = averages(conn)
            stats.unchanged_chunks = max((counts[0] if counts else 0) - stats.chunks, 0)
            stats.seconds = round(time.perf_counter() - started, 3)
            _save_run(conn, stats, read_warnings, {f.rel for f in todo[:files_done]})
            report(Progress("done", len(todo), files_done, stats.embedded))
        finally:
            conn.close()
    return stats


def _staging(conn, info: EmbedderInfo, re_embed: bool) -> bool:
    """Whether this run stages ``info``'s vectors (engine/index/re_embed.py): asked to
    re-embed an index that has vectors, or a re-embed for ``info`` is staged already (an
    interrupted one: any run with that embedder goes on with it). A re-embed staged for
    another embedder is dropped: its vectors would never be used."""
    current = re_embedding.staged(conn)
    if current is not None and current.embedder != info:
        re_embedding.discard(conn)
        current = None
    return stored_embedder(conn) is not None and (re_embed or current is not None)


def _re_embed(conn, embed: EmbedStage, stats: IndexStats, progress: ProgressCallback | None,
              cancelled: Callable[[], bool], base: Progress) -> None:
    """Stage the configured embedder's vectors; swap them in when they cover the index. A
    re-embed whose embedder gives no vector before any is staged (a missing extra, a bad key,
    no network) did not start: it leaves nothing staged, so nothing reads as in progress."""
    stats.re_embed_ran = True
    complete = re_embedding.stage(conn, embed, progress=progress, cancelled=cancelled,
                                  base=base)
    if complete and re_embedding.swap(conn, embed.embedder.info, embed.per_message):
        stats.re_embedded = True
        return
    state = re_embedding.staged(conn)
    if state is not None and state.done == 0 and embed.provider_down:
        re_embedding.discard(conn)
        why = stats.embedding_errors[0] if stats.embedding_errors else "no vector"
        stats.re_embed_error = (f"the re-embed with {embed.embedder.info.describe()} could "
                                f"not start ({why}): nothing was staged, the index keeps its "
                                "vectors")
        return
    stats.re_embed = state.describe() if state is not None else None


def _upgrade(conn, db_path: Path, report: Callable[[Progress], None]) -> str | None:
    """Migrate an older index (and hand back the space the migration freed: once, even when
    a killed run left that half done); what changed, for the run's report."""
    from engine.display import human_bytes
    from engine.index.contents import db_size

    (version,) = conn.execute("PRAGMA user_version").fetchone()
    migrating = needs_migration(conn)
    if migrating:
        report(Progress("migrate"))
    ensure_schema(conn, lambda done, total: report(
        Progress("migrate", pending_total=total, pending_done=done)))
    if get_meta(conn, COMPACT_KEY) is None:
        return f"schema v{version} -> v{SCHEMA_VERSION}" if migrating else None
    from engine.maintenance import compact_if_pending

    report(Progress("compact"))
    before = db_size(db_path)
    compact_if_pending(conn, db_path)
    what = f"schema v{version} -> v{SCHEMA_VERSION}; " if migrating else ""
    return f"{what}the file {human_bytes(before)} -> {human_bytes(db_size(db_path))}"


def _update_sidecar(conn, db_path: Path, stats: IndexStats) -> None:
    """Bring the mapped vector sidecar up to this run (engine/vectors/sidecar_file.py); a failure
    costs only speed: readers then build it in memory from the rows."""
    from engine.vectors.sidecar_build import update_sidecar

    try:
        update_sidecar(conn, db_path)
    except Exception as exc:  # noqa: BLE001 - never fails the run: readers fall back
        stats.warnings.append(FileError("(index)", "the vector sidecar was not updated: "
                                        f"{_one_line(exc)}"))


def _merge_after_bulk(conn, stats: IndexStats) -> None:
    """After a run that wrote at least half of the index (a first build, an import, a full
    re-read), merge the text indexes into one segment each: the run's many commits left many.
    Small runs leave it to FTS5's automerge and `memlens maintenance`. A failure (a full disk)
    costs only speed: the transaction rolls back."""
    if not stats.chunks:  # a no-op run reads nothing more (count(*) took 1 s cold at 2M)
        return
    counts = averages(conn)  # the index's own row count: one record, not a table scan
    if 2 * stats.chunks < (counts[0] if counts else 0):
        return
    try:
        optimize_text_indexes(conn)
    except DBError as exc:
        stats.warnings.append(FileError("(index)", "the text index was not merged: "
                                        f"{_one_line(exc)}"))


def _save_run(conn, stats: IndexStats, read_warnings: range, read_files: set[str]) -> None:
    """Record the run's stats and its warnings (each marked new or said before:
    engine/index/warnings_seen.py) for `memlens stats`; a full disk here costs only the
    record (and the warnings are said again at the next run)."""
    try:
        kept = mark_new(conn, stats, read_warnings, read_files)
        with transaction(conn):
            remember(conn, kept)
            set_meta(conn, "last_reindex_at", now())
            set_meta(conn, "last_reindex_stats", json.dumps(stats.to_dict()))
        conn.execute("PRAGMA optimize")
    except DBError as exc:
        stats.errors.append(FileError("(index)", f"the run's stats were not saved: "
                                      f"{_one_line(exc)}"))


if __name__ == "__main__":  # ``python -m engine.indexer`` is ``memlens reindex --json``
    from engine.command_line import run

    sys.exit(run(["reindex", "--json", *sys.argv[1:]]))
