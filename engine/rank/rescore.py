"""Re-scoring the fused candidates with a small learned model (docs/design.md, stage 5).

Fusion is one formula over two scores; the engine knows more about each candidate: each arm's
score and rank, whether both arms found it, a chat window's best passage and best message,
how many of the query's words it holds and how close together, its length and kind. A
linear model over those signals (``FEATURES``), fitted offline by bench/bench_rescore.py with
cross-validation that never sees the collection (or conversation) it is scored on and shipped
as data (rescore_models.json, per embedder), gives each of the first ``RESCORE_DEPTH`` fused
candidates a new score: its odds against the best candidate under the model. Candidates below that
depth keep their fused order under the rescored ones. An embedder without a model keeps the
fusion's scores; ``[search] rescore = false`` (``--no-rescore``) does too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from engine.rank.candidates import Candidate

RESCORE_DEPTH = 50  # the fused candidates re-scored: a page's head comes from them
MODELS = Path(__file__).with_name("rescore_models.json")
# chat windows are the ones whose signals differ in kind (passages, message vectors)
_CHAT_ID = "#w"
PROXIMITY_CHARS = 120  # two query words this close or closer count as said together


@dataclass(frozen=True)
class Signals:
    """What a query contributes to every candidate's signals: its stems (for words matched
    and proximity) and the fusion's semantic weight (to read each arm's part back)."""

    stems: frozenset[str]
    heads: tuple[str, ...]
    weight: float


# name -> what it measures; the order is the model's
FEATURES: dict[str, str] = {
    "fused": "the fused score over the best one",
    "keyword": "the keyword arm's score over its best",
    "semantic": "the similarity above the reference over the best one's",
    "both arms": "1 when both arms found it",
    "keyword rank": "1 / (1 + its rank in the keyword arm)",
    "semantic rank": "1 / (1 + its rank in the semantic arm)",
    "passage": "a chat window's best passage over the best passage",
    "best message": "how far its best message's similarity is above the window's",
    "words matched": "the share of the query's words it holds",
    "words close": "the share of the query's words said close together",
    "length": "log of its length in characters, over 8",
    "chat": "1 for a chat window",
    "chat × semantic": "the semantic part, for a chat window",
    "chat × words matched": "the share of words held, for a chat window",
    "neighbours": "the best fused score of the chat windows either side, over the best",
    "long × semantic": "the semantic part, times the query's words over 10 (at most 1)",
    "long × keyword": "the keyword part, times the query's words over 10 (at most 1)",
}


@dataclass(frozen=True)
class Model:
    """A linear ranking model over ``FEATURES``: a candidate's value is Σ weight × signal, and
    its score ``exp(value − the best candidate's value)``: its odds against the best one under
    a softmax over the candidates (how the model was fitted), 1 for the best."""

    weights: tuple[float, ...]
    about: str = ""

    def contributions(self, signals: list[float]) -> dict[str, float]:
        return {name: w * x for name, w, x in zip(FEATURES, self.weights, signals, strict=True)
                if w * x != 0.0}

    def value(self, signals: list[float]) -> float:
        return sum(w * x for w, x in zip(self.weights, signals, strict=True))


@dataclass(frozen=True)
class Rescored:
    """What the model made of one candidate, for the explain view."""

    fused: float  # the score before
    value: float  # Σ weight × signal
    best: float  # the best candidate's value
    contributions: dict[str, float]  # signal -> weight × value (zero ones left out)


_override: dict[str, Model | None] = {}


def set_model(provider: str, model: Model | None) -> None:
    """Use ``model`` for ``provider`` in this process (the bench's cross-validation folds)."""
    _override[provider] = model


@cache
def _shipped() -> dict[str, Model]:
    try:
        data = json.loads(MODELS.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    out = {}
    for provider, m in data.items():
        if list(m["features"]) != list(FEATURES):  # a model for other signals: not used
            continue
        out[provider] = Model(tuple(m["weights"]), m.get("about", ""))
    return out


def model_for(provider: str) -> Model | None:
    if provider in _override:
        return _override[provider]
    return _shipped().get(provider)


def query_signals(terms: list[str], weight: float) -> Signals:
    from engine.retrieval import stemmer
    from engine.retrieval.passages import word_heads

    stems = frozenset(stemmer.stem({t.lower() for t in terms}).values())
    return Signals(stems, tuple(word_heads(stems)) if stems else (), weight)


def signals(cands: list[Candidate], query: Signals) -> list[list[float]]:
    """Each candidate's signals, in ``FEATURES`` order."""
    from engine.retrieval import stemmer
    from engine.retrieval.passages import neighbour_ids, word_hits

    top = max((c.score for c in cands), default=0.0) or 1.0
    best_passage = max((c.passage or 0.0 for c in cands), default=0.0) or 1.0
    w = query.weight
    hits = [word_hits(c.content, list(query.heads)) if query.heads else [] for c in cands]
    tokens = stemmer.tokens({word for found in hits for _, word in found})
    n_stems = len(query.stems) or 1
    long = min(1.0, len(query.stems) / 10)
    fused_of = {c.id: c.score / top for c in cands}
    rows = []
    for c, found in zip(cands, hits, strict=True):
        stems_at = [(at, t) for at, word in found for t in tokens[word] if t in query.stems]
        matched = len({t for _, t in stems_at}) / n_stems
        close = _close_share(stems_at) / n_stems
        kw = c.arm_scores.get("keyword", 0.0) / (1.0 - w) if w < 1.0 else 0.0
        sem = c.arm_scores.get("semantic", 0.0) / w if w > 0.0 else 0.0
        chat = 1.0 if _CHAT_ID in c.id and c.source_type != "profile" else 0.0
        lift = (c.message_mix.message - c.message_mix.window) if c.message_mix else 0.0
        rows.append([
            c.score / top, kw, sem,
            1.0 if len(c.arm_scores) == 2 else 0.0,
            1.0 / (1 + c.keyword_rank) if c.keyword_rank is not None else 0.0,
            1.0 / (1 + c.semantic_rank) if c.semantic_rank is not None else 0.0,
            (c.passage or 0.0) / best_passage,
            lift, matched, close,
            math.log1p(len(c.content)) / 8.0,
            chat, chat * sem, chat * matched,
            max((fused_of.get(n, 0.0) for n in neighbour_ids(c.id)), default=0.0),
            long * sem, long * kw,
        ])
    return rows


def _close_share(stems_at: list[tuple[int, str]]) -> int:
    """The most distinct query stems found within PROXIMITY_CHARS of each other (1 for a lone
    word, 0 for none)."""
    best, start = 0, 0
    for end in range(len(stems_at)):
        while stems_at[end][0] - stems_at[start][0] > PROXIMITY_CHARS:
            start += 1
        best = max(best, len({t for _, t in stems_at[start:end + 1]}))
    return best


def rescore(cands: list[Candidate], query: Signals, model: Model) -> list[Candidate]:
    """The first RESCORE_DEPTH candidates (fused order) scored by ``model`` and sorted by
    it; the rest follow in fused order, their scores scaled under the lowest rescored one."""
    from engine.rank.stages import _with

    head, tail = cands[:RESCORE_DEPTH], cands[RESCORE_DEPTH:]
    rows = signals(head, query)
    values = [model.value(x) for x in rows]
    best = max(values, default=0.0)
    out = [_with(c, score=math.exp(v - best),
                 rescored=Rescored(c.score, v, best, model.contributions(x)))
           for c, x, v in zip(head, rows, values, strict=True)]
    out.sort(key=lambda c: -c.score)  # stable: equal values keep the fused order
    if tail and out:
        floor, edge = out[-1].score, head[-1].score or 1.0
        out += [_with(c, score=floor * min(1.0, c.score / edge)) for c in tail]
    return out
