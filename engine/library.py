"""``Library``: the one read facade over an index, for every front door (app, CLI, MCP).

Front doors never see SQL. Every read is a method here: search (the :class:`Searcher`
pipeline), a chunk by id, its neighbours in file order, a data file or one markdown section
(with the path-safety rules of :mod:`engine.index.data_files`), the overview and statistics, what
is pending, per-route counts and the index status; the timeline, "on this day", activity, a
hit's conversation and a person (:mod:`engine.read.facade_reads`). docs/architecture.md lists them.

Each call reads in one read transaction of its own; ``with library.snapshot() as snap:`` runs
several reads in ONE transaction, so they all see the same index even while a reindex commits
(WAL). Search keeps its own transaction on the searcher's long-lived connection: its vector
index is warm there, which a short snapshot connection would have to reload.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from engine import scanner
from engine.config import Config, FollowedConfig
from engine.dates.message_days import unit_of
from engine.dates.timeline_types import Activity, Timeline, TimelineError, split_units
from engine.index.contents import (
    IndexStatistics,
    chunks_per_type,
    db_size,
    index_statistics,
    pending_embeddings,
)
from engine.index.data_files import DataFiles, IndexedLookup
from engine.index.routes import route_matches
from engine.index.source_config import SourceState, source_states
from engine.library_types import (
    Chunk,
    EmbedderMatch,
    FileText,
    IndexMissing,
    IndexOverview,
    IndexStatus,
    IndexUnavailable,
    Neighbours,
    PendingFiles,
    ReadRefused,
    RouteCount,
    file_order_key,
    parse_metadata,
)
from engine.read.conversation import (
    CONVERSATION_TYPES,
    ConversationError,
    ConversationPage,
    Cursor,
)
from engine.read.facade_reads import TimeReads
from engine.read.facade_reads import indexed_file as _indexed_file
from engine.retrieval.entities import (
    PROFILE_RELATIVE_PATH,
    PeopleIndex,
    load_people,
    match_person,
    person_to_content,
)
from engine.retrieval.people_filter import PersonFilter
from engine.scanner import (
    Indexed,
    SourceFile,
    absent_prefixes,
    all_routes,
    discover_files,
    indexed_files,
    needs_indexing,
    vanished,
)
from engine.schema import check_readable, stored_embedder
from engine.storage.db import Connection, connect
from engine.storage.db import Error as DBError

__all__ = ["Activity", "CONVERSATION_TYPES", "Chunk", "ConversationError", "ConversationPage",
           "Cursor", "EmbedderMatch", "FileText", "IndexOverview", "IndexStatistics",
           "IndexStatus", "IndexUnavailable", "Library", "Neighbours", "PROFILE_RELATIVE_PATH",
           "PendingFiles", "PeopleIndex", "PersonFilter", "ReadRefused", "RouteCount",
           "Snapshot", "SourceFile", "Timeline", "TimelineError", "index_unavailable",
           "match_person", "parse_metadata", "person_to_content", "split_units", "unit_of"]

CHUNK_COLUMNS = ("id, source_file, source_type, content, content_date, metadata, "
                 "embedding_truncated")
TABLES = ("chunks", "index_state", "meta")


def _open_reader(db_path: Path) -> Connection:
    """The one place the facade opens the index: read-only, never migrating."""
    return connect(db_path, readonly=True)


def _chunk(row: Any) -> Chunk:
    return Chunk(id=row["id"], source_file=row["source_file"], source_type=row["source_type"],
                 content=row["content"], content_date=row["content_date"],
                 metadata=parse_metadata(row["metadata"]),
                 embedding_truncated=bool(row["embedding_truncated"]))


class _Reads(TimeReads):
    """Every read but search, over whatever connection ``_reading`` yields (None: no index);
    the reads by time, conversation and person are :class:`engine.read.facade_reads.TimeReads`."""

    config: Config

    @contextmanager
    def _reading(self) -> Iterator[Connection | None]:
        raise NotImplementedError

    @contextmanager
    def _index(self) -> Iterator[Connection]:
        with self._reading() as conn:
            if conn is None:
                raise index_unavailable(self.config)
            yield conn

    # -- chunks ---------------------------------------------------------------------------
    def chunk(self, chunk_id: str) -> Chunk | None:
        with self._index() as conn:
            row = conn.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id = ?",
                               (chunk_id,)).fetchone()
        return None if row is None else _chunk(row)

    def neighbours(self, ref: str, before: int = 2, after: int = 2) -> Neighbours | None:
        """Up to ``before`` chunks before and ``after`` chunks after the chunk ``ref`` in its
        file, in file order (:func:`engine.library_types.file_order_key`). ``ref`` may also be
        a source file, which starts at its first chunk. None when neither is in the index."""
        with self._index() as conn:
            center = conn.execute("SELECT id, source_file FROM chunks WHERE id = ?",
                                  (ref,)).fetchone()
            source_file = center["source_file"] if center is not None else ref.rstrip("/")
            # every sibling's metadata is read: ~170 ms for a 50k-window chat log (see
            # docs/architecture.md); a position column written by the indexer would make it a seek
            siblings = conn.execute("SELECT rowid, id, metadata FROM chunks "
                                    "WHERE source_file = ?", (source_file,)).fetchall()
            if not siblings:
                return None
            ids = [r["id"] for r in sorted(siblings, key=lambda r: file_order_key(
                r["id"], parse_metadata(r["metadata"]), r["rowid"]))]
            at = ids.index(center["id"]) if center is not None else 0
            lo, hi = max(0, at - max(0, before)), min(len(ids), at + max(0, after) + 1)
            rows = {r["id"]: _chunk(r) for r in conn.execute(
                f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(ids[lo:hi]),))}
        return Neighbours(source_file, [rows[i] for i in ids[lo:hi]], at - lo, lo + 1, len(ids))

    def neighbour(self, chunk_id: str, direction: int) -> tuple[Chunk, int, int] | None:
        """The chunk just before (-1) or after (+1) ``chunk_id`` in its file, with its 1-based
        position and the file's chunk count; None at either end or for an unknown id."""
        step = -1 if direction < 0 else 1
        run = self.neighbours(chunk_id, before=int(step < 0), after=int(step > 0))
        if run is None or len(run.chunks) < 2 or run.chunks[run.center].id != chunk_id:
            return None
        i = run.center + step
        return run.chunks[i], run.position(i), run.total

    def has_files_under(self, prefix: str) -> bool:
        """Whether any indexed chunk's source file starts with ``prefix``."""
        from engine.retrieval.folders import files_under

        with self._index() as conn:
            return files_under(conn, prefix)

    def sources(self, files: Sequence[SourceFile] | None = None) -> list[SourceState]:
        """The sources in place (engine/index/sources.py): each one's folder state, its files
        now and which of them the index holds, the others each with why
        (:func:`engine.index.source_config.source_states`). ``files``: what
        :meth:`discover` walked, when the caller has it (else each source folder is walked)."""
        with self._reading() as conn:
            return source_states(self.config, conn, files)

    # -- files ----------------------------------------------------------------------------
    def indexed_file(self, rel: str) -> tuple[str | None, float] | None:
        """(source type, mtime) recorded for ``rel`` by the last reindex, or None."""
        with self._reading() as conn:
            return None if conn is None else _indexed_file(conn, rel)

    def stale_files(self, source_files: Iterable[str]) -> set[str]:
        """Which of ``source_files`` changed or vanished since indexed: one query for all. A
        file of a source not read now is not stale (a search result's ``unread_source``)."""
        with self._reading() as conn:
            if conn is None:
                return set(source_files)
            return scanner.stale_files(conn, self.config, source_files)

    def file_path(self, path: str) -> Path:
        """The absolute path of a data-layer file, checked by the rules of :meth:`read_file`
        (for a viewer or an editor that opens the file itself), or :class:`ReadRefused`."""
        with self._lookup() as indexed:
            return DataFiles(self.config, self.config_error).resolve(path, indexed)[0]

    def read_file(self, path: str, section: int | None = None) -> FileText:
        """A data-layer file (or markdown section ``#section``), or :class:`ReadRefused`."""
        with self._lookup() as indexed:
            return DataFiles(self.config, self.config_error).read(path, section, indexed)

    @contextmanager
    def _lookup(self) -> Iterator[IndexedLookup]:
        """What the index recorded for a file; nothing when it cannot be read, since a data
        file is readable without an index (none yet, damaged, another schema version)."""
        with ExitStack() as stack:
            try:
                conn = stack.enter_context(self._reading())
            except IndexUnavailable:
                conn = None
            yield lambda rel: None if conn is None else _indexed_file(conn, rel)

    def route_counts(self, routed: Sequence[SourceFile] | None = None) -> list[RouteCount]:
        """Files each route claims (first route wins, as the scanner routes them), among
        ``routed`` (e.g. :attr:`PendingFiles.routed`) or what the disk holds now."""
        files = list(discover_files(self.config)) if routed is None else routed
        routes = all_routes(self.config)
        claimed = Counter(next((i for i, (pattern, source_type) in enumerate(routes)
                                if source_type == f.source_type and route_matches(pattern, f.rel)),
                               None) for f in files)
        return [RouteCount(pattern, source_type, claimed[i])
                for i, (pattern, source_type) in enumerate(routes)]

    def pending(self) -> PendingFiles:
        """New, changed and vanished files against the index (everything new without one)."""
        files = list(discover_files(self.config))
        with self._reading() as conn:
            mtimes = {} if conn is None else indexed_files(conn)
        return _pending(files, mtimes, absent_prefixes(self.config))

    # -- the index as a whole -------------------------------------------------------------
    def overview(self) -> IndexOverview:
        overview = IndexOverview(exists=False, db_path=str(self.config.db_path))
        with self._reading() as conn:
            if conn is None:
                return overview
            overview.exists = True
            overview.per_type = chunks_per_type(conn)
            overview.pending_embeddings = pending_embeddings(conn)
            info = stored_embedder(conn)
        overview.chunks = sum(overview.per_type.values())
        overview.embedder = info.describe() if info else None
        overview.db_bytes = db_size(self.config.db_path)
        return overview

    def statistics(self) -> IndexStatistics:
        with self._index() as conn:
            statistics = index_statistics(conn, self.config.db_path)
            statistics.sources = source_states(self.config, conn)
            return statistics

    def status(self, configured: Any = None) -> IndexStatus:
        """Statistics, pending files, the embedder match (against ``configured``, default
        the configured embedder) and the running writer, read in one snapshot."""
        from engine.storage.lock import active_writer

        status = IndexStatus(exists=False, db_path=str(self.config.db_path),
                             transition=active_writer(self.config.db_path))
        files = list(discover_files(self.config))
        with self._reading() as conn:
            if conn is None:
                status.pending = _pending(files, {})
                return status
            status.exists = True
            status.statistics = index_statistics(conn, self.config.db_path)
            status.statistics.sources = source_states(self.config, conn, files)
            status.pending = _pending(files, indexed_files(conn),
                                      absent_prefixes(self.config))
            stored = stored_embedder(conn)
        status.embedder = embedder_match(
            stored, configured if configured is not None else self._configured_embedder())
        return status

    def _configured_embedder(self) -> Any:
        from engine.embedder import get_embedder

        return get_embedder(self.config.embedder, self.config.root)


