"""The one explain presenter (engine/retrieval/explain.py): plain text from a result's explain fields."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.rank.candidates import Decay
from engine.retrieval.explain import explain_lines, formula
from engine.search_response import SearchResult


def result(**fields) -> SearchResult:
    base = dict(id="notes/a.md#s1", content="text", source_file="notes/a.md",
                source_type="note", score=0.03042, matched_terms=["harbor"],
                content_date="2026-01-01")
    return SearchResult(**{**base, **fields})


BOTH = dict(keyword_rank=1, semantic_rank=4, bm25=7.25, similarity=0.612,
            arm_scores={"keyword": 1 / 61, "semantic": 1 / 64}, found_by=["keyword", "semantic"],
            decay=Decay(factor=0.95, age_days=30.4, half_life=90, age_weight=0.5,
                        weight_share=0.1, places=2), mmr_position=2)


def test_formula_is_the_score_arithmetic_on_one_line():
    assert formula(result(**BOTH), 60) == (
        "keyword 1/(60+1) = 0.01639 + semantic 1/(60+4) = 0.01562 = 0.03202 × decay 0.950 "
        "(1 − 0.10 × (1 − age weight 0.500); age 30 d, half-life 90 d) = 0.03042, recency: up "
        "2 places; diversity pick #2")
    single = result(keyword_rank=3, arm_scores={"keyword": 1 / 63}, found_by=["keyword"])
    assert formula(single, 60) == "keyword 1/(60+3) = 0.01587 = 0.01587"


def test_formula_uses_the_arithmetic_the_fusion_recorded():
    r = result(**{**BOTH, "arm_scores": {"keyword": 0.2, "semantic": 1 / 64}})
    r.fusion_terms = {"keyword": "0.20 × 7.25/7.25 = 0.2000"}
    assert formula(r, 60).startswith(
        "keyword 0.20 × 7.25/7.25 = 0.2000 + semantic 1/(60+4) = 0.01562 = 0.21563 × decay")


def test_lines_say_which_stages_did_not_apply():
    lines = {x.label: x for x in explain_lines(result(**BOTH, stale=True), 60)}
    assert lines["fusion"].text == "keyword 1/(60+1) = 0.01639 + semantic 1/(60+4) = 0.01562"
    assert lines["keyword"].text == "rank 1, bm25 7.250, matched harbor"
    assert lines["semantic"].text == "rank 4, similarity 0.612"
    assert lines["decay"].text == ("×0.950 (1 − 0.10 × (1 − age weight 0.500); age 30 d, "
                                   "half-life 90 d); recency: up 2 places")
    assert lines["flags"].text == "stale (file changed since indexed)"
    semantic_only = {x.label: x for x in explain_lines(result(
        semantic_rank=1, similarity=0.5, arm_scores={"semantic": 1 / 61}), 60)}
    assert [x.applies for x in semantic_only.values()] == [True, False, True, False, False,
                                                            True]


def test_a_profile_row_names_the_person_as_a_json_string():
    r = result(injected=True, metadata={"person": 'Maya "M" Chen\x1b', "matched": "maya"})
    text = formula(r, 60)
    assert text == ('profile of "Maya \\"M\\" Chen\\u001b" injected at the median score '
                    '(the query names "maya")')
    assert [(x.label, x.text) for x in explain_lines(r, 60)] == [("profile", text)]


def test_plain_summary_says_it_in_words():
    from engine.retrieval.explain import plain_summary

    both = result(**{**BOTH, "semantic_rank": 97,
                     "decay": Decay(factor=0.997, age_days=1.2, half_life=35,
                                    age_weight=0.97, weight_share=0.1)})
    assert plain_summary(both) == ("found by both searches: keyword #1, meaning #97; words "
                                   "matched: harbor; yesterday, ×1.00; recency: kept its place")
    meaning = result(semantic_rank=3, matched_terms=None, stale=True,
                     decay=Decay(factor=0.925, age_days=800, half_life=35, floored=True,
                                 age_weight=0.25, weight_share=0.1, places=-1))
    assert plain_summary(meaning) == ("found by the meaning search only (#3); 2.2 years old, "
                                      "×0.93 (the oldest weight); recency: down 1 place; the "
                                      "file changed since it was indexed")
    ages = {age: plain_summary(result(**{**BOTH, "decay": Decay(
        factor=1.0, age_days=age, half_life=35, age_weight=1.0, weight_share=0.1)}))
        for age in (0.0, 0.79, 1.0, 1.99, 2.5, 59.9)}
    # a date is a whole day: written this morning is "today", not hours since midnight
    assert ["today" in ages[0.0], "today" in ages[0.79], "yesterday" in ages[1.0],
            "yesterday" in ages[1.99], "2 days old" in ages[2.5],
            "59 days old" in ages[59.9]] == [True] * 6
    assert not any("hour" in text for text in ages.values())
    profile = result(injected=True, metadata={"person": "Maya Chen", "matched": "maya"})
    assert plain_summary(profile).startswith('the profile of "Maya Chen"')


def test_browsing_by_date_matches_no_word(config):
    """"what did I do in March": every word a stop word, so the page is March's chunks newest
    first, and it says so; no "I" or "did" is claimed as matched or highlighted."""
    from engine.indexer import reindex
    from engine.searcher import Searcher
    from tests.conftest import write_chat

    write_chat(config.root / "data/telegram/ana.jsonl",
               ["what did I do today", "I did the long walk", "did you?"],
               start=datetime(2026, 3, 5, 9, 0, tzinfo=UTC))
    reindex(config=config)
    searcher = Searcher(config)
    try:
        response = searcher.search("what did I do in March", 5,
                                   now=datetime(2026, 5, 1, tzinfo=UTC))
    finally:
        searcher.close()
    rows = list(response)
    assert "data/telegram/ana.jsonl" in {r.source_file for r in rows}
    assert response.arms.startswith("none (nothing to rank by")
    assert all(r.matched_terms is None and not r.highlights for r in rows)


def _convex(similarities, sim_ref):
    """The default fusion over a keyword hit and semantic hits of these similarities."""
    from engine.rank.candidates import Candidate
    from engine.rank.convex import convex_merge

    keyword = [Candidate(id="k", content="k", source_file="notes/k.md", source_type="note",
                         bm25=6.42)]
    semantic = [Candidate(id=f"s{i}", content="s", source_file=f"notes/s{i}.md",
                          source_type="note", similarity=sim)
                for i, sim in enumerate(similarities)]
    return {c.id: c for c in convex_merge(keyword, semantic, 0.15, sim_ref)}


def _shown(c) -> SearchResult:
    return result(id=c.id, score=c.score, keyword_rank=None, semantic_rank=1,
                  similarity=c.similarity, arm_scores=dict(c.arm_scores),
                  fusion_terms=dict(c.fusion_terms), found_by=c.found_by)


def test_a_negative_reference_similarity_reads_as_arithmetic():
    out = _convex([0.552, 0.417], sim_ref=-0.123)
    text = out["s1"].fusion_terms["semantic"]
    assert text.startswith("0.15 × (0.417 + 0.123)/(0.552 + 0.123) = 0.1200")
    assert 0.15 * (0.417 + 0.123) / (0.552 + 0.123) == pytest.approx(out["s1"].score)
    for c in out.values():
        for text in [formula(_shown(c), 60), *(x.text for x in explain_lines(_shown(c), 60))]:
            assert "- -" not in text and "+ -" not in text, text


def test_a_similarity_under_the_reference_says_it_counts_zero():
    out = _convex([0.552, 0.1], sim_ref=0.2)
    assert out["s1"].fusion_terms["semantic"] == "0.15 × max(0, 0.100 - 0.200)/(0.552 - 0.200) = 0.0000"
    alone = _convex([0.4], sim_ref=None)  # the only hit is its own reference: no spread
    assert alone["s0"].fusion_terms["semantic"] == (
        "0.15 × 1 (the best similarity is the reference, 0.400) = 0.1500")


def test_each_arms_part_is_arm_scores_whatever_the_fusion():
    from dataclasses import fields

    r = result(**BOTH)
    names = {f.name for f in fields(SearchResult)}
    assert "arm_scores" in names and "rrf_terms" not in names
    assert r.rrf_terms is r.arm_scores  # the old name: a read-only alias
    with pytest.raises(AttributeError):
        r.rrf_terms = {}
