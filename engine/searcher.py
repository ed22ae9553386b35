"""search(): the read half of the engine.

query -> embed -> vector KNN + BM25 (both with filters pushed down) -> fusion (engine/convex.py)
-> semantic-only rows under the embedder's floor dropped -> recency decay ->
entity injection -> filter re-check -> MMR diversity -> truncation (docs/design.md,
"The search pipeline"). Each stage is a named function in fts_query / fusion / entities; this module wires
them together, times them, and explains every result.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from . import staleness
from .calibration import calibration_for
from .candidates import Candidate, Decay
from .cjk import cjk_search, has_unsegmented, merge_ranked
from .config import Config, load_config, resolve_root
from .convex import REF_RANK, convex_merge, describe
from .db import Connection
from .embedder import Embedder, EmbeddingError, get_embedder
from .entities import inject_entity, load_people
from .evidence import drop_weak_semantic, strong_evidence
from .filters import Filters, SearchError
from .fts_query import FTS5_STOP_WORDS, ParsedQuery, build_match, matched_terms, parse_query
from .fusion import (
    apply_recency_decay,
    diversity_rerank,
    rrf_merge,
    sort_by_date,
)
from .keyword_arm import fts_row_count, keyword_search
from .lock import active_writer
from .passages import with_passage_evidence
from .people_filter import person_filter
from .provider_guard import query_vector
from .schema import EmbedderMismatch, has_vec_table, open_reader, stored_embedder
from .search_options import MAX_LIMIT, MODES, SORTS
from .sidecar_index import SidecarIndex, open_vector_index, refreshed
from .snippets import build as build_snippet
from .snippets import parse_marked
from .timeline import source_types as indexed_types
from .timephrase import SearchTime, search_time
from .vector_index import VectorIndex

__all__ = ["Filters", "SearchError", "SearchResponse", "SearchResult", "Searcher", "search"]

REFRESH_DURING_WRITE_S = 5.0  # while a writer runs, refresh the vector index at most this often
ROW_COLUMNS = ("c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
               "c.metadata, c.embedding_truncated")


@dataclass
class SearchResult:
    # the documented result fields (README: From Python)
    id: str
    content: str
    source_file: str
    source_type: str
    score: float
    matched_terms: list[str] | None
    content_date: str | None
    # explain fields (docs/design.md, stage 10)
    keyword_rank: int | None = None  # 1-based
    semantic_rank: int | None = None  # 1-based
    similarity: float | None = None
    bm25: float | None = None
    rrf_terms: dict[str, float] = field(default_factory=dict)  # arm -> its part of the score
    fusion_terms: dict[str, str] = field(default_factory=dict)  # arm -> "0.80 × 12.1/15.3 = …"
    decay: Decay | None = None
    mmr_position: int | None = None  # 1-based position in the diversified head
    found_by: list[str] = field(default_factory=list)
    injected: bool = False
    stale: bool = False
    embedding_truncated: bool = False
    section_path: list[str] | None = None
    section: int | None = None
    snippet: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    rerank_score: float | None = None
    rowid: int | None = None
    # offsets into ``snippet`` (engine/snippets.py): matched words; (start, end, kind) emphasis
    highlights: list[tuple[int, int]] = field(default_factory=list)
    emphasis: list[tuple[int, int, str]] = field(default_factory=list)


@dataclass
class SearchResponse(Sequence):
    """The results (iterable like a plain list) plus how they were found."""

    query: str
    results: list[SearchResult]
    mode: str
    arms: str  # "both" | "keyword" | "semantic" | "keyword-only (semantic unavailable: ...)"
    arm_depth: dict[str, tuple[int, int]]  # arm -> (candidates found, depth asked)
    confidence: str  # "ok" | "low"
    terms: list[str]
    matched_all_terms: bool
    best_similarity: float | None
    rrf_k: int
    reranked: bool
    rerank_reason: str | None
    timings_ms: dict[str, float]
    index_transition: str | None = None  # "reindex" | "re-embed" | "maintenance" while running
    # provider_error | provider_input_rejected | provider_timeout | embedder_mismatch
    semantic_error: str | None = None
    semantic_detail: str | None = None  # the full message (e.g. how to re-embed)
    fusion: str = ""  # how the arms' scores were combined, for front doors to print
    sort: str = "relevance"  # "relevance" | "date" (the page's best results, newest first)
    decay_applied: bool = False
    # source type -> candidates of this query (after its filters, before the page is cut)
    type_counts: dict[str, int] = field(default_factory=dict)
    # the query's time phrase as applied: 'time: 2026-03-09..2026-03-15 (from "last week")'
    time: str | None = None
    time_phrase: str | None = None  # as written in the query (a chip removes it from there)
    person: str | None = None  # the person filter: 'person: Robert Okafor (as "Robert Okafr")'

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i):
        return self.results[i]

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)


# -- the searcher -------------------------------------------------------------------------------

class Searcher:
    """A long-lived reader over one index: a connection, the vector index and the people file.

    Safe to share between threads (calls are serialised); readers never block a reindex (WAL).
    """

    def __init__(self, config: Config, embedder: Embedder | None = None):
        _one_blas_thread()
        self.config = config
        self._embedder = embedder
        self._conn: Connection | None = None
        self._vectors: VectorIndex | SidecarIndex | None = None
        self._lock = threading.RLock()
        self._refreshed_at = 0.0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memlens-knn")

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self.config.embedder, self.config.root)
        return self._embedder

    def connection(self) -> Connection:
        """The read-only connection (opened on first use; a reader never migrates: see
        docs/reliability.md). Raises :class:`~engine.db.IndexUnavailable` in one line."""
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
        """Load what the first search would: a local embedding model and the vector index
        (1-12 s at 500k chunks, depending on the page cache). Meant for a background thread
        at start; failures are left for the first search to report."""
        try:
            if self.config.embedder.provider in ("local", "minilm"):
                self.embedder.embed(["memlens"])
            with self._lock:
                if self.config.db_path.exists():
                    self.vector_index()
        except Exception:  # noqa: BLE001 - the first search reports what is broken
            pass

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            self._vectors = None

    # -- arms -------------------------------------------------------------------------------
    def keyword_arm(self, parsed: ParsedQuery, depth: int, filters: Filters,
                    query: str = "") -> list[Candidate]:
        """BM25 over FTS5 with the filters in the same SQL; a malformed query gives [].

        Text in scripts written without spaces (Chinese, Japanese, Thai...) is found through
        the trigram table (engine/cjk.py) from the raw query and merged by score.
        """
        where, args = filters.sql()
        try:
            rows, plan = keyword_search(self.connection(), parsed, depth, where, args,
                                        self.config.keyword_common_df)
            if has_unsegmented(query):
                rows = merge_ranked(rows, cjk_search(self.connection(), query, depth, where,
                                                     args), depth)
        except Exception:  # noqa: BLE001 - BM25 degrades, never raises (docs/design.md)
            return []
        out = []
        for rank, r in enumerate(rows):
            cand = _candidate(r)
            cand.keyword_rank, cand.bm25 = rank, float(r["score"])
            out.append(cand)
        if plan is None or not out:
            return out
        conn = self.connection()
        return with_passage_evidence(conn, out, parsed.terms, plan.term_df, fts_row_count(conn))

    def matched_all(self, parsed: ParsedQuery, filters: Filters) -> bool:
        return bool(self.full_matches(parsed, filters, 1))

    def full_matches(self, parsed: ParsedQuery, filters: Filters, cap: int) -> list[int]:
        """Rowids of up to ``cap`` chunks holding every query unit (FTS5 AND, filters applied);
        it stops at ``cap``, so asking whether exactly one exists costs little."""
        match = build_match(parsed, "and")
        if match is None:
            return []
        where, args = filters.sql()
        try:
            return [r[0] for r in self.connection().execute(
                "SELECT c.rowid FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
                f"WHERE chunks_fts MATCH ? AND {where} LIMIT ?", [match, *args, cap])]
        except Exception:  # noqa: BLE001
            return []

    def vector_index(self, writing: bool | None = None) -> VectorIndex | SidecarIndex | None:
        """The warm vector index, refreshed from vec0; ``writing``: whether a writer runs
        (asked of the lock file when not given: a search asks once and passes it)."""
        conn = self.connection()
        if not has_vec_table(conn):
            return None
        info = stored_embedder(conn)
        if not self.embedder.dim:
            self.embedder.discover_dim()
        if info != self.embedder.info:
            raise EmbedderMismatch(info, self.embedder.info)
        if self._vectors is None:  # the mapped sidecar, else vec0 read into memory
            self._vectors = open_vector_index(self.config.db_path, conn, info.dim)
        elif (time.monotonic() - self._refreshed_at < REFRESH_DURING_WRITE_S
              and (active_writer(self.config.db_path) if writing is None else writing)):
            # a reindex commits every file: re-assembling the matrix for each one would make
            # every search during it slow; rows deleted meanwhile are dropped at fetch time
            return self._vectors
        self._vectors = refreshed(self._vectors, self.config.db_path, conn)
        self._refreshed_at = time.monotonic()
        return self._vectors

    def vector_hits(self, index: VectorIndex | None, query_vec: np.ndarray, depth: int,
                    filters: Filters) -> Future | None:
        """Start the KNN (numpy, off the GIL) on the worker thread; None when no vectors.

        The filter masks are built first, here, because they need the connection.
        """
        if index is None or len(index) == 0:
            return None
        mask = index.type_mask(filters.source_types)
        for sql, args in filters.rowid_queries():
            allowed = np.fromiter((r[0] for r in self.connection().execute(sql, args)),
                                  np.int64)
            rmask = index.rowid_mask(allowed)
            mask = rmask if mask is None else (mask & rmask)
        return self._pool.submit(index.search, query_vec, depth, mask)

    def semantic_arm(self, hits: list[tuple[int, float]]) -> list[Candidate]:
        """Candidates for the KNN hits, in similarity order."""
        rows = _fetch_rows(self.connection(), [h[0] for h in hits])
        out = []
        for rank, (rowid, sim) in enumerate(hits):
            if rowid not in rows:
                continue  # deleted since the index refreshed
            cand = _candidate(rows[rowid])
            cand.semantic_rank, cand.similarity = rank, sim
            out.append(cand)
        return out

    # -- the pipeline ----------------------------------------------------------------------
    def search(self, query: str, limit: int = 10, source_types: Sequence[str] | None = None,
               *, mode: str = "hybrid", since: str | None = None, until: str | None = None,
               path_prefix: str | None = None, tags: Sequence[str] | None = None,
               frontmatter: dict[str, Any] | None = None, person: str | None = None,
               rerank: bool = False, now: datetime | None = None, sort: str = "relevance",
               decay: bool = True, weights=None) -> SearchResponse:
        """Run the pipeline. ``weights`` is accepted for backward compatibility and ignored.

        Time phrases ("last week", "in March", "2026-03-14", "on this day": the rules are in
        :mod:`engine.timephrase`) are read against ``now`` (default: the local clock), become
        since/until (and a month-day) pushed into both arms, and are taken out of the text
        both arms see; ``response.time`` says so. Explicit ``since``/``until`` win over a
        phrase, which then stays in the text as words. ``person`` keeps chunks with or about
        that person (:mod:`engine.people_filter`; typos forgiven), in both arms.

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
        del weights  # kept for old callers: the fusion weights come from engine/calibration.py
        if mode not in MODES:
            raise SearchError(f"mode must be one of {', '.join(MODES)}")
        if sort not in SORTS:
            raise SearchError(f"sort must be one of {', '.join(SORTS)}")
        if not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise SearchError(f"limit must be between 1 and {MAX_LIMIT}")
        now = now or datetime.now().astimezone()  # local: "today" is the user's date
        query = query if isinstance(query, str) else str(query)
        when = search_time(query, now, since, until)
        with self._lock:
            build = functools.partial(Filters.build, source_types, path_prefix=path_prefix,
                                      tags=tags, frontmatter=frontmatter,
                                      person=self._person(person))
            filters = build(since=when.since, until=when.until, month_day=when.month_day)
            response = self._search(query, when, limit, filters, mode, rerank, now, sort,
                                    bool(decay))
            if response.results or not when.applied:
                return response
            # a phrase whose range holds nothing ("last year" over a 2023 archive) must not
            # turn the query into a false empty page: search every date and say so
            words = SearchTime(query, since, until, None, when.found, False)
            response = self._search(query, words, limit, build(since=since, until=until,
                                                                month_day=None),
                                    mode, rerank, now, sort, bool(decay))
            response.time = f"{when.header}: nothing dated there, every date searched"
            return response

    def _person(self, name: str | None):
        if name is None or not str(name).strip():
            return None
        found = person_filter(self.connection(), self.config.root, str(name))
        if found is None:
            raise SearchError("person must be a name of at least two letters")
        return found

    def weights(self) -> tuple[float, float | None]:
        """(semantic weight, similarity floor): the config's, else the embedder's calibration."""
        cal = calibration_for(self.config.embedder.provider)
        weight = self.config.semantic_weight
        floor = self.config.similarity_threshold
        return (cal.semantic_weight if weight is None else weight,
                cal.similarity_floor if floor is None else floor)

    def fuse(self, keyword: list[Candidate], semantic: list[Candidate],
             sim_ref: float | None) -> list[Candidate]:
        if self.config.fusion == "rrf":
            return rrf_merge(keyword, semantic, self.config.rrf_k)
        return convex_merge(keyword, semantic, self.weights()[0], sim_ref)

    def fusion_text(self, mode: str) -> str:
        if mode != "hybrid":
            return f"{mode} arm only"
        if self.config.fusion == "rrf":
            return f"rrf k={self.config.rrf_k}, votes keyword 1.0 semantic 1.0"
        weight, floor = self.weights()
        return describe(weight, floor, self.config.embedder.provider)

    def _search(self, query, when: SearchTime, limit, filters, mode, rerank, now,
                sort="relevance", use_decay=True) -> SearchResponse:
        timings: dict[str, float] = {}
        clock = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal clock
            t = time.perf_counter()
            timings[name] = round((t - clock) * 1000, 2)
            clock = t

        depth = max(limit * 5, 50)
        text = when.text  # the query without its time phrase: what both arms see
        transition = active_writer(self.config.db_path)
        parsed = parse_query(text)
        lap("parse")
        if _only_stop_words(parsed) and (filters.dated or filters.person is not None):
            return self._by_date(query, when, limit, filters, mode, parsed, transition, timings)

        semantic_error = semantic_detail = None
        query_vec = index = None
        if mode in ("hybrid", "semantic") and text.strip():
            try:
                # within a time budget, behind a breaker shared by the process
                query_vec = query_vector(self.embedder, text[: self.config.max_embed_chars],
                                         self.config.embedder.query_timeout)
                # refuses another embedder's vectors before they are used
                index = self.vector_index(bool(transition))
            except EmbeddingError as exc:
                semantic_error, semantic_detail, query_vec = exc.kind, str(exc), None
            except EmbedderMismatch as exc:
                semantic_error, semantic_detail, query_vec = "embedder_mismatch", str(exc), None
            lap("embed")

        # the two arms run at once: the KNN on the worker thread, BM25 here (2 cores)
        knn = (self.vector_hits(index, query_vec, max(depth, REF_RANK), filters)
               if query_vec is not None else None)
        keyword = (self.keyword_arm(parsed, depth, filters, text)
                   if mode in ("hybrid", "keyword") else [])
        lap("keyword")
        hits = knn.result() if knn is not None else []
        sim_ref = hits[min(REF_RANK, len(hits)) - 1][1] if hits else None
        semantic = self.semantic_arm(hits[:depth])
        lap("semantic")

        fused = self.fuse(keyword, semantic, sim_ref)
        lap("fusion")
        pure_arm = mode != "hybrid" or semantic_error is not None
        # decay inside a named period: see search()'s docstring
        use_decay, now = use_decay and not filters.closed_range, _age_clock(now, filters)
        if not pure_arm:
            fused = drop_weak_semantic(fused, self.weights()[1])
            if use_decay:
                full = self.full_matches(parsed, filters, 2)
                fused = apply_recency_decay(fused, self.config, now, strong_evidence(
                    fused, full[0] if len(full) == 1 else None))
            else:
                fused = [_without_decay(c) for c in fused]
            lap("decay")
            people = load_people(self.config.root / "profile" / "relationships.json")
            # the median of the page the caller will see, not of the whole candidate pool:
            # the profile must survive truncation to ``limit`` (docs/design.md, stage 7)
            fused = inject_entity(fused[:limit], text, people) + fused[limit:]
            lap("entities")
        else:
            for cand in fused:  # shown in the explain view, not applied: arm order is kept
                cand.decay = None
        fused = [c for c in fused if filters.matches(c)]
        lap("filter")
        type_counts = dict(Counter(c.source_type for c in fused if not c.injected))
        ranked = diversity_rerank(fused, limit) if not pure_arm else fused[:limit]
        lap("mmr")

        reranked, rerank_reason = False, "not_requested"
        if rerank:
            ranked, reranked, rerank_reason = self._rerank(text, ranked)
            lap("rerank")
        if sort == "date":
            ranked = sort_by_date(ranked)

        results = self._results(ranked, parsed)
        lap("explain")
        wanted = len(parsed.terms) + len(parsed.phrases)
        matched_all = not parsed.empty and (
            any(len(r.matched_terms or ()) == wanted for r in results if not r.injected)
            or self.matched_all(parsed, filters))  # the SQL check only when the page has none
        lap("matched_all")
        best_sim = max((c.similarity for c in semantic), default=None)
        threshold = self.weights()[1]
        # low: neither arm has evidence. Keyword: no chunk holds most of the words (every one
        # for a 1-2 word query); semantic: nothing reaches the embedder's floor
        most = max((len(r.matched_terms or ()) for r in results if not r.injected), default=0)
        low = (threshold is not None and not matched_all and 2 * most <= wanted
               and (best_sim is None or best_sim < threshold))
        timings["total"] = round(sum(timings.values()), 2)
        if mode == "hybrid":
            arms = ("both" if semantic_error is None
                    else f"keyword-only (semantic unavailable: {semantic_error})")
        else:
            arms = mode if semantic_error is None else (
                f"none (semantic unavailable: {semantic_error})")
        arm_depth = {}
        if mode in ("hybrid", "keyword"):
            arm_depth["keyword"] = (len(keyword), depth)
        if mode in ("hybrid", "semantic"):
            arm_depth["semantic"] = (len(semantic), depth)
        return SearchResponse(
            query=query, results=results, mode=mode, arms=arms, arm_depth=arm_depth,
            confidence="low" if low else "ok", terms=list(parsed.terms),
            matched_all_terms=matched_all, best_similarity=best_sim, rrf_k=self.config.rrf_k,
            reranked=reranked, rerank_reason=None if reranked else rerank_reason,
            timings_ms=timings, index_transition=transition,
            semantic_error=semantic_error, semantic_detail=semantic_detail,
            fusion=self.fusion_text("hybrid" if not pure_arm else
                                    ("keyword" if mode == "hybrid" else mode)),
            sort=sort, decay_applied=not pure_arm and use_decay, type_counts=type_counts,
            **_filter_fields(when, filters))

    def _by_date(self, query, when, limit, filters, mode, parsed, transition,
                 timings) -> SearchResponse:
        """Nothing to rank by: the filtered chunks, newest first. A person's chunks come
        from one FTS5 lookup, then sorted (9 ms at 100k chunks); else one backwards walk per
        source type of the (source_type, content_date) index, ``limit`` rows each (one walk
        per type with the person's lookup in each took 166 ms)."""
        started = time.perf_counter()
        conn = self.connection()
        where, args = filters.sql()
        newest = "ORDER BY c.content_date DESC, c.rowid DESC LIMIT ?"
        dated = f"SELECT {ROW_COLUMNS} FROM chunks c WHERE c.content_date IS NOT NULL AND {where}"
        if filters.person is not None:
            rows = conn.execute(f"{dated} {newest}", [*args, limit]).fetchall()
        else:
            rows = []
            for source_type in indexed_types(conn, filters.source_types):
                rows += conn.execute(f"{dated} AND c.source_type = ? {newest}",
                                     [*args, source_type, limit]).fetchall()
        rows.sort(key=lambda r: (r["content_date"], r["rowid"]), reverse=True)
        results = self._results([_candidate(r) for r in rows[:limit]], parsed)
        timings["by_date"] = round((time.perf_counter() - started) * 1000, 2)
        timings["total"] = round(sum(timings.values()), 2)
        return SearchResponse(
            query=query, results=results, mode=mode,
            arms="none (nothing to rank by: the filtered chunks, newest first)", arm_depth={},
            confidence="ok", terms=[], matched_all_terms=False, best_similarity=None,
            rrf_k=self.config.rrf_k, reranked=False, rerank_reason="not_requested",
            timings_ms=timings, index_transition=transition, fusion="none", sort="date",
            decay_applied=False, **_filter_fields(when, filters))

    def _results(self, ranked: list[Candidate], parsed: ParsedQuery) -> list[SearchResult]:
        """The page as results, with stale flags (one query for the page) and snippets."""
        stale = staleness.stale_files(self.connection(), self.config.root,
                                      {c.source_file for c in ranked if not c.injected})
        results = [self._result(c, parsed, c.source_file in stale and not c.injected)
                   for c in ranked]
        self._add_snippets(results, parsed)
        return results

    def _rerank(self, query: str, ranked: list[Candidate]):
        from .rerank import rerank as call_reranker

        outcome = call_reranker(query, [c.content for c in ranked], self.config.reranker)
        if not outcome.reranked:
            return ranked, False, outcome.reason
        for i, c in enumerate(ranked):
            c.rerank_score = outcome.scores.get(i)
        return [ranked[i] for i in outcome.order], True, None

    def _result(self, c: Candidate, parsed: ParsedQuery, stale: bool) -> SearchResult:
        meta = c.metadata or {}
        return SearchResult(
            id=c.id, content=c.content, source_file=c.source_file, source_type=c.source_type,
            score=c.score, matched_terms=matched_terms(c.content, parsed) or None,
            content_date=c.content_date,
            keyword_rank=None if c.keyword_rank is None else c.keyword_rank + 1,
            semantic_rank=None if c.semantic_rank is None else c.semantic_rank + 1,
            similarity=c.similarity, bm25=c.bm25, rrf_terms=dict(c.rrf_terms),
            fusion_terms=dict(c.fusion_terms), decay=c.decay,
            mmr_position=None if c.mmr_position is None else c.mmr_position + 1,
            found_by=c.found_by, injected=c.injected, stale=stale,
            embedding_truncated=c.embedding_truncated,
            section_path=meta.get("section_path"), section=meta.get("section"),
            snippet="", metadata=meta, rerank_score=c.rerank_score, rowid=c.rowid)

    def _add_snippets(self, results: list[SearchResult], parsed: ParsedQuery) -> None:
        """Each result's snippet (engine/snippets.py): a window on its first match, with the
        matches FTS5 found as offsets; the chunk head for semantic-only hits.

        One lookup per keyword hit, pinned to its rowid: FTS5 seeks straight to that row, where
        a MATCH over the whole index would re-run the query (250 ms at 500k chunks). The
        markers are control characters the stored (cleaned) text never holds.
        """
        match = build_match(parsed, "or")
        conn = self.connection()
        for r in results:
            matches = None
            if match and r.matched_terms and not r.injected and r.rowid is not None:
                try:
                    row = conn.execute(
                        "SELECT highlight(chunks_fts, 0, char(2), char(3)) FROM chunks_fts "
                        "WHERE chunks_fts MATCH ? AND rowid = ?", (match, r.rowid)).fetchone()
                    if row and row[0]:
                        text, matches = parse_marked(row[0], "\x02", "\x03")
                        if text != r.content:
                            matches = None  # the text held a marker: no offsets to trust
                except Exception:  # noqa: BLE001 - a snippet is decoration; the head will do
                    pass
            snippet = build_snippet(r.content, matches)
            r.snippet, r.highlights, r.emphasis = snippet.text, snippet.highlights, snippet.emphasis


