"""Fusion weighs evidence: decay orders comparable results and never overrides relevance,
semantic-only rows need the embedder's bar, sort by date and decay off (docs/benchmarks.md,
"Retrieval quality" and "Recency decay")."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.rank.calibration import calibration_for
from engine.rank.candidates import Candidate
from engine.rank.convex import convex_merge
from engine.rank.stages import apply_recency_decay, drop_weak_semantic, sort_by_date
from engine.searcher import Searcher
from tests.app.conftest import demo_root  # noqa: F401 - fixture

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def cand(i, score=1.0, date="2026-11-29", source_type="slack", **kw) -> Candidate:
    return Candidate(id=f"c{i}", content="x", source_file=f"f{i}", source_type=source_type,
                     content_date=date, score=score, **kw)


# -- units ------------------------------------------------------------------------------------

def test_decay_never_lifts_a_loose_recent_match_over_a_better_old_one(config):
    old = cand(0, 1.0, date="2016-05-01")  # fused first; at the age floor
    fresh = [cand(i, 0.9 - i * 0.01) for i in range(1, 12)]  # today, each a bit less relevant
    out = apply_recency_decay([old, *fresh], config, NOW)
    assert out[0].id == "c0"
    c0 = out[0]
    assert c0.decay.floored and c0.decay.age_weight == config.decay_floor
    # age takes at most decay_weight of the score: 1 - 0.05 * (1 - 0.25)
    assert c0.decay.factor == pytest.approx(1 - config.decay_weight * (1 - config.decay_floor))
    assert c0.score == pytest.approx(c0.decay.factor)
    scores = [c.score for c in out]
    assert scores == sorted(scores, reverse=True)  # MMR's relevances stay consistent


def test_of_two_equally_relevant_chunks_the_newer_comes_first(config):
    older = cand(1, 0.8, date="2026-06-01")
    newer = cand(2, 0.8, date="2026-11-20")
    assert [c.id for c in apply_recency_decay([older, newer], config, NOW)] == ["c2", "c1"]


def test_decay_weight_zero_leaves_the_order_and_one_is_the_full_curve(config):
    import dataclasses

    old, fresh = cand(0, 1.0, date="2016-05-01"), cand(1, 0.5)
    off = dataclasses.replace(config, decay_weight=0.0)
    assert [c.id for c in apply_recency_decay([old, fresh], off, NOW)] == ["c0", "c1"]
    full = dataclasses.replace(config, decay_weight=1.0)
    out = apply_recency_decay([old, fresh], full, NOW)
    assert [c.id for c in out] == ["c1", "c0"] and out[1].score == pytest.approx(0.25)


def test_decay_still_orders_comparable_candidates_by_half_life(config):
    month_ago = (NOW - timedelta(days=30)).date().isoformat()
    same = [cand(1, 1.0, month_ago, "slack"), cand(2, 1.0, month_ago, "note"),
            cand(3, 1.0, month_ago, "garmin")]
    out = apply_recency_decay(same, config, NOW)
    assert [c.source_type for c in out] == ["note", "slack", "garmin"]  # 365 > 35 > 14 days
    assert config.half_life("slack") == 35.0 and config.half_life("note") == 365.0


def test_convex_merge_weights_normalised_scores():
    kw = [cand(1, bm25=10.0), cand(2, bm25=5.0)]
    sem = [cand(2, similarity=0.8), cand(3, similarity=0.5), cand(4, similarity=0.2)]
    out = {c.id: c for c in convex_merge(kw, sem, 0.25, sim_ref=0.2)}
    assert out["c1"].arm_scores == {"keyword": pytest.approx(0.75)}
    assert out["c2"].arm_scores == {"keyword": pytest.approx(0.375),
                                   "semantic": pytest.approx(0.25)}
    assert out["c3"].score == pytest.approx(0.25 * 0.3 / 0.6) and out["c4"].score == 0.0
    assert out["c2"].fusion_terms["semantic"] == "0.25 × (0.800 - 0.200)/(0.800 - 0.200) = 0.2500"
    assert [c.id for c in convex_merge(kw, sem, 0.25, 0.2)] == ["c1", "c2", "c3", "c4"]


def test_semantic_only_rows_below_the_floor_are_dropped():
    rows = [cand(1, keyword_rank=0, similarity=0.1), cand(2, similarity=0.29),
            cand(3, similarity=0.31), cand(4, injected=True)]
    assert [c.id for c in drop_weak_semantic(rows, 0.30)] == ["c1", "c3", "c4"]
    assert drop_weak_semantic(rows, None) == rows


def test_sort_by_date_is_newest_first_and_undated_last():
    rows = [cand(1, date="2026-01-02"), cand(2, date=None), cand(3, date="2026-11-02"),
            cand(4, date="2026-01-02")]
    assert [c.id for c in sort_by_date(rows)] == ["c3", "c1", "c4", "c2"]


def test_the_local_embedder_is_calibrated():
    cal = calibration_for("local")
    assert cal.measured and 0 < cal.semantic_weight < 0.5 and cal.similarity_floor == 0.30
    assert calibration_for("no-such-provider").similarity_floor is None
    minilm = calibration_for("minilm")
    assert minilm.measured and minilm.similarity_floor == 0.30
    # with message vectors, the best LoCoMo-dev weight, SciFact >= 0.73 (docs/benchmarks.md,
    # "MiniLM"); only MiniLM stores message vectors
    assert minilm.semantic_weight == 0.3 and minilm.message_share == 0.5
    assert cal.message_share == 0


# -- end to end on a small root ----------------------------------------------------------------

def _chat(path, start, texts, who=("Brock", "Misty")):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        json.dumps({"date": (start + timedelta(minutes=i)).isoformat(), "from": who[i % 2],
                    "text": t}) + "\n" for i, t in enumerate(texts)))


@pytest.fixture(scope="module")
def chats(tmp_path_factory):
    root = tmp_path_factory.mktemp("evidence") / "root"
    old = datetime(2016, 7, 14, 18, 0, tzinfo=UTC)
    _chat(root / "data/telegram/2016.jsonl", old,
          ["we finally caught a pokemon near the ash grove"] + [f"see you at {h} pm" for h in
                                                                range(2, 11)])
    fresh = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
    _chat(root / "data/telegram/cards.jsonl", fresh,
          [f"pokemon card number {i} is on the trading list" for i in range(30)])
    _chat(root / "data/telegram/garden.jsonl", fresh,
          [f"the ash tree needs pruning in row {i}" for i in range(30)])
    for name, day in (("spring", datetime(2026, 5, 2, 9, 0, tzinfo=UTC)),
                      ("autumn", datetime(2026, 11, 2, 9, 0, tzinfo=UTC))):
        _chat(root / f"data/telegram/harvest-{name}.jsonl", day,
              ["the zucchini harvest festival is on saturday", "bring the big basket"])
    (root / "notes").mkdir()
    (root / "notes/only.md").write_text("# Marker\n\nThe word zorblatt is here and nowhere else.\n")
    config = load_config(root)
    reindex(config=config)
    s = Searcher(config)
    yield s
    s.close()


def test_an_old_chunk_holding_every_term_ranks_above_recent_loose_matches(chats):
    # the shape a person meets: one old window says everything asked, many fresh ones one word
    r = chats.search("pokemon ash", now=NOW)
    ids = [x.id for x in r]
    assert ids[0] == "data/telegram/2016.jsonl#w0", ids
    assert r[0].decay.floored
    assert r.decay_applied and r.fusion.startswith("convex (local)")


def test_of_two_equally_relevant_windows_the_newer_ranks_first(chats):
    # the two windows hold the same messages: one row, the better ranked of them, with the
    # other folded into it (engine/rank/repeats.py)
    r = chats.search("zucchini harvest festival", now=NOW)
    assert r[0].source_file == "data/telegram/harvest-autumn.jsonl" and r.decay_applied
    assert [x.source_file for x in r[0].repeats] == ["data/telegram/harvest-spring.jsonl"]
    assert r[0].decay.age_days < 60


def test_on_the_demo_the_climbing_trip_stays_on_the_first_screen(demo_root):  # noqa: F811
    # a fresh product-channel chat that says "trips" must not push the April climbing trip
    # (an old photo event holding both words) off the first five
    s = Searcher(load_config(demo_root))
    r = s.search("climbing trip", now=NOW)
    s.close()
    top = [x.content for x in r][:5]
    assert r.decay_applied and any("Climbing trip to Donner Summit" in c for c in top), top
    donner = next(x for x in r if "Donner Summit" in x.content)
    assert donner.decay.age_days > 200 and donner.decay.factor > 1 - 0.05


def test_a_time_phrase_still_filters_and_orders_by_time(chats):
    may = chats.search("zucchini harvest festival in May 2026", now=NOW)
    assert [x.source_file for x in may] == ["data/telegram/harvest-spring.jsonl"]
    assert not may.decay_applied  # a named period: age does not rank inside it
    before = chats.search("zucchini harvest festival before June 2026", now=NOW)
    assert [x.source_file for x in before] == ["data/telegram/harvest-spring.jsonl"]
    assert before.decay_applied and before[0].decay.age_days == pytest.approx(29, abs=1)
    only_time = chats.search("in 2026", now=NOW)  # nothing to rank by: newest first
    dates = [x.content_date for x in only_time]
    assert only_time.sort == "date" and dates == sorted(dates, reverse=True) and len(dates) > 2


def test_decay_off_and_sort_by_date(chats):
    off = chats.search("pokemon ash", now=NOW, decay=False)
    assert not off.decay_applied and all(x.decay is None for x in off)
    by_date = chats.search("pokemon ash", now=NOW, sort="date")
    dates = [x.content_date for x in by_date]
    assert by_date.sort == "date" and dates == sorted(dates, reverse=True)
    assert {x.id for x in by_date} == {x.id for x in chats.search("pokemon ash", now=NOW)}


def test_a_unique_word_shows_its_hit_not_unrelated_rows(chats):
    r = chats.search("zorblatt", now=NOW)
    assert r[0].id == "notes/only.md#s1"
    floor = calibration_for("local").similarity_floor
    assert all(x.keyword_rank is not None or x.similarity >= floor for x in r)
    assert len(r) < 5  # the root has 8 chunks; padding would show them all


def test_bad_sort_is_refused(chats):
    from engine.searcher import SearchError

    with pytest.raises(SearchError, match="sort must be one of relevance, date"):
        chats.search("pokemon", sort="newest")


def test_rrf_stays_available_and_says_so(chats):
    rrf = Searcher(chats.config.with_overrides(fusion="rrf"))
    r = rrf.search("zorblatt", now=NOW)
    assert r.fusion == "rrf k=60, votes keyword 1.0 semantic 1.0"
    assert r[0].arm_scores["keyword"] == pytest.approx(1 / 61)
    assert r[0].fusion_terms["keyword"] == "1/(60+1) = 0.01639"
    rrf.close()
    assert chats.search("zorblatt", mode="keyword").fusion.startswith("keyword arm only")


def test_fusion_and_weight_come_from_memlens_toml(tmp_path):
    from engine.config import ConfigError

    (tmp_path / "memlens.toml").write_text('[search]\nfusion = "rrf"\nsemantic_weight = 0.4\n')
    config = load_config(tmp_path)
    assert config.fusion == "rrf" and config.semantic_weight == 0.4
    (tmp_path / "memlens.toml").write_text('[search]\nfusion = "max"\n')
    with pytest.raises(ConfigError, match=r"fusion must be one of convex, rrf"):
        load_config(tmp_path)
    (tmp_path / "memlens.toml").write_text('[search]\nsemantic_weight = 1.5\n')
    with pytest.raises(ConfigError, match="semantic_weight must be a number from 0 to 1"):
        load_config(tmp_path)


def test_confidence_is_low_only_without_evidence_from_either_arm(chats):
    assert chats.config.similarity_threshold is None  # the calibrated floor applies
    none = chats.search("xylophone quantum marmalade", now=NOW)
    assert none.confidence == "low" and len(none) == 0
    assert chats.search("ash tree pruning", now=NOW).confidence == "ok"
    # with a floor nothing reaches, the keyword side decides: most of the words in one chunk
    strict = Searcher(chats.config.with_overrides(similarity_threshold=0.99))
    one_of_three = strict.search("zorblatt xylophone quantum", now=NOW)
    assert one_of_three.confidence == "low" and one_of_three[0].id == "notes/only.md#s1"
    two_of_three = strict.search("pruning tree xylophone", now=NOW)
    assert not two_of_three.matched_all_terms and two_of_three.confidence == "ok"
    strict.close()
