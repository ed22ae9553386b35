"""The local embedder reads the wordllama wheel's files itself: the library's vectors to the
bit, without importing the library (its import alone was a third of a `memlens search`)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from engine.embedder import LocalEmbedder, _safetensor, _wordllama_dir
from tests.conftest import REPO

TEXTS = ["", "harbor", "Buy zucchini and kohlrabi", "  two  spaces  ", "naïve café Ünïcödé",
         "日本語のテキスト", "emoji 🚀🎉 and tabs\tand\nnewlines", "x" * 3000,
         *(f"message {i}: the tide came in at {i % 24}:00" for i in range(70))]


def test_vectors_are_the_wordllama_librarys_to_the_bit():
    from wordllama import WordLlama

    library = WordLlama.load(cache_dir=_wordllama_dir(), disable_download=True)
    expected = library.embed(TEXTS, norm=False, batch_size=64)
    got = LocalEmbedder.shared_model().embed(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 256)
    assert np.array_equal(got, expected)


def test_embedding_a_query_imports_neither_wordllama_nor_its_dependencies_nor_tokenizers():
    """A query is tokenized by engine/embed/wordllama_bpe.py: `tokenizers` costs ~60 ms."""
    code = ("import json, sys\n"
            "from engine.embedder import LocalEmbedder\n"
            "v = LocalEmbedder().embed_query('climbing trip with maya', budget=1.0)\n"
            "assert v.shape == (256,), v.shape\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert {"wordllama", "pydantic", "requests", "tokenizers"} & set(json.loads(out.stdout)) \
        == set()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_safetensors_tensor_is_read_as_written(tmp_path, dtype):
    from safetensors.numpy import save_file

    arr = np.arange(24, dtype=dtype).reshape(4, 6) / 7
    other = np.ones((2, 3), dtype=np.float32)
    save_file({"a.other": other, "embedding.weight": arr}, str(tmp_path / "t.safetensors"))
    got = _safetensor(tmp_path / "t.safetensors", "embedding.weight")
    assert got.dtype == dtype and np.array_equal(np.asarray(got), arr)