def _where(config: Config) -> str:
    """The index named by its path inside the root (or its file name): no machine path."""
    try:
        return config.db_path.relative_to(config.root).as_posix()
    except ValueError:
        return config.db_path.name


def index_unavailable(config: Config) -> IndexUnavailable:
    """No index to read: none yet, or a first reindex is still creating it."""
    from engine.storage.lock import active_writer

    if active_writer(config.db_path):
        return IndexMissing("the index is being built (a first reindex is running): try "
                            "again shortly")
    return IndexMissing(f"no index yet at {_where(config)}: run `memlens reindex` first")


def _pending(files: list[SourceFile], mtimes: dict[str, Indexed],
             absent: tuple[str, ...] = ()) -> PendingFiles:
    """The scanner's change detection, split into new and changed files; ``absent``: the
    prefixes of missing source folders, whose files a reindex keeps."""
    todo = needs_indexing(files, mtimes)
    return PendingFiles(routed=files, new=[f for f in todo if f.rel not in mtimes],
                        changed=[f for f in todo if f.rel in mtimes],
                        vanished=vanished(files, mtimes, absent))


def embedder_match(stored: Any, configured: Any) -> EmbedderMatch:
    """Compare the stored embedder with ``configured`` (an :class:`engine.embedder.Embedder`)."""
    info = configured.info
    if stored is None:
        state = "none_yet"
    elif info.dim and stored == info:
        state = "same"
    elif not info.dim and (stored.provider, stored.model) == (info.provider, info.model):
        state = "same_model"
    else:
        state = "mismatch"
    return EmbedderMatch(stored, info, state)


