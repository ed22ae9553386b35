"""How a query finds its candidates, each way over one read connection: the BM25 arm, the
filter mask and the rows of the KNN arm, the every-word check, and the filtered chunks newest
first when nothing is left to rank by (docs/design.md, "The search pipeline")."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.dates.message_days import chat_types
from engine.dates.timeline import source_types as indexed_types
from engine.library_types import parse_metadata
from engine.rank.candidates import Candidate, MessageMix
from engine.retrieval.cjk import cjk_search, has_unsegmented, merge_ranked
from engine.retrieval.filters import Filters
from engine.retrieval.fts_query import ParsedQuery, build_match
from engine.retrieval.in_range import time_inside_sql
from engine.retrieval.keyword_arm import fts_row_count, keyword_search
from engine.retrieval.passages import chat_windows, with_passage_evidence
from engine.retrieval.query_expansion import with_related_words
from engine.storage.db import Connection

if TYPE_CHECKING:  # the vector modules (numpy) load with the first semantic search
    import numpy as np

    from engine.config import Config
    from engine.embedder import Embedder
    from engine.vectors.message_vectors import Rescored
    from engine.vectors.vector_index import VectorIndex


def keyword_candidates(conn: Connection, parsed: ParsedQuery, depth: int, filters: Filters,
                       query: str, common_df: int) -> list[Candidate]:
    """BM25 over FTS5 with the filters in the same SQL; a malformed query gives [].

    Text in scripts written without spaces (Chinese, Japanese, Thai...) is found through
    the trigram table (engine/retrieval/cjk.py) from the raw query and merged by score.
    """
    where, args = filters.sql()
    try:
        rows, plan = keyword_search(conn, parsed, depth, where, args, common_df)
        if has_unsegmented(query):
            rows = merge_ranked(rows, cjk_search(conn, query, depth, where, args), depth)
    except Exception:  # noqa: BLE001 - BM25 degrades, never raises (docs/design.md)
        return []
    out = []
    for rank, r in enumerate(rows):
        cand = _candidate(r)
        cand.keyword_rank, cand.bm25 = rank, float(r["score"])
        out.append(cand)
    if plan is None or not out:
        return out
    chat = chat_windows(out)
    out = with_passage_evidence(conn, out, chat, parsed.terms, plan.term_df, fts_row_count(conn))
    return with_related_words(conn, out, chat, parsed.terms)


def full_matches(conn: Connection, parsed: ParsedQuery, filters: Filters, cap: int) -> list[int]:
    """Rowids of up to ``cap`` chunks holding every query unit (FTS5 AND, filters applied);
    it stops at ``cap``, so asking whether exactly one exists costs little."""
    match = build_match(parsed, "and")
    if match is None:
        return []
    where, args = filters.sql()
    try:
        return [r[0] for r in conn.execute(
            "SELECT c.rowid FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
            f"WHERE chunks_fts MATCH ? AND {where} LIMIT ?", [match, *args, cap])]
    except Exception:  # noqa: BLE001
        return []


def knn_mask(conn: Connection, index: VectorIndex,
             filters: Filters) -> np.ndarray | None:
    """The filters as a mask over the index's rows (None: every row); built before the KNN
    starts on its worker thread, because the rowid queries need the connection."""
    import numpy as np

    mask = index.type_mask(filters.source_types)
    for sql, args in filters.rowid_queries():
        allowed = np.fromiter((r[0] for r in conn.execute(sql, args)), np.int64)
        rmask = index.rowid_mask(allowed)
        mask = rmask if mask is None else (mask & rmask)
    return mask


@dataclass
class VectorArm:
    """What the vector arm's worker found: the KNN's hits for the query's vector, and for an
    embedder without message vectors the hits' candidates already read, with each row's
    content hash as read (None: gone), so the caller can check they are its snapshot's; or
    why the arm could not run (an embedding error's kind and message; the keyword arm runs
    either way). ``embed_ms``: embedding the query took."""

    hits: list[tuple[int, float]] = field(default_factory=list)
    query_vec: np.ndarray | None = None
    candidates: list[Candidate] | None = None
    versions: dict[int, str | None] = field(default_factory=dict)
    error: str | None = None
    detail: str | None = None
    embed_ms: float = 0.0


def vector_arm(conn: Connection, embedder: Embedder, config: Config,
               index: VectorIndex | None, text: str, depth: int,
               mask: np.ndarray | None, query_vec: np.ndarray | None = None) -> VectorArm:
    """Embed the query, search the vectors and, unless chat windows are to be rescored with
    their messages' vectors, read the hits' rows: on the searcher's worker thread while the
    keyword arm runs (``conn``: that thread's own connection). The KNN is asked at least
    REF_RANK deep, so the reference similarity exists. ``query_vec``: the query's embedding
    when a ranking of the same query made it already (a deeper one: search_pipeline)."""
    from engine.embed.provider_guard import query_vector
    from engine.embedder import EmbeddingError
    from engine.rank.convex import REF_RANK
    from engine.vectors.message_vectors import message_share

    started = time.perf_counter()
    try:  # within a time budget, behind a breaker shared by the process
        if query_vec is None:
            query_vec = query_vector(embedder, text[: config.max_embed_chars],
                                     config.embedder.query_timeout)
    except EmbeddingError as exc:
        return VectorArm(error=exc.kind, detail=str(exc))
    found = VectorArm(query_vec=query_vec,
                      embed_ms=round((time.perf_counter() - started) * 1000, 2))
    if index is None or len(index) == 0:
        return found
    found.hits = index.search(query_vec, max(depth, REF_RANK), mask)
    if message_share(config) <= 0:  # the rows alone: read here (rescoring reads more)
        rows = _fetch_rows(conn, [h[0] for h in found.hits[:depth]])
        found.candidates = semantic_candidates(conn, found.hits[:depth], rows=rows)
        found.versions = {rowid: rows[rowid]["content_hash"] if rowid in rows else None
                          for rowid, _ in found.hits[:depth]}
    return found


def vector_candidates(conn: Connection, found: VectorArm, config: Config, depth: int
                      ) -> tuple[list[Candidate], float | None]:
    """The vector arm's candidates and the similarity at REF_RANK, as ``conn`` (the caller's
    read transaction) sees the index: the worker's rows when they are the ones it holds (a
    reindex may commit between the two connections' reads), else read again here, with the
    chat windows rescored by their messages' vectors (engine/vectors/message_vectors.py)."""
    from engine.rank.convex import REF_RANK
    from engine.vectors.message_vectors import message_share, rescore

    hits, candidates = found.hits, found.candidates
    if candidates is None or _versions(conn, list(found.versions)) != found.versions:
        mixed = (rescore(conn, hits, found.query_vec, message_share(config))
                 if hits and found.query_vec is not None else None)
        hits = mixed.hits if mixed is not None else hits
        candidates = semantic_candidates(conn, hits[:depth], mixed)
    return candidates, hits[min(REF_RANK, len(hits)) - 1][1] if hits else None


