"""Each vocabulary word's nearest whole words in WordLlama's token space, as a table shipped
with the package (word_neighbours.tsv.gz beside this file).

The related-words stage (engine/retrieval/query_expansion.py) asks, per query word, for its
NEIGHBOURS nearest whole-word tokens with cosine >= NEIGHBOUR_FLOOR. Computing that at search time
meant loading the tokenizer, numpy and the token matrix (~0.35 s before the first keyword
answer); the answer depends only on the `local` embedder's weights, so it is computed once here
and read as text. Keys are the lowercase tokens that encode a word (" word") as one token; a word
with no neighbour above the floor, or split into pieces ("ankle" -> an|k|le), is not listed.

Rebuild after a wordllama upgrade (tests/search/test_query_expansion.py compares the table with the
installed wheel):

    python -m engine.retrieval.word_neighbours
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

NEIGHBOURS = 7  # nearest vocabulary words kept per word (besides itself)
NEIGHBOUR_FLOOR = 0.45  # cosine in WordLlama's token space; below it neighbours are noise
TABLE = Path(__file__).with_name("word_neighbours.tsv.gz")

Neighbours = tuple[tuple[str, float], ...]


@functools.cache
def _text() -> str:
    """The table's text, "\n" first so every entry starts with "\n" + word + "\t"; "" when the
    file is missing (no related words, the search goes on)."""
    try:
        return "\n" + gzip.decompress(TABLE.read_bytes()).decode()
    except (OSError, EOFError, UnicodeDecodeError):
        return ""


def _parse(rest: str) -> Neighbours:
    fields = rest.split(" ")
    return tuple((fields[i], float(fields[i + 1])) for i in range(0, len(fields) - 1, 2))


# Lookups by search in the text before every entry's place is indexed: a search costs ~0.2 ms
# a word not seen before, indexing ~7 ms once (so a process that looks up this many words has
# paid for the index, and one that runs a single query never builds it)
INDEX_AFTER = 36
_searched = 0


@functools.lru_cache(maxsize=50_000)
def neighbours(word: str) -> Neighbours:
    """(neighbour, cosine) most similar first; () for a word not in the table. One word is
    looked up in the text (~0.2 ms) rather than all 7,800 parsed (~30 ms) before the first
    answer; after INDEX_AFTER words, through an index of where each entry is."""
    global _searched
    if not word or any(c.isspace() for c in word):
        return ()
    text = _text()
    if _searched < INDEX_AFTER:
        _searched += 1
        at = text.find("\n" + word + "\t")
        if at < 0:
            return ()
        start = at + len(word) + 2
        end = text.find("\n", start)
        return _parse(text[start:end if end >= 0 else len(text)])
    span = places(text).get(word)
    return _parse(text[span[0]:span[1]]) if span is not None else ()


@functools.lru_cache(maxsize=1)
def places(text: str) -> dict[str, tuple[int, int]]:
    """Word -> where its neighbours are in the table's ``text`` (the first entry of a word, as
    a search finds it)."""
    out, at = {}, 0
    while (tab := text.find("\t", at)) >= 0:
        end = text.find("\n", tab)
        end = end if end >= 0 else len(text)
        out.setdefault(text[at + 1:tab], (tab + 1, end))  # ``at`` is the entry's "\n"
        at = end
    return out


def table() -> dict[str, Neighbours]:
    """The whole table, word -> neighbours."""
    out: dict[str, Neighbours] = {}
    for line in _text().splitlines():
        word, _, rest = line.partition("\t")
        if word:
            out[word] = _parse(rest)
    return out


def _is_word(text: str) -> bool:
    return len(text) >= 3 and text.isalpha() and text.islower()


def _unit(m: np.ndarray) -> np.ndarray:
    import numpy as np

    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


def compute() -> dict[str, Neighbours]:
    """The table from the installed wordllama wheel (its files, memory-mapped; nothing is
    downloaded): every lowercase word that is one token, with its neighbours among the
    whole-word tokens ("▁paint", not "ets"), in one matrix product per block of words."""
    import numpy as np

    from engine.embedder import LocalEmbedder

    model = LocalEmbedder.shared_model()
    tokenizer, source = model.tokenizer, model.matrix
    vocab = tokenizer.get_vocab()  # token -> id
    space = vocab.get("▁")
    rows = sorted(i for t, i in vocab.items()
                  if i < source.shape[0] and t.startswith("▁") and _is_word(t[1:]))
    token = {i: t for t, i in vocab.items()}
    words = [token[i][1:] for i in rows]
    matrix = _unit(np.asarray(source[rows], dtype=np.float32))

    keys = sorted(t[1:] for t, i in vocab.items()
                  if t.startswith("▁") and len(t) > 1 and i < source.shape[0]
                  and t[1:] == t[1:].lower() and not any(c.isspace() for c in t[1:]))
    ids: dict[str, int] = {}
    for key, enc in zip(keys, tokenizer.encode_batch([" " + k for k in keys],
                                                     add_special_tokens=False), strict=True):
        pieces = [i for i in enc.ids if i != space]
        if len(pieces) == 1 and pieces[0] < source.shape[0]:
            ids[key] = pieces[0]
    k = min(NEIGHBOURS + 1, len(words) - 1)
    out: dict[str, Neighbours] = {}
    batch = list(ids)
    for start in range(0, len(batch), 2000):
        block = batch[start:start + 2000]
        sims = matrix @ _unit(np.asarray(source[[ids[w] for w in block]], np.float32)).T
        for col, word in enumerate(block):
            column = sims[:, col]
            top = np.argpartition(-column, k)[:k + 1]
            top = top[np.argsort(-column[top], kind="stable")][:NEIGHBOURS + 1]
            near = tuple((words[r], float(column[r])) for r in top
                         if column[r] >= NEIGHBOUR_FLOOR and words[r] != word)
            if near:
                out[word] = near
    return out


def write(found: dict[str, Neighbours], path: Path = TABLE) -> None:
    """The table as "word<TAB>neighbour cosine neighbour cosine ...", sorted, gzip'd without a
    timestamp so the same weights give the same bytes; floats in repr so reading gives back the
    very cosines computed."""
    lines = [word + "\t" + " ".join(f"{w} {s!r}" for w, s in near)
             for word, near in sorted(found.items())]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))


if __name__ == "__main__":
    write(compute())
    print(f"{TABLE}: {len(table())} words")
