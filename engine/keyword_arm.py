"""The keyword arm: BM25 over FTS5, made fast for common words without changing its answer.

A plain OR query makes FTS5 score every chunk that holds any query word: 265-400 ms at 500k
chunks when the words are common. The top of a BM25 ranking is decided by the rarer words, so:

1. Each query unit (term or phrase) is classified by document frequency: counting its matches
   stops at ``common_df`` rows, so a rare unit costs almost nothing to count.
2. No common unit: one OR query (cheap: every posting list is short).
3. Some common units C and rare units R: the chunks holding a rare unit are found with
   ``(R) AND (C)`` and ``(R) NOT (C)``, both driven by R's short lists, and scored by FTS5's own
   bm25 over every unit, so their scores equal the plain OR query's. A chunk holding only
   common units can score at most sum(idf(c) * (k1 + 1)) over C; if the depth-th score found
   already beats that bound, the answer is exactly the plain OR answer (MaxScore pruning).
   Otherwise ``(C) NOT (R)`` is scored too (the slow path, still exact).
4. Only common units: chunks matching ALL of them first (``AND``); if they fill the depth,
   that is the answer, else the plain OR query runs. This is the one approximation: a chunk
   holding some but not all of several very common words can rank below the AND matches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .db import Connection
from .fts_query import ParsedQuery, quote

BM25_K1 = 1.2  # FTS5's bm25 constant: one unit adds at most idf * (k1 + 1) to a score

SELECT = (
    "SELECT c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
    "c.metadata, c.embedding_truncated, -bm25(chunks_fts) AS score "
    "FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
    "WHERE chunks_fts MATCH ? AND {where} ORDER BY bm25(chunks_fts) LIMIT ?")


@dataclass
class KeywordPlan:
    units: list[str]  # quoted FTS5 strings
    common: list[str]
    rare: list[str]
    path: str  # "or" | "maxscore" | "maxscore+common" | "and-first" | "and-first+or"


def _varint(blob: bytes, i: int = 0) -> int:
    value = 0
    for k in range(9):
        byte = blob[i + k]
        if k == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return value


def fts_row_count(conn: Connection) -> int:
    """N as FTS5's bm25 sees it: the first varint of the index's averages record."""
    row = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    return _varint(row[0]) if row and row[0] else 0


def capped_df(conn: Connection, unit: str, cap: int) -> int:
    """How many chunks hold ``unit``, counting no further than ``cap``."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
        (unit, cap)).fetchone()[0]


def idf_upper_bound(n_rows: int, min_df: int) -> float:
    """FTS5's idf for a unit found in at least ``min_df`` rows (idf falls as df grows)."""
    idf = math.log((n_rows - min_df + 0.5) / (min_df + 0.5))
    return max(idf, 1e-6)


def plan(conn: Connection, parsed: ParsedQuery, common_df: int) -> KeywordPlan | None:
    units = [quote(t) for t in parsed.terms] + [quote(" ".join(p)) for p in parsed.phrases]
    if not units:
        return None
    common, rare = [], []
    for unit in units:
        (common if capped_df(conn, unit, common_df) >= common_df else rare).append(unit)
    return KeywordPlan(units, common, rare, "or")


def _run(conn: Connection, match: str, where: str, args: list, depth: int) -> list:
    return conn.execute(SELECT.format(where=where), [match, *args, depth]).fetchall()


def _merge(depth: int, *lists: list) -> list:
    rows = {r["rowid"]: r for rows in lists for r in rows}
    return sorted(rows.values(), key=lambda r: (-r["score"], r["rowid"]))[:depth]


def keyword_search(conn: Connection, parsed: ParsedQuery, depth: int, where: str, args: list,
                   common_df: int) -> tuple[list, KeywordPlan | None]:
    """Top ``depth`` rows by bm25 over the OR of the query units, with filters in ``where``."""
    p = plan(conn, parsed, common_df)
    if p is None:
        return [], None
    everything = " OR ".join(p.units)
    if not p.common:
        return _run(conn, everything, where, args, depth), p
    any_common = " OR ".join(p.common)
    if p.rare:
        any_rare = " OR ".join(p.rare)
        found = _merge(depth,
                       _run(conn, f"({any_rare}) AND ({any_common})", where, args, depth),
                       _run(conn, f"({any_rare}) NOT ({any_common})", where, args, depth))
        bound = (BM25_K1 + 1) * sum(
            idf_upper_bound(fts_row_count(conn), common_df) for _ in p.common)
        if len(found) == depth and found[-1]["score"] > bound:
            p.path = "maxscore"
            return found, p
        p.path = "maxscore+common"
        rest = _run(conn, f"({any_common}) NOT ({any_rare})", where, args, depth)
        return _merge(depth, found, rest), p
    if len(p.common) > 1:
        found = _run(conn, " AND ".join(p.common), where, args, depth)
        if len(found) == depth:
            p.path = "and-first"
            return found, p
        p.path = "and-first+or"
    return _run(conn, everything, where, args, depth), p
