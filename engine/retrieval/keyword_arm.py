"""The keyword arm: BM25 over FTS5, made fast for common words.

A plain OR query makes FTS5 score every chunk that holds any query word: 265-400 ms at 500k
chunks when the words are common. The top of a BM25 ranking is decided by the rarer words, so:

1. Each query unit (term or phrase) gets its document frequency: a word's exact count is read
   from the counts the index keeps (engine/storage/term_counts.py; the word stemmed by
   engine/retrieval/stemmer.py with the same tokenizer), so classifying a 60-word query costs
   one lookup, not one COUNT per word; a phrase is counted with a MATCH that stops at
   ``common_df`` rows.
2. Without filters, when the posting lists together fit ``WALK_POSTINGS``: one call of
   ``memlens_topk`` (engine/csrc/memlensrank.c) reads each unit's postings, a word's straight
   from FTS5's leaf pages (engine/csrc/fts5_postings.c), and merges them with MaxScore
   pruning ("walk"): exactly the plain OR query's rows and scores, 4 ms at 500k where FTS5's
   ORDER BY rank takes 100-200 ms. The plans below serve filtered queries, longer ones, and
   installs without the compiled extension.
3. When every posting list together fits ``POSTINGS_BUDGET``, or no unit is common: one plain
   OR query. Exact, and on any root up to ~60k chunks this is always the plan.
4. Some common units C and rare units R: the chunks holding a rare unit are found with
   ``(R) AND (C)`` (scored by FTS5's own bm25 over every unit, so equal to the plain OR
   query's) and ``R`` alone (exact for the chunks that hold no common unit), both driven by
   R's short lists. A chunk holding only common units can score at most
   sum(idf(c) * (k1 + 1)) over C; if the depth-th score found already beats that bound, the
   answer is exactly the plain OR answer (MaxScore pruning, "maxscore"). Otherwise the
   common-only chunks are scored too, over the least frequent common units whose posting
   lists fit the budget ("maxscore+common": approximate, the most frequent words, which weigh
   least in bm25, are pruned).
5. Only common units: chunks matching ALL of them first (``AND``); if they fill the depth,
   that is the answer ("and-first": approximate, a chunk holding some but not all of several
   very common words can rank below the AND matches), else an OR over the budget-pruned
   common units ("and-first+or").
6. Any of those statements that would match more chunks than the budget scores only the
   budget's worth of the most recently indexed of them (``KeywordPlan.newest``): at millions
   of chunks a word held by a fifth of them costs ~0.5-3 µs a row to score. Every score is
   still FTS5's bm25, with the counts passed in (engine/storage/rank_extension.py).

SciFact nDCG@10 with these plans is reported next to the plain OR query in docs/benchmarks.md.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

from engine.retrieval.fts_query import ParsedQuery, quote
from engine.retrieval.stemmer import stem
from engine.storage import term_counts
from engine.storage.db import Connection, OperationalError, averages
from engine.storage.rank_extension import rank_sql

BM25_K1 = 1.2  # FTS5's bm25 constant: one unit adds at most idf * (k1 + 1) to a score
POSTINGS_BUDGET = 60_000  # chunks the slow paths may score (about 30 ms here)

SELECT = (
    "SELECT c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
    "c.first_date, c.metadata, c.embedding_truncated, -{rank} AS score "
    "FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
    "WHERE chunks_fts MATCH ? AND {where}{newest} ORDER BY {rank} LIMIT ?")
# Without a filter: rank inside FTS5 first, then read only the ``depth`` chunks. The join above
# reads every matching chunk's row (content included) into the sort: 24.6 -> 13.2 ms p50 for
# the and-first queries at 500k (docs/benchmarks.md, "The keyword arm").
SELECT_UNFILTERED = (
    "SELECT c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
    "c.first_date, c.metadata, c.embedding_truncated, t.score FROM (SELECT rowid, -{rank} AS score "
    "FROM chunks_fts WHERE chunks_fts MATCH ?{newest} ORDER BY {rank} LIMIT ?) t "
    "JOIN chunks c ON c.rowid = t.rowid ORDER BY t.score DESC")
# {rank}: bm25(chunks_fts), or memlens_bm25 given the exact counts the plan already holds, which
# skips FTS5's walk of every phrase's posting list per statement (engine/storage/rank_extension.py).
# {newest}: "" or a rowid floor, when the statement would score more than the budget (below).
# memlens_topk merges the units' postings and keeps the best rows (memlensrank.c); the
# chunks of its answer are then read by rowid, in its order.
TOPK = ("SELECT memlens_topk(chunks_fts, 'chunks_fts', ?, {values}) FROM chunks_fts "
        "WHERE chunks_fts MATCH ? LIMIT 1")
BY_ROWID = (
    "WITH t(rowid, score) AS (VALUES {values}) "
    "SELECT c.rowid, c.id, c.content, c.source_file, c.source_type, c.content_date, "
    "c.first_date, c.metadata, c.embedding_truncated, t.score "
    "FROM t JOIN chunks c ON c.rowid = t.rowid ORDER BY t.score DESC, c.rowid")
WALK_POSTINGS = 400_000  # postings one memlens_topk call reads (~8 ms at 500k); past it, the plans
NEWEST_FLOOR = ("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY rowid DESC LIMIT 1 OFFSET ?")


@dataclass
class KeywordPlan:
    units: list[str]  # quoted FTS5 strings
    common: list[str]
    rare: list[str]
    # "walk" | "or" | "maxscore" | "maxscore+common" | "and-first" | "and-first+or"
    path: str = "or"
    df: dict[str, int] = field(default_factory=dict)  # exact counts of common units, as known
    budget: int = POSTINGS_BUDGET  # postings the slow paths may score
    term_df: dict[str, int] = field(default_factory=dict)  # single query word -> exact df
    newest: bool = False  # a statement scored only the budget's newest matches
    # unit -> how often the query says it (absent: once): memlens_bm25 weighs its phrase by
    # that; without the extension the unit is that many phrases of the MATCH, and FTS5's bm25
    # (a sum over phrases) weighs it the same, at the cost of reading its postings n times
    weight: dict[str, int] = field(default_factory=dict)
    weighted: bool = False  # memlens_bm25 takes the weights (engine/storage/rank_extension.py)
    counts: dict[str, int] = field(default_factory=dict)  # unit -> df, a phrase's capped

    def said(self, units: list[str]) -> list[str]:
        """The phrases of a MATCH over ``units``: each once when the rank function weighs
        them, else repeated as often as the query says it."""
        if self.weighted:
            return list(units)
        return [u for u in units for _ in range(self.weight.get(u, 1))]

    def weights(self, units: list[str]) -> list[int] | None:
        """Each phrase's weight for memlens_bm25, or None when the MATCH repeats them."""
        return [self.weight.get(u, 1) for u in units] if self.weighted else None

    def dfs(self, units: list[str]) -> list[int]:
        """Exact counts of ``units`` where known, -1 where not (memlens_bm25 counts those)."""
        return [self.df.get(u, self.term_df.get(u[1:-1].replace('""', '"'), -1))
                for u in units]


