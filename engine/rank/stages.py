"""Ranking stages over lists of :class:`Candidate` (pipeline stages 4-9 of docs/design.md).

Every function takes a list and returns a new list of copied candidates: inputs are never
mutated, so a stage can be tested (and a pipeline re-run) in isolation.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from engine.config import DIVERSITY_LAMBDA, DIVERSITY_TARGET, MAX_PER_SOURCE_TYPE, Config
from engine.rank.candidates import Candidate, Decay

ARMS = ("keyword", "semantic")
# Fields an arm may know and the other may not; when an id is in both arms, each fills the gaps.
_MERGED_FIELDS = ("content_date", "first_date", "rowid", "bm25", "similarity", "keyword_rank", "semantic_rank")
# The MMR pool admits this many times max_per_type of one type: spare same-type candidates let
# MMR prefer another file of that type, without one type crowding every other out of the pool.
POOL_FACTOR = 2


# --- RRF ------------------------------------------------------------------------------------

def _with(c: Candidate, **changes) -> Candidate:
    """A shallow copy with some fields changed (dataclasses.replace re-runs __init__: slow)."""
    out = object.__new__(type(c))
    out.__dict__ = {**c.__dict__, **changes}
    return out


def rrf_term(rank: int, k: int) -> float:
    """One arm's contribution for a 0-based rank: 1 / (k + rank + 1)."""
    return 1.0 / (k + rank + 1)


def _merge_into(into: Candidate, other: Candidate) -> None:
    """Fill ``into``'s unknown fields from ``other`` (the same chunk seen by the other arm)."""
    for name in _MERGED_FIELDS:
        if getattr(into, name) is None and getattr(other, name) is not None:
            setattr(into, name, getattr(other, name))
    into.metadata = {**other.metadata, **into.metadata}
    into.embedding_truncated = into.embedding_truncated or other.embedding_truncated


def best_rank(c: Candidate) -> int:
    """The candidate's best (lowest) rank over the arms that found it."""
    ranks = [r for r in (c.keyword_rank, c.semantic_rank) if r is not None]
    return min(ranks) if ranks else 1 << 30


def rrf_merge(keyword: list[Candidate], semantic: list[Candidate], k: int) -> list[Candidate]:
    """Reciprocal Rank Fusion: score = sum over arms of 1/(k + rank + 1).

    Rank-based, so cosine similarities and bm25 values never have to share a scale. Ties are
    broken by the best single rank, then by id, so the order is fully deterministic. An id
    repeated inside one arm counts once, at its best rank.
    """
    def term(arm: str, rank: int, hit: Candidate) -> tuple[float, str]:
        return rrf_term(rank, k), f"1/({k}+{rank + 1}) = {rrf_term(rank, k):.5f}"

    return merge_arms(keyword, semantic, term)


def merge_arms(keyword: list[Candidate], semantic: list[Candidate],
               term: Callable[[str, int, Candidate], tuple[float, str]]) -> list[Candidate]:
    """One candidate per id over both arms, scored by the sum of ``term(arm, rank, hit)``'s
    values (its text goes to ``fusion_terms``): the walk every fusion shares. Ties: best
    single rank, then id. An id repeated inside one arm counts once, at its best rank."""
    merged: dict[str, Candidate] = {}
    for arm, hits in zip(ARMS, (keyword, semantic), strict=True):
        for rank, hit in enumerate(hits):
            current = merged.get(hit.id)
            if current is not None and arm in current.arm_scores:
                continue
            fresh = _with(hit, arm_scores={}, fusion_terms={}, metadata=dict(hit.metadata),
                          keyword_rank=None, semantic_rank=None)
            setattr(fresh, f"{arm}_rank", rank)
            if current is None:
                merged[hit.id] = current = fresh
            else:
                _merge_into(current, fresh)
            current.arm_scores[arm], current.fusion_terms[arm] = term(arm, rank, hit)
    for c in merged.values():
        c.score = sum(c.arm_scores.values())
    return sorted(merged.values(), key=lambda c: (-c.score, best_rank(c), c.id))


# --- recency decay --------------------------------------------------------------------------

def parse_content_date(value: str | None, tz: Any = None) -> datetime | None:
    """A content_date (``YYYY-MM-DD`` or full ISO) as a datetime, or None if unparseable.

    A date-only value means midnight; a naive value is read in ``tz`` (the clock's zone) so it
    can be subtracted from ``now``.
    """
    if not value or not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if parsed.tzinfo is None and tz is not None:
        parsed = parsed.replace(tzinfo=tz)
    return parsed