def _versions(conn: Connection, rowids: list[int]) -> dict[int, str | None]:
    if not rowids:
        return {}
    held = dict(conn.execute("SELECT rowid, content_hash FROM chunks WHERE rowid IN "
                             f"({','.join('?' * len(rowids))})", rowids).fetchall())
    return {rowid: held.get(rowid) for rowid in rowids}


def semantic_candidates(conn: Connection, hits: list[tuple[int, float]],
                        mixed: Rescored | None = None, rows: dict[int, Any] | None = None
                        ) -> list[Candidate]:
    """Candidates for the KNN hits, in similarity order; ``mixed``: how the chat windows
    among them were rescored with their messages' vectors (engine/vectors/message_vectors.py);
    ``rows``: the hits' rows when already read."""
    from engine.vectors.message_vectors import EDGE

    rows = _fetch_rows(conn, [h[0] for h in hits]) if rows is None else rows
    parts = mixed.parts if mixed is not None else {}
    out = []
    for rank, (rowid, sim) in enumerate(hits):
        if rowid not in rows:
            continue  # deleted since the index refreshed
        cand = _candidate(rows[rowid])
        cand.semantic_rank, cand.similarity = rank, sim
        if rowid in parts:
            cand.message_mix = MessageMix(mixed.share, *parts[rowid], reach=EDGE)
        out.append(cand)
    return out


