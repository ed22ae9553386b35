"""Why a search result is where it is, as plain text: one presenter for every front door.

The engine fills a result's explain fields (ranks, fusion terms, decay, MMR position); this
module turns them into text without any markup, so the CLI prints the lines, the app styles
them and the MCP server sends :func:`formula`, the score's arithmetic on one line. Values that
come from the data layer (a person's name) are quoted as JSON strings (engine/display.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.display import json_dumps, one_line

ARMS = ("keyword", "semantic")


@dataclass(frozen=True)
class ExplainLine:
    """One stage of the story: ``label`` (fusion, rescore, keyword, semantic, decay, mmr, placed, found by,
    section, flags, profile) and its plain ``text``; ``applies`` is False when the stage did
    not touch this result (a front door may dim it)."""

    label: str
    text: str
    applies: bool = True


def _rank(r: Any, arm: str) -> int | None:
    return r.keyword_rank if arm == "keyword" else r.semantic_rank


def minus(a: float, b: float, fmt: str) -> str:
    """``a - b`` as written arithmetic: a negative ``b`` is added (``0.417 + 0.123``, never
    ``0.417 - -0.123``)."""
    right = format(b, fmt)
    if right.startswith("-"):
        return f"{format(a, fmt)} + {right[1:]}"
    return f"{format(a, fmt)} - {right}"


def normalised(raw: float, top: float, low: float | None, fmt: str) -> str:
    """``max(0, raw - low)/(top - low)`` as the explain view writes it: ``(0.417 + 0.123)/(0.552
    + 0.123)`` for a negative ``low``, just ``raw/top`` without one (None), and ``max(0, …)``
    only when it clips ``raw`` to 0."""
    if low is None:
        num, den = format(raw, fmt), format(top, fmt)
    else:
        num, den = f"({minus(raw, low, fmt)})", f"({minus(top, low, fmt)})"
    if raw < (low or 0.0):
        num = f"max(0, {num.removeprefix('(').removesuffix(')')})"
    return f"{num}/{den}"


def fusion_terms(r: Any, rrf_k: int) -> list[str]:
    """Each arm's part of the fused score, e.g. ``keyword 1/(60+3) = 0.01587``: the
    arithmetic the fusion recorded for it when it did, else the RRF term from the rank."""
    recorded = getattr(r, "fusion_terms", None) or {}
    out = []
    for arm, value in (r.arm_scores or {}).items():
        if arm in recorded:
            out.append(f"{arm} {recorded[arm]}")
        else:
            out.append(f"{arm} 1/({rrf_k}+{_rank(r, arm)}) = {value:.5f}")
    return out


def _profile(r: Any) -> str:
    meta = r.metadata or {}
    return (f"profile of {json_dumps(str(meta.get('person', '')))} injected at the median "
            f"score (the query names {json_dumps(str(meta.get('matched', '')))})")


def _age(decay: Any) -> str:
    return "undated" if decay.age_days is None else f"age {decay.age_days:.0f} d"


def formula(r: Any, rrf_k: int) -> str:
    """The score on one line: the arms' terms, their sum, the decay and the diversity pick,
    e.g. ``keyword 0.80 × 6.42/7.07 = 0.7266 + semantic 0.20 × (0.291 - 0.223)/(0.443 -
    0.223) = 0.0618 = 0.78847 × decay 0.973 (age 1 d, half-life 35 d) = 0.76698; diversity
    pick #1`` (a negative reference similarity is added: ``(0.291 + 0.050)/(0.443 + 0.050)``)."""
    if r.injected:
        return _profile(r)
    terms = fusion_terms(r, rrf_k)
    fused = sum((r.arm_scores or {}).values())
    text = " + ".join(terms) + f" = {fused:.5f}" if terms else f"{fused:.5f}"
    if getattr(r, "rescored", None) is not None:
        text += f"; {rescored(r.rescored)}"
    d = r.decay
    if d is not None:
        floored = ", floored" if d.floored else ""
        text += (f" × decay {d.factor:.3f} ({_curve(d)}; {_age(d)}, half-life "
                 f"{d.half_life:.0f} d{floored}) = {r.score:.5f}, {moved(d)}")
        if r.mmr_position is not None:
            text += f"; diversity pick #{r.mmr_position}"  # MMR chose the order of the head
    return text


def rescored(x: Any) -> str:
    """The learned re-scoring of a row: ``re-scored exp(3.120 − best 3.500) = 0.68386 (keyword
    +1.361, passage +1.150, …)``, each signal's weight × value (engine/rank/rescore.py)."""
    parts = sorted(x.contributions.items(), key=lambda kv: -abs(kv[1]))
    signals = ", ".join(f"{name} {value:+.3f}" for name, value in parts) or "no signal"
    return (f"re-scored exp({minus(x.value, x.best, '.3f')}) = "
            f"{math.exp(x.value - x.best):.5f} ({signals})")