class Snapshot(_Reads):
    """Reads in one read transaction (see :meth:`Library.snapshot`)."""

    def __init__(self, library: Library, conn: Connection | None):
        self.config = library.config
        self.config_error = library.config_error
        self._library = library
        self._conn = conn

    @contextmanager
    def _reading(self) -> Iterator[Connection | None]:
        yield self._conn

    def _configured_embedder(self) -> Any:
        return self._library._configured_embedder()


class Library(_Reads):
    """The read facade over the index of ``config``; safe to share between threads."""

    def __init__(self, config: Config, *, embedder: Any = None, searcher: Any = None):
        self._followed = FollowedConfig(config)
        self._embedder = embedder
        self._searcher = searcher
        self._owns_searcher = searcher is None
        self._search_lock = threading.Lock()

    @property
    def config(self) -> Config:
        """The configuration, its routes and sources as ``memlens.toml`` is now (a source
        removed or an ignore rule added while this process runs holds at its next read)."""
        return self._followed.current()

    @property
    def config_error(self) -> str | None:
        """Why ``memlens.toml`` does not load now (its last good routes and sources stay)."""
        self._followed.current()
        return self._followed.error

    def people(self) -> PeopleIndex:
        """The people of the profile (``profile/relationships.json``), re-read only when the
        file changes; a broken file gives no people and says why (``load_error``)."""
        return load_people(self.config.root / PROFILE_RELATIVE_PATH)

    def discover(self) -> list[SourceFile]:
        """Every file the routes take under the root, walked now (``memlens discover``)."""
        return list(discover_files(self.config))

    @property
    def searcher(self):
        if self._searcher is None:
            from engine.searcher import Searcher

            self._searcher = Searcher(self.config, self._embedder)
        return self._searcher

    def close(self) -> None:
        if self._searcher is not None and self._owns_searcher:
            self._searcher.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def search(self, query: str, limit: int = 10, source_types: Any = None, **options):
        """:meth:`engine.searcher.Searcher.search` (same arguments), both arms and the stale
        checks in one read transaction."""
        if not self.config.db_path.exists():
            raise index_unavailable(self.config)
        with self._search_lock:
            try:
                with self.searcher.read_transaction():
                    return self.searcher.search(query, limit, source_types, **options)
            except DBError as exc:  # damaged mid-read: one line, like any unreadable index
                raise self._unreadable(exc) from None

    def _configured_embedder(self) -> Any:
        if self._embedder is not None:
            return self._embedder
        if self._searcher is not None:
            return self._searcher.embedder
        return super()._configured_embedder()

    @contextmanager
    def snapshot(self) -> Iterator[Snapshot]:
        """``with library.snapshot() as snap:`` every read on ``snap`` sees one index."""
        with self._reading() as conn:
            yield Snapshot(self, conn)

    @contextmanager
    def _reading(self) -> Iterator[Connection | None]:
        if not self.config.db_path.exists():
            yield None
            return
        try:
            conn = _open_reader(self.config.db_path)
        except IndexMissing:
            raise index_unavailable(self.config) from None
        except (DBError, OSError, IndexUnavailable) as exc:
            raise self._unreadable(exc) from None
        try:
            try:
                conn.execute("BEGIN")
                # the first read fixes the snapshot; an index mid first build has no tables yet
                ready = conn.execute(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                    f"({', '.join('?' * len(TABLES))})", TABLES).fetchone()[0]
                if ready == len(TABLES):
                    # a newer or older schema is said in one line; only the writer migrates
                    check_readable(conn, self.config.db_path)
            except DBError as exc:
                raise self._unreadable(exc) from None
            yield conn if ready == len(TABLES) else None
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
            conn.close()

    def _unreadable(self, exc: Exception) -> IndexUnavailable:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        reason = reason.replace(str(self.config.db_path), "it")  # no machine path in answers
        return IndexUnavailable(f"the index at {_where(self.config)} cannot be read ({reason})")
