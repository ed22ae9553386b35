"""What a search returns: :class:`SearchResponse`, a page of :class:`SearchResult` rows plus how
they were found (the documented fields are in README, "From Python")."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.rank.candidates import Decay, Repeat
from engine.retrieval.in_range import InRange


@dataclass
class SearchResult:
    # the documented result fields (README: From Python)
    id: str
    content: str
    source_file: str
    source_type: str
    score: float
    matched_terms: list[str] | None
    content_date: str | None
    # explain fields (docs/design.md, stage 10)
    keyword_rank: int | None = None  # 1-based
    semantic_rank: int | None = None  # 1-based
    similarity: float | None = None
    bm25: float | None = None
    # arm -> its part of the fused score, whatever the fusion (convex, RRF, one arm's own)
    arm_scores: dict[str, float] = field(default_factory=dict)
    fusion_terms: dict[str, str] = field(default_factory=dict)  # arm -> "0.80 × 12.1/15.3 = …"
    # the learned re-scoring's reading of it (engine/rank/rescore.py's Rescored); None: not run
    rescored: Any = None
    decay: Decay | None = None
    decay_off: str | None = None  # why ``decay`` is None: "a single arm ranks this page", ...
    mmr_position: int | None = None  # 1-based position in the diversified head
    # why it sits below rows of lower score (the diversity step): "placed below row 3 (a lower
    # score) for variety: rows 1, 2 are from the same file"; None when in score order
    placed: str | None = None
    found_by: list[str] = field(default_factory=list)
    injected: bool = False
    stale: bool = False
    # why its file cannot be checked now: its source's folder is not read (an unmounted disk);
    # kept by a reindex, shown as indexed (engine/scanner.py, ``unread_files``)
    unread_source: str | None = None
    embedding_truncated: bool = False
    section_path: list[str] | None = None
    section: int | None = None
    snippet: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    rerank_score: float | None = None
    rowid: int | None = None
    # offsets into ``snippet`` (engine/retrieval/snippets.py): matched words; (start, end, kind) emphasis
    highlights: list[tuple[int, int]] = field(default_factory=list)
    emphasis: list[tuple[int, int, str]] = field(default_factory=list)
    # a chat window under a date filter: its messages inside the dates (the snippet opens at
    # the first of them; engine/retrieval/in_range.py)
    in_range: InRange | None = None
    # chunks of the same text as this one, ranked below it and shown as this row, best first
    # (engine/rank/repeats.py); engine.display.repeats_text says "3×: 2026-02-12, 07-17, …"
    repeats: list[Repeat] = field(default_factory=list)

    @property
    def rrf_terms(self) -> dict[str, float]:
        """Deprecated alias of :attr:`arm_scores` (its name from when RRF was the only fusion),
        kept for older callers; read-only."""
        return self.arm_scores

    @property
    def date_shown(self) -> str | None:
        """The date a front door shows: the days of its messages inside the date filter (a
        window of 28 March to 3 April is "2026-03-28..03-31" in March), else its own date."""
        return self.in_range.days if self.in_range is not None else self.content_date


@dataclass
class SearchResponse(Sequence):
    """The results (iterable like a plain list) plus how they were found."""

    query: str
    results: list[SearchResult]
    mode: str
    arms: str  # "both" | "keyword" | "semantic" | "keyword-only (semantic unavailable: ...)"
    arm_depth: dict[str, tuple[int, int]]  # arm -> (candidates found, depth asked)
    confidence: str  # "ok" | "low"
    terms: list[str]
    matched_all_terms: bool
    best_similarity: float | None
    rrf_k: int
    reranked: bool
    rerank_reason: str | None
    timings_ms: dict[str, float]
    index_transition: str | None = None  # "reindex" | "re-embed" | "maintenance" while running
    # provider_error | provider_input_rejected | provider_timeout | embedder_mismatch
    semantic_error: str | None = None
    semantic_detail: str | None = None  # the full message (e.g. how to re-embed)
    # the embedder whose vectors the semantic arm searched when it is not the configured one
    # (another embedder was configured and the index is not re-embedded yet: its own serve)
    serving_embedder: str | None = None
    # a re-embed staged in the index: 're-embedding with e5:… (384-d): 1,200 of 5,744 chunks (20%)'
    re_embed: str | None = None
    fusion: str = ""  # how the arms' scores were combined, for front doors to print
    sort: str = "relevance"  # "relevance" | "date" (the page's best results, newest first)
    decay_applied: bool = False
    # source type -> candidates of this query (after its filters, before the page is cut)
    type_counts: dict[str, int] = field(default_factory=dict)
    # the query's time phrase as applied: 'time: 2026-03-09..2026-03-15 (from "last week")'
    time: str | None = None
    time_phrase: str | None = None  # as written in the query (a chip removes it from there)
    # the date filters as applied, given or from the time phrase: YYYY-MM-DD, inclusive;
    # month_day "MM-DD" for "on this day" (that day in any year)
    since: str | None = None
    until: str | None = None
    month_day: str | None = None
    person: str | None = None  # the person filter: 'person: Robert Okafor (as "Robert Okafr")'
    # quoted phrases, required as written: 'phrases: required as written: "pecan pie"', or
    # 'phrases: no result holds "pie pecan" as written; shown: the nearest without it'
    phrases: str | None = None

    @property
    def scored(self) -> bool:
        """False when nothing ranks the page (no word to match, only dates or a person): the
        rows are the newest first and carry no score to show."""
        return self.fusion != "none"

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, i):
        return self.results[i]

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)

