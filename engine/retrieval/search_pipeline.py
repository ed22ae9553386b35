"""One query through the pipeline, timed stage by stage (docs/design.md, "The search pipeline").

parse -> the two arms at once (engine/retrieval/search_arms.py, filters pushed down): BM25 here,
and on the worker thread the query embedded, the vector KNN, chat windows rescored with their
message vectors (engine/vectors/message_vectors.py) and the hits' rows read -> fusion
(engine/rank/convex.py; one arm alone keeps its own 0-1 score) -> semantic-only rows under
the embedder's floor dropped -> recency decay -> entity injection -> filter re-check -> repeats
folded (engine/rank/repeats.py) -> MMR diversity -> truncation -> rerank -> the page
(engine/retrieval/result_page.py), each row held below a lower score saying why, and the
response header: arms, depth, confidence, fusion. A page is ranked at a fixed depth per stretch
of it (``depth_tiers``), so its first rows never depend on the page size.
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Protocol

from engine.config import Config
from engine.dates.timephrase import SearchTime
from engine.index.re_embed import staged
from engine.rank.calibration import calibration_for
from engine.rank.candidates import Candidate
from engine.rank.convex import arm_alone, convex_merge, describe
from engine.rank.repeats import collapse_repeats
from engine.rank.stages import (
    apply_recency_decay,
    diversity_rerank,
    drop_weak_semantic,
    placed_for_variety,
    rrf_merge,
    sort_by_date,
)
from engine.retrieval.entities import PROFILE_RELATIVE_PATH, inject_entity, load_people
from engine.retrieval.filters import Filters
from engine.retrieval.fts_query import ParsedQuery, asks_for_the_period, parse_query
from engine.retrieval.result_page import results_page
from engine.retrieval.search_arms import (
    VectorArm,
    full_matches,
    newest_first,
    vector_candidates,
)
from engine.schema import EmbedderInfo, EmbedderMismatch
from engine.search_options import MAX_LIMIT
from engine.search_response import SearchResponse, SearchResult
from engine.storage.db import Connection
from engine.storage.lock import active_writer
from engine.vectors.message_vectors import message_share, mix_text

if TYPE_CHECKING:  # a keyword search loads no embedder, no numpy, no vector module
    from engine.embedder import Embedder
    from engine.vectors.vector_index import VectorIndex


PROFILE_HEAD = 10  # the rows whose median score places an injected profile
# (rows of the page, depth of each arm): see depth_tiers
DEPTH_TIERS = ((20, 50), (50, 250), (100, 500), (MAX_LIMIT, 5 * MAX_LIMIT))


class Reader(Protocol):
    """What a query reads through: :class:`engine.searcher.Searcher`, its lock held."""

    config: Config

    @property
    def embedder(self) -> Embedder: ...

    def connection(self) -> Connection: ...

    def vector_index(self, writing: bool | None = None) -> VectorIndex | None: ...

    @property
    def serving(self) -> EmbedderInfo | None: ...

    def vector_arm(self, index: VectorIndex | None, text: str, depth: int,
                   filters: Filters, query_vec=None) -> Future[VectorArm]: ...

    def keyword_arm(self, parsed: ParsedQuery, depth: int, filters: Filters,
                    query: str = "") -> list[Candidate]: ...


class _Laps:
    """Milliseconds per stage, each measured from the end of the one before; stages that ran
    beside them on the worker thread (embedding the query) are shown but not added up."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self._beside: dict[str, float] = {}
        self._clock = time.perf_counter()

    def __call__(self, name: str) -> None:
        t = time.perf_counter()
        # a stage run once per ranking depth (depth_tiers) adds up
        self.ms[name] = round(self.ms.get(name, 0.0) + (t - self._clock) * 1000, 2)
        self._clock = t

    def beside(self, name: str, ms: float) -> None:
        self._beside[name] = round(self._beside.get(name, 0.0) + ms, 2)

    def total(self) -> dict[str, float]:
        self.ms["total"] = round(sum(self.ms.values()), 2)
        return {**self._beside, **self.ms}


