"""memlens_bm25 (engine/csrc/memlensrank.c) is FTS5's bm25 given the counts, and the keyword
arm answers the same with it or without it."""

from __future__ import annotations

import random

import pytest

from engine.retrieval.fts_query import parse_query
from engine.retrieval.keyword_arm import keyword_search, term_dfs
from engine.storage import rank_extension
from engine.storage.db import OperationalError
from tests.conftest import chunk_db

pytestmark = pytest.mark.skipif(rank_extension.LIBRARY is None,
                                reason="engine/csrc/memlensrank.c was not built (no C compiler)")

WORDS = ["coffee", "walking", "walked", "budget", "meeting", "sprint", "garden", "tomatoes",
         "running", "ran", "don't", "e-mail", "café", "naïve", "日本", "dogs"]


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    rng = random.Random(4)
    c = chunk_db(tmp_path_factory.mktemp("rank") / "r.db", [
        (f"c{i}", f"f{i % 20}.md", "note",
         " ".join(rng.choices(WORDS, k=rng.randint(1, 40)))) for i in range(800)])
    yield c
    c.close()


def scores(conn, match, rank):
    return [tuple(r) for r in conn.execute(
        f"SELECT rowid, {rank} FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid",
        [match])]


def test_connections_have_it(conn):
    assert conn.rank_extension is True
    assert rank_extension.rank_sql(conn, "t", [3, -1]) == "memlens_bm25(t, 3, -1)"


def test_given_the_true_counts_or_none_it_is_fts5s_bm25(conn):
    df = term_dfs(conn, ["coffee", "walking", "garden", "tomatoes"])
    assert df["walking"] > 0 and df["coffee"] > 0
    cases = [
        ('"coffee"', [df["coffee"]]),
        ('"coffee" OR "walking" OR "garden"', [df["coffee"], df["walking"], df["garden"]]),
        ('("garden") AND ("coffee" OR "walking")', [df["garden"], df["coffee"], df["walking"]]),
        ('("tomatoes" OR "garden") NOT ("coffee")', [df["tomatoes"], df["garden"], -1]),
        ('"budget meeting" OR "e-mail" OR "sprint"', [-1, -1, -1]),  # phrases: counted
    ]
    for match, dfs in cases:
        want = scores(conn, match, "bm25(chunks_fts)")
        got = scores(conn, match, f"memlens_bm25(chunks_fts, {', '.join(map(str, dfs))})")
        assert len(want) > 10 and got == want, match


def test_wrong_counts_change_the_score_and_a_wrong_arity_is_an_error(conn):
    true = scores(conn, '"coffee"', "bm25(chunks_fts)")
    wrong = scores(conn, '"coffee"', "memlens_bm25(chunks_fts, 3)")
    assert [r[0] for r in wrong] == [r[0] for r in true] and wrong != true
    with pytest.raises(OperationalError, match="3 values for 1 phrases"):
        scores(conn, '"coffee"', "memlens_bm25(chunks_fts, 1, 2, 3)")


def test_a_weight_scores_as_the_phrase_said_that_many_times(conn):
    df = term_dfs(conn, ["coffee", "garden"])
    repeated = scores(conn, '"coffee" OR "coffee" OR "coffee" OR "garden"', "bm25(chunks_fts)")
    weighted = scores(conn, '"coffee" OR "garden"',
                      f"memlens_bm25(chunks_fts, {df['coffee']}, {df['garden']}, 3, 1)")
    assert len(repeated) > 10
    assert [(r, round(s, 9)) for r, s in weighted] == [(r, round(s, 9)) for r, s in repeated]
    assert rank_extension.rank_sql(conn, "t", [5, 7], [3, 1]) == "memlens_bm25(t, 5, 7, 3, 1)"
    assert rank_extension.rank_sql(conn, "t", [5, 7], [1, 1]) == "memlens_bm25(t, 5, 7)"


def test_the_keyword_arm_is_the_same_with_and_without_it(conn):
    rng = random.Random(2)
    for _ in range(60):
        said = rng.sample(WORDS, rng.randint(1, 5))
        query = " ".join(said + rng.choices(said, k=rng.randint(0, 3)))  # repeats: weights
        parsed = parse_query(query)
        with_ext, p1 = keyword_search(conn, parsed, 20, "1=1", [], common_df=100,
                                      budget=500, walk=0)  # the plans; the walk needs it
        conn.rank_extension = False
        try:
            without, p2 = keyword_search(conn, parsed, 20, "1=1", [], common_df=100,
                                         budget=500, walk=0)
        finally:
            conn.rank_extension = True
        assert p1.path == p2.path
        assert [(r["rowid"], round(r["score"], 9)) for r in with_ext] == \
            [(r["rowid"], round(r["score"], 9)) for r in without], query