def age_in_days(content_date: str | None, now: datetime) -> float | None:
    """Fractional days from content_date to now; never negative (the future is "now")."""
    when = parse_content_date(content_date, now.tzinfo)
    if when is None:
        return None
    if when.tzinfo is not None and now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return max(0.0, (now - when).total_seconds() / 86400.0)


def recency_factor(content_date: str | None, half_life: float, floor: float,
                   now: datetime, weight: float = 1.0) -> Decay:
    """The age weight max(floor, 2 ** (-age_days / half_life)), and the score multiplier it
    gives when age may take ``weight`` of a score: 1 - weight * (1 - age weight).

    A missing or unparseable date gives factor 1.0 and age None: an unknown age is not
    evidence of staleness, and punishing it would bury undated material (profiles, some notes)
    behind anything dated. A non-positive half-life means "does not decay".
    """
    age = age_in_days(content_date, now)
    if age is None or half_life <= 0:
        return Decay(factor=1.0, age_days=age, half_life=half_life, floored=False,
                     weight_share=weight)
    raw = 2.0 ** (-age / half_life)
    age_weight = max(floor, raw)
    return Decay(factor=1.0 - weight * (1.0 - age_weight), age_days=age, half_life=half_life,
                 floored=raw < floor, age_weight=age_weight, weight_share=weight)


def apply_recency_decay(cands: list[Candidate], config: Config,
                        now: datetime) -> list[Candidate]:
    """Multiply each fused score by its recency factor, re-sort by score, and record the Decay
    with the places it moved each row.

    Age takes at most ``config.decay_weight`` of a score (5%: the oldest chunk keeps 96.25%),
    so it orders results of comparable relevance and never lifts a loose recent match over a
    better old one: with age as a full multiplier (×0.25 at the floor), chat windows the
    semantic arm found loosely leapfrogged months-old answers (docs/benchmarks.md,
    "Recency decay"). The sort is stable, so equal scores keep the fusion's order.
    """
    out = []
    for c in cands:
        decay = recency_factor(c.content_date, config.half_life(c.source_type),
                               config.decay_floor, now, config.decay_weight)
        out.append(_with(c, score=c.score * decay.factor, decay=decay))
    fused_place = {id(c): i for i, c in enumerate(out)}
    out.sort(key=lambda c: -c.score)
    for i, c in enumerate(out):  # what decay did to the row, for the explain view
        c.decay.places = fused_place[id(c)] - i
    return out


def sort_by_date(cands: list[Candidate]) -> list[Candidate]:
    """Newest first (by content_date; undated last), relevance order among equals."""
    dated = [c for c in cands if _as_date(c.content_date) is not None]
    undated = [c for c in cands if _as_date(c.content_date) is None]
    dated.sort(key=lambda c: str(c.content_date), reverse=True)
    return dated + undated


