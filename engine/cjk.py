"""Keyword search in scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar).

FTS5's unicode61 tokenizer reads a run of such letters as one token, so 会議 never matches
「明日の会議は午後三時からです」. Chunks that contain such text are also kept in ``chunks_cjk``
(FTS5, ``trigram`` tokenizer, see engine/schema.py and docs/data-layer.md). A query's runs of
these scripts are matched as substrings: a run of three or more characters through the trigram
index, a run of one or two (most Chinese and Japanese words) by a scan of ``chunks_cjk``'s rows
only. Hits are scored with FTS5's own bm25 formula (k1 = 1.2, b = 0.75; idf over every chunk,
the substring as the term, lengths in characters), so they sit on the keyword arm's scale and
:func:`merge_ranked` can sum and interleave them with its FTS5 rows.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import defaultdict

from .db import Connection

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
_ANY = re.compile(f"[{_CLASS}]")
_RUN = re.compile(f"[{_CLASS}]+")
# the same set for SQL (the rare in-place content update, engine/schema.py)
GLOB = f"*[{_CLASS}]*"

BM25_K1, BM25_B = 1.2, 0.75
MAX_UNITS = 16
MAX_QUERY_CHARS = 20_000
_COLUMNS = ("rowid", "id", "content", "source_file", "source_type", "content_date", "metadata",
            "embedding_truncated")


def has_unsegmented(text: str | None) -> bool:
    """Does ``text`` hold a letter of a script written without spaces between words?"""
    return bool(text) and _ANY.search(text) is not None


def cjk_terms(query: str | None) -> list[str]:
    """The query's runs of unsegmented script, deduped in query order (the units searched).

    Taken from the raw query: the word tokenizer splits Thai at its vowel and tone marks.
    """
    text = unicodedata.normalize("NFC", (query or "")[:MAX_QUERY_CHARS])
    return list(dict.fromkeys(_RUN.findall(text)))[:MAX_UNITS]


def has_cjk_table(conn: Connection) -> bool:
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'chunks_cjk'").fetchone() is not None


def _varints(blob: bytes, count: int) -> list[int]:
    """The first ``count`` varints of an FTS5 record (the averages record: rows, tokens…)."""
    out, i = [], 0
    while len(out) < count and i < len(blob):
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def _averages(conn: Connection, table: str) -> list[int]:
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return _varints(row[0], 2) if row and row[0] else []


def _idf(n_rows: int, df: int) -> float:
    return max(math.log((n_rows - df + 0.5) / (df + 0.5)), 1e-6)  # FTS5's, floored as it is


def _hits(conn: Connection, term: str) -> list:
    """(rowid, length, tf) of every chunk holding ``term``: trigram index from 3 characters,
    else a scan of the chunks_cjk rows (a trigram index cannot look up shorter strings)."""
    tf = "(length(content) - length(replace(content, ?, ''))) / ?"
    if len(term) >= 3:
        sql = (f"SELECT rowid, length(content), {tf} FROM chunks_cjk "
               "WHERE chunks_cjk MATCH ?")
        return conn.execute(sql, (term, len(term), '"' + term + '"')).fetchall()
    sql = f"SELECT rowid, length(content), {tf} FROM chunks_cjk WHERE instr(content, ?) > 0"
    return conn.execute(sql, (term, len(term), term)).fetchall()


def cjk_scores(conn: Connection, terms: list[str]) -> dict[int, float]:
    """bm25 of every chunk holding a term (summed over the terms, as an OR query scores)."""
    main, cjk = _averages(conn, "chunks_fts"), _averages(conn, "chunks_cjk")
    if len(cjk) < 2 or not cjk[0]:
        return {}
    n_rows = max(main[0] if main else 0, cjk[0])
    avg_len = cjk[1] / cjk[0] + 2  # a trigram per character but the last two
    scores: dict[int, float] = defaultdict(float)
    for term in terms:
        hits = _hits(conn, term)
        weight = _idf(n_rows, len(hits))
        for rowid, length, tf in hits:
            tf = max(tf, 1)
            norm = BM25_K1 * (1 - BM25_B + BM25_B * length / avg_len)
            scores[rowid] += weight * tf * (BM25_K1 + 1) / (tf + norm)
    return scores


def cjk_search(conn: Connection, query: str, depth: int, where: str = "1=1",
               args: list | tuple = ()) -> list[dict]:
    """Top ``depth`` chunks for the query's unsegmented runs, filtered by ``where`` (over
    ``chunks c``, as the keyword arm's), as rows with the keyword arm's keys and a ``score``."""
    terms = cjk_terms(query)
    if not terms or depth <= 0 or not has_cjk_table(conn):
        return []
    scores = cjk_scores(conn, terms)
    if not scores:
        return []
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[dict] = []
    for start in range(0, len(ranked), 500):  # filters: in SQL, in rank order, until full
        part = dict(ranked[start:start + 500])
        rows = conn.execute(
            f"SELECT {', '.join('c.' + k for k in _COLUMNS)} FROM chunks c "
            f"WHERE c.rowid IN (SELECT value FROM json_each(?)) AND {where}",
            [json.dumps(list(part)), *args]).fetchall()
        found = sorted(({**dict(zip(_COLUMNS, r, strict=True)), "score": part[r[0]]} for r in rows),
                       key=lambda r: (-r["score"], r["rowid"]))
        out += found[:depth - len(out)]
        if len(out) >= depth:
            break
    return out


def merge_ranked(fts_rows: list, cjk_rows: list[dict], depth: int) -> list[dict]:
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
