"""The record every search stage passes along: one chunk (or injected profile) and its story.

Stages fill in their own fields, so a finished result can explain every number in its score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Decay:
    factor: float  # multiplier applied to the fused score: 1 - weight_share * (1 - age_weight)
    age_days: float | None  # None when the chunk has no content_date
    half_life: float
    floored: bool = False
    # max(floor, 2 ** (-age / half_life)): how old the chunk is (docs/design.md, "Recency")
    age_weight: float = 1.0
    # the share of the score age may take (config.decay_weight)
    weight_share: float = 1.0
    # places decay moved the row among the fused candidates: +2 up, -1 down, 0 kept
    places: int = 0


@dataclass(frozen=True)
class MessageMix:
    """How a chat window's similarity was made from its own vector and its best message's
    (engine/vectors/message_vectors.py)."""

    share: float  # of the best message's similarity
    window: float
    message: float
    reach: int  # messages of each neighbouring window the best one may come from

    def text(self) -> str:
        return (f"sim {1 - self.share:.2f} × window {self.window:.3f} + {self.share:.2f} × "
                f"best message {self.message:.3f}, of its own and the {self.reach} either side")


@dataclass(frozen=True)
class Repeat:
    """A chunk of the same text as the row it is folded into, shown on that row instead of as
    a row of its own (engine/rank/repeats.py)."""

    id: str
    rowid: int | None
    content_date: str | None
    source_file: str
    source_type: str


@dataclass
class Candidate:
    id: str
    content: str
    source_file: str
    source_type: str
    content_date: str | None = None
    first_date: str | None = None  # a span's first day (engine/retrieval/filters.py)
    metadata: dict[str, Any] = field(default_factory=dict)
    rowid: int | None = None
    # keyword arm
    keyword_rank: int | None = None  # 0-based rank in the keyword arm
    bm25: float | None = None  # negated FTS5 bm25 (higher is better)
    # the arm's ranking score in [0, 1]: bm25 / best, mixed with the best passage's bm25 for a
    # chat window (engine/retrieval/passages.py); None when the arm did not compute it
    keyword_score: float | None = None
    passage: float | None = None  # bm25 of a chat window's best passage
    # related word -> (similarity, its bm25) for a chat window (engine/retrieval/query_expansion.py)
    related: dict[str, tuple[float, float]] = field(default_factory=dict)
    # semantic arm
    semantic_rank: int | None = None  # 0-based rank in the semantic arm
    similarity: float | None = None  # cosine similarity, 1 - distance (or the mix below)
    message_mix: MessageMix | None = None  # a chat window scored with its messages' vectors
    # fusion and later stages
    arm_scores: dict[str, float] = field(default_factory=dict)  # arm -> its part of the score
    fusion_terms: dict[str, str] = field(default_factory=dict)  # arm -> the arithmetic of it
    score: float = 0.0
    decay: Decay | None = None
    mmr_position: int | None = None  # 0-based position in the diversified head, else None
    injected: bool = False  # a synthesized people-profile row
    embedding_truncated: bool = False
    rerank_score: float | None = None
    # what the learned re-scoring made of it (engine/rank/rescore.py); None: fused score kept
    rescored: Any = None
    # chunks of the same text ranked below it, best first (engine/rank/repeats.py)
    repeats: tuple[Repeat, ...] = ()

    @property
    def found_by(self) -> list[str]:
        arms = [arm for arm in ("keyword", "semantic") if arm in self.arm_scores]
        return ["profile"] if self.injected else arms