@dataclass
class _Ranking:
    """One ranking of the candidates at one depth: the ranked rows and what the header says
    of the arms that found them."""

    ranked: list[Candidate]
    keyword: list[Candidate]
    semantic: list[Candidate]
    semantic_error: str | None
    semantic_detail: str | None
    pure_arm: bool
    type_counts: dict[str, int]
    query_vec: object = None  # the query's embedding, reused by a deeper ranking


def depth_tiers(limit: int) -> list[tuple[int, int]]:
    """(rows taken, arm depth) of each ranking a page of ``limit`` rows is made of: the page's
    first 20 rows always come from the ranking at depth 50, its rows up to 50 from the one
    at 250, up to 100 from 500, the rest from 1,000 (each five times its stretch's end, as
    deep as a page of that size was always ranked). A ranking's order depends on its depth
    (the arms' normalisers, passage evidence, the plans for common words), so a fixed depth
    per stretch of the page keeps its first rows the same whatever page size is asked."""
    tiers = []
    for rows, depth in DEPTH_TIERS:
        tiers.append((min(rows, limit), depth))
        if rows >= limit:
            break
    return tiers


def run_query(reader: Reader, query: str, when: SearchTime, limit: int, filters: Filters,
              mode: str, rerank: bool, now: datetime, sort: str = "relevance",
              use_decay: bool = True) -> SearchResponse:
    """The response to one query whose arguments :meth:`Searcher.search` has checked and
    whose time phrase and person are already in ``filters``."""
    config = reader.config
    lap = _Laps()
    text = when.text  # the query without its time phrase: what both arms see
    transition = active_writer(config.db_path)
    parsed = parse_query(text)
    lap("parse")
    if asks_for_the_period(parsed) and (filters.dated or filters.person is not None):
        return _by_date(reader, query, when, limit, filters, mode, parsed, transition, lap)

    decay_off = _decay_off(mode != "hybrid", use_decay, filters)
    # decay inside a named period: see Searcher.search's docstring
    use_decay, now = use_decay and not filters.closed_range, _age_clock(now, filters)
    ranked: list[Candidate] = []
    seen: set[str] = set()
    ranking = None
    for rows, depth in depth_tiers(limit):
        ranking = _rank(reader, parsed, text, depth, rows, filters, mode, transition, now,
                        use_decay, lap, ranking.query_vec if ranking else None)
        # a row of a deeper ranking whose text a kept row shows (folded there) is that row again
        fresh = [c for c in ranking.ranked if c.id not in seen
                 and not any(r.id in seen for r in c.repeats)][: rows - len(ranked)]
        ranked += fresh
        seen |= {c.id for c in fresh} | {r.id for c in fresh for r in c.repeats}
    assert ranking is not None  # limit >= 1: one tier at least
    config = reader.config  # ranks as the embedder whose vectors were searched
    pure_arm, semantic = ranking.pure_arm, ranking.semantic
    if pure_arm and mode == "hybrid":
        decay_off = _decay_off(True, use_decay, filters)

    reranked, rerank_reason = False, "not_requested"
    if rerank:
        ranked, reranked, rerank_reason = _rerank(config, text, ranked)
        lap("rerank")
    if sort == "date":
        ranked = sort_by_date(ranked)

    results = results_page(reader.connection(), config, ranked, parsed, filters)
    for r in results:
        if r.decay is None and not r.injected:
            r.decay_off = decay_off
    if sort == "relevance" and not reranked:  # else the header says what orders the page
        for r, note in zip(results, placed_for_variety(results), strict=True):
            r.placed = note
    lap("explain")
    matched_all = _matched_all(reader.connection(), results, parsed, filters)
    lap("matched_all")
    best_sim = max((c.similarity for c in semantic), default=None)
    low = _low_confidence(results, parsed, matched_all, best_sim, weights(config)[1])
    timings = lap.total()
    semantic_error = ranking.semantic_error
    return SearchResponse(
        query=query, results=results, mode=mode, arms=_arms(mode, semantic_error),
        arm_depth=_arm_depth(mode, ranking.keyword, semantic, depth),
        confidence="low" if low else "ok", terms=list(parsed.terms),
        matched_all_terms=matched_all, best_similarity=best_sim, rrf_k=config.rrf_k,
        reranked=reranked, rerank_reason=None if reranked else rerank_reason,
        timings_ms=timings, index_transition=transition,
        semantic_error=semantic_error, semantic_detail=ranking.semantic_detail,
        **_vectors_fields(reader, mode, semantic_error),
        fusion=fusion_text(config, "hybrid" if not pure_arm else
                           ("keyword" if mode == "hybrid" else mode),
                           mixed=any(c.message_mix is not None for c in semantic)),
        sort=sort, decay_applied=not pure_arm and use_decay, type_counts=ranking.type_counts,
        **_filter_fields(when, filters))