def newest_first(conn: Connection, filters: Filters, limit: int
                 ) -> tuple[list[Candidate], dict[str, int]]:
    """Nothing to rank by: the filtered chunks, newest first, and how many of each type pass
    the filters (dated ones: what this lists). A chat window is placed by its last message
    inside the dates (engine/retrieval/in_range.py), which may be days before its own date.

    "On this day" (a day a year) is read through the vector arm's mask, whose day seeks give
    its few chunks (~0.5% of the index) at once: 12 ms at 500k chunks, where a walk back
    through the dates took 0.5 s. A person's chunks come from one FTS5 lookup, then sorted
    (9 ms at 100k chunks). Else one backwards walk per source type of the (source_type,
    content_date) index (one walk per type with the person's lookup in each took 166 ms).
    Only the page's rows are read whole."""
    where, args = filters.sql()
    dated = f"c.content_date IS NOT NULL AND {where}"
    if filters.month_days() is not None:
        best, counts = _newest_of_few(conn, filters, dated, args, limit)
    elif filters.person is not None:
        best = _newest(conn, dated, args, filters, limit, chat=True)
        counts = dict(conn.execute(f"SELECT c.source_type, count(*) FROM chunks c WHERE {dated} "
                                   "GROUP BY c.source_type", args).fetchall())
    else:
        best, counts = [], {}
        for source_type in indexed_types(conn, filters.source_types):
            found = _newest(conn, f"{dated} AND c.source_type = ?", [*args, source_type],
                            filters, limit, chat=source_type in chat_types())
            # fewer than a page: that is all of them
            counts[source_type] = len(found) if len(found) < limit else conn.execute(
                f"SELECT count(*) FROM chunks c WHERE {dated} AND c.source_type = ?",
                [*args, source_type]).fetchone()[0]
            best += found
    best = sorted(best, reverse=True)[:limit]
    rows = _fetch_rows(conn, [rowid for _, rowid in best])
    return ([_candidate(rows[rowid]) for _, rowid in best if rowid in rows],
            {t: n for t, n in counts.items() if n})


def _newest(conn: Connection, where: str, args: list, filters: Filters, limit: int, *,
            chat: bool) -> list[tuple[str, int]]:
    """(time, rowid) of the ``limit`` chunks passing ``where`` newest by their time inside
    the filter (``chat``: rows may be windows, whose time is their last message
    inside the dates, never after their date). A window's time is read for the rows from the
    day of the ``limit``-th newest date on, and from earlier days only while the ``limit``-th
    newest time is earlier than those rows' dates."""
    order = "ORDER BY c.content_date DESC, c.rowid DESC"
    if not chat:
        return [(day, rowid) for rowid, day in conn.execute(
            f"SELECT c.rowid, c.content_date FROM chunks c WHERE {where} {order} LIMIT ?",
            [*args, limit])]
    nth = conn.execute(f"SELECT c.content_date FROM chunks c WHERE {where} {order} "
                       "LIMIT 1 OFFSET ?", [*args, limit - 1]).fetchone()
    floor = nth[0][:10] if nth else None
    time_inside, time_args = time_inside_sql(filters)
    while True:
        best = sorted((tuple(r) for r in conn.execute(
            f"SELECT {time_inside}, c.rowid FROM chunks c WHERE {where}"
            + (" AND c.content_date >= ?" if floor else ""),
            [*time_args, *args, *([floor] if floor else [])])), reverse=True)[:limit]
        # a row dated before ``floor`` has a time before it
        if floor is None or (len(best) == limit and best[-1][0][:10] >= floor):
            return best
        floor = best[-1][0][:10] if len(best) == limit else None


def _newest_of_few(conn: Connection, filters: Filters, where: str, args: list, limit: int
                   ) -> tuple[list[tuple[str, int]], dict[str, int]]:
    """(time, rowid) of the newest ``limit``, and the counts per type, over the vector arm's
    mask: every chunk's time read at once."""
    found = [{r[0] for r in conn.execute(sql, a)} for sql, a in filters.rowid_queries()]
    mask = sorted(set.intersection(*found)) if found else []
    time_inside, time_args = time_inside_sql(filters)
    rows = conn.execute(
        f"SELECT {time_inside}, c.rowid, c.source_type FROM json_each(?) AS k "
        f"CROSS JOIN chunks c ON c.rowid = k.value WHERE {where}",
        [*time_args, json.dumps(mask), *args]).fetchall()
    counts: dict[str, int] = {}
    for _, _, source_type in rows:
        counts[source_type] = counts.get(source_type, 0) + 1
    return sorted(((t, rowid) for t, rowid, _ in rows), reverse=True)[:limit], counts


def _candidate(row) -> Candidate:
    metadata = parse_metadata(row["metadata"])
    return Candidate(
        id=row["id"], content=row["content"], source_file=row["source_file"],
        source_type=row["source_type"], content_date=row["content_date"],
        first_date=row["first_date"], metadata=metadata,
        rowid=row["rowid"], embedding_truncated=bool(row["embedding_truncated"]))


def _fetch_rows(conn: Connection, rowids: list[int]) -> dict[int, Any]:
    if not rowids:
        return {}
    rows = conn.execute(
        "SELECT rowid, id, content, source_file, source_type, content_date, first_date, metadata, "
        "embedding_truncated, content_hash FROM chunks "
        f"WHERE rowid IN ({','.join('?' * len(rowids))})",
        rowids).fetchall()
    return {r["rowid"]: r for r in rows}