def fts_row_count(conn: Connection) -> int:
    """N as FTS5's bm25 sees it: the first varint of the index's averages record."""
    counts = averages(conn)
    return counts[0] if counts else 0


def capped_df(conn: Connection, unit: str, cap: int) -> int:
    """How many chunks hold ``unit``, counting no further than ``cap``."""
    return conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
        (unit, cap)).fetchone()[0]


def idf(n_rows: int, df: int) -> float:
    """FTS5's bm25 idf (floored at 1e-6 as FTS5 does); it falls as df grows."""
    return max(math.log((n_rows - df + 0.5) / (df + 0.5)), 1e-6)


# Counts per connection, kept while the index is unchanged: the app re-plans the same words on
# every keystroke. id(conn) -> (conn, version, word -> df or None for a word the tokenizer
# splits); the entry holds the connection, so no other can
# take its id while it is cached.
_DF_CACHE: dict[int, tuple[Connection, tuple[int, int], dict[str, int | None]]] = {}
_DF_CONNECTIONS, _DF_WORDS = 8, 50_000


def term_dfs(conn: Connection, terms: list[str]) -> dict[str, int]:
    """Exact document frequency of single words, as the index counts them.

    A word the tokenizer splits into several tokens is left out; the caller counts those with
    a MATCH. Counts are reused while ``PRAGMA data_version`` (another connection's commit) and
    ``total_changes`` (a write on this one) both stand.
    """
    version = conn.execute("PRAGMA data_version").fetchone()[0]
    entry = _DF_CACHE.get(id(conn))
    known: dict[str, int | None] = {}
    if entry is not None and entry[0] is conn and entry[1] == (version, conn.total_changes):
        known = entry[2]
    missing = [t for t in dict.fromkeys(terms) if t not in known]
    if missing:
        if len(known) + len(missing) > _DF_WORDS:
            known = {}
        single = stem(missing)
        counts = term_counts.document_frequencies(conn, sorted(set(single.values())))
        known = {**known, **{t: counts.get(single[t], 0) if t in single else None
                             for t in missing}}
    _DF_CACHE.pop(id(conn), None)
    while len(_DF_CACHE) >= _DF_CONNECTIONS:
        _DF_CACHE.pop(next(iter(_DF_CACHE)))
    _DF_CACHE[id(conn)] = (conn, (version, conn.total_changes), known)
    return {t: known[t] for t in terms if known[t] is not None}


