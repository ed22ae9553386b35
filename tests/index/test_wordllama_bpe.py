"""The pure-Python WordLlama encoder (engine/embed/wordllama_bpe.py) gives the Hugging Face
tokenizer's ids on every demo chunk and on texts chosen to hit its corners (spaces, byte
fallback, long words), so a query embedded without ``tokenizers`` has the very vector the
batch path gives it (engine/embedder.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.demo import generate_demo_root
from engine.embed.wordllama_bpe import WordLlamaBPE
from engine.embedder import LocalEmbedder, _wordllama_dir
from engine.extractors import Problems, get_extractor
from engine.scanner import discover

TOKENIZER_JSON = _wordllama_dir() / "tokenizers" / "l2_supercat_tokenizer_config.json"


def _mixed(n: int, seed: int = 3) -> str:
    """``n`` characters of words, runs of spaces, tabs, emoji, CJK and punctuation."""
    rng = random.Random(seed)
    parts = ["harbor", "the", "tide", "Ünïcödé", "日本語", "🚀", "👩‍👩‍👧", "  ", "\t", "\n", "42",
             "...", "?!", "café", "ﬁ", "\u0301", "▁", "x" * 9, "3.14159", "<0x41>", "<", ">"]
    out = ""
    while len(out) < n:
        out += rng.choice(parts) + rng.choice(["", " ", " "])
    return out[:n]


EDGE_CASES = [
    "", " ", "   ", " leading", "trailing ", "  two  spaces  ", "\t", "\n", "\r\n", "a\tb\nc",
    " \t \n ", "climbing trip with maya", "emoji 🚀🎉 and tabs\tand\nnewlines", "👩‍👩‍👧 family",
    "日本語のテキスト", "中文 한국어 ไทย", "naïve café Ünïcödé", "cafe\u0301 (decomposed)",
    "Ωmega ∑ ≈ ƒ ﬁ", "1234567890 3.14159 2026-11-30", "!!!???...,,,;;;---***", "\x00\x01\x7f",
    "▁", "▁▁ ▁", "<0x41><0xE2>", "<s", "s>", "< /s>", "x" * 3000, "ab" * 1500,
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    _mixed(5000),
]
ADDED_TOKENS = ["<s>", "a <s> b", "</s>", "x</s>", "<unk>", "say <unk> twice <unk>"]


@pytest.fixture(scope="module")
def bpe() -> WordLlamaBPE:
    return WordLlamaBPE.from_file(TOKENIZER_JSON)


@pytest.fixture(scope="module")
def hf():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(TOKENIZER_JSON))  # no padding: the ids alone


@pytest.fixture(scope="module")
def demo_chunks(tmp_path_factory) -> list[str]:
    """Every chunk of the default demo root, as the indexer would store it."""
    root = generate_demo_root(tmp_path_factory.mktemp("demo") / "root").root
    return [chunk.content for f in discover(root)
            for chunk in get_extractor(f.source_type).extract(f.path, f.rel, Problems())]


def _mismatches(bpe: WordLlamaBPE, hf, texts: list[str]) -> list[str]:
    expected = hf.encode_batch(texts, add_special_tokens=False)
    return [text[:80] for text, enc in zip(texts, expected, strict=True)
            if bpe.encode(text) != enc.ids]


def test_every_demo_chunk_gets_the_hf_ids(bpe, hf, demo_chunks):
    assert len(demo_chunks) > 2000
    assert all(bpe.handles(text) for text in demo_chunks)
    assert _mismatches(bpe, hf, demo_chunks) == []


def test_edge_cases_get_the_hf_ids(bpe, hf):
    assert all(bpe.handles(text) for text in EDGE_CASES)
    assert _mismatches(bpe, hf, EDGE_CASES) == []


def test_an_empty_text_has_no_tokens(bpe, hf):
    assert bpe.encode("") == hf.encode("", add_special_tokens=False).ids == []


def test_characters_outside_the_vocabulary_fall_back_to_their_bytes(bpe):
    space, rocket = bpe.vocab["▁"], [bpe.vocab[f"<0x{b:02X}>"] for b in "🚀".encode()]
    assert bpe.encode("🚀") == [space, *rocket]


@pytest.mark.parametrize("text", ADDED_TOKENS)
def test_texts_holding_an_added_token_are_left_to_the_hf_tokenizer(bpe, text):
    assert not bpe.handles(text)


def test_a_query_vector_is_the_batch_paths_to_the_bit(demo_chunks):
    """One text through the Python encoder (or, holding "<s>", the HF tokenizer) against the
    same text in padded batches through the HF tokenizer: raw means and unit vectors."""
    texts = [*EDGE_CASES, *ADDED_TOKENS, *demo_chunks[::100]]
    model, embedder = LocalEmbedder.shared_model(), LocalEmbedder()
    batch, unit = model.embed(texts), embedder.embed(texts)
    for i, text in enumerate(texts):
        assert np.array_equal(model.embed_one(text)[0], batch[i]), text[:80]
        assert np.array_equal(embedder.embed_single(text), unit[i]), text[:80]
