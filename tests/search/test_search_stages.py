"""The search stages alone (engine/retrieval/search_arms.py, engine/retrieval/result_page.py), each over a real index
on a read-only connection, without the rest of the pipeline."""

from __future__ import annotations

import os

import pytest

from engine import reindex
from engine.config import load_config
from engine.rank.candidates import Candidate
from engine.retrieval.filters import Filters
from engine.retrieval.fts_query import parse_query
from engine.retrieval.result_page import results_page
from engine.retrieval.search_arms import (
    full_matches,
    keyword_candidates,
    knn_mask,
    newest_first,
    semantic_candidates,
)
from engine.schema import open_reader
from engine.searcher import Searcher
from tests.conftest import make_root

GARDEN = "notes/home/garden.md"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    config = load_config(make_root(tmp_path_factory.mktemp("stages") / "root"))
    reindex(config=config)
    conn = open_reader(config.db_path)
    yield config, conn
    conn.close()


def rows(conn, where: str = "1", args=()) -> list:
    return conn.execute(f"SELECT rowid, source_type, content_date FROM chunks WHERE {where} "
                        "ORDER BY rowid", args).fetchall()


def test_keyword_candidates_rank_by_bm25_inside_the_filters(index):
    config, conn = index
    parsed = parse_query("harbor bridge")
    found = keyword_candidates(conn, parsed, 50, Filters(), "harbor bridge", 10**9)
    assert found and [c.keyword_rank for c in found] == list(range(len(found)))
    assert {c.source_type for c in found} == {"slack"}
    assert keyword_candidates(conn, parsed, 50, Filters.build(["note"]), "harbor bridge",
                              10**9) == []
    notes = keyword_candidates(conn, parse_query("dahlias tomatoes"), 50, Filters.build(["note"]),
                               "dahlias tomatoes", 10**9)
    assert notes and {c.source_file for c in notes} == {GARDEN}
    assert all(c.bm25 is not None and c.bm25 > 0 for c in notes)


def test_full_matches_needs_every_word_and_stops_at_the_cap(index):
    _, conn = index
    assert len(full_matches(conn, parse_query("harbor bridge"), Filters(), 2)) == 2
    assert full_matches(conn, parse_query("harbor tomatoes"), Filters(), 5) == []
    assert full_matches(conn, parse_query("dahlias shed"), Filters.build(["slack"]), 5) == []


def test_semantic_candidates_keep_hit_order_and_skip_rows_deleted_since(index):
    _, conn = index
    first, second = (r["rowid"] for r in rows(conn)[:2])
    hits = [(second, 0.9), (10**9, 0.8), (first, 0.7)]  # the middle one no longer exists
    found = semantic_candidates(conn, hits)
    assert [(c.rowid, c.semantic_rank, c.similarity) for c in found] == [
        (second, 0, 0.9), (first, 2, 0.7)]
    assert semantic_candidates(conn, []) == []


def test_knn_mask_lets_the_scan_see_only_the_filtered_rows(index):
    config, conn = index
    searcher = Searcher(config)
    try:
        vectors = searcher.vector_index()
        query = searcher.embedder.embed(["tomatoes along the fence"])[0]
        filters = Filters.build(["note"], since="2026-04-01")
        hits = vectors.search(query, 50, knn_mask(conn, vectors, filters))
        allowed = {r["rowid"] for r in rows(conn, "source_type = 'note' AND content_date >= ?",
                                            ["2026-04-01"])}
        assert hits and {rowid for rowid, _ in hits} <= allowed
        assert knn_mask(conn, vectors, Filters()) is None  # no filter: every row
    finally:
        searcher.close()


def test_newest_first_is_the_filtered_dated_chunks_by_date(index):
    _, conn = index
    found, counts = newest_first(conn, Filters.build(["slack"], since="2026-03-01"), 7)
    assert len(found) == 7 and {c.source_type for c in found} == {"slack"}
    days = [c.content_date for c in found]
    assert days == sorted(days, reverse=True)
    newest = rows(conn, "source_type = 'slack' AND content_date >= '2026-03-01'")
    assert days[0] == max(r["content_date"] for r in newest)
    assert counts == {"slack": len(newest)}  # every one of them, not the page


def test_results_page_flags_changed_files_stale_but_never_a_profile_row(index):
    config, conn = index
    parsed = parse_query("dahlias")
    found = keyword_candidates(conn, parsed, 10, Filters.build(["note"]), "dahlias", 10**9)
    profile = Candidate(id="profile:maya", content="Maya Chen", source_file=GARDEN,
                        source_type="profile", injected=True)
    garden = config.root / GARDEN
    before = garden.stat()
    os.utime(garden, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    try:
        page = results_page(conn, config, [*found, profile], parsed)
    finally:
        os.utime(garden, ns=(before.st_atime_ns, before.st_mtime_ns))
    hit, injected = page[0], page[-1]
    assert hit.stale and not injected.stale
    assert hit.keyword_rank == 1 and hit.matched_terms == ["dahlias"]
    assert [hit.snippet[a:b].lower() for a, b in hit.highlights] == ["dahlias"]
    assert results_page(conn, config, found, parsed)[0].stale is False
