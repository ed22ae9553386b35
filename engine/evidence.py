"""What counts as evidence for a result, beyond its fused score.

- Strong evidence (first in both arms; the only keyword hit holding every query term) is not
  buried by recency decay (fusion.apply_recency_decay places it in the top 3).
- A row only the semantic arm found needs a similarity at the embedder's floor
  (engine/calibration.py): under it the "match" is what any unrelated text scores.
"""

from __future__ import annotations

from .candidates import Candidate


def strong_evidence(cands: list[Candidate], only_full: int | None) -> dict[str, str]:
    """Ids decay may not bury: the chunk first in both arms, and ``only_full``, the rowid of
    the only chunk holding every query term (found by an FTS5 AND query), when it is a
    keyword hit (docs/benchmarks.md, "Recency decay and strong evidence")."""
    out = {}
    for c in cands:
        if c.keyword_rank == 0 and c.semantic_rank == 0:
            out[c.id] = "first in both arms"
    for c in cands:
        if only_full is not None and c.rowid == only_full and c.keyword_rank is not None:
            out.setdefault(c.id, "the only chunk matching every term")
    return out


def drop_weak_semantic(cands: list[Candidate], floor: float | None) -> list[Candidate]:
    """Without a keyword match, a similarity under the embedder's floor is no evidence."""
    if floor is None:
        return cands
    return [c for c in cands if c.keyword_rank is not None or c.injected
            or (c.similarity is not None and c.similarity >= floor)]