def plan(conn: Connection, parsed: ParsedQuery, common_df: int,
         budget: int = POSTINGS_BUDGET) -> KeywordPlan | None:
    words = parsed.terms + parsed.function_words
    units = [quote(t) for t in words] + [quote(" ".join(p)) for p in parsed.phrases]
    if not units:
        return None
    try:
        by_term = term_dfs(conn, words)
    except Exception:  # noqa: BLE001 - counts unreadable (no fts5vocab?): count each unit instead
        by_term = {}
    exact = {quote(t): n for t, n in by_term.items()}
    counts = {u: exact[u] if u in exact else capped_df(conn, u, common_df) for u in units}
    common = [u for u in units if counts[u] >= common_df]
    rare = [u for u in units if counts[u] < common_df]
    if sum(counts.values()) <= budget:
        common, rare = [], units  # few enough postings to score them all: exact
    return KeywordPlan(units, common, rare, df={u: exact[u] for u in common if u in exact},
                       budget=budget, term_df=by_term,
                       weight={quote(t): n for t, n in parsed.counts.items()},
                       weighted=getattr(conn, "rank_extension", False), counts=counts)


def _exact_df(conn: Connection, p: KeywordPlan, n_rows: int) -> dict[str, int]:
    for unit in p.common:
        if unit not in p.df:
            p.df[unit] = capped_df(conn, unit, n_rows + 1)
    return p.df


def _within_budget(conn: Connection, p: KeywordPlan, n_rows: int) -> list[str]:
    """The least frequent common units whose posting lists fit the budget (at least one)."""
    df = _exact_df(conn, p, n_rows)
    kept, total = [], 0
    for unit in sorted(p.common, key=df.__getitem__):
        if kept and total + df[unit] > p.budget:
            break
        kept.append(unit)
        total += df[unit]
    return kept


def _any(p: KeywordPlan, units: list[str]) -> str:
    """The OR of ``units``, as the MATCH's phrases (``KeywordPlan.said``)."""
    return " OR ".join(p.said(units))


def _run(conn: Connection, p: KeywordPlan, units: list[str], match: str, where: str,
         args: list, depth: int, postings: int = 0) -> list:
    """Top ``depth`` rows of ``match`` (built from ``units`` as ``KeywordPlan.said`` gives
    them, in this order).

    A statement expected to match more than the budget (``postings``: an upper bound) scores
    only the budget's worth of most recently indexed matches, found by walking the match in
    rowid order without scoring: scoring costs ~0.5-3 µs a row (each row's length and
    positions are read), so one word in 400k of 2M chunks took 235 ms, its newest 60k 37 ms.
    With filters, those of the newest matches that pass them, unless fewer than ``depth`` do
    (a narrow filter): then every match."""
    if postings > p.budget:
        floor = conn.execute(NEWEST_FLOOR, [match, p.budget]).fetchone()
        if floor is not None:
            rows = _ranked(conn, p, units, match, where, args, depth, floor[0])
            if len(rows) == depth or (where == "1=1" and not args):
                p.newest = True
                return rows
    return _ranked(conn, p, units, match, where, args, depth, None)


def _ranked(conn: Connection, p: KeywordPlan, units: list[str], match: str, where: str,
            args: list, depth: int, floor: int | None) -> list:
    """One ranked statement: the filters in SQL, the rows above ``floor`` if one is given,
    scored by memlens_bm25 with the plan's counts (FTS5's bm25 without the extension)."""
    unfiltered = where == "1=1" and not args
    template = SELECT_UNFILTERED if unfiltered else SELECT
    newest = "" if floor is None else " AND chunks_fts.rowid > ?"
    bound = [] if floor is None else [floor]
    params = [match, *bound, depth] if unfiltered else [match, *args, *bound, depth]
    rank = rank_sql(conn, "chunks_fts", p.dfs(p.said(units)), p.weights(units))
    try:
        return conn.execute(template.format(where=where, rank=rank, newest=newest),
                            params).fetchall()
    except OperationalError as exc:  # the MATCH has other phrases than the units (never seen)
        if "memlens_bm25" not in str(exc):
            raise
        return conn.execute(template.format(where=where, rank="bm25(chunks_fts)",
                                            newest=newest), params).fetchall()


