"""The pruned keyword arm returns what a plain FTS5 OR query returns."""

from __future__ import annotations

import random

import pytest

from engine.retrieval.fts_query import MAX_TERM_COUNT, build_match, parse_query, quote, tokenize
from engine.retrieval.keyword_arm import SELECT, fts_row_count, keyword_search
from engine.schema import ensure_schema, mirror_new_rows
from engine.storage.db import connect, transaction
from tests.conftest import chunk_db

WORDS = [f"w{i}" for i in range(400)]
BUDGET = 3000  # postings; small, so this 6k-chunk index exercises the pruned plans


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    rng = random.Random(5)
    weights = [1 / (i + 1) for i in range(len(WORDS))]  # Zipf: a few words are everywhere
    c = chunk_db(tmp_path_factory.mktemp("kw") / "kw.db", [
        (f"c{i}", f"f{i % 50}.md", "note" if i % 3 else "slack",
         " ".join(rng.choices(WORDS, weights, k=rng.randint(5, 60)))) for i in range(6000)])
    yield c
    c.close()


def plain_or(conn, parsed, depth, where="1=1", args=()):
    return conn.execute(SELECT.format(where=where, rank="bm25(chunks_fts)", newest=""),
                        [build_match(parsed, "or"), *args, depth]).fetchall()


def plain_or_as_said(conn, text, depth):
    """A plain FTS5 OR query of every word as the query says it, repeats kept."""
    match = " OR ".join(quote(w) for w in tokenize(text))
    return conn.execute(SELECT.format(where="1=1", rank="bm25(chunks_fts)", newest=""),
                        [match, depth]).fetchall()


def test_a_word_the_query_repeats_weighs_as_often_as_it_is_said(conn):
    # long requests repeat what they are about; the plain OR of the words as written weighs a
    # word said three times three times, and so does every plan of the arm
    rng = random.Random(11)
    paths = set()
    for _ in range(120):
        said = rng.sample(WORDS[:5], rng.randint(0, 2)) + rng.sample(WORDS[5:], rng.randint(1, 3))
        said += rng.choices(said, k=rng.randint(1, 4))
        text = " ".join(said)
        got, plan = keyword_search(conn, parse_query(text), 50, "1=1", [], common_df=300,
                                   budget=BUDGET)
        paths.add(plan.path)
        if plan.path.startswith("and-first") or plan.path == "maxscore+common":
            continue
        want = plain_or_as_said(conn, text, 50)
        assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]
    assert {"or", "maxscore"} <= paths


def test_query_counts_are_capped_and_skip_stop_words():
    parsed = parse_query("the moon the moon the moon " + "tide " * 20)
    assert parsed.terms == ["moon", "tide"]
    assert parsed.counts == {"moon": 3, "tide": MAX_TERM_COUNT}
    assert parse_query("moon tide").counts == {}


def test_row_count_is_read_from_the_index(conn):
    assert fts_row_count(conn) == 6000


def test_pruned_answers_equal_the_plain_or_query(conn):
    rng = random.Random(9)
    paths = set()
    for _ in range(150):
        words = rng.sample(WORDS[:5], rng.randint(0, 2)) + rng.sample(WORDS[5:], rng.randint(1, 3))
        parsed = parse_query(" ".join(words))
        got, plan = keyword_search(conn, parsed, 50, "1=1", [], common_df=300, budget=BUDGET)
        paths.add(plan.path)
        if plan.path.startswith("and-first") or plan.path == "maxscore+common":
            continue  # the documented approximations (past the budget), tested below
        want = plain_or(conn, parsed, 50)
        assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]
        cut = want[-1]["score"] + 1e-9  # rows tied at the cut may differ; the rest may not
        assert {r["rowid"] for r in got if r["score"] > cut} == \
            {r["rowid"] for r in want if r["score"] > cut}
    assert {"or", "maxscore"} <= paths


def test_queries_within_the_budget_are_the_plain_or_query(conn):
    # CISI-like long queries of mostly common words: the approximate plans lost real matches;
    # within the default budget (every query on this 6k-chunk index) the answer is exact
    rng = random.Random(3)
    for n in (2, 8, 30, 60):
        parsed = parse_query(" ".join(rng.sample(WORDS[:120], n)))
        got, plan = keyword_search(conn, parsed, 50, "1=1", [], common_df=300)
        assert plan.path == "or"
        want = plain_or(conn, parsed, 50)
        assert [(r["rowid"], round(r["score"], 9)) for r in got] == \
            [(r["rowid"], round(r["score"], 9)) for r in want]