def _rank(reader: Reader, parsed: ParsedQuery, text: str, depth: int, rows: int,
          filters: Filters, mode: str, transition: str | None, now: datetime, use_decay: bool,
          lap: _Laps, query_vec=None) -> _Ranking:
    """The arms asked ``depth`` deep, fused, decayed, the profile injected, filtered again and
    diversified: the first ``rows`` of that ranking."""
    config = reader.config
    vectors = None
    semantic_error = semantic_detail = None
    if mode in ("hybrid", "semantic") and text.strip():
        vectors, semantic_error, semantic_detail = _start_vector_arm(
            reader, text, depth, filters, transition, query_vec)
        config = reader.config  # ranks as the embedder whose vectors were searched
        lap("vectors")
    keyword = (reader.keyword_arm(parsed, depth, filters, text)
               if mode in ("hybrid", "keyword") else [])
    lap("keyword")
    semantic, sim_ref = [], None
    if vectors is not None:
        found = vectors.result()
        semantic, sim_ref = vector_candidates(reader.connection(), found, config, depth)
        semantic_error, semantic_detail = found.error, found.detail
        query_vec = found.query_vec
        if found.error is None:
            lap.beside("embed", found.embed_ms)
    lap("semantic")  # what waiting for the vector arm added
    pure_arm = mode != "hybrid" or semantic_error is not None
    fused = (fuse(config, keyword, semantic, sim_ref) if not pure_arm
             else arm_alone(keyword if mode != "semantic" else semantic,
                             "semantic" if mode == "semantic" else "keyword"))
    lap("fusion")
    if not pure_arm:
        fused = _rescore(config, fused, parsed)
        lap("rescore")
        fused = _decay_and_profile(reader, fused, text, now, use_decay, lap)
    else:
        for cand in fused:  # shown in the explain view, not applied: arm order is kept
            cand.decay = None
    fused = [c for c in fused if filters.matches(c)]
    lap("filter")
    type_counts = dict(Counter(c.source_type for c in fused if not c.injected))
    # repeats fold before MMR and the cut: MMR's pool and per-type caps then count distinct
    # texts, and the cut leaves ``rows`` distinct rows (folded after, the page came up short)
    fused = collapse_repeats(fused)
    lap("repeats")
    ranked = diversity_rerank(fused, rows) if not pure_arm else fused[:rows]
    lap("mmr")
    return _Ranking(ranked, keyword, semantic, semantic_error, semantic_detail, pure_arm,
                    type_counts, query_vec)


def _start_vector_arm(reader: Reader, text: str, depth: int, filters: Filters,
                      writing: str | None, query_vec=None
                      ) -> tuple[Future[VectorArm] | None, str | None, str | None]:
    """The vector arm started on the worker thread, or why it cannot run (error kind and
    message; the keyword arm runs either way)."""
    from engine.embedder import EmbeddingError

    try:  # first: it picks the embedder whose vectors the index holds (reader.embedder)
        index = reader.vector_index(bool(writing))
        return reader.vector_arm(index, text, depth, filters, query_vec), None, None
    except EmbeddingError as exc:  # a remote embedder asked for its dimension
        return None, exc.kind, str(exc)
    except EmbedderMismatch as exc:  # another embedder's vectors, which it cannot embed for
        return None, "embedder_mismatch", str(exc)


