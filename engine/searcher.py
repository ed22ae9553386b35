"""Searcher: the long-lived reader every search runs through, and ``search()``.

A Searcher holds one read-only connection, the warm vector index, the KNN worker thread and the
lock that serialises calls. :meth:`Searcher.search` checks the arguments, turns the query's
time phrase and person into :class:`Filters` and hands the query to the pipeline
(engine/retrieval/search_pipeline.py), which finds candidates (engine/retrieval/search_arms.py), ranks them and
builds the page (engine/retrieval/result_page.py); docs/design.md, "The search pipeline".
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import Config, load_config, resolve_root
from engine.dates import clock
from engine.dates.spans import index_years, longest_span
from engine.dates.timephrase import SearchTime, search_time
from engine.display import did_you_mean
from engine.rank.candidates import Candidate
from engine.retrieval.filters import Filters, SearchError
from engine.retrieval.folders import folder_prefix
from engine.retrieval.fts_query import ParsedQuery, asks_for_the_period, parse_query
from engine.retrieval.people_filter import close_people, nobody_named, person_filter
from engine.retrieval.search_arms import (
    VectorArm,
    keyword_candidates,
    knn_mask,
    newest_first,
    vector_arm,
)
from engine.retrieval.search_pipeline import run_query
from engine.schema import (
    EmbedderInfo,
    EmbedderMismatch,
    has_vectors,
    open_reader,
    stored_embedder,
)
from engine.search_options import MAX_LIMIT, MODES, SORTS
from engine.search_response import SearchResponse
from engine.storage.db import Connection
from engine.storage.lock import active_writer
from engine.storage.rank_extension import preload_lengths

if TYPE_CHECKING:  # the embedders and vector modules (numpy) load with the first semantic search
    from engine.embedder import Embedder
    from engine.vectors.vector_index import VectorIndex

__all__ = ["Filters", "SearchError", "SearchResponse", "Searcher", "search"]

REFRESH_DURING_WRITE_S = 5.0  # while a writer runs, refresh the vector index at most this often


class Searcher:
    """A long-lived reader over one index: a connection, the vector index and the KNN thread.

    Safe to share between threads (calls are serialised); readers never block a reindex (WAL).
    """

    def __init__(self, config: Config, embedder: Embedder | None = None):
        self.configured = config
        self._embedder = embedder
        # while the index holds another embedder's vectors (a switch not yet re-embedded):
        # that embedder and the config ranking as it, so the semantic arm keeps working
        self._serving: tuple[Config, Embedder] | None = None
        self._conn: Connection | None = None
        self._worker_conn: Connection | None = None  # the vector arm's, on the worker thread
        self._vectors: VectorIndex | None = None
        self._vectors_of: EmbedderInfo | None = None  # whose vectors ``_vectors`` holds
        self._lock = threading.RLock()
        self._refreshed_at = 0.0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-knn")

    @property
    def config(self) -> Config:
        """The configuration searches rank by: the configured one, with the embedder whose
        vectors the index holds while a switch of embedder is being re-embedded."""
        return self._serving[0] if self._serving else self.configured

    @property
    def embedder(self) -> Embedder:
        """The embedder queries are embedded with (see :attr:`config`)."""
        return self._serving[1] if self._serving else self.configured_embedder

    @property
    def configured_embedder(self) -> Embedder:
        if self._embedder is None:
            from engine.embedder import get_embedder

            self._embedder = get_embedder(self.configured.embedder, self.configured.root)
        return self._embedder

    @property
    def serving(self) -> EmbedderInfo | None:
        """The index's embedder when it is not the configured one and serves searches."""
        return self._serving[1].info if self._serving else None

    def connection(self) -> Connection:
        """The read-only connection (opened on first use; a reader never migrates: see
        docs/reliability.md). Raises :class:`~engine.storage.db.IndexUnavailable` in one line."""
        if self._conn is None:
            self._conn = open_reader(self.config.db_path)
        return self._conn

    @contextmanager
    def read_transaction(self) -> Iterator[Connection]:
        """One read transaction on this searcher's connection, its lock held throughout: a
        warm-up on another thread (which begins its own to read the vector sidecar) waits
        instead of beginning a second transaction on the same connection."""
        with self._lock:
            conn = self.connection()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def warm_up(self) -> None:
        """Load what the first search would: a local embedding model, the vector index (1-12 s
        at 500k chunks, depending on the page cache) and the keyword arm's row lengths (~0.1 s).
        Meant for a background thread at start; failures are left for the first search to
        report."""
        try:
            with self._lock:  # first: it picks the embedder whose vectors the index holds
                if self.config.db_path.exists():
                    preload_lengths(self.connection())  # the keyword arm's row lengths
                    self.vector_index()
                    self._open_worker_connection()
            if self.config.embedder.provider in ("local", "minilm", "e5"):
                self.embedder.embed(["memlens"])
        except Exception:  # noqa: BLE001 - the first search reports what is broken
            pass

    def close(self) -> None:
        with self._lock:
            for conn in (self._conn, self._worker_conn):
                if conn is not None:
                    conn.close()
            self._conn = self._worker_conn = None
            self._vectors = None

    # -- what the pipeline reads through (engine.retrieval.search_pipeline.Reader) --------------------
    def keyword_arm(self, parsed: ParsedQuery, depth: int, filters: Filters,
                    query: str = "") -> list[Candidate]:
        """The BM25 arm (:func:`engine.retrieval.search_arms.keyword_candidates`) on this connection."""
        return keyword_candidates(self.connection(), parsed, depth, filters, query,
                                  self.config.keyword_common_df)

    def vector_index(self, writing: bool | None = None) -> VectorIndex | None:
        """The warm vector index, in step with the index file; ``writing``: whether a writer runs
        (asked of the lock file when not given: a search asks once and passes it)."""
        conn = self.connection()
        if not has_vectors(conn):
            return None
        info = stored_embedder(conn)
        configured = self.configured_embedder
        if not configured.dim:
            configured.discover_dim()
        if info == configured.info:
            self._serving = None
        elif self.serving != info:
            self._serving = self._serve(info, configured)
        from engine.vectors.sidecar_scan import open_vector_index, refreshed

        if self._vectors is None or self._vectors_of != info:  # new, or a re-embed swapped
            # the mapped sidecar, else the same built in memory from the rows
            self._vectors = open_vector_index(self.config.db_path, conn)
            self._vectors_of = info
        elif (time.monotonic() - self._refreshed_at < REFRESH_DURING_WRITE_S
              and (active_writer(self.config.db_path) if writing is None else writing)):
            # a reindex commits every file: re-assembling the matrix for each one would make
            # every search during it slow; rows deleted meanwhile are dropped at fetch time
            return self._vectors
        self._vectors = refreshed(self._vectors, self.config.db_path, conn)
        self._refreshed_at = time.monotonic()
        return self._vectors

    def _serve(self, info: EmbedderInfo, configured: Embedder) -> tuple[Config, Embedder]:
        """Search the index's vectors with the embedder that made them (it must be buildable
        here: a local model, or a remote one with its key); else EmbedderMismatch."""
        from engine.embedder import get_embedder

        settings = replace(self.configured.embedder, provider=info.provider, model=info.model,
                           dimensions=info.dim)
        try:
            embedder = get_embedder(settings, self.configured.root)
            if not embedder.dim:
                embedder.discover_dim()
        except Exception as exc:  # noqa: BLE001 - not available here: keyword-only, as before
            raise EmbedderMismatch(info, configured.info) from exc
        if embedder.info != info:
            raise EmbedderMismatch(info, configured.info)
        return replace(self.configured, embedder=settings), embedder

    def vector_arm(self, index: VectorIndex | None, text: str, depth: int,
                   filters: Filters, query_vec=None) -> Future[VectorArm]:
        """Start the vector arm (:func:`engine.retrieval.search_arms.vector_arm`: the query's
        embedding, the KNN off the GIL, the hits' rows) on the worker thread, which reads
        through its own connection while the keyword arm reads through this one."""
        mask = None
        if index is not None and len(index):
            _one_blas_thread()
            mask = knn_mask(self.connection(), index, filters)
        embedder, config = self.embedder, self.config
        return self._pool.submit(lambda: vector_arm(self._open_worker_connection(), embedder,
                                                    config, index, text, depth, mask,
                                                    query_vec))

    def _open_worker_connection(self) -> Connection:
        """The worker thread's connection, opened there on first use (a one-query process
        opens it beside the keyword arm) or by warm_up."""
        if self._worker_conn is None:
            self._worker_conn = open_reader(self.config.db_path)
        return self._worker_conn

    # -- the entry ---------------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, source_types: Sequence[str] | None = None,
               *, mode: str = "hybrid", since: str | None = None, until: str | None = None,
               path_prefix: str | None = None, tags: Sequence[str] | None = None,
               frontmatter: dict[str, Any] | None = None, person: str | None = None,
               rerank: bool = False, now: datetime | None = None, sort: str = "relevance",
               decay: bool = True, weights=None) -> SearchResponse:
        """Run the pipeline. ``weights`` is accepted for backward compatibility and ignored.

        Time phrases ("last week", "in March", "2026-03-14", "on this day": the rules are in
        :mod:`engine.dates.timephrase`) are read against ``now`` (default: the local clock), become
        since/until (and a month-day) pushed into both arms, and are taken out of the text
        both arms see; ``response.time`` says so. Explicit ``since``/``until`` win over a
        phrase, which then stays in the text as words. ``person`` keeps chunks with or about
        that person (:mod:`engine.retrieval.people_filter`; typos forgiven), in both arms.
        ``path_prefix`` is a folder as a person writes it (``Work/`` for ``@Vault/Work/``:
        :mod:`engine.retrieval.folders`).

        Recency decay and a time range: decay prefers recent chunks when the caller named no
        time; inside a period they named it must not push that period's own chunks down. So a
        range with both ends (or "on this day") ranks without decay, and a range open at the
        start ("before 2025") measures age from its end, not from ``now``.

        When nothing is left to rank by (no word but stop words: "last week", "what did I do
        in March", or a blank query with a date or person filter), the results are the
        filtered chunks, newest first (``sort="date"``).

        ``sort="date"`` shows the page's results newest first; ``decay=False`` ranks without
        recency decay.
        """
        del weights  # kept for old callers: the fusion weights come from engine/rank/calibration.py
        if mode not in MODES:
            raise SearchError(f"mode must be one of {', '.join(MODES)}")
        if sort not in SORTS:
            raise SearchError(f"sort must be one of {', '.join(SORTS)}")
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise SearchError(f"limit must be between 1 and {MAX_LIMIT}")
        now = now or clock.now()
        query = query if isinstance(query, str) else str(query)
        when = search_time(query, now, since, until)
        phrases = parse_query(when.text).phrases  # required as written (docs/design.md)
        with self._lock:
            folder = folder_prefix(self.connection(), path_prefix, self.config.sources)
            build = functools.partial(Filters.build, source_types, path_prefix=folder,
                                      tags=tags, frontmatter=frontmatter,
                                      person=self._person(person),
                                      # bounds only an ``until``: read when there is one
                                      span_days=longest_span(self.connection())
                                      if when.until else None,
                                      years=index_years(self.connection())
                                      if when.month_day else None, phrases=phrases)
            filters = build(since=when.since, until=when.until, month_day=when.month_day)
            response = run_query(self, query, when, limit, filters, mode, rerank, now, sort,
                                 bool(decay))
            said = " and ".join(f'"{" ".join(p)}"' for p in phrases)
            note = f"phrases: required as written: {said}" if phrases else None
            if phrases and all(r.injected for r in response.results):  # none holds them
                build = functools.partial(build, phrases=None)
                filters = build(since=when.since, until=when.until, month_day=when.month_day)
                response = run_query(self, query, when, limit, filters, mode, rerank, now,
                                     sort, bool(decay))
                nearest = any(not r.injected for r in response.results)
                note = (f"phrases: no result holds {said} as written"
                        + ("; shown: the nearest without it" if nearest else ""))
            if not response.results and when.applied:
                response = self._outside_the_range(query, when, response, filters, build,
                                                   limit, mode, rerank, now, sort, bool(decay))
            response.phrases = note
            return response

    def _outside_the_range(self, query: str, when: SearchTime, empty: SearchResponse,
                           filters: Filters, build, limit: int, mode: str, rerank: bool,
                           now: datetime, sort: str, decay: bool) -> SearchResponse:
        """The words match nothing inside the phrase's range: say which is true and show what
        is most likely meant, rather than a false empty page. When the range holds chunks, the
        phrase dates this index and only the other words are searched at every date ("March",
        "14", "last" are never words then). When nothing at all is dated there, the phrase
        dates nothing here and is likely what the text itself says ("moved here 4 years ago",
        "visited Utah in summer 2021"): the question as written is searched at every date."""
        if asks_for_the_period(parse_query(when.text)):
            empty.time = f"{when.header}: nothing dated there"  # browsing found nothing
            return empty
        if newest_first(self.connection(), filters, 1)[0]:
            text = when.text
            said = f'"{text}"' if len(text) <= 60 else "the other words"
            found = f"nothing there matches {said}; shown: {said} at every date"
        else:
            text = query
            said = f'"{text}"' if len(text) <= 60 else "the question as written"
            found = f"nothing dated there; shown: {said} at every date"
        words = replace(when, text=text, since=None, until=None, month_day=None, applied=False)
        response = run_query(self, query, words, limit, build(since=None, until=None,
                                                              month_day=None),
                             mode, rerank, now, sort, decay)
        response.time = f"{when.header}: {found}"
        return response

    def _person(self, name: str | None):
        if name is None or not str(name).strip():
            return None
        conn = self.connection()
        found = person_filter(conn, self.config.root, str(name))
        if found is None:
            raise SearchError("person must be a name of at least two letters")
        if conn is not None and nobody_named(conn, found):
            from engine.retrieval.entities import PROFILE_RELATIVE_PATH

            hint = did_you_mean(close_people(str(name), self.config.root))
            raise SearchError(f"no one is named {found.name!r}: not in the profile "
                              f"({PROFILE_RELATIVE_PATH}) and in no indexed text"
                              + (f"; {hint}" if hint else ""))
        return found