def test_word_counts_come_from_the_term_list(conn):
    from engine.retrieval.keyword_arm import capped_df, term_dfs

    words = ["w0", "w7", "w399", "nosuchword", "W7"]
    dfs = term_dfs(conn, words)
    assert dfs == {w: capped_df(conn, f'"{w}"', 10**6) for w in words}
    assert dfs["nosuchword"] == 0 and dfs["w0"] > dfs["w7"] > 0


def test_maxscore_prunes_when_common_words_cannot_catch_up(conn):
    # w0 is in most chunks, so its idf (and its bound) is near zero
    parsed = parse_query("w0 w40 w41 w42 w43 w44 w45")
    got, plan = keyword_search(conn, parsed, 10, "1=1", [], common_df=2500, budget=BUDGET)
    assert plan.common == ['"w0"'] and plan.path == "maxscore"
    want = plain_or(conn, parsed, 10)
    assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]


def test_filters_apply_inside_every_plan(conn):
    parsed = parse_query("w0 w1 w150")
    got, plan = keyword_search(conn, parsed, 20, "c.source_type = ?", ["slack"], common_df=300, budget=BUDGET)
    want = plain_or(conn, parsed, 20, "c.source_type = ?", ["slack"])
    assert plan.common and [r["rowid"] for r in got] == [r["rowid"] for r in want]
    assert all(r["source_type"] == "slack" for r in got)


def test_only_common_words_use_the_and_first_pass(conn):
    got, plan = keyword_search(conn, parse_query("w0 w1"), 50, "1=1", [], common_df=300, budget=BUDGET)
    assert plan.path == "and-first" and len(got) == 50
    assert all("w0" in r["content"].split() and "w1" in r["content"].split() for r in got)


def test_unfiltered_search_reads_the_same_rows_as_the_filtered_join(conn):
    """Without a filter the arm ranks inside FTS5 before reading chunks; a filter that admits
    every row takes the joined query: the same rows, scores and columns, on every plan."""
    rng = random.Random(11)
    paths = set()
    for _ in range(60):
        words = rng.sample(WORDS[:5], rng.randint(0, 3)) + rng.sample(WORDS[5:], rng.randint(0, 2))
        parsed = parse_query(" ".join(words) or "w7")
        fast, plan = keyword_search(conn, parsed, 30, "1=1", [], common_df=300, budget=BUDGET)
        joined, _ = keyword_search(conn, parsed, 30, "c.rowid > ?", [0], common_df=300,
                                   budget=BUDGET)
        paths.add(plan.path)
        assert [round(r["score"], 9) for r in fast] == [round(r["score"], 9) for r in joined]
        cut = fast[-1]["score"] + 1e-9 if len(fast) == 30 else float("-inf")
        assert ({r["rowid"]: tuple(r) for r in fast if r["score"] > cut}
                == {r["rowid"]: tuple(r) for r in joined if r["score"] > cut})
    assert len(paths) >= 3


def test_word_counts_are_reused_until_the_index_changes(tmp_path):
    """A query re-planned with the same words (every keystroke in the app) reads no term list
    and stems nothing; a commit by another connection, or a write on this one, recounts."""
    from engine.retrieval.keyword_arm import term_dfs
    from engine.schema import open_reader

    path = tmp_path / "c.db"
    writer = connect(path)
    ensure_schema(writer)

    def add(text: str) -> None:
        with transaction(writer):
            after = writer.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]
            writer.execute("INSERT INTO chunks(id, source_file, source_type, content, indexed_at,"
                           " content_hash) VALUES (?, 'f.md', 'note', ?, '', '')",
                           (f"c{after}", text))
            mirror_new_rows(writer, after)

    add("alpha beta")
    reader = open_reader(path)
    assert term_dfs(reader, ["alpha", "beta"]) == {"alpha": 1, "beta": 1}
    statements: list[str] = []
    reader.set_trace_callback(statements.append)
    assert term_dfs(reader, ["beta", "alpha"]) == {"beta": 1, "alpha": 1}
    assert not [s for s in statements if "memlens_stem" in s or "chunks_fts_terms" in s]
    add("alpha gamma")
    assert term_dfs(reader, ["alpha", "beta", "gamma"]) == {"alpha": 2, "beta": 1, "gamma": 1}
    add("beta")  # the same connection writing: its own commits must not be missed either
    assert term_dfs(writer, ["beta"]) == {"beta": 2}
    add("beta beta")
    assert term_dfs(writer, ["beta"]) == {"beta": 3}
    reader.close()
    writer.close()


