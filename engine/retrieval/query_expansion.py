"""Related words from the local embedder's own vocabulary, for chat windows (the keyword arm's
third look, after passage evidence).

A question and the message that answers it often name a thing differently: "what pets does
Nate have?" against "this is Max! [a photo of a dog]", "injured" against "hurt". WordLlama's
token matrix (the `local` embedder's weights, shipped in its wheel) places such words close:
each query word that is one whole token of that vocabulary gets its nearest whole-word tokens
(cosine >= NEIGHBOUR_FLOOR, at most NEIGHBOURS of them). A chat window the arm found gains, for
each related word it holds,

    EXPANSION_WEIGHT * similarity * bm25(word) / best_bm25

on top of its keyword score, where bm25(word) is FTS5's bm25 of that word alone over the arm's
hits (so the index's stemmer and idf apply) and best_bm25 the arm's best bm25. A word with the
stem of a query word is left out (the stemmer already matches it). Other chunks are untouched:
on SciFact abstracts the same stage moved nDCG@10 up but R@100 below plain FTS5
(docs/benchmarks.md, "Related words in chat windows").
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from engine.rank.candidates import Candidate
from engine.retrieval.fts_query import FTS5_STOP_WORDS
from engine.retrieval.stemmer import stem as stems
from engine.retrieval.word_bm25 import word_bm25
from engine.storage.db import Connection

if TYPE_CHECKING:  # numpy loads with the vocabulary: a search with no chat window needs neither
    import numpy as np

NEIGHBOURS = 7  # nearest vocabulary words looked at per query word (besides itself)
NEIGHBOUR_FLOOR = 0.45  # cosine in WordLlama's token space; below it neighbours are noise
EXPANSION_WEIGHT = 0.5  # a related word counts half as much as the query's own word
MAX_RELATED = 16  # related words per query, most similar first: bounds the bm25 lookups
NO_EVIDENCE = 1e-3  # bm25 of a word in most chunks (FTS5 floors its idf at 1e-6): not shown


class _Vocabulary:
    """WordLlama's whole-word tokens ("▁paint", not "ets") as unit vectors, and the
    tokenizer that says whether a query word is one token."""

    def __init__(self) -> None:
        import numpy as np

        from engine.embedder import LocalEmbedder

        model = LocalEmbedder.shared_model()  # the wheel's files, memory-mapped; nothing downloaded
        self.tokenizer = model.tokenizer
        vocab = self.tokenizer.get_vocab()  # token -> id
        self.space = vocab.get("▁")
        rows = sorted(i for t, i in vocab.items()
                      if i < model.matrix.shape[0] and t.startswith("▁") and _is_word(t[1:]))
        token = {i: t for t, i in vocab.items()}
        self.words = [token[i][1:] for i in rows]
        self.matrix = _unit(np.asarray(model.matrix[rows], dtype=np.float32))
        self.source = model.matrix

    def neighbours(self, words: list[str]) -> dict[str, tuple[tuple[str, float], ...]]:
        """Each word's nearest whole words, in one matrix product for all of them (a query
        of 60 words asked one at a time spent ~50 ms here)."""
        import numpy as np

        out: dict[str, tuple[tuple[str, float], ...]] = dict.fromkeys(words, ())
        ids = {}
        for word in words:
            pieces = [i for i in self.tokenizer.encode(" " + word, add_special_tokens=False).ids
                      if i != self.space]
            if len(pieces) == 1 and pieces[0] < self.source.shape[0]:
                ids[word] = pieces[0]  # a word split into pieces ("ankle" -> an|k|le) has none
        if not ids:
            return out
        sims = self.matrix @ _unit(np.asarray(self.source[list(ids.values())], np.float32)).T
        k = min(NEIGHBOURS + 1, len(self.words) - 1)
        for col, word in enumerate(ids):
            column = sims[:, col]
            top = np.argpartition(-column, k)[:k + 1]
            top = top[np.argsort(-column[top], kind="stable")][:NEIGHBOURS + 1]
            out[word] = tuple((self.words[r], float(column[r])) for r in top
                              if column[r] >= NEIGHBOUR_FLOOR and self.words[r] != word)
        return out


def _is_word(text: str) -> bool:
    return len(text) >= 3 and text.isalpha() and text.islower()


def _unit(m: np.ndarray) -> np.ndarray:
    import numpy as np

    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


@functools.lru_cache(maxsize=1)
def _vocabulary() -> _Vocabulary | None:
    try:
        return _Vocabulary()
    except (ImportError, OSError, ValueError, KeyError):  # no wheel: no related words
        return None


_NEIGHBOURS: dict[str, tuple[tuple[str, float], ...]] = {}  # word -> its neighbours
_NEIGHBOURS_MAX = 50_000


def neighbours_of(words: list[str]) -> dict[str, tuple[tuple[str, float], ...]]:
    """(word, cosine) for the vocabulary's nearest whole words to each of ``words``, most
    similar first; () when the vocabulary is missing or a word is not one of its tokens."""
    words = [w.lower() for w in words]
    vocab = _vocabulary()
    if vocab is None:
        return dict.fromkeys(words, ())
    new = [w for w in dict.fromkeys(words) if w not in _NEIGHBOURS]
    if new:
        if len(_NEIGHBOURS) + len(new) > _NEIGHBOURS_MAX:
            _NEIGHBOURS.clear()
        _NEIGHBOURS.update(vocab.neighbours(new))
    return {w: _NEIGHBOURS[w] for w in words}


def vocabulary_neighbours(word: str) -> tuple[tuple[str, float], ...]:
    return neighbours_of([word])[word.lower()]


def related_words(terms: list[str]) -> dict[str, float]:
    """Related word -> its similarity to the query word it came from (the best one), without
    stop words and words sharing a query word's stem."""
    found: dict[str, float] = {}
    for near in neighbours_of(terms).values():
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
