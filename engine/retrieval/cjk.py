"""Keyword search in scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar).

FTS5's unicode61 tokenizer reads a run of such letters as one token, so 会議 never matches
「明日の会議は午後三時からです」. Chunks that contain such text are also kept in ``chunks_cjk``
(FTS5, ``trigram`` tokenizer, see engine/schema.py). A query's runs of
these scripts are matched as substrings: a run of three or more characters through the trigram
index, a run of one or two (most Chinese and Japanese words) through the trigrams that start with
it. Hits are scored with FTS5's own bm25 formula (k1 = 1.2, b = 0.75; idf over every chunk,
the substring as the term, lengths in characters), so they sit on the keyword arm's scale and
:func:`merge_ranked` can sum and interleave them with its FTS5 rows.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from engine.storage.db import Connection, averages

# (first, last) code points of the scripts unicode61 cannot segment
RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),    # Thai
    (0x0E80, 0x0EFF),    # Lao
    (0x1000, 0x109F),    # Myanmar
    (0x1100, 0x11FF),    # Hangul Jamo
    (0x1780, 0x17FF),    # Khmer
    (0x3040, 0x309F),    # Hiragana
    (0x30A0, 0x30FF),    # Katakana
    (0x3130, 0x318F),    # Hangul compatibility Jamo
    (0x31F0, 0x31FF),    # Katakana phonetic extensions
    (0x3400, 0x4DBF),    # CJK extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xAC00, 0xD7AF),    # Hangul syllables
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFF66, 0xFF9F),    # halfwidth Katakana
    (0x20000, 0x3134F),  # CJK extensions B-G
)

_CLASS = "".join(f"{chr(a)}-{chr(b)}" for a, b in RANGES)


@functools.cache
def _runs() -> re.Pattern[str]:
    """Compiled on the first text that is not ASCII: the class spans ~200k code points and
    costs ~6 ms to compile, paid by every `memlens search` process when done at import."""
    return re.compile(f"[{_CLASS}]+")


# the same set for SQL (the rare in-place content update, engine/schema.py)
GLOB = f"*[{_CLASS}]*"

BM25_K1, BM25_B = 1.2, 0.75
MAX_UNITS = 16
MAX_TRIGRAMS = 400  # a 1-2 character term with more (a very common character): scan instead
SCORE_BUDGET = 2_000  # chunks scored per term (~6 us each); df is always exact
MAX_QUERY_CHARS = 20_000
_COLUMNS = ("rowid", "id", "content", "source_file", "source_type", "content_date", "first_date",
            "metadata",
            "embedding_truncated")


def has_unsegmented(text: str | None) -> bool:
    """Does ``text`` hold a letter of a script written without spaces between words?"""
    return bool(text) and not text.isascii() and _runs().search(text) is not None


def cjk_terms(query: str | None) -> list[str]:
    """The query's runs of unsegmented script, deduped in query order (the units searched).

    Taken from the raw query: the word tokenizer splits Thai at its vowel and tone marks.
    """
    text = unicodedata.normalize("NFC", (query or "")[:MAX_QUERY_CHARS])
    return list(dict.fromkeys(_runs().findall(text)))[:MAX_UNITS]


def has_cjk_table(conn: Connection) -> bool:
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'chunks_cjk'").fetchone() is not None


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _term(conn: Connection, term: str) -> tuple[str, list, int] | None:
    """How chunks_cjk rows holding ``term`` are found (a WHERE clause over ``k`` and its
    parameters) and how many there are (df, counted before any filter as FTS5's idf is), or
    None when none does. From three characters the trigram index finds it; a shorter string
    starts a trigram (the stored text is padded, engine/schema.py), so its trigrams are looked
    up in the index's vocabulary and OR-ed; when they are too many, the rows are scanned."""
    if len(term) >= 3:
        clause, params = "k.chunks_cjk MATCH ?", [_quote(term)]
    else:
        trigrams = [t for (t,) in conn.execute(
            "SELECT term FROM chunks_cjk_vocab WHERE term >= ? AND term < ? LIMIT ?",
            (term, term + "\U0010ffff", MAX_TRIGRAMS + 1))]
        if not trigrams:
            return None
        clause, params = (("instr(k.content, ?) > 0", [term]) if len(trigrams) > MAX_TRIGRAMS
                          else ("k.chunks_cjk MATCH ?", [" OR ".join(map(_quote, trigrams))]))
    df = conn.execute(f"SELECT count(*) FROM chunks_cjk k WHERE {clause}", params).fetchone()[0]
    return (clause, params, df) if df else None


def _hits_sql(term: str, clause: str, params: list, df: int, where: str,
              args: list | tuple) -> tuple[str, list]:
    """(rowid, len, tf, df) of the newest SCORE_BUDGET chunks holding ``term`` that pass the
    filters: the cost of a very common term stays bounded, and the newest of its chunks are the
    ones recency favours anyway."""
    join = "" if where == "1=1" else " CROSS JOIN chunks c ON c.rowid = k.rowid"
    sql = ("SELECT * FROM (SELECT k.rowid AS rowid, length(k.content) AS len, "
           "max((length(k.content) - length(replace(k.content, ?, ''))) / ?, 1) AS tf, "
           f"? AS df FROM chunks_cjk k{join} WHERE {clause} AND {where} "
           "ORDER BY k.rowid DESC LIMIT ?)")
    return sql, [term, len(term), df, *params, *args, SCORE_BUDGET]


def cjk_search(conn: Connection, query: str, depth: int, where: str = "1=1",
               args: list | tuple = ()) -> list:
    """Top ``depth`` chunks for the query's unsegmented runs, filtered by ``where`` (over
    ``chunks c``, as the keyword arm's), as rows with the keyword arm's columns and ``score``:
    bm25 summed over the runs, as an OR query scores. One statement: only the top rows leave
    SQLite."""
    terms = cjk_terms(query)
    if not terms or depth <= 0 or not has_cjk_table(conn):
        return []
    main, cjk = averages(conn, "chunks_fts")[:2], averages(conn, "chunks_cjk")[:2]
    if len(cjk) < 2 or not cjk[0]:
        return []
    n_rows = max(main[0] if main else 0, cjk[0])
    avg_len = cjk[1] / cjk[0] + 2  # a trigram per character but the last two
    found = [(term, t) for term in terms if (t := _term(conn, term)) is not None]
    if not found:
        return []
    parts = [_hits_sql(term, *t, where, args) for term, t in found]
    idf = "max(ln((? - h.df + 0.5) / (h.df + 0.5)), 1e-6)"  # FTS5's, floored as it is
    norm = f"{BM25_K1} * (1 - {BM25_B} + {BM25_B} * h.len / ?)"
    sql = (
        f"WITH hits AS ({' UNION ALL '.join(p for p, _ in parts)}), "
        f"top AS (SELECT h.rowid, sum({idf} * h.tf * {BM25_K1 + 1} / (h.tf + {norm})) AS score "
        "FROM hits h GROUP BY h.rowid ORDER BY score DESC, h.rowid LIMIT ?) "
        f"SELECT {', '.join('c.' + k for k in _COLUMNS)}, top.score FROM top "
        "JOIN chunks c ON c.rowid = top.rowid ORDER BY top.score DESC, c.rowid")
    params = [a for _, p in parts for a in p] + [n_rows, avg_len, depth]
    return conn.execute(sql, params).fetchall()


def merge_ranked(fts_rows: list, cjk_rows: list, depth: int) -> list[dict]:
    """The keyword arm's list with the CJK hits in it: one row per chunk, a chunk found by
    both scored by the sum (as one OR query over all units would), best first."""
    merged: dict[int, dict] = {}
    for row in [*fts_rows, *cjk_rows]:
        row = {k: row[k] for k in row.keys()}
        if row["rowid"] in merged:
            merged[row["rowid"]]["score"] += row["score"]
        else:
            merged[row["rowid"]] = row
    return sorted(merged.values(), key=lambda r: (-r["score"], r["rowid"]))[:depth]
