"""FTS5's bm25 of single words over a few known rows, without a MATCH per word.

Every statement whose ``bm25()`` runs first walks each phrase's whole posting list to count
it (its idf): at 500k-2M chunks, 1-19 ms a common word, once per statement. Here the same
formula takes its numbers from what the index already keeps: the row count and token totals
(the averages record), each row's length (``chunks_fts_docsize``), each word's document
frequency (the term list, cached per connection by engine/retrieval/keyword_arm.py) and its count in
the row's columns, tokenized by the index's own tokenizer (engine/retrieval/stemmer.py).
"""

from __future__ import annotations

from engine.retrieval import stemmer
from engine.retrieval.keyword_arm import BM25_K1, idf, term_dfs
from engine.retrieval.passages import BM25_B, word_heads, words_starting
from engine.storage.db import Connection, averages, varints


def index_totals(conn: Connection) -> tuple[int, float]:
    """(rows, mean tokens a row over every column), as FTS5's bm25 reads them."""
    counts = averages(conn)
    if not counts or not counts[0]:
        return 0, 0.0
    return counts[0], sum(counts[1:]) / counts[0]


def doc_lengths(conn: Connection, rowids: list[int]) -> dict[int, int]:
    """Tokens in each row, every column together."""
    marks = ",".join("?" * len(rowids))
    return {rid: sum(varints(sz)) for rid, sz in conn.execute(
        f"SELECT id, sz FROM chunks_fts_docsize WHERE id IN ({marks})", rowids)}


def word_bm25(conn: Connection, words: list[str],
              rows: dict[int, tuple[str, ...]]) -> dict[int, dict[str, float]]:
    """rowid -> {word: bm25 of that word alone} for the rows holding it; ``rows`` maps a rowid
    to its indexed columns' text (content, source_file, source_type). A word the tokenizer
    splits into several tokens (FTS5 reads it as a phrase) is left out."""
    stems = stemmer.stem(words)
    if not stems or not rows:
        return {}
    heads = word_heads(stems.values())
    # each distinct text scanned once: a query's chat hits share their file and type
    distinct = dict.fromkeys(text for columns in rows.values() for text in columns)
    scanned = {text: words_starting(text, heads) for text in distinct}
    hits = {rid: [w for text in texts for w in scanned[text]] for rid, texts in rows.items()}
    tokens = stemmer.tokens({w for words in hits.values() for w in words})  # one lookup
    counts: dict[int, dict[str, int]] = {}  # rowid -> stem -> count
    for rid, words in hits.items():
        tf: dict[str, int] = {}
        for w in words:
            for token in tokens[w]:
                tf[token] = tf.get(token, 0) + 1
        counts[rid] = tf
    present = {s for tf in counts.values() for s in tf}
    by_stem = {w: s for w, s in stems.items() if s in present}
    if not by_stem:
        return {}
    df = term_dfs(conn, sorted(by_stem))
    n_rows, avgdl = index_totals(conn)
    rowids = [rid for rid, tf in counts.items() if any(s in tf for s in by_stem.values())]
    lengths = doc_lengths(conn, rowids)
    out: dict[int, dict[str, float]] = {}
    for rid in rowids:
        tf = counts[rid]
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths.get(rid, 0) / (avgdl or 1.0))
        out[rid] = {w: idf(n_rows, df[w]) * tf[s] * (BM25_K1 + 1) / (tf[s] + norm)
                    for w, s in by_stem.items() if s in tf and w in df}
    return out
