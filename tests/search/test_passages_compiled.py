"""The compiled text scans of passage evidence (engine/csrc/passages.c) give what the Python
they replace gives, on every chunk of an indexed demo root and on the corner cases of Unicode
text: the same message starts, lengths, words and message indexes, so ranking is unchanged."""

from __future__ import annotations

import random
import re

import pytest

from engine.config import load_config
from engine.demo import generate_demo_root
from engine.indexer import reindex
from engine.retrieval import passages
from engine.retrieval.stemmer import stem
from engine.storage.db import connect
from tests.conftest import CountingEmbedder

pytestmark = pytest.mark.skipif(passages._passages is None,
                                reason="engine.retrieval._passages not built (no C compiler)")

WORD = re.compile(r"[a-z]{3,}")


def both(content: str, heads: list[str], read: tuple[int, int] | None):
    starts = passages.python_message_starts(content)
    assert passages._passages.message_starts(content) == starts
    if not starts:
        return None
    compiled = passages._passages.message_words(content, starts, tuple(heads),
                                                *(read or (-1, 0)))
    python = passages.python_message_words(content, starts, heads, read)
    if compiled is None:  # only where lower-casing changes the text's length
        assert any(len(s.lower()) != len(s) for s in (content,))
        return python
    assert compiled == python
    return compiled