def test_a_statement_past_the_budget_scores_the_newest_matches_only(conn):
    # w0 AND w1 match thousands of the 6k chunks: past a budget of 500, only the 500 most
    # recently indexed matches are scored, each exactly as the plain query scores it
    parsed = parse_query("w0 w1")
    got, plan = keyword_search(conn, parsed, 20, "1=1", [], common_df=300, budget=500)
    assert plan.path == "and-first" and plan.newest and len(got) == 20
    matches = [r[0] for r in conn.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '\"w0\" AND \"w1\"' "
        "ORDER BY rowid DESC")]
    assert len(matches) > 1500
    newest = set(matches[:500])
    exact = {r["rowid"]: r["score"] for r in plain_or(conn, parse_query("w0 w1"), 6000)}
    want = sorted(newest, key=lambda r: (-exact[r], r))[:20]
    assert [r["rowid"] for r in got] == want
    assert [round(r["score"], 9) for r in got] == [round(exact[r], 9) for r in want]
    # with a filter: those of the newest 500 matches that pass it; a filter that leaves
    # fewer than the depth of them gets every match
    got, plan = keyword_search(conn, parsed, 20, "c.source_type = ?", ["slack"],
                               common_df=300, budget=500)
    slack = {r[0] for r in conn.execute("SELECT rowid FROM chunks WHERE source_type = 'slack'")}
    newest = [r for r in matches[:500] if r in slack]
    assert plan.newest and [r["rowid"] for r in got] == \
        sorted(newest, key=lambda r: (-exact[r], r))[:20]
    narrow = "c.source_type = ? AND c.rowid <= ?"
    got, plan = keyword_search(conn, parsed, 20, narrow, ["slack", matches[-1] + 300],
                               common_df=300, budget=500)
    oldest = [r for r in matches if r in slack and r <= matches[-1] + 300]
    assert not plan.newest and [r["rowid"] for r in got] == \
        sorted(oldest, key=lambda r: (-exact[r], r))[:20]
    # within the budget nothing is cut
    _, plan = keyword_search(conn, parse_query("w0 w1"), 20, "1=1", [], common_df=300,
                             budget=10**6)
    assert not plan.newest


def test_a_long_query_finds_the_chunks_holding_its_rare_words(conn):
    # a 60-word request of mostly common words and a few rare ones, on a budget small enough
    # that the approximate plans act: every chunk the plain OR query ranks in its top 10 for
    # holding a rare word is in the arm's top 10 too
    rng = random.Random(3)
    for _ in range(20):
        said = rng.choices(WORDS[:40], k=56) + rng.sample(WORDS[300:], 4)
        rng.shuffle(said)
        text = " ".join(said)
        parsed = parse_query(text)
        got, plan = keyword_search(conn, parsed, 10, "1=1", [], common_df=300, budget=BUDGET)
        assert plan.common, "the plan should be an approximate one"
        rare = {quote(w)[1:-1] for w in said if w in WORDS[300:]}
        want = {r["rowid"] for r in plain_or_as_said(conn, text, 10)
                if rare & set(r["content"].split())}
        assert want <= {r["rowid"] for r in got}


def test_a_quoted_title_finds_the_chunk_that_words_it_differently(tmp_path):
    # the words of a quoted phrase are terms too: a chunk holding the title's words in
    # another order is still found, below the chunk holding the exact run
    c = chunk_db(tmp_path / "t.db", [
        ("exact", "a.md", "note", "Can programming be liberated from the von Neumann style"),
        ("reworded", "b.md", "note", "the von Neumann style: can programming be liberated?"
                                     " Backus asks in his lecture"),
        ("other", "c.md", "note", "a lecture on programming style")])
    got, _ = keyword_search(c, parse_query('"programming be liberated from the von Neumann" '
                                           'Backus'), 10, "1=1", [], common_df=300)
    ids = [r["id"] for r in got]
    assert set(ids[:2]) == {"exact", "reworded"} and ids[2] == "other"
    c.close()


def test_a_long_request_scores_as_the_plain_query_of_every_word_it_says(tmp_path):
    # stop words and repeats included: what plain full-text search does with a description
    text = ("I would like papers on the use of journals in libraries, both current and back "
            "issues, and on the ways in which libraries have coped with budget cuts")
    rows = [(f"d{i}", f"d{i}.md", "note", t) for i, t in enumerate([
        "journals in academic libraries: current issues and back runs",
        "the ways libraries coped with cuts in periodicals budgets",
        "a survey of the use of public libraries by children",
        "papers on budget planning in the health service",
        "in which we consider the use of the card catalogue"])]
    c = chunk_db(tmp_path / "r.db", rows)
    parsed = parse_query(text)
    assert parsed.function_words
    got, _ = keyword_search(c, parsed, 10, "1=1", [], common_df=300)
    want = plain_or_as_said(c, text, 10)
    assert [(r["id"], round(r["score"], 9)) for r in got] == \
           [(r["id"], round(r["score"], 9)) for r in want]
    c.close()