def _vectors_fields(reader: Reader, mode: str, semantic_error: str | None) -> dict:
    """The response's ``serving_embedder`` and ``re_embed`` (engine/index/re_embed.py): the
    index's vectors searched in place of the configured embedder's, and a re-embed's progress."""
    state = staged(reader.connection())
    serving = reader.serving if mode != "keyword" and semantic_error is None else None
    return {"serving_embedder": serving.describe() if serving else None,
            "re_embed": state.describe() if state else None}


def _decay_and_profile(reader: Reader, fused: list[Candidate], text: str, now: datetime,
                       use_decay: bool, lap: _Laps) -> list[Candidate]:
    """Hybrid ranking after fusion: weak semantic-only rows dropped, recency decay (bounded:
    it orders comparable results), then the person's profile injected into the page."""
    config = reader.config
    fused = drop_weak_semantic(fused, weights(config)[1])
    if use_decay:
        fused = apply_recency_decay(fused, config, now)
    else:
        fused = [_without_decay(c) for c in fused]
    lap("decay")
    people = load_people(config.root / PROFILE_RELATIVE_PATH)
    # the median of a fixed head, the default page, not of the whole candidate pool (it must
    # rank among the first results) nor of ``limit`` (its score and place would move with the
    # page size asked: docs/design.md, stage 7)
    fused = inject_entity(fused[:PROFILE_HEAD], text, people) + fused[PROFILE_HEAD:]
    lap("entities")
    return fused


def _matched_all(conn: Connection, results: list[SearchResult], parsed: ParsedQuery,
                 filters: Filters) -> bool:
    """Whether some chunk holds every query unit: read off the page, else one SQL check."""
    wanted = parsed.unit_count
    return not parsed.empty and (
        any(len(r.matched_terms or ()) == wanted for r in results if not r.injected)
        or bool(full_matches(conn, parsed, filters, 1)))


def _low_confidence(results: list[SearchResult], parsed: ParsedQuery, matched_all: bool,
                    best_sim: float | None, floor: float | None) -> bool:
    """Neither arm has evidence. Keyword: no chunk holds most of the words (every one for a
    1-2 word query); semantic: nothing reaches the embedder's floor."""
    wanted = parsed.unit_count
    most = max((len(r.matched_terms or ()) for r in results if not r.injected), default=0)
    return (floor is not None and not matched_all and 2 * most <= wanted
            and (best_sim is None or best_sim < floor))


def _arm_depth(mode: str, keyword: list[Candidate], semantic: list[Candidate],
               depth: int) -> dict[str, tuple[int, int]]:
    """Arm -> (candidates found, depth asked), for the arms the mode runs."""
    arm_depth = {}
    if mode in ("hybrid", "keyword"):
        arm_depth["keyword"] = (len(keyword), depth)
    if mode in ("hybrid", "semantic"):
        arm_depth["semantic"] = (len(semantic), depth)
    return arm_depth


def _by_date(reader: Reader, query: str, when: SearchTime, limit: int, filters: Filters,
             mode: str, parsed: ParsedQuery, transition: str | None,
             lap: _Laps) -> SearchResponse:
    """Nothing to rank by: the filtered chunks, newest first (search_arms.newest_first), and
    how many of each type pass the filters (the facets). Browsing by date, no word is matched:
    "what did I do" highlights no "I" and no "did"."""
    config = reader.config
    conn = reader.connection()
    page, counts = newest_first(conn, filters, limit)
    results = results_page(conn, config, page, ParsedQuery(), filters)
    for r in results:
        r.decay_off = "nothing ranks this page: the newest first"
    lap("by_date")
    return SearchResponse(
        query=query, results=results, mode=mode,
        arms="none (nothing to rank by: the filtered chunks, newest first)", arm_depth={},
        confidence="ok", terms=[], matched_all_terms=False, best_similarity=None,
        rrf_k=config.rrf_k, reranked=False, rerank_reason="not_requested",
        timings_ms=lap.total(), index_transition=transition, fusion="none", sort="date",
        decay_applied=False, type_counts=counts, **_filter_fields(when, filters))


