"""What counts as evidence for a result, beyond its fused score.

- Strong evidence (first in both arms; the only keyword hit holding every query term) is not
  buried by recency decay (fusion.apply_recency_decay places it in the top 3).
- A row only the semantic arm found needs a similarity at the embedder's floor
  (engine/calibration.py): under it the "match" is what any unrelated text scores.
"""

from __future__ import annotations

from .candidates import Candidate
from .fts_query import ParsedQuery, matched_terms


def strong_evidence(cands: list[Candidate], parsed: ParsedQuery) -> dict[str, str]:
    """Ids decay may not bury: the chunk first in both arms, and the only keyword hit that
    holds every query term (docs/benchmarks.md, "Recency decay and strong evidence")."""
    out = {}
    for c in cands:
        if c.keyword_rank == 0 and c.semantic_rank == 0:
            out[c.id] = "first in both arms"
    wanted = len(parsed.terms) + len(parsed.phrases)
    if wanted:
        full = [c for c in cands if c.keyword_rank is not None
                and len(matched_terms(c.content, parsed)) == wanted]
        if len(full) == 1:
            out.setdefault(full[0].id, "the only chunk matching every term")
    return out


def drop_weak_semantic(cands: list[Candidate], floor: float | None) -> list[Candidate]:
    """Without a keyword match, a similarity under the embedder's floor is no evidence."""
    if floor is None:
        return cands
    return [c for c in cands if c.keyword_rank is not None or c.injected
            or (c.similarity is not None and c.similarity >= floor)]