def moved(d: Any) -> str:
    """What recency did to the row's place among the fused candidates: ``recency: up 2
    places``, ``recency: down 1 place``, ``recency: kept its place``."""
    from engine.display import plural

    if d.places == 0:
        return "recency: kept its place"
    return f"recency: {'up' if d.places > 0 else 'down'} {plural(abs(d.places), 'place')}"


def _curve(d: Any) -> str:
    """How the factor came from the age weight: age takes at most ``weight_share``."""
    return f"1 − {d.weight_share:.2f} × (1 − age weight {d.age_weight:.3f})"


def explain_lines(r: Any, rrf_k: int) -> list[ExplainLine]:
    """Every stage, one :class:`ExplainLine` each, in pipeline order."""
    if r.injected:
        return [ExplainLine("profile", _profile(r))]
    terms = fusion_terms(r, rrf_k)
    lines = [ExplainLine("fusion", " + ".join(terms) if terms else "-", bool(terms))]
    if getattr(r, "rescored", None) is not None:
        lines.append(ExplainLine("rescore", rescored(r.rescored)))
    if r.keyword_rank:
        bm25 = f", bm25 {r.bm25:.3f}" if r.bm25 is not None else ""
        matched = ", ".join(one_line(t) for t in r.matched_terms or []) or "-"
        lines.append(ExplainLine("keyword", f"rank {r.keyword_rank}{bm25}, matched {matched}"))
    else:
        lines.append(ExplainLine("keyword", "not found by the keyword arm", False))
    if r.semantic_rank:
        sim = f", similarity {r.similarity:.3f}" if r.similarity is not None else ""
        lines.append(ExplainLine("semantic", f"rank {r.semantic_rank}{sim}"))
    else:
        lines.append(ExplainLine("semantic", "not found by the semantic arm", False))
    d = r.decay
    if d is not None:
        lines.append(ExplainLine("decay", f"×{d.factor:.3f} ({_curve(d)}; {_age(d)}, half-life "
                                          f"{d.half_life:.0f} d{', floored' if d.floored else ''})"
                                          f"; {moved(d)}"))
    else:
        why = getattr(r, "decay_off", None) or "a single arm, or decay turned off"
        lines.append(ExplainLine("decay", f"not applied ({why})", False))
    lines.append(ExplainLine("mmr", f"position {r.mmr_position}", True) if r.mmr_position
                 else ExplainLine("mmr", "outside the diversified head", False))
    if getattr(r, "placed", None):  # below a lower score: why, beside the numbers
        lines.append(ExplainLine("placed", r.placed))
    lines.append(ExplainLine("found by", " + ".join(r.found_by or []) or "-"))
    if r.section_path:
        lines.append(ExplainLine("section", " > ".join(one_line(s) for s in r.section_path)))
    flags = [name for name, on in (("stale (file changed since indexed)", r.stale),
                                   ("embedding truncated", r.embedding_truncated)) if on]
    if flags:
        lines.append(ExplainLine("flags", ", ".join(flags)))
    return lines


def _age_words(days: float) -> str:
    """``today``, ``yesterday``, ``12 days old``, ``5 months old``, ``2.1 years old``. Ages
    are counted from a chunk's date, which has no time of day: the date is that whole day, so
    a note written this morning is "today", never "9 hours old" (hours since its midnight)."""
    from engine.display import plural

    whole = int(days)  # whole days since the date's midnight: 0 is that day itself
    if whole == 0:
        return "today"
    if whole == 1:
        return "yesterday"
    if days < 60:
        return plural(whole, "day") + " old"
    if days < 730:
        return plural(round(days / 30.44), "month") + " old"
    return f"{days / 365.25:.1f} years old"


def plain_summary(r: Any) -> str:
    """Why this result is here, in words: ``found by both searches: keyword #1, meaning #97;
    1 day old, ×0.97`` (the exact numbers are :func:`explain_lines`)."""
    if r.injected:
        meta = r.metadata or {}
        return (f"the profile of {json_dumps(str(meta.get('person', '')))}, shown because the "
                f"query names {json_dumps(str(meta.get('matched', '')))}")
    ranks = []
    if r.keyword_rank:
        ranks.append(f"keyword #{r.keyword_rank}")
    if r.semantic_rank:
        ranks.append(f"meaning #{r.semantic_rank}")
    if len(ranks) == 2:
        text = "found by both searches: " + ", ".join(ranks)
    elif r.keyword_rank:
        text = f"found by the keyword search only (#{r.keyword_rank})"
    elif r.semantic_rank:
        text = f"found by the meaning search only (#{r.semantic_rank})"
    else:
        text = "found by neither search"
    if r.matched_terms:
        text += "; words matched: " + ", ".join(one_line(t) for t in r.matched_terms)
    d = r.decay
    if d is not None:
        age = "undated" if d.age_days is None else _age_words(d.age_days)
        text += (f"; {age}, ×{d.factor:.2f}" + (" (the oldest weight)" if d.floored else "")
                 + f"; {moved(d)}")
    if getattr(r, "placed", None):
        text += f"; {r.placed}"
    if r.stale:
        text += "; the file changed since it was indexed"
    return text