def weights(config: Config) -> tuple[float, float | None]:
    """(semantic weight, similarity floor): the config's, else the embedder's calibration."""
    cal = calibration_for(config.embedder.provider)
    weight = config.semantic_weight
    floor = config.similarity_threshold
    return (cal.semantic_weight if weight is None else weight,
            cal.similarity_floor if floor is None else floor)


def fuse(config: Config, keyword: list[Candidate], semantic: list[Candidate],
         sim_ref: float | None) -> list[Candidate]:
    if config.fusion == "rrf":
        return rrf_merge(keyword, semantic, config.rrf_k)
    return convex_merge(keyword, semantic, weights(config)[0], sim_ref)


def _rescore(config: Config, fused: list[Candidate], parsed: ParsedQuery) -> list[Candidate]:
    """The fused head re-scored by the embedder's learned model (engine/rank/rescore.py),
    when there is one and the config does not turn it off."""
    if not config.rescore or not fused:  # off: not even the module is loaded
        return fused
    from engine.rank.rescore import model_for, query_signals, rescore

    model = model_for(config.embedder.provider)
    if model is None:
        return fused
    return rescore(fused, query_signals(parsed.terms, weights(config)[0]), model)


def fusion_text(config: Config, mode: str, mixed: bool = False) -> str:
    """How the arms' scores were combined, for front doors to print; ``mixed``: some chat
    window's similarity was made with its message vectors (not said when the index has none)."""
    mix = mix_text(message_share(config)) if mixed and mode in ("hybrid", "semantic") else ""
    if mode == "keyword":
        return "keyword arm only: score = its score / the best one's"
    if mode != "hybrid":
        return f"semantic arm only: score = similarity{mix}"
    if config.fusion == "rrf":
        return f"rrf k={config.rrf_k}, votes keyword 1.0 semantic 1.0{mix}"
    weight, floor = weights(config)
    return describe(weight, floor, config.embedder.provider) + mix


def _arms(mode: str, semantic_error: str | None) -> str:
    """The response's ``arms``: which arms ran, and why the semantic one did not."""
    if mode == "hybrid":
        return ("both" if semantic_error is None
                else f"keyword-only (semantic unavailable: {semantic_error})")
    return mode if semantic_error is None else f"none (semantic unavailable: {semantic_error})"


def _rerank(config: Config, query: str, ranked: list[Candidate]):
    from engine.rank.rerank import rerank as call_reranker

    outcome = call_reranker(query, [c.content for c in ranked], config.reranker)
    if not outcome.reranked:
        return ranked, False, outcome.reason
    for i, c in enumerate(ranked):
        c.rerank_score = outcome.scores.get(i)
    return [ranked[i] for i in outcome.order], True, None


def _age_clock(now: datetime, filters: Filters) -> datetime:
    """Where decay measures age from: the end of the date range when it ends before now."""
    if not filters.until:
        return now
    return min(now, datetime.combine(date.fromisoformat(filters.until), datetime.min.time(),
                                     now.tzinfo))


def _filter_fields(when: SearchTime, filters: Filters) -> dict[str, str | None]:
    """The response's time and person fields."""
    return {"time": when.header, "time_phrase": when.found.phrase if when.applied else None,
            "since": filters.since, "until": filters.until, "month_day": filters.month_day,
            "person": filters.person.label() if filters.person is not None else None}


def _decay_off(pure_arm: bool, asked: bool, filters: Filters) -> str | None:
    """Why this page's rows carry no recency decay (None: they do)."""
    if pure_arm:
        return "a single arm ranks this page, in its own order"
    if not asked:
        return "turned off for this search"
    if filters.closed_range:
        return "the search names a period; age does not rank inside it"
    return None


def _without_decay(c: Candidate) -> Candidate:
    out = object.__new__(type(c))
    out.__dict__ = {**c.__dict__, "decay": None}
    return out
