"""What counts as evidence for a result, beyond its fused score: a row only the semantic arm
found needs a similarity at the embedder's floor (engine/calibration.py); under it the
"match" is what any unrelated text scores.
"""

from __future__ import annotations

from .candidates import Candidate


def drop_weak_semantic(cands: list[Candidate], floor: float | None) -> list[Candidate]:
    """Without a keyword match, a similarity under the embedder's floor is no evidence."""
    if floor is None:
        return cands
    return [c for c in cands if c.keyword_rank is not None or c.injected
            or (c.similarity is not None and c.similarity >= floor)]
