"""engine/retrieval/word_bm25.py gives the bm25 FTS5 gives a single word, from the index's statistics."""

from __future__ import annotations

import random

import pytest

from engine.retrieval.fts_query import quote
from engine.retrieval.passages import word_heads, word_hits
from engine.retrieval.word_bm25 import index_totals, word_bm25
from tests.conftest import chunk_db

TEXTS = ["Two days ago we cried at the concert", "Every day I walk the dog",
         "The Café was closed; days later it reopened", "DAYS of rain, a dog and a cat",
         "nothing to see here", "Running, runs and ran"]


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    rng = random.Random(3)
    c = chunk_db(tmp_path_factory.mktemp("wb") / "wb.db", [
        (f"c{i}", f"data/telegram/dog-walks-{i % 3}.jsonl", "telegram",
         " ".join(rng.sample(TEXTS, rng.randint(1, 4)))) for i in range(200)])
    yield c
    c.close()


def test_word_bm25_equals_fts5s_bm25_of_the_word_alone(conn):
    rows = {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
        "SELECT rowid, content, source_file, source_type FROM chunks WHERE rowid % 3 = 0")}
    words = ["days", "day", "cried", "dog", "cafe", "running", "telegram", "walks"]
    got = word_bm25(conn, words, rows)
    marks = ",".join("?" * len(rows))
    for word in words:
        want = dict(conn.execute(
            "SELECT rowid, -bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ? "
            f"AND rowid IN ({marks})", [quote(word), *rows]).fetchall())
        assert want, word
        mine = {rid: by[word] for rid, by in got.items() if word in by}
        assert mine.keys() == want.keys(), word
        assert all(abs(mine[r] - want[r]) < 1e-9 for r in want), word


def test_the_totals_are_the_index_averages(conn):
    n_rows, avgdl = index_totals(conn)
    assert n_rows == 200
    assert avgdl > 1


def test_heads_find_the_words_porter_rewrites_at_the_end():
    # porter stems "day" to "dai": a head of the whole stem would miss every "day"
    assert [w for _, w in word_hits("Two days, one day", word_heads({"dai": 1.0}))] == [
        "days", "day"]
