"""Related words from the local embedder's own vocabulary, for chat windows (the keyword arm's
third look, after passage evidence).

A question and the message that answers it often name a thing differently: "what pets does
Nate have?" against "this is Max! [a photo of a dog]", "injured" against "hurt". WordLlama's
token matrix (the `local` embedder's weights) places such words close: each query word that is
one whole token of that vocabulary gets its nearest whole-word tokens, read from a table computed
once from those weights (engine/retrieval/word_neighbours.py). A chat window the arm found gains, for
each related word it holds,

    EXPANSION_WEIGHT * similarity * bm25(word) / best_bm25

on top of its keyword score, where bm25(word) is FTS5's bm25 of that word alone over the arm's
hits (so the index's stemmer and idf apply) and best_bm25 the arm's best bm25. A word with the
stem of a query word is left out (the stemmer already matches it). Other chunks are untouched:
on SciFact abstracts the same stage moved nDCG@10 up but R@100 below plain FTS5
(docs/benchmarks.md, "Related words in chat windows").
"""

from __future__ import annotations

from engine.rank.candidates import Candidate
from engine.retrieval.fts_query import FTS5_STOP_WORDS
from engine.retrieval.stemmer import stem as stems
from engine.retrieval.word_bm25 import word_bm25
from engine.retrieval.word_neighbours import neighbours
from engine.storage.db import Connection

EXPANSION_WEIGHT = 0.5  # a related word counts half as much as the query's own word
MAX_RELATED = 16  # related words per query, most similar first: bounds the bm25 lookups
NO_EVIDENCE = 1e-3  # bm25 of a word in most chunks (FTS5 floors its idf at 1e-6): not shown


def related_words(terms: list[str]) -> dict[str, float]:
    """Related word -> its similarity to the query word it came from (the best one), without
    stop words and words sharing a query word's stem."""
    found: dict[str, float] = {}
    for near in (neighbours(t.lower()) for t in terms):
        for word, sim in near:
            if word not in FTS5_STOP_WORDS:
                found[word] = max(found.get(word, 0.0), sim)
    if not found:
        return {}
    words = {*found, *(t.lower() for t in terms)}
    stem = {w: w for w in words} | stems(words)  # a word the tokenizer splits stands for itself
    taken = {stem[t.lower()] for t in terms}
    out: dict[str, float] = {}
    for word, sim in sorted(found.items(), key=lambda p: (-p[1], p[0]))[:MAX_RELATED]:
        if stem[word] not in taken:  # one word per stem: the most similar
            taken.add(stem[word])
            out[word] = sim
    return out


def with_related_words(conn: Connection, cands: list[Candidate], chat_hits: list[Candidate],
                       terms: list[str]) -> list[Candidate]:
    """The keyword arm's hits re-ordered once chat windows holding related words gain their
    share (module docstring); ``related`` records word -> (similarity, its bm25). Hits are
    updated in place; no chat window (``chat_hits``, engine/retrieval/passages.py): unchanged."""
    chat = {c.rowid: c for c in chat_hits}
    if not chat:
        return cands
    related = related_words(terms)
    if not related:
        return cands
    scores = word_bm25(conn, list(related),
                       {rid: (c.content, c.source_file, c.source_type) for rid, c in chat.items()})
    for rowid, by_word in scores.items():
        for word, bm25 in by_word.items():
            if bm25 > NO_EVIDENCE:
                chat[rowid].related[word] = (related[word], bm25)
    best = max((c.bm25 or 0.0 for c in cands), default=0.0) or 1.0
    for c in cands:
        base = c.keyword_score if c.keyword_score is not None else (c.bm25 or 0.0) / best
        c.keyword_score = base + related_score(c) / best
    out = sorted(cands, key=lambda c: (-c.keyword_score, c.keyword_rank or 0))
    for rank, c in enumerate(out):
        c.keyword_rank = rank
    return out


def related_score(c: Candidate) -> float:
    """What a hit's related words add to its keyword score, before the division by the best
    bm25."""
    return sum(EXPANSION_WEIGHT * sim * bm25 for sim, bm25 in c.related.values())


def describe_related(c: Candidate) -> str:
    """The related words' part of a hit's keyword score, for the explain text
    (" + related pet 0.5 × 0.66 × bm25 1.234/best bm25"); "" when it has none."""
    parts = [f"{word} {EXPANSION_WEIGHT:g} × {sim:.2f} × bm25 {bm25:.4g}"
             for word, (sim, bm25) in sorted(c.related.items(), key=lambda p: -p[1][0] * p[1][1])]
    return f" + related {', '.join(parts)}/best bm25" if parts else ""
