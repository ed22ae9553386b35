"""WordLlama's tokenizer in pure Python, for one search query at a time.

`memlens search` is a fresh process per query, and importing ``tokenizers`` and
``Tokenizer.from_file`` take ~65 ms (holding the GIL) building the whole Rust tokenizer from the
wheel's JSON, just to tokenize a few words. :class:`WordLlamaBPE` reads the same file in ~30 ms (most
of it ``json.loads`` and the merge table) and gives the same ids as
``tokenizer.encode(text, add_special_tokens=False).ids`` (tests/index/test_wordllama_bpe.py compares
them on every demo chunk), so a query's vector is the same to the bit (engine/embedder.py).

The file describes a Llama-style BPE, and :func:`_check_config` refuses any other: prepend "▁"
to a non-empty text and replace each " " with "▁"; no pre-tokenizer, so the whole normalised
text is one BPE word; byte fallback for characters outside the vocabulary (all 256 "<0xXX>"
tokens exist, so "<unk>" is never produced); merges applied by rank as Hugging Face's
``Word::merge_all`` (tokenizers/src/models/bpe/word.rs) does. Its added tokens ("<unk>", "<s>",
"</s>") are split out of the raw text before normalisation: :meth:`WordLlamaBPE.handles` says
no to a text holding one, and the caller uses the Hugging Face tokenizer for it.
"""

from __future__ import annotations

import heapq
import json
from itertools import pairwise
from pathlib import Path

_SPACE = "▁"
# the configuration the encoder implements; anything else in the file is refused
_NORMALIZER = {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": _SPACE},
    {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE}]}
_MODEL = {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
          "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
          "ignore_merges": False}


class WordLlamaBPE:
    """Token ids of one text, without the ``tokenizers`` package."""

    def __init__(self, vocab: dict[str, int], ranks: dict[str, int], added: tuple[str, ...]):
        self.vocab = vocab  # token -> id
        self.ranks = ranks  # "left right" -> merge rank (its position in the file)
        self.added = added  # tokens split out of the raw text, left to the HF tokenizer

    @classmethod
    def from_file(cls, path: Path) -> WordLlamaBPE:
        spec = json.loads(path.read_bytes())
        _check_config(spec, path)
        merges = spec["model"]["merges"]
        return cls(spec["model"]["vocab"], dict(zip(merges, range(len(merges)), strict=True)),
                   tuple(t["content"] for t in spec["added_tokens"]))

    def handles(self, text: str) -> bool:
        """False when ``text`` holds an added token, which this encoder does not split out."""
        return not any(token in text for token in self.added)

    def encode(self, text: str) -> list[int]:
        """The ids of a text that :meth:`handles`."""
        if not text:  # the Prepend normaliser leaves an empty text empty: no tokens
            return []
        symbols = self._symbols(_SPACE + text.replace(" ", _SPACE))
        return [self.vocab[token] for token in _merge_all(symbols, self.ranks)]

    def _symbols(self, word: str) -> list[str]:
        """One symbol per character, or its UTF-8 bytes ("<0xE2>"...) when the vocabulary lacks
        it, as ``BPE::merge_word`` (tokenizers/src/models/bpe/model.rs) starts a word."""
        symbols: list[str] = []
        for char in word:
            if char in self.vocab:
                symbols.append(char)
            else:
                symbols.extend(f"<0x{byte:02X}>" for byte in char.encode("utf-8"))
        return symbols


def _merge_all(symbols: list[str], ranks: dict[str, int]) -> list[str]:
    """Hugging Face's ``Word::merge_all``: a heap of adjacent pairs ordered by (rank, position);
    an entry is stale when its left symbol was merged away or the pair it saw changed. Symbols
    are token strings: the vocabulary maps them one to one onto ids, and a merge's token is
    the two strings joined, so comparing strings is comparing HF's ids."""
    after = [*range(1, len(symbols)), -1]
    before = list(range(-1, len(symbols) - 1))
    heap = [(rank, pos, left + right)
            for pos, (left, right) in enumerate(pairwise(symbols))
            if (rank := ranks.get(f"{left} {right}")) is not None]
    heapq.heapify(heap)
    while heap:
        _, pos, merged = heapq.heappop(heap)
        left, right_pos = symbols[pos], after[pos]
        if left is None or right_pos == -1:
            continue
        right = symbols[right_pos]
        if left + right != merged or f"{left} {right}" not in ranks:
            continue
        symbols[pos], symbols[right_pos] = merged, None
        after[pos] = nxt = after[right_pos]
        if nxt != -1:
            before[nxt] = pos
            _push(heap, ranks, pos, merged, symbols[nxt])
        if (prev := before[pos]) != -1:
            _push(heap, ranks, prev, symbols[prev], merged)
    return [s for s in symbols if s is not None]


def _push(heap: list, ranks: dict[str, int], pos: int, left: str, right: str) -> None:
    if (rank := ranks.get(f"{left} {right}")) is not None:
        heapq.heappush(heap, (rank, pos, left + right))


def _check_config(spec: dict, path: Path) -> None:
    """Refuse a tokenizer this encoder would not reproduce exactly."""
    model = spec["model"]
    vocab = model["vocab"]
    if (spec["normalizer"] != _NORMALIZER or spec["pre_tokenizer"] is not None
            or {k: model.get(k) for k in _MODEL} != _MODEL
            or any(f"<0x{byte:02X}>" not in vocab for byte in range(256))
            or len(set(vocab.values())) != len(vocab)
            or not isinstance(model["merges"][0], str)):  # "a b", not the newer ["a", "b"]
        raise ValueError(f"{path.name}: not the Llama-style BPE that "
                         "engine/embed/wordllama_bpe.py implements")