def test_without_the_built_library_connections_use_fts5s_bm25(tmp_path, monkeypatch, conn):
    from engine.storage.db import connect

    path = conn.execute("PRAGMA database_list").fetchone()[2]
    monkeypatch.setattr(rank_extension, "LIBRARY", tmp_path / "missing.so")
    plain = connect(path, readonly=True)
    try:
        assert plain.rank_extension is False
        parsed = parse_query("coffee garden walking")
        got, _ = keyword_search(plain, parsed, 20, "1=1", [], common_df=100, budget=500)
        want, _ = keyword_search(conn, parsed, 20, "1=1", [], common_df=100, budget=500)
        assert [(r["rowid"], r["score"]) for r in got] == [(r["rowid"], r["score"]) for r in want]
    finally:
        plain.close()


# -- row lengths kept by a read-only connection (memlensrank.c) -----------------------------------

MATCH = '"coffee" OR "garden" OR "walking"'


def _same_as_bm25(reader) -> int:
    want = scores(reader, MATCH, "bm25(chunks_fts)")
    got = scores(reader, MATCH, "memlens_bm25(chunks_fts, -1, -1, -1)")
    assert len(want) > 10 and got == want
    return len(got)


def _rewrite(writer, rowid: int, content: str) -> None:
    """Give a chunk other content, FTS5 row included (its length changes)."""
    from engine.storage.db import transaction

    with transaction(writer):
        old = writer.execute("SELECT content, source_file, source_type FROM chunks WHERE rowid = ?",
                             (rowid,)).fetchone()
        writer.execute("INSERT INTO chunks_fts(chunks_fts, rowid, content, source_file, "
                       "source_type) VALUES ('delete', ?, ?, ?, ?)", (rowid, *old))
        writer.execute("UPDATE chunks SET content = ? WHERE rowid = ?", (content, rowid))
        writer.execute("INSERT INTO chunks_fts(rowid, content, source_file, source_type) "
                       "VALUES (?, ?, ?, ?)", (rowid, content, old[1], old[2]))


@pytest.fixture
def pair(tmp_path):
    """A writer and a read-only connection (a searcher's) on one index."""
    from engine.storage.db import connect

    rng = random.Random(9)
    writer = chunk_db(tmp_path / "l.db", [
        (f"c{i}", f"f{i % 20}.md", "note", " ".join(rng.choices(WORDS, k=rng.randint(1, 40))))
        for i in range(600)])
    reader = connect(tmp_path / "l.db", readonly=True)
    yield writer, reader
    reader.close()
    writer.close()


def test_kept_lengths_follow_another_connections_commits(pair):
    writer, reader = pair
    _same_as_bm25(reader)  # every matched row's length is now kept
    garden = [r[0] for r in reader.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'garden' LIMIT 5")]
    for i, rowid in enumerate(garden):  # longer and shorter rows than the kept lengths
        _rewrite(writer, rowid, "garden " + "word " * (i * 30))
    _same_as_bm25(reader)
    with reader:  # and inside one read transaction, before and after a commit
        reader.execute("BEGIN")
        _same_as_bm25(reader)
    _rewrite(writer, garden[0], "garden coffee")
    _same_as_bm25(reader)


def test_preloading_keeps_every_length_only_on_a_read_only_connection(pair):
    writer, reader = pair
    assert rank_extension.preload_lengths(reader) == 600
    _same_as_bm25(reader)
    assert rank_extension.preload_lengths(writer) == 0  # it could change them itself
    _rewrite(writer, 1, "coffee " * 50)
    _same_as_bm25(reader)
    scores_writer = scores(writer, MATCH, "memlens_bm25(chunks_fts, -1, -1, -1)")
    assert scores_writer == scores(writer, MATCH, "bm25(chunks_fts)")
    assert rank_extension.preload_lengths(reader) == 600


def test_a_searcher_preloads_the_lengths_when_it_warms_up(tmp_path, monkeypatch):
    from engine.config import load_config
    from engine.indexer import reindex
    from engine.searcher import Searcher
    from tests.conftest import make_root

    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    kept: list[int] = []
    monkeypatch.setattr("engine.searcher.preload_lengths",
                        lambda conn: kept.append(rank_extension.preload_lengths(conn)))
    searcher = Searcher(load_config(root))
    try:
        searcher.warm_up()
        chunks = searcher.connection().execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert chunks > 0 and kept == [chunks]
    finally:
        searcher.close()