def _walked(conn: Connection, p: KeywordPlan, depth: int, walk: int) -> list | None:
    """The exact top ``depth`` of the OR of every unit, from one memlens_topk call, when its
    posting lists together fit ``walk`` postings; None when they do not or the extension
    cannot answer (a rowid past its range, an index it cannot read): the plans serve then."""
    df = _exact_df(conn, p, fts_row_count(conn)) if p.common else {}
    if sum(df[u] if u in df else p.counts[u] for u in p.units) > walk:
        return None
    words = {u: u[1:-1].replace('""', '"') for u in p.units}
    tokens = stem(list(words.values()))  # a unit of one token is read from the index's pages
    values = [*p.dfs(p.units), *p.weights(p.units), *(tokens.get(words[u]) for u in p.units)]
    found = conn.execute(TOPK.format(values=", ".join("?" * len(values))),
                         [depth, *values, _any(p, p.units)]).fetchone()
    if found is None:
        return []  # nothing matches
    if found[0] is None:
        return None
    hits = list(struct.iter_unpack("=qd", found[0]))
    if not hits:
        return []
    return conn.execute(BY_ROWID.format(values=", ".join(["(?, ?)"] * len(hits))),
                        [v for hit in hits for v in hit]).fetchall()


def _merge(depth: int, *lists: list) -> list:
    """The best ``depth`` rows of several lists; a row in more than one takes the last's."""
    rows = {r["rowid"]: r for rows in lists for r in rows}
    return sorted(rows.values(), key=lambda r: (-r["score"], r["rowid"]))[:depth]


def keyword_search(conn: Connection, parsed: ParsedQuery, depth: int, where: str, args: list,
                   common_df: int, budget: int = POSTINGS_BUDGET,
                   walk: int = WALK_POSTINGS) -> tuple[list, KeywordPlan | None]:
    """Top ``depth`` rows by bm25 over the OR of the query units, with filters in ``where``."""
    p = plan(conn, parsed, common_df, budget)
    if p is None:
        return [], None
    if p.weighted and where == "1=1" and not args:
        walked = _walked(conn, p, depth, walk)
        if walked is not None:
            p.path = "walk"
            return walked, p
    if not p.common:
        return _run(conn, p, p.units, _any(p, p.units), where, args, depth), p
    n_rows = fts_row_count(conn)
    any_common = _any(p, p.common)
    if p.rare:
        any_rare = _any(p, p.rare)
        # Rows holding a rare unit: those with a common one too, scored over every unit, and
        # the rare units alone (a row's score there is exact when it holds no common unit,
        # and an under-estimate otherwise, overridden by the first list's exact one). Not
        # ``(R) NOT (C)``: each statement's bm25 walks every phrase's whole posting list for
        # its idf, and that one walks the common ones.
        found = _merge(depth, _run(conn, p, p.rare, any_rare, where, args, depth),
                       _run(conn, p, p.rare + p.common, f"({any_rare}) AND ({any_common})",
                            where, args, depth))
        df = _exact_df(conn, p, n_rows)
        bound = (BM25_K1 + 1) * sum(p.weight.get(unit, 1) * idf(n_rows, df[unit])
                                    for unit in p.common)
        if len(found) == depth and found[-1]["score"] > bound:
            p.path = "maxscore"
            return found, p
        p.path = "maxscore+common"
        kept = _within_budget(conn, p, n_rows)
        rest = _run(conn, p, kept + p.rare, f"({_any(p, kept)}) NOT ({any_rare})", where,
                    args, depth, sum(df[u] for u in kept))
        return _merge(depth, found, rest), p
    if len(p.common) > 1:
        df = _exact_df(conn, p, n_rows)
        found = _run(conn, p, p.common, " AND ".join(p.said(p.common)), where, args, depth,
                     min(df[u] for u in p.common))
        if len(found) == depth:
            p.path = "and-first"
            return found, p
        p.path = "and-first+or"
        kept = _within_budget(conn, p, n_rows)
        return _merge(depth, found, _run(conn, p, kept, _any(p, kept), where, args,
                                         depth, sum(df[u] for u in kept))), p
    return _run(conn, p, p.common, any_common, where, args, depth,
                sum(_exact_df(conn, p, n_rows).values())), p
