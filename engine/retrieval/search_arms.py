"""How a query finds its candidates, each way over one read connection: the BM25 arm, the
filter mask and the rows of the KNN arm, the every-word check, and the filtered chunks newest
first when nothing is left to rank by (docs/design.md, "The search pipeline")."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.dates.timeline import source_types as indexed_types
from engine.library_types import parse_metadata
from engine.rank.candidates import Candidate, MessageMix
from engine.retrieval.cjk import cjk_search, has_unsegmented, merge_ranked
from engine.retrieval.filters import Filters
from engine.retrieval.fts_query import ParsedQuery, build_match
from engine.retrieval.keyword_arm import fts_row_count, keyword_search
from engine.retrieval.passages import chat_windows, with_passage_evidence
from engine.retrieval.query_expansion import with_related_words
from engine.storage.db import Connection
from engine.vectors.message_vectors import EDGE, Rescored
from engine.vectors.sidecar_scan import SidecarIndex
from engine.vectors.vec0_table import VectorIndex

ROW_COLUMNS = ("c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
               "c.first_date, c.metadata, c.embedding_truncated")


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


def knn_mask(conn: Connection, index: VectorIndex | SidecarIndex,
             filters: Filters) -> np.ndarray | None:
    """The filters as a mask over the index's rows (None: every row); built before the KNN
    starts on its worker thread, because the rowid queries need the connection."""
    mask = index.type_mask(filters.source_types)
    for sql, args in filters.rowid_queries():
        allowed = np.fromiter((r[0] for r in conn.execute(sql, args)), np.int64)
        rmask = index.rowid_mask(allowed)
        mask = rmask if mask is None else (mask & rmask)
    return mask


def semantic_candidates(conn: Connection, hits: list[tuple[int, float]],
                        mixed: Rescored | None = None) -> list[Candidate]:
    """Candidates for the KNN hits, in similarity order; ``mixed``: how the chat windows
    among them were rescored with their messages' vectors (engine/vectors/message_vectors.py)."""
    rows = _fetch_rows(conn, [h[0] for h in hits])
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


def newest_first(conn: Connection, filters: Filters, limit: int) -> list[Candidate]:
    """Nothing to rank by: the filtered chunks, newest first. A person's chunks come from one
    FTS5 lookup, then sorted (9 ms at 100k chunks); else one backwards walk per source type of
    the (source_type, content_date) index, ``limit`` rows each (one walk per type with the
    person's lookup in each took 166 ms)."""
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
    return [_candidate(r) for r in rows[:limit]]


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
        f"embedding_truncated FROM chunks WHERE rowid IN ({','.join('?' * len(rowids))})",
        rowids).fetchall()
    return {r["rowid"]: r for r in rows}