def _age_clock(now: datetime, filters: Filters) -> datetime:
    """Where decay measures age from: the end of the date range when it ends before now."""
    if not filters.until:
        return now
    return min(now, datetime.combine(date.fromisoformat(filters.until), datetime.min.time(),
                                     now.tzinfo))


def _only_stop_words(parsed: ParsedQuery) -> bool:
    """Nothing to rank by: no phrase, and every word a stop word ("what did I do")."""
    return not parsed.phrases and all(t in FTS5_STOP_WORDS for t in parsed.raw_tokens)


def _filter_fields(when: SearchTime, filters: Filters) -> dict[str, str | None]:
    """The response's time and person fields."""
    return {"time": when.header, "time_phrase": when.found.phrase if when.applied else None,
            "person": filters.person.label() if filters.person is not None else None}


def _without_decay(c: Candidate) -> Candidate:
    out = object.__new__(type(c))
    out.__dict__ = {**c.__dict__, "decay": None}
    return out


def _candidate(row) -> Candidate:
    import json

    try:
        metadata = json.loads(row["metadata"]) if row["metadata"] else {}
    except ValueError:
        metadata = {}
    return Candidate(
        id=row["id"], content=row["content"], source_file=row["source_file"],
        source_type=row["source_type"], content_date=row["content_date"], metadata=metadata,
        rowid=row["rowid"], embedding_truncated=bool(row["embedding_truncated"]))


def _fetch_rows(conn: Connection, rowids: list[int]) -> dict[int, Any]:
    if not rowids:
        return {}
    rows = conn.execute(
        "SELECT rowid, id, content, source_file, source_type, content_date, metadata, "
        f"embedding_truncated FROM chunks WHERE rowid IN ({','.join('?' * len(rowids))})",
        rowids).fetchall()
    return {r["rowid"]: r for r in rows}


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
        if searcher is None or searcher.config != config:
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