@pytest.fixture(scope="module")
def demo_chunks(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("passages_c") / "root"
    generate_demo_root(root)
    reindex(config=load_config(root), embedder=CountingEmbedder())
    conn = connect(load_config(root).db_path)
    try:
        return dict(conn.execute("SELECT id, content FROM chunks ORDER BY rowid").fetchall())
    finally:
        conn.close()


@pytest.fixture(scope="module")
def demo_contents(demo_chunks) -> list[str]:
    return list(demo_chunks.values())


def test_every_demo_chunk_scans_the_same(demo_contents):
    rng = random.Random(5)
    vocabulary = sorted({w for c in demo_contents[:400] for w in WORD.findall(c.lower())})
    chat = 0
    for content in demo_contents:
        words = rng.sample(vocabulary, 4) + WORD.findall(content.lower())[:2]
        heads = passages.word_heads(stem(words).values())
        for read in (None, (2, 0), (0, 2), (2, 2), (1, 3)):
            found = both(content, heads, read)
        chat += found is not None
    assert chat > 200  # the demo's chat windows were among them


def test_words_of_a_whole_text_equal_the_python_scans(demo_contents):
    # related words read every indexed column of a hit (content, path, type) this way
    rng = random.Random(14)
    vocabulary = sorted({w for c in demo_contents[:300] for w in WORD.findall(c.lower())})
    for content in rng.sample(demo_contents, 300) + ["data/slack/ops-alerts.jsonl", "", "Ǆx"]:
        heads = passages.word_heads(stem(rng.sample(vocabulary, 4)
                                         + WORD.findall(content.lower())[:2]).values())
        assert passages.words_starting(content, heads) == \
            [w for _, w in passages.word_hits(content, heads)]


def test_best_passages_equal_pythons_to_the_last_bit(demo_chunks, monkeypatch):
    """Whole passage scoring, compiled and not, for queries of 1-6 words that the demo's chat
    windows hold, with real-looking idf weights: the same floats."""
    rng = random.Random(9)
    windows = [i for i, c in demo_chunks.items() if passages.neighbour_ids(i)
               and passages.python_message_starts(c)]
    assert len(windows) > 200
    compared = 0
    for _ in range(60):
        ids = rng.sample(windows, 25)
        words = rng.sample(WORD.findall(demo_chunks[ids[0]].lower()), 3) + rng.sample(
            sorted({w for i in ids[1:4] for w in WORD.findall(demo_chunks[i].lower())}), 3)
        weights = {s: rng.uniform(0.2, 9.0) for s in stem(words[:rng.randint(1, 6)]).values()}
        monkeypatch.setattr(passages, "COMPILED", True)
        compiled = passages.passage_scores(weights, ids, demo_chunks)
        monkeypatch.setattr(passages, "COMPILED", False)
        python = passages.passage_scores(weights, ids, demo_chunks)
        assert compiled == python
        compared += sum(v > 0 for v in python.values())
    assert compared > 300  # most windows had a passage holding a query word


def test_a_pasted_page_of_query_words_scores_the_same(demo_chunks, monkeypatch):
    """More query stems (and heads) than a short query has: 150 words."""
    windows = [i for i, c in demo_chunks.items() if passages.neighbour_ids(i)
               and passages.python_message_starts(c)][:40]
    words = sorted({w for i in windows for w in WORD.findall(demo_chunks[i].lower())})[:150]
    weights = {s: 1.0 + len(s) / 10 for s in stem(words).values()}
    assert len(passages.word_heads(weights)) > 64
    monkeypatch.setattr(passages, "COMPILED", True)
    compiled = passages.passage_scores(weights, windows, demo_chunks)
    monkeypatch.setattr(passages, "COMPILED", False)
    assert compiled == passages.passage_scores(weights, windows, demo_chunks)
    assert sum(v > 0 for v in compiled.values()) > 30


def test_the_compiled_stage_serves_the_demo_windows(demo_chunks, monkeypatch):
    """The equality above is the compiled stage's, not its fallback's: the scan reads the
    demo's windows, and a search-sized set of them is scored in its two calls."""
    windows = [i for i, c in demo_chunks.items() if passages.neighbour_ids(i)
               and passages.python_message_starts(c)][:50]
    weights = {s: 2.0 for s in stem(WORD.findall(demo_chunks[windows[0]].lower())[3:6]).values()}
    calls = []
    real = passages._passages.scan_passages
    monkeypatch.setattr(passages._passages, "scan_passages",
                        lambda *a: calls.append(a) or real(*a), raising=True)
    monkeypatch.setattr(passages, "COMPILED", True)
    found = passages.passage_scores(weights, windows, demo_chunks)
    assert len(calls) == 1 and set(found) == set(windows)
    assert sum(v > 0 for v in found.values()) > 0
    heads = tuple(passages.word_heads(weights))
    scan, words = passages._passages.scan_windows([demo_chunks[i] for i in windows],
                                                  [(-1, 0)] * len(windows), heads,
                                                  passages.python_message_words)
    assert words and len(words) == len(set(words))  # each word once
    assert all(w.startswith(heads) for w in words)


def test_texts_whose_lower_case_grows_score_the_same(monkeypatch):
    """A window whose lower case is longer (İ) is read by the Python scan alone; the other
    windows, ASCII or not, compiled: the same scores as the Python path's, in the same two
    calls."""
    read_by_python = []
    fallback = passages.python_message_words
    monkeypatch.setattr(passages, "python_message_words",
                        lambda *a: read_by_python.append(a[0]) or fallback(*a))
    for grows in (False, True):
        contents = {f"chat.jsonl#w{k}": text for k, text in enumerate(CORNERS)
                    if grows or "İ" not in text}
        ids = list(contents)
        weights = {s: 1.5 for s in stem(["pottery", "ana", "ben", "digits", "café"]).values()}
        monkeypatch.setattr(passages, "COMPILED", True)
        read_by_python.clear()
        compiled = passages.passage_scores(weights, ids, contents)
        assert read_by_python == ([CORNERS[7]] if grows else [])
        monkeypatch.setattr(passages, "COMPILED", False)
        assert compiled == passages.passage_scores(weights, ids, contents)
        assert sum(v > 0 for v in compiled.values()) >= 5


def test_a_query_stem_of_one_letter_scores_the_same(demo_chunks, monkeypatch):
    """ "I" stems to "i": its head is "i" (an empty head matched every word in Python and
    none compiled, so the two paths ranked "I" or "what am I" differently)."""
    assert passages.word_heads(stem(["I", "day"]).values()) == ["da", "i"]
    windows = [i for i, c in demo_chunks.items() if passages.neighbour_ids(i)
               and passages.python_message_starts(c)][:60]
    contents = {**demo_chunks, "chat.jsonl#w0": "[2026-01-01 10:00] Sam: I think I can"}
    weights = {"i": 0.4, "dinner": 3.0}
    monkeypatch.setattr(passages, "COMPILED", True)
    compiled = passages.passage_scores(weights, [*windows, "chat.jsonl#w0"], contents)
    monkeypatch.setattr(passages, "COMPILED", False)
    assert compiled == passages.passage_scores(weights, [*windows, "chat.jsonl#w0"], contents)
    assert compiled["chat.jsonl#w0"] > 0


def test_the_stage_refuses_malformed_arguments():
    c = passages._passages
    window = "[2024-05-01 10:30] Ana: pottery"
    read = passages.python_message_words
    with pytest.raises(ValueError):
        c.scan_windows([window], [], ("pott",), read)
    with pytest.raises(TypeError):
        c.scan_windows([b"bytes"], [(-1, 0)], ("pott",), read)
    with pytest.raises(TypeError):
        c.scan_windows([window], [(-1, 0)], ("pott", 3), read)
    with pytest.raises(TypeError):
        c.scan_windows([window], [(-1, 0)], ("pott",), None)
    grows = "[2024-05-01 10:30] Ana: İstanbul pottery"
    with pytest.raises(TypeError):  # the fallback answers something else
        c.scan_windows([grows], [(-1, 0)], ("pott",), lambda *a: None)
    with pytest.raises(ValueError):
        c.scan_windows([grows], [(-1, 0)], ("pott",), lambda *a: ([3], [(5, "pottery")]))
    scan, words = c.scan_windows([window, "not a chat window"], [(-1, 0), (-1, 0)], ("pott",),
                                 read)
    assert words == ["pottery"]
    tokens, weights = {"pottery": ("potteri",)}, {"potteri": 2.0}
    assert c.scan_passages(scan, tokens, weights, [(-1, 0, 1), (0, 1, -1)], 1.2, 0.75, 4)[
        1] is None  # not laid out as messages: no passage
    with pytest.raises(IndexError):
        c.scan_passages(scan, tokens, weights, [(-1, 2, -1)], 1.2, 0.75, 4)
    with pytest.raises(IndexError):
        c.scan_passages(scan, tokens, weights, [(-1, -1, 0)], 1.2, 0.75, 4)
    with pytest.raises(KeyError):
        c.scan_passages(scan, {}, weights, [(-1, 0, -1)], 1.2, 0.75, 4)
    with pytest.raises(TypeError):
        c.scan_passages(scan, tokens, {"potteri": "heavy"}, [(-1, 0, -1)], 1.2, 0.75, 4)
    with pytest.raises(ValueError):
        c.scan_passages(scan, tokens, weights, [(-1, 0, -1)], 1.2, 0.75, 0)
    with pytest.raises(ValueError):
        c.scan_passages(object(), tokens, weights, [(-1, 0, -1)], 1.2, 0.75, 4)


CORNERS = [
    "",
    "no stamp here\n[2024-05-01 10:30] Ana: late stamp",
    "[2024-05-01 10:30] Ana: pottery class\n[2024-05-01 10:31] Ben: potter's wheel",
    "[2024-05-01 10:30] Ana: one message\nover two lines [2024-05-01 10:31] mid-line\n"
    "[2024-05-01 10:32] Ben: POTTERY_club Pottery, pottery2 xpottery _pottery",
    "[2024-05-01 10:30]Ana: no space after the stamp",
    "[2024-05-01 10:30] Ana: \u0661\u0662 digits\n[\u0662\u0660\u0662\u0664-05-01 10:31] Ben: "
    "Arabic-Indic digits are \\d too",
    "[2024-05-01 10:30] Ana: ΟΔΥΣΣΕΥΣ café naïve straße potTERY\n"
    "[2024-05-01 10:31] Ben: 陶器 pottery日本 ポタリー",
    "[2024-05-01 10:30] Ana: İstanbul pottery (lower case grows)\n"
    "[2024-05-01 10:31] Ben: pottery",
    "[2024-05-01 10:30] Ana: emoji 🏺 pottery🏺pottery\n[2024-05-01 10:31] Ben: \u00a0pottery",
    "[2024-05-01 10:30] \n[2024-05-01 10:31] \n[2024-05-01 10:32] ",
    "[2024-05-01 10:30] Ana: short",
    "[2024-05-01 10:30] Ana: 🏺 pott\u00e9ry potΣ ΣΑΣ'Α potteryΣ\n[2024-05-01 10:31] Ben: \u212ana "
    "Pottery 🏺",
    "[2024-05-01 10:30] Ana: 🏺 Pottery, POTTERY_x (ana)\n[2024-05-01 10:31] Ben: ben\u00b2 digits",
]


def test_the_lower_case_facts_the_scan_relies_on():
    """passages.c reads text that is not ASCII in place when lower-casing it maps one
    character to one, only U+212A maps into ASCII, and no character changes whether it is a
    word character: true of this Python's Unicode tables (a new version must be checked)."""
    grows, into_ascii = [], []
    for c in range(0x110000):
        ch = chr(c)
        low = ch.lower()
        if len(low) != 1:
            grows.append(c)
            continue
        if c >= 128 and ord(low) < 128:
            into_ascii.append(c)
        assert (ch.isalnum() or ch == "_") == (low.isalnum() or low == "_"), hex(c)
    assert grows == [0x130] and into_ascii == [0x212A]


@pytest.mark.parametrize("content", CORNERS)
@pytest.mark.parametrize("read", [None, (0, 0), (1, 0), (0, 1), (1, 1), (5, 5)])
def test_corner_cases_scan_the_same(content, read):
    heads = passages.word_heads(stem(["pottery", "ana", "ben", "stanbul", "digits"]).values())
    both(content, heads, read)


def test_a_text_whose_lower_case_grows_takes_the_python_path():
    content = CORNERS[7]
    starts = passages.python_message_starts(content)
    assert passages._passages.message_words(content, starts, ("potteri",), -1, 0) is None
    # reading only the second message avoids the growing letter: compiled again
    assert passages._passages.message_words(content, starts, ("potteri",), 0, 1) == (
        passages.python_message_words(content, starts, ["potteri"], (0, 1)))


def test_bad_arguments_raise_instead_of_reading_out_of_bounds():
    with pytest.raises(ValueError):
        passages._passages.message_words("[2024-05-01 10:30] a", [5, 2], ("a",), -1, 0)
    with pytest.raises(ValueError):
        passages._passages.message_words("[2024-05-01 10:30] a", [0, 99], ("a",), -1, 0)
    with pytest.raises(ValueError):
        passages._passages.message_words("abc", [], ("a",), -1, 0)
    with pytest.raises(TypeError):
        passages._passages.message_words("abc", [0], ("a", 3), -1, 0)
