"""Related words in chat windows (engine/retrieval/query_expansion.py, docs/benchmarks.md): a window that
says "pet" and "animal" answers a question about a "dog", the explain text names the words and
their weights, and chunks that are not chat windows keep their bm25 order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.retrieval import word_neighbours
from engine.retrieval.query_expansion import related_words
from engine.retrieval.word_neighbours import NEIGHBOUR_FLOOR, neighbours
from tests.conftest import indexed_searcher, write_chat

NOW = datetime(2026, 11, 30, tzinfo=UTC)


FILLER = [f"the weather on day {i} was grey and windy" for i in range(10)]
# window 0 names Ana most often; window 1 holds the related words; window 2 neither
CALLS = ["Ana, Ana, come and look at the clouds", *FILLER[1:]]
ADOPTED = [*FILLER[:4], "we adopted a pet from the shelter, a tiny animal", *FILLER[5:]]
CHAT = CALLS + ADOPTED + FILLER


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    root = tmp_path_factory.mktemp("related") / "root"
    write_chat(root / "data/telegram/ana.jsonl", CHAT, ("Ana", "Ben"))
    write_chat(root / "data/telegram/other.jsonl", [f"lunch menu item {i} was soup" for i in range(60)],
          ("Cy", "Di"))
    (root / "notes").mkdir()
    (root / "notes/a.md").write_text("# Walks\n\nthe dog walks in the park every morning\n")
    (root / "notes/b.md").write_text("# Shelter\n\nthe dog shelter found a pet animal a home\n")
    yield from indexed_searcher(root)


def test_a_window_holding_related_words_answers_the_question(searcher):
    r = searcher.search("Ana dog", mode="keyword", now=NOW, path_prefix="data/telegram/")
    ids = [x.id for x in r]
    assert ids[0] == "data/telegram/ana.jsonl#w1", [(x.id, x.fusion_terms) for x in r]
    calls = next(x for x in r if x.id == "data/telegram/ana.jsonl#w0")
    assert calls.bm25 > r[0].bm25  # bm25 of the query's own words alone ranks window 0 first
    why = r[0].fusion_terms["keyword"]
    assert "related" in why and "animal 0.5 × 0.77 × bm25" in why and "pet 0.5 × 0.66" in why
    assert "related" not in calls.fusion_terms["keyword"]


def test_the_same_words_in_hybrid_mode(searcher):
    r = searcher.search("Ana dog", mode="hybrid", now=NOW, path_prefix="data/telegram/")
    assert r[0].id == "data/telegram/ana.jsonl#w1"
    assert "related animal" in r[0].fusion_terms["keyword"]


def test_chunks_that_are_not_chat_windows_keep_their_bm25_order(searcher):
    r = searcher.search("dog", mode="keyword", now=NOW, path_prefix="notes/")
    assert [x.id.split("#")[0] for x in r] == ["notes/a.md", "notes/b.md"]
    assert all("related" not in x.fusion_terms["keyword"] for x in r)


def test_vocabulary_neighbours_are_whole_words_above_the_floor():
    found = dict(neighbours("dog"))
    assert {"animal", "pet"} <= found.keys() and "dog" not in found
    assert all(sim >= NEIGHBOUR_FLOOR for sim in found.values())
    assert neighbours("ankle") == ()  # an|k|le: pieces, not a word of the vocabulary
    assert neighbours("dog\tcat") == neighbours("") == ()


def test_the_shipped_table_is_what_the_installed_weights_give():
    """The table is read at search time instead of the model: it must be the model's answer,
    cosine for cosine (rebuild: python -m engine.retrieval.word_neighbours)."""
    computed = word_neighbours.compute()
    shipped = word_neighbours.table()
    assert len(shipped) > 5000
    assert shipped == computed


def test_a_missing_table_means_no_related_words_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(word_neighbours, "TABLE", tmp_path / "absent.tsv.gz")
    word_neighbours._text.cache_clear()
    word_neighbours.neighbours.cache_clear()
    try:
        assert neighbours("dog") == () and related_words(["dog"]) == {}
    finally:
        word_neighbours._text.cache_clear()
        word_neighbours.neighbours.cache_clear()


def test_related_words_leave_out_the_query_stems_and_stop_words(searcher):
    related = related_words(["dog"])
    assert "animal" in related and "pet" in related
    assert "dogs" not in related  # the index's stemmer already matches it
    assert "animals" not in related  # one word per stem: "animal" is the more similar
    assert "within" not in related_words(["take"])  # a stop word


def test_the_index_of_the_table_answers_as_the_search_in_its_text(monkeypatch):
    """After INDEX_AFTER words a process looks neighbours up by an index of the table; every
    word (and words it does not hold) gets what a search in the text gives."""
    words = [line.partition("\t")[0] for line in word_neighbours._text().splitlines()[1:]]
    probes = [*words[::5], words[-1], "zzzznotaword", "Dog", "do"]
    monkeypatch.setattr(word_neighbours, "_searched", 0)
    monkeypatch.setattr(word_neighbours, "INDEX_AFTER", len(probes) + 1)
    word_neighbours.neighbours.cache_clear()
    searched = [neighbours(w) for w in probes]
    monkeypatch.setattr(word_neighbours, "INDEX_AFTER", 0)
    word_neighbours.neighbours.cache_clear()
    assert [neighbours(w) for w in probes] == searched
    assert len(word_neighbours.places(word_neighbours._text())) == len(words) > 7_000
    word_neighbours.neighbours.cache_clear()
