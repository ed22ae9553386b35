"""Convex fusion of the two arms' normalised scores (the default; RRF is in engine/rank/stages.py).

score = (1 - w) * bm25 / best_bm25 + w * max(0, sim - ref) / (best_sim - ref)

where ``w`` is the embedder's semantic weight (engine/rank/calibration.py), ``best_*`` the arm's top
score for this query and ``ref`` the similarity at rank REF_RANK of the KNN (a "typical
unrelated" level, fixed by rank so the scores do not depend on how deep the arms were asked).
A score-based combination keeps how far ahead an arm's leader is, which rank-based RRF throws
away; Bruch et al. ("An Analysis of Fusion Functions for Hybrid Retrieval", 2023) report it
beating RRF, and on memlens's dev collections it lets a weak semantic arm add to BM25 instead of
diluting it (docs/benchmarks.md).
"""

from __future__ import annotations

from engine.rank.candidates import Candidate
from engine.retrieval.explain import normalised
from engine.retrieval.passages import PASSAGE_SHARE
from engine.retrieval.query_expansion import describe_related

REF_RANK = 100  # the KNN is asked at least this deep so the reference similarity exists


def convex_merge(keyword: list[Candidate], semantic: list[Candidate], weight: float,
                 sim_ref: float | None = None) -> list[Candidate]:
    """Fuse the arms; each result's ``arm_scores`` holds its arm contributions and
    ``fusion_terms`` the arithmetic behind them. Ties: best single rank, then id."""
    from engine.rank.stages import merge_arms

    best_bm25 = max((keyword_raw(c) for c in keyword), default=0.0)
    sims = [c.similarity for c in semantic if c.similarity is not None]
    best_sim = max(sims, default=0.0)
    ref = sim_ref if sim_ref is not None else min(sims, default=0.0)
    ref = min(ref, best_sim)

    def term(arm: str, rank: int, hit: Candidate) -> tuple[float, str]:
        if arm == "keyword":
            raw, top, low, w = keyword_raw(hit), best_bm25, 0.0, 1.0 - weight
        else:
            raw, top, low, w = hit.similarity or 0.0, best_sim, ref, weight
        norm = max(0.0, raw - low) / (top - low) if top > low else 1.0
        if top <= low:  # no spread to divide by: every hit counts in full
            shown = ("1 (the best score is not above 0)" if arm == "keyword"
                     else f"1 (the best similarity is the reference, {low:.3f})")
        elif arm == "keyword":
            shown = normalised(raw, top, None, ".4g")
        else:
            shown = normalised(raw, top, low, ".3f")
        return w * norm, f"{w:.2f} × {shown} = {w * norm:.4f}{_made_of(arm, hit)}"

    return merge_arms(keyword, semantic, term)


def arm_alone(hits: list[Candidate], arm: str) -> list[Candidate]:
    """One arm ranks alone (a keyword or semantic search, or the keyword arm when the
    semantic one is unavailable): each row's score is that arm's own on 0-1, in the arm's
    order (keyword: its score over the best one's; semantic: the similarity), not its
    weighted share of a fusion, so a semantic search's best row is not capped at the weight."""
    from engine.rank.stages import merge_arms

    best = max((keyword_raw(c) for c in hits), default=0.0) if arm == "keyword" else 0.0

    def term(_arm: str, _rank: int, hit: Candidate) -> tuple[float, str]:
        if arm == "keyword":
            raw = keyword_raw(hit)
            value = raw / best if best > 0 else 0.0
            return value, f"{raw:.4g}/best {best:.4g} = {value:.4f}{_made_of(arm, hit)}"
        sim = hit.similarity or 0.0
        value = min(1.0, max(0.0, sim))
        shown = f"similarity {sim:.4f}" + (", counted as 0" if sim < 0 else "")
        return value, shown + _made_of(arm, hit)

    return merge_arms(hits, [], term) if arm == "keyword" else merge_arms([], hits, term)


def _made_of(arm: str, hit: Candidate) -> str:
    """What an arm's score for ``hit`` was made of, when more than its bm25 or similarity:
    passage evidence and related words (keyword), the messages' vectors (semantic)."""
    why = ""
    if arm == "keyword" and hit.passage is not None:
        why = (f" (score {(1 - PASSAGE_SHARE):.1f} × bm25 {hit.bm25:.4g}/best + "
               f"{PASSAGE_SHARE:.1f} × passage {hit.passage:.4g}/best)")
    elif arm == "keyword" and hit.keyword_score is not None:
        why = f" (score bm25 {hit.bm25 or 0.0:.4g}/best)"
    elif arm == "semantic" and hit.message_mix is not None:
        why = f" ({hit.message_mix.text()})"
    if why and hit.related:
        why = why[:-1] + describe_related(hit) + ")"
    return why


def keyword_raw(c: Candidate) -> float:
    """What the keyword arm ranked by: its keyword score (bm25 mixed with passage evidence,
    engine/retrieval/passages.py) when it made one, else bm25."""
    return c.keyword_score if c.keyword_score is not None else (c.bm25 or 0.0)


def describe(weight: float, floor: float | None, provider: str) -> str:
    """One line for front doors: how this response's scores were made."""
    bar = f"; semantic-only rows need similarity ≥ {floor:.2f}" if floor is not None else ""
    return (f"convex ({provider}): keyword {1 - weight:.2f} × bm25/best + semantic "
            f"{weight:.2f} × (sim − sim@{REF_RANK})/(best − sim@{REF_RANK}){bar}")
