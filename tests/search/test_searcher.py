"""The whole search pipeline over a real index built from real files."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from engine import reindex, search
from engine.config import load_config
from engine.searcher import Searcher, SearchError
from tests.conftest import CountingEmbedder, make_root

NOW = datetime(2026, 4, 10, tzinfo=UTC)

CGM = {"date": "2026-03-03", "unit": "mg/dL", "mean": 104, "min": 71, "max": 162,
       "time_in_range_pct": 93, "readings": 288, "events": []}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("search") / "root")
    (root / "data/health/cgm").mkdir(parents=True)
    (root / "data/health/cgm/2026-03-03.json").write_text(json.dumps(CGM))
    (root / "notes/work").mkdir(parents=True)
    (root / "notes/work/launch.md").write_text(
        "---\ntitle: Launch\ndate: 2026-03-20\ntags: [work, launch]\nstatus: active\n"
        "priority: 1\n---\n# Checklist\n\nShip the harbor bridge dashboard on Friday.\n")
    (root / "notes/work/retro.md").write_text(
        "---\ntitle: Retro\ndate: 2026-03-27\ntags: [work]\nstatus: done\npriority: \"1\"\n"
        "---\n# Retro\n\nThe team felt exhausted and burned out after the launch crunch.\n")
    (root / "profile").mkdir()
    (root / "profile/relationships.json").write_text(json.dumps({"people": [
        {"name": "Maya Chen", "aliases": ["Maya"], "relationship": "colleague",
         "context": "harbor bridge project lead", "interests": ["climbing"]}]}))
    config = load_config(root)
    reindex(config=config)
    s = Searcher(config)
    yield s
    s.close()


def ids(response):
    return [r.id for r in response]


def test_hybrid_response_carries_header_fields(searcher):
    r = searcher.search("harbor bridge dashboard", now=NOW)
    assert r.arms == "both" and r.mode == "hybrid"
    assert r.arm_depth["keyword"][1] == 50 and r.arm_depth["semantic"][1] == 50
    assert r.confidence == "ok" and r.rrf_k == 60
    assert {"embed", "keyword", "semantic", "fusion", "decay", "mmr", "total"} <= set(r.timings_ms)
    top = r[0]
    assert top.id == "notes/work/launch.md#s1"
    assert top.keyword_rank == 1 and top.semantic_rank is not None
    # convex fusion: the keyword leader's part is the keyword weight times bm25/best = 1
    assert top.arm_scores["keyword"] == pytest.approx(0.85)
    assert top.fusion_terms["keyword"].startswith("0.85 × ")
    assert r.fusion.startswith("convex (local): keyword 0.85 × bm25/best + semantic 0.15 × ")
    assert [top.snippet[a:b] for a, b in top.highlights] == ["harbor", "bridge", "dashboard"]
    assert "«" not in top.snippet and top.matched_terms == ["harbor", "bridge", "dashboard"]
    assert top.section_path == ["Checklist"] and top.decay.half_life == 365.0


def test_person_query_injects_the_profile(searcher):
    r = searcher.search("what did Maya say", now=NOW)
    profiles = [x for x in r if x.injected]
    assert len(profiles) == 1 and profiles[0].source_type == "profile"
    assert "colleague" in profiles[0].content and profiles[0].found_by == ["profile"]


def test_source_type_filter_is_pushed_into_both_arms(searcher):
    r = searcher.search("harbor bridge", source_types=["cgm"], now=NOW, mode="semantic")
    # cgm has no keyword match, but the semantic arm still returns the only cgm chunk
    assert ids(r) == ["data/health/cgm/2026-03-03.json#day"]
    hybrid = searcher.search("harbor bridge", source_types=["cgm"], now=NOW)
    assert hybrid.arm_depth["keyword"][0] == 0
    assert ids(hybrid) == []  # similarity under the local embedder's bar: no evidence


def test_tag_frontmatter_and_folder_filters_are_strict(searcher):
    assert ids(searcher.search("launch", tags=["work", "launch"])) == ["notes/work/launch.md#s1"]
    assert ids(searcher.search("launch", frontmatter={"priority": 1})) == [
        "notes/work/launch.md#s1"]
    assert ids(searcher.search("launch", frontmatter={"priority": "1"})) == [
        "notes/work/retro.md#s1"]
    r = searcher.search("launch", path_prefix="notes/work/", mode="keyword")
    assert {x.source_file for x in r} == {"notes/work/launch.md", "notes/work/retro.md"}
    with pytest.raises(SearchError):
        searcher.search("x", frontmatter={"a": {"nested": 1}})


def test_a_folder_inside_a_source_is_found_the_way_a_person_writes_it(tmp_path):
    root = make_root(tmp_path / "root")
    vault = tmp_path / "Vault"
    for rel, text in (("Work/plan.md", "# Plan\n\nThe kiln budget for spring.\n"),
                      ("Daily/2026-03-01.md", "# Monday\n\nThe kiln was cold.\n")):
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text)
    (root / "memlens.toml").write_text(f'[sources.Vault]\npath = "{vault}"\ntype = "note"\n')
    config = load_config(root)
    reindex(config=config)
    s = Searcher(config)
    try:
        for folder in ("@Vault/Work/", "Work/", "Work", "Vault/Work/"):
            r = s.search("kiln", path_prefix=folder, mode="keyword", now=NOW)
            assert [x.source_file for x in r] == ["@Vault/Work/plan.md"], folder
        with pytest.raises(SearchError, match=r'^no folder "Wrok/" in the index; did you mean '
                                              r'"@Vault/Work/"\?$'):
            s.search("kiln", path_prefix="Wrok/", now=NOW)
    finally:
        s.close()


def test_date_filters(searcher):
    r = searcher.search("harbor bridge", since="2026-03-15", until="2026-03-31", now=NOW)
    assert r.results and all("2026-03-15" <= x.content_date <= "2026-03-31" for x in r)


def test_paraphrase_found_semantically_and_keyword_arm_misses_it(searcher):
    keyword = searcher.search("job fatigue", mode="keyword")
    assert "notes/work/retro.md#s1" not in ids(keyword)
    semantic = searcher.search("job fatigue", mode="semantic")
    assert semantic.arms == "semantic" and "notes/work/retro.md#s1" in ids(semantic)[:3]


def test_increasing_limit_never_changes_the_first_results(searcher):
    small = ids(searcher.search("harbor bridge project", limit=3, now=NOW))
    large = ids(searcher.search("harbor bridge project", limit=12, now=NOW))
    assert large[:3] == small


def test_no_type_has_more_than_three_in_the_first_seven(searcher):
    r = searcher.search("message about the harbor bridge project", limit=10, now=NOW)
    # the diversified head; past it, the pool's rest (here more slack: unrelated rows of other
    # types no longer pad the page, see test_semantic_only_rows_need_the_embedders_bar)
    head = [x.source_type for x in r if x.mmr_position is not None]
    assert len(head) >= 4 and all(head.count(t) <= 3 for t in set(head))
    assert [x.mmr_position for x in r][:3] == [1, 2, 3]


BAD_QUERIES = ["", "   ", "the of and", "???!!!", "NEAR(", "col:term", 'unbalanced "quote',
               "x" * 10_000, "ctrl\x00\x1b[31m\x07chars", "'; DROP TABLE chunks; --",
               "AND OR NOT", "\"\"", "*"]


@pytest.mark.parametrize("query", BAD_QUERIES)
@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic"])
def test_bad_queries_return_cleanly(searcher, query, mode):
    r = searcher.search(query, mode=mode)
    assert r.arms in ("both", mode)
    assert len(r) <= 10


def test_invalid_arguments_raise_search_error(searcher):
    with pytest.raises(SearchError):
        searcher.search("x", limit=0)
    with pytest.raises(SearchError):
        searcher.search("x", mode="fuzzy")


def test_provider_failure_gives_keyword_only(searcher):
    broken = Searcher(searcher.config, embedder=CountingEmbedder(fail_with="provider_error"))
    r = broken.search("harbor bridge", now=NOW)
    assert r.arms == "keyword-only (semantic unavailable: provider_error)"
    assert r.results and all(x.found_by == ["keyword"] for x in r)
    keyword = searcher.search("harbor bridge", mode="keyword")
    assert ids(r) == ids(keyword)
    broken.close()


def test_stale_flag_when_the_file_changed_after_indexing(searcher):
    note = searcher.config.root / "notes/work/launch.md"
    text = note.read_text()
    note.write_text(text + "\n")
    try:
        r = searcher.search("harbor bridge dashboard", mode="keyword")
        assert r[0].stale
    finally:
        note.write_text(text)
        reindex(config=searcher.config)


def test_module_level_search_uses_the_root(searcher, monkeypatch):
    monkeypatch.setenv("MEMLENS_ROOT", str(searcher.config.root))
    r = search("dahlias", limit=3)
    assert r[0].content.endswith("Dahlias near the shed.")
    assert list(r)[0] is r[0]


def test_another_embedder_searches_the_index_vectors_with_their_own(searcher):
    class Other(CountingEmbedder):
        model = "other-model"

    configured = Other()
    other = Searcher(searcher.config, embedder=configured)
    r = other.search("harbor bridge", now=NOW)
    # the index holds the local model's vectors: queries are embedded by it, never by Other
    assert r.arms == "both" and configured.texts == []
    assert r.serving_embedder.startswith("local:") and r.re_embed is None
    assert r.fusion.startswith("convex (local)")
    other.close()


# -- the pipeline on the demo root ----------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from engine.demo import generate_demo_root

    root = tmp_path_factory.mktemp("demo") / "root"
    generate_demo_root(root)
    config = load_config(root)
    reindex(config=config)
    s = Searcher(config)
    yield s
    s.close()


DEMO_NOW = datetime(2026, 11, 30, tzinfo=UTC)


def test_demo_person_queries_inject_their_profile(demo):
    for query in ("Robert Okafor", "what did Bobby say", "maya chen"):
        r = demo.search(query, now=DEMO_NOW)
        assert [x.injected for x in r].count(True) == 1, query


def test_demo_exact_rare_noun_is_found_by_keyword_and_missed_by_semantic(demo):
    from engine.demo import DEMO_FACTS

    noun = DEMO_FACTS["rare_noun"]
    word = noun.split()[0]  # "Osteria": one proper noun, in exactly one chunk
    keyword = demo.search(word, mode="keyword", now=DEMO_NOW)
    assert len(keyword) == 1 and noun in keyword[0].content
    semantic = [x.content for x in demo.search(word, mode="semantic", now=DEMO_NOW)]
    assert not any(noun in c for c in semantic[:3])  # static word vectors blur a rare name
    hybrid = demo.search(word, now=DEMO_NOW)
    assert any(noun in x.content for x in hybrid[:5])


def test_demo_paraphrase_is_found_only_semantically(demo):
    from engine.demo import DEMO_FACTS

    query = DEMO_FACTS["paraphrase_query"]
    target = "burned out and exhausted"
    assert all(target not in x.content for x in demo.search(query, mode="keyword", limit=50))
    assert any(target in x.content for x in demo.search(query, now=DEMO_NOW))


def test_small_type_filter_finds_chunks_absent_from_the_unfiltered_top_250(demo):
    query = "deploy the staging cluster before standup"
    unfiltered = demo.search(query, limit=50, now=DEMO_NOW, mode="semantic")  # depth 250
    assert "cgm" not in {x.source_type for x in unfiltered}
    filtered = demo.search(query, source_types=["cgm"], now=DEMO_NOW, mode="semantic")
    assert len(filtered) == 10 and {x.source_type for x in filtered} == {"cgm"}


def test_demo_heads_never_hold_more_than_three_of_a_type(demo):
    for query in ("climbing trip", "atlas migration", "sleep and stress", "dinner with maya"):
        head = [x.source_type for x in demo.search(query, now=DEMO_NOW)][:7]
        assert all(head.count(t) <= 3 for t in head), (query, head)


def test_low_confidence_when_nothing_matches_all_terms_and_similarity_is_low(demo):
    strict = Searcher(demo.config.with_overrides(similarity_threshold=0.99))
    r = strict.search("zebra quantum marmalade", now=DEMO_NOW)
    assert r.confidence == "low" and not r.matched_all_terms
    ok = strict.search("atlas migration", now=DEMO_NOW)
    assert ok.matched_all_terms and ok.confidence == "ok"
    # no threshold set: the local embedder's calibrated floor (engine/rank/calibration.py)
    assert demo.search("zebra quantum marmalade").confidence == "low"
    assert demo.search("xylophone quantum").confidence == "low"
    for query in ("climbing trip", "atlas migration", "sleep quality", "dinner with maya"):
        assert demo.search(query, now=DEMO_NOW).confidence == "ok", query
    strict.close()


# -- optional rerank, end to end against a local /rerank server -----------------------------

@pytest.fixture
def http_server():
    from tests.http_fixtures import ServerFactory

    with ServerFactory() as start:
        yield start


def test_search_rerank_reorders_with_a_configured_reranker(searcher, http_server):
    from engine.config import RerankerConfig
    from tests.http_fixtures import Reply

    def reverse(request):
        n = len(request.json()["documents"])
        return Reply(200, {"results": [{"index": i, "relevance_score": float(i)}
                                       for i in reversed(range(n))]})

    server = http_server(reverse)
    plain = searcher.search("harbor bridge", now=NOW)
    assert plain.reranked is False and plain.rerank_reason == "not_requested"
    unconfigured = searcher.search("harbor bridge", now=NOW, rerank=True)
    assert unconfigured.reranked is False and unconfigured.rerank_reason == "not_configured"
    assert ids(unconfigured) == ids(plain)

    config = searcher.config.with_overrides(
        reranker=RerankerConfig(url=server.url + "/rerank", model="m", timeout=2.0))
    reranking = Searcher(config)
    r = reranking.search("harbor bridge", now=NOW, rerank=True)
    assert r.reranked is True and r.rerank_reason is None
    assert ids(r) == list(reversed(ids(plain)))
    assert r[0].rerank_score == max(x.rerank_score for x in r)
    assert server.requests[0].json()["query"] == "harbor bridge"
    reranking.close()


def test_search_rerank_timeout_keeps_the_order(searcher, http_server):
    from engine.config import RerankerConfig
    from tests.http_fixtures import Reply

    server = http_server(default=Reply(200, {"results": []}, delay=3.0))
    config = searcher.config.with_overrides(
        reranker=RerankerConfig(url=server.url + "/rerank", model="m", timeout=0.3))
    slow = Searcher(config)
    r = slow.search("harbor bridge", now=NOW, rerank=True)
    assert r.reranked is False and r.rerank_reason == "timeout"
    assert ids(r) == ids(searcher.search("harbor bridge", now=NOW))
    slow.close()


def test_warm_up_loads_the_vector_index_and_never_raises(searcher, tmp_path):
    fresh = Searcher(searcher.config)
    fresh.warm_up()
    assert fresh._vectors is not None and len(fresh._vectors) > 0
    fresh.close()
    missing = Searcher(load_config(tmp_path))  # no index yet: nothing to load, no error
    missing.warm_up()
    assert missing._vectors is None