def _as_date(value: str | date | None) -> date | None:
    """A content_date reduced to its calendar date (None if unparseable)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        return None


# --- diversity (MMR) ------------------------------------------------------------------------

def pair_similarity(a: Candidate, b: Candidate) -> float:
    """A coarse redundancy measure (docs/design.md): same file 1.0, same source type 0.5, else 0."""
    if a.source_file == b.source_file:
        return 1.0
    return 0.5 if a.source_type == b.source_type else 0.0


def build_pool(cands: list[Candidate], per_type: int) -> list[int]:
    """Indices of the candidates allowed into the MMR pool: at most ``per_type`` of each type,
    taken in rank order."""
    counts: dict[str, int] = {}
    pool = []
    for i, c in enumerate(cands):
        if counts.get(c.source_type, 0) < per_type:
            counts[c.source_type] = counts.get(c.source_type, 0) + 1
            pool.append(i)
    return pool


def relevances(cands: list[Candidate]) -> list[float]:
    """Scores normalised by the pool's maximum, so relevance is in [0, 1] and comparable with
    the [0, 1] similarity (raw RRF scores are ~1/60 and would be swamped by it)."""
    top = max((c.score for c in cands), default=0.0)
    return [c.score / top if top > 0 else 0.0 for c in cands]


def mmr_select(pool: list[Candidate], target: int, lam: float, max_per_type: int) -> list[int]:
    """Greedy MMR over the pool: pick argmax λ·rel − (1−λ)·max_sim_to_selected, at most
    ``max_per_type`` per source type, until ``target`` are picked or none is eligible.
    Ties go to the earlier (better-ranked) pool member."""
    rel = relevances(pool)
    chosen: list[int] = []
    counts: dict[str, int] = {}
    while len(chosen) < target:
        best, best_mmr = None, None
        for i, c in enumerate(pool):
            if i in chosen or counts.get(c.source_type, 0) >= max_per_type:
                continue
            redundancy = max((pair_similarity(c, pool[j]) for j in chosen), default=0.0)
            mmr = lam * rel[i] - (1 - lam) * redundancy
            if best_mmr is None or mmr > best_mmr:
                best, best_mmr = i, mmr
        if best is None:
            break
        chosen.append(best)
        counts[pool[best].source_type] = counts.get(pool[best].source_type, 0) + 1
    return chosen


def diversity_rerank(cands: list[Candidate], limit: int, target: int = DIVERSITY_TARGET,
                     lam: float = DIVERSITY_LAMBDA,
                     max_per_type: int = MAX_PER_SOURCE_TYPE) -> list[Candidate]:
    """The MMR pass (docs/design.md): a diversified head of up to ``target``, then the rest of the pool,
    then the tail, truncated to ``limit``.

    The head is computed on the whole list before truncation, so the first results never
    depend on ``limit``. Head members get mmr_position 0..n-1; everything else None.
    """
    pool_idx = build_pool(cands, max_per_type * POOL_FACTOR)
    pool = [cands[i] for i in pool_idx]
    head_local = mmr_select(pool, target, lam, max_per_type)
    head_idx = [pool_idx[i] for i in head_local]
    taken = set(head_idx)
    rest_pool = [i for i in pool_idx if i not in taken]
    in_pool = set(pool_idx)
    tail = [i for i in range(len(cands)) if i not in in_pool]
    out = [_with(cands[i], mmr_position=pos) for pos, i in enumerate(head_idx)]
    out += [_with(cands[i], mmr_position=None) for i in rest_pool + tail]
    return truncate(out, limit)


def placed_for_variety(rows: list[Any]) -> list[str | None]:
    """For each row of a page in relevance order, why it sits below rows of lower score, or
    None: the diversity step put other files or types first. Rows need ``score``,
    ``source_file``, ``source_type``; a front door shows the text beside the score, so the
    number shown and the order never disagree silently."""
    from engine.display import plural, type_label

    notes: list[str | None] = []
    lowest = float("inf")  # of the rows above: most rows sit under it, and need no look back
    for i, row in enumerate(rows):
        held = lowest < row.score - 1e-9
        lowest = min(lowest, row.score)
        if not held:
            notes.append(None)
            continue
        lower = [j + 1 for j in range(i) if rows[j].score < row.score - 1e-9]
        same_file = [j + 1 for j in range(i) if rows[j].source_file == row.source_file]
        same_type = [j + 1 for j in range(i) if rows[j].source_type == row.source_type]
        if same_file:
            why = f"{_rows(same_file)} {_are(same_file)} from the same file"
        elif same_type:
            why = (f"{_rows(same_type)} {_are(same_type)} of the same type "
                   f"({type_label(row.source_type)})")
        else:
            why = f"the first {plural(DIVERSITY_TARGET, 'row')} are picked for variety first"
        notes.append(f"placed below {_rows(lower)} (lower score{'s' if len(lower) > 1 else ''})"
                     f" for variety: {why}")
    return notes


def _rows(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:5])) + (", …" if len(numbers) > 5 else "")
    return f"row{'s' if len(numbers) > 1 else ''} {shown}"


def _are(numbers: list[int]) -> str:
    return "are" if len(numbers) > 1 else "is"


def truncate(cands: list[Candidate], limit: int) -> list[Candidate]:
    """The first ``limit`` candidates (none for a non-positive limit)."""
    return list(cands[: max(0, limit)])


# -- evidence --------------------------------------------------------------------------------

# What counts as evidence for a result, beyond its fused score: a row only the semantic arm
# found needs a similarity at the embedder's floor (engine/rank/calibration.py); under it the
# "match" is what any unrelated text scores.

def drop_weak_semantic(cands: list[Candidate], floor: float | None) -> list[Candidate]:
    """Without a keyword match, a similarity under the embedder's floor is no evidence."""
    if floor is None:
        return cands
    return [c for c in cands if c.keyword_rank is not None or c.injected
            or (c.similarity is not None and c.similarity >= floor)]
