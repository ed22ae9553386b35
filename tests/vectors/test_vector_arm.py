"""The vector arm on the searcher's worker thread (engine/retrieval/search_arms.py): it reads
its rows through its own connection, so a reindex may commit between its reads and the
caller's; the caller keeps the worker's rows only when they are the ones its own read
transaction sees, and a search waits for the arm only when it is the slower one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import reindex
from engine.retrieval.search_arms import vector_arm, vector_candidates
from engine.searcher import Searcher
from engine.storage.db import connect

NOW = datetime(2026, 4, 10, tzinfo=UTC)


@pytest.fixture
def searcher(config, embedder):
    reindex(config=config, embedder=embedder)
    s = Searcher(config, embedder=embedder)
    yield s
    s.close()


def found_by_worker(searcher: Searcher, text: str):
    index = searcher.vector_index()
    worker = connect(searcher.config.db_path, readonly=True)
    try:
        return vector_arm(worker, searcher.embedder, searcher.config, index, text, 50, None)
    finally:
        worker.close()


def test_the_workers_rows_are_kept_when_the_snapshot_holds_them(searcher):
    found = found_by_worker(searcher, "tomatoes in the garden")
    assert found.candidates and found.error is None and found.embed_ms >= 0
    candidates, sim_ref = vector_candidates(searcher.connection(), found, searcher.config, 50)
    assert candidates is found.candidates and sim_ref is not None


def test_rows_changed_after_the_worker_read_them_are_read_again(searcher, config):
    found = found_by_worker(searcher, "tomatoes in the garden")
    rowid = found.hits[0][0]
    gone = found.hits[1][0]
    writer = connect(config.db_path)
    writer.execute("UPDATE chunks SET content = 'rewritten while the arm ran', "
                   "content_hash = 'new' WHERE rowid = ?", (rowid,))
    writer.execute("DELETE FROM chunks WHERE rowid = ?", (gone,))
    writer.commit()
    writer.close()
    candidates, _ = vector_candidates(searcher.connection(), found, searcher.config, 50)
    assert candidates is not found.candidates
    by_rowid = {c.rowid: c for c in candidates}
    assert by_rowid[rowid].content == "rewritten while the arm ran"
    assert gone not in by_rowid


def test_a_hybrid_search_shows_the_workers_embedding_beside_its_stages(searcher):
    r = searcher.search("tomatoes in the garden", now=NOW)
    assert r.arms == "both" and r.results
    stages = {k: v for k, v in r.timings_ms.items() if k not in ("total", "embed")}
    assert r.timings_ms["total"] == pytest.approx(sum(stages.values()), abs=0.05)
    assert "embed" in r.timings_ms  # ran on the worker, beside the keyword arm


def test_an_embedding_failure_leaves_the_keyword_arm(config):
    from tests.conftest import CountingEmbedder

    reindex(config=config, embedder=CountingEmbedder())
    s = Searcher(config, embedder=CountingEmbedder(fail_with="provider_timeout"))
    try:
        r = s.search("tomatoes in the garden", now=NOW)
    finally:
        s.close()
    assert r.results and r.semantic_error == "provider_timeout" and r.arms != "both"
