"""Fusion stages on hand-built candidate lists, with exact expected numbers."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.config import Config
from engine.rank.candidates import Candidate, Decay
from engine.rank.stages import (
    apply_recency_decay,
    diversity_rerank,
    pair_similarity,
    recency_factor,
    rrf_merge,
    truncate,
)

NOW = datetime(2026, 6, 1, 12, 0)


def cand(cid: str, score: float = 0.0, source_type: str = "slack", source_file: str | None = None,
         **kw) -> Candidate:
    return Candidate(id=cid, content=f"content of {cid}", source_type=source_type,
                     source_file=source_file or f"data/{source_type}/{cid}.jsonl",
                     score=score, **kw)


def config() -> Config:
    return Config(root=Path("root"), db_path=Path("root/db"), routes=())


# --- RRF ------------------------------------------------------------------------------------

def test_rrf_single_arm_rank_zero():
    [c] = rrf_merge([cand("a")], [], k=60)
    assert c.score == 1 / 61
    assert c.arm_scores == {"keyword": 1 / 61}
    assert c.keyword_rank == 0 and c.semantic_rank is None
    assert c.found_by == ["keyword"]


def test_rrf_both_arms_accumulate():
    keyword = [cand("a", bm25=3.5, content_date="2026-03-14"),
               cand("b"), cand("c", bm25=1.0)]
    semantic = [cand("a", similarity=0.9), cand("x", similarity=0.8), cand("c", similarity=0.7)]
    out = rrf_merge(keyword, semantic, k=60)
    by_id = {c.id: c for c in out}
    assert by_id["a"].score == 1 / 61 + 1 / 61
    assert by_id["c"].score == 1 / 63 + 1 / 63
    assert by_id["c"].arm_scores == {"keyword": 1 / 63, "semantic": 1 / 63}
    a = by_id["a"]
    assert (a.keyword_rank, a.semantic_rank) == (0, 0)
    assert (a.bm25, a.similarity, a.content_date) == (3.5, 0.9, "2026-03-14")
    assert by_id["c"].bm25 == 1.0 and by_id["c"].similarity == 0.7
    assert a.found_by == ["keyword", "semantic"]
    assert [c.id for c in out] == ["a", "c", "b", "x"]


def test_rrf_rank_zero_and_two():
    out = rrf_merge([cand("a")], [cand("y"), cand("z"), cand("a")], k=60)
    assert out[0].id == "a"
    assert out[0].score == pytest.approx(1 / 61 + 1 / 63, abs=0)
    assert out[0].arm_scores == {"keyword": 1 / 61, "semantic": 1 / 63}


def test_rrf_ties_broken_by_best_rank_then_id():
    # b: keyword rank 1 ; q: semantic rank 1 -> equal score and equal best rank -> by id
    out = rrf_merge([cand("a"), cand("b")], [cand("p"), cand("q")], k=60)
    assert [c.id for c in out] == ["a", "p", "b", "q"]


def test_rrf_does_not_mutate_inputs_and_merges_metadata():
    k1 = cand("a", metadata={"tags": ["x"]})
    s1 = cand("a", metadata={"section": "Intro"}, content_date="2026-01-01")
    [c] = rrf_merge([k1], [s1], k=60)
    assert c.metadata == {"tags": ["x"], "section": "Intro"}
    assert c.content_date == "2026-01-01"
    assert k1.arm_scores == {} and k1.keyword_rank is None and k1.score == 0.0
    assert s1.metadata == {"section": "Intro"}


def test_rrf_repeated_id_in_one_arm_counts_once():
    [c] = rrf_merge([cand("a"), cand("a")], [], k=60)
    assert c.score == 1 / 61 and c.keyword_rank == 0


# --- recency --------------------------------------------------------------------------------

def test_decay_one_half_life_is_exactly_half():
    d = recency_factor("2026-04-27", 35.0, 0.25, datetime(2026, 6, 1))
    assert d == Decay(factor=0.5, age_days=35.0, half_life=35.0, floored=False, age_weight=0.5)


def test_decay_weight_bounds_what_age_takes():
    d = recency_factor("2026-04-27", 35.0, 0.25, datetime(2026, 6, 1), weight=0.1)
    assert d.age_weight == 0.5 and d.factor == pytest.approx(0.95) and d.weight_share == 0.1


def test_decay_floored():
    d = recency_factor((datetime(2026, 6, 1) - timedelta(days=350)).date().isoformat(),
                       35.0, 0.25, datetime(2026, 6, 1))
    assert d.factor == 0.25 and d.age_weight == 0.25 and d.floored and d.age_days == 350.0


def test_decay_garmin_seven_days():
    d = recency_factor("2026-05-25", 14.0, 0.25, datetime(2026, 6, 1))
    assert d.factor == 2 ** -0.5


def test_decay_full_iso_and_fractional_age():
    d = recency_factor("2026-05-31T00:00:00", 60.0, 0.25, NOW)
    assert d.age_days == 1.5
    d = recency_factor("2026-05-31T12:00:00+00:00", 60.0, 0.25,
                       datetime(2026, 6, 1, 14, 0, tzinfo=timezone(timedelta(hours=2))))
    assert d.age_days == 1.0
    d = recency_factor("2026-05-31T12:00:00Z", 60.0, 0.25, datetime(2026, 6, 1, 12, 0))
    assert d.age_days == 1.0  # naive now read as UTC against an aware date


def test_decay_future_date_is_age_zero():
    d = recency_factor("2027-01-01", 35.0, 0.25, NOW)
    assert d.factor == 1.0 and d.age_days == 0.0


@pytest.mark.parametrize("value", [None, "", "not a date", "2026-13-45", "2026/05/01"])
def test_decay_unknown_date_is_not_punished(value):
    d = recency_factor(value, 35.0, 0.25, NOW)
    assert d.factor == 1.0 and d.age_days is None and not d.floored


def test_apply_recency_decay_multiplies_and_resorts():
    now = datetime(2026, 6, 1, tzinfo=UTC)
    cands = [cand("old", 0.04, "slack", content_date="2026-04-27"),   # 35 d, hl 35 -> x0.5
             cand("new", 0.03, "slack", content_date="2026-06-01"),   # x1
             cand("nodate", 0.01, "note")]
    full_curve = dataclasses.replace(config(), decay_weight=1.0)  # age as the whole factor
    out = apply_recency_decay(cands, full_curve, now)
    assert [(c.id, c.score) for c in out] == [("new", 0.03), ("old", 0.02), ("nodate", 0.01)]
    assert out[1].decay == Decay(0.5, 35.0, 35.0, False, age_weight=0.5, places=-1)
    assert [c.decay.places for c in out] == [1, -1, 0]  # new passed old: one place each
    assert cands[0].score == 0.04 and cands[0].decay is None  # input untouched


# --- diversity ------------------------------------------------------------------------------

def test_pair_similarity():
    a = cand("a", source_file="f1")
    assert pair_similarity(a, cand("b", source_file="f1")) == 1.0
    assert pair_similarity(a, cand("c", source_file="f2")) == 0.5
    assert pair_similarity(a, cand("d", source_type="note", source_file="f3")) == 0.0


def slack_heavy() -> list[Candidate]:
    cs = [cand(f"s{i}", 1.0 - i * 0.01, "slack") for i in range(10)]
    cs += [cand("n0", 0.5, "note"), cand("n1", 0.45, "note"), cand("g0", 0.4, "garmin")]
    return cs


def test_mmr_caps_type_and_lets_minorities_in():
    out = diversity_rerank(slack_heavy(), limit=13)
    head = [c for c in out if c.mmr_position is not None]
    assert [c.mmr_position for c in head] == list(range(len(head)))
    assert sum(c.source_type == "slack" for c in head) <= 3
    assert {"n0", "n1", "g0"} <= {c.id for c in head}
    assert out[:len(head)] == head
    assert len(out) == 13 and {c.id for c in out} == {c.id for c in slack_heavy()}


def test_mmr_exact_order():
    # relevance (max 1.0): s_i = 1 - 0.01 i ; n0 .5, n1 .45, g0 .4 ; mmr = .7 rel - .3 sim
    # s1: .693 - .15 = .543 beats n0 .35; s2 .536; slack now capped; n0 .35 > g0 .28;
    # then g0 .28 > n1 .315 - .15 = .165; then n1. Pool rest s3..s5 (pool cap 6), tail s6...
    out = diversity_rerank(slack_heavy(), limit=10)
    assert [c.id for c in out] == ["s0", "s1", "s2", "n0", "g0", "n1",
                                   "s3", "s4", "s5", "s6"]
    assert [c.mmr_position for c in out] == [0, 1, 2, 3, 4, 5] + [None] * 4


def test_mmr_same_file_penalised():
    # a1 and a2 share a file; b1 is another file of the same type, slightly less relevant
    cs = [cand("a1", 1.0, "note", "notes/a.md"), cand("a2", 0.95, "note", "notes/a.md"),
          cand("b1", 0.9, "note", "notes/b.md")]
    out = diversity_rerank(cs, limit=3, target=2)
    assert [c.id for c in out] == ["a1", "b1", "a2"]
    assert [c.mmr_position for c in out] == [0, 1, None]


def test_mmr_limit_invariance():
    cs = slack_heavy()
    assert diversity_rerank(cs, limit=3) == diversity_rerank(cs, limit=10)[:3]
    assert diversity_rerank(cs, limit=1) == diversity_rerank(cs, limit=13)[:1]


def test_mmr_pool_then_tail_order():
    # 8 slack: pool admits 6 (2 x cap); head takes 3; rest of pool, then the tail
    cs = [cand(f"s{i}", 1.0 - i * 0.1, "slack", source_file=f"f{i}") for i in range(8)]
    out = diversity_rerank(cs, limit=20)
    assert [c.id for c in out] == [f"s{i}" for i in range(8)]
    assert [c.mmr_position for c in out] == [0, 1, 2] + [None] * 5


def test_mmr_zero_scores_and_empty():
    assert diversity_rerank([], limit=5) == []
    cs = [cand("a", 0.0), cand("b", 0.0, "note")]
    assert [c.id for c in diversity_rerank(cs, limit=5)] == ["a", "b"]


def test_truncate():
    cs = slack_heavy()
    assert truncate(cs, 2) == cs[:2]
    assert truncate(cs, 0) == [] and truncate(cs, -1) == []


# --- convex, the default: the rule the hybrid ranks by -----------------------------------------
# (engine/rank/convex.py; its weight for the local embedder was chosen by cross-validation over
# six collections, docs/experiments/2026-12-fusion-cross-validation.md)


def _convex(keyword, semantic, ref=0.3):
    from engine.rank.calibration import calibration_for
    from engine.rank.convex import convex_merge

    w = calibration_for("local").semantic_weight
    return w, {c.id: c for c in convex_merge(keyword, semantic, w, sim_ref=ref)}


def test_convex_one_arm_hits_score_their_arms_share():
    kw = [cand("k1", bm25=12.0), cand("k2", bm25=3.0)]
    sem = [cand("s1", similarity=0.8), cand("s2", similarity=0.55), cand("s3", similarity=0.3)]
    w, out = _convex(kw, sem)
    assert out["k1"].score == pytest.approx(1 - w)  # the keyword leader: the whole keyword share
    assert out["k2"].score == pytest.approx((1 - w) * 3 / 12)  # bm25 over the best bm25
    assert out["s1"].score == pytest.approx(w)  # the semantic leader: the whole semantic share
    assert out["s2"].score == pytest.approx(w * 0.25 / 0.5)  # above sim@100, over the best's
    assert out["s3"].score == 0.0  # at the reference similarity: no evidence


def test_convex_when_the_arms_disagree_the_keyword_leader_wins_and_agreement_beats_both():
    kw = [cand("k", bm25=10.0), cand("both", bm25=9.0)]
    sem = [cand("s", similarity=0.9), cand("both", similarity=0.84)]
    w, out = _convex(kw, sem)
    assert w < 0.5  # the keyword arm is the stronger on every collection measured
    ranked = sorted(out.values(), key=lambda c: -c.score)
    # a chunk each arm ranks second, at 90% of each leader, beats both one-arm leaders
    assert [c.id for c in ranked] == ["both", "k", "s"]
    assert out["both"].score == pytest.approx((1 - w) * 0.9 + w * 0.9)
    # the same chunk weaker in the keyword arm (half the best bm25) falls under its leader
    kw[1] = cand("both", bm25=5.0)
    _, out = _convex(kw, sem)
    assert out["k"].score > out["both"].score > out["s"].score