@functools.cache
def _one_blas_thread() -> None:
    """Pin BLAS to one thread for this process, once.

    The KNN scan runs beside the BM25 query on a 2-core machine; a second BLAS thread only
    fights SQLite for a core. Measured at 500k chunks, same process, alternating runs: hybrid
    p50 46-47 ms with one BLAS thread, 57-83 ms with two (and worse when the limit is switched
    around each scan).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


_default: dict[Path, Searcher] = {}
_default_lock = threading.Lock()


def get_searcher(root: str | Path | None = None, config: Config | None = None) -> Searcher:
    """A cached Searcher per index, so repeated search() calls reuse the warm vector index."""
    if config is None:
        config = load_config(resolve_root(root)[0])
    with _default_lock:
        searcher = _default.get(config.db_path)
        if searcher is None or searcher.configured != config:
            searcher = _default[config.db_path] = Searcher(config)
        return searcher


def search(query: str, limit: int = 10, source_types: Sequence[str] | None = None,
           *, root: str | Path | None = None, config: Config | None = None,
           **options) -> SearchResponse:
    """Hybrid search over the index of ``root`` (default: $MEMLENS_ROOT, else the demo root).

    Returns a :class:`SearchResponse`: iterate it for :class:`SearchResult` rows (the documented
    fields plus explain fields); its header fields say which arms ran, how deep, how confident.
    The arguments are :meth:`Searcher.search`'s, in the same order: mode, since, until,
    path_prefix, tags, frontmatter, person, rerank, now, sort ("relevance" | "date": the page's
    best results newest first), decay (False: none); ``weights=`` is accepted and ignored (an
    older signature's, deprecated). Time phrases in the query filter by date (see Searcher.search).
    """
    return get_searcher(root, config).search(query, limit, source_types, **options)
