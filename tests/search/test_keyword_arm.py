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
                                   budget=BUDGET, walk=0)
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
        got, plan = keyword_search(conn, parsed, 50, "1=1", [], common_df=300, budget=BUDGET, walk=0)
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
        assert plan.path == ("walk" if conn.rank_extension else "or")
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
    got, plan = keyword_search(conn, parsed, 10, "1=1", [], common_df=2500, budget=BUDGET, walk=0)
    assert plan.common == ['"w0"'] and plan.path == "maxscore"
    want = plain_or(conn, parsed, 10)
    assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]


def test_filters_apply_inside_every_plan(conn):
    parsed = parse_query("w0 w1 w150")
    got, plan = keyword_search(conn, parsed, 20, "c.source_type = ?", ["slack"], common_df=300, budget=BUDGET, walk=0)
    want = plain_or(conn, parsed, 20, "c.source_type = ?", ["slack"])
    assert plan.common and [r["rowid"] for r in got] == [r["rowid"] for r in want]
    assert all(r["source_type"] == "slack" for r in got)


def test_only_common_words_use_the_and_first_pass(conn):
    got, plan = keyword_search(conn, parse_query("w0 w1"), 50, "1=1", [], common_df=300, budget=BUDGET, walk=0)
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
        fast, plan = keyword_search(conn, parsed, 30, "1=1", [], common_df=300, budget=BUDGET, walk=0)
        joined, _ = keyword_search(conn, parsed, 30, "c.rowid > ?", [0], common_df=300,
                                   budget=BUDGET, walk=0)
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
    got, plan = keyword_search(conn, parsed, 20, "1=1", [], common_df=300, budget=500, walk=0)
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
                               common_df=300, budget=500, walk=0)
    slack = {r[0] for r in conn.execute("SELECT rowid FROM chunks WHERE source_type = 'slack'")}
    newest = [r for r in matches[:500] if r in slack]
    assert plan.newest and [r["rowid"] for r in got] == \
        sorted(newest, key=lambda r: (-exact[r], r))[:20]
    narrow = "c.source_type = ? AND c.rowid <= ?"
    got, plan = keyword_search(conn, parsed, 20, narrow, ["slack", matches[-1] + 300],
                               common_df=300, budget=500, walk=0)
    oldest = [r for r in matches if r in slack and r <= matches[-1] + 300]
    assert not plan.newest and [r["rowid"] for r in got] == \
        sorted(oldest, key=lambda r: (-exact[r], r))[:20]
    # within the budget nothing is cut
    _, plan = keyword_search(conn, parse_query("w0 w1"), 20, "1=1", [], common_df=300,
                             budget=10**6, walk=0)
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
        got, plan = keyword_search(conn, parsed, 10, "1=1", [], common_df=300, budget=BUDGET, walk=0)
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


def test_a_walk_answers_as_the_plain_or_query(conn):
    # past the pruning budget, a query whose posting lists fit the walk is answered by one
    # memlens_topk call: the plain OR's rows and scores, repeated words and phrases included
    if not conn.rank_extension:
        pytest.skip("memlens_topk needs engine.storage._memlensrank (built with a C compiler)")
    rng = random.Random(21)
    for i in range(100):
        words = rng.sample(WORDS[:5], rng.randint(1, 3)) + rng.sample(WORDS[5:], rng.randint(0, 3))
        if i % 2:
            words += rng.choices(words, k=rng.randint(1, 3))
        if i % 10 == 0:  # a phrase whose words the query does not also say alone
            words = [w for w in words if w not in ("w1", "w2")] or ["w0"]
        text = " ".join(words) + (' "w1 w2"' if i % 10 == 0 else "")
        parsed = parse_query(text)
        got, plan = keyword_search(conn, parsed, 50, "1=1", [], common_df=300, budget=BUDGET)
        assert plan.path == "walk"
        want = plain_or(conn, parsed, 50) if i % 10 == 0 else plain_or_as_said(conn, text, 50)
        assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]
        cut = want[-1]["score"] + 1e-9
        assert {r["rowid"] for r in got if r["score"] > cut} == \
            {r["rowid"] for r in want if r["score"] > cut}
        assert [r["content"] for r in got if r["score"] > cut] == \
            [r["content"] for r in want if r["score"] > cut]


def test_a_query_past_the_walk_or_out_of_its_range_is_planned(conn, tmp_path):
    parsed = parse_query("w0 w1 w7")
    _, plan = keyword_search(conn, parsed, 20, "1=1", [], common_df=300, budget=BUDGET,
                             walk=1000)
    assert plan.path != "walk"  # w0 alone is held by thousands of chunks
    # a rowid past the walk's array (2^25): the plans answer, with the same rows
    far = chunk_db(tmp_path / "far.db", [(f"c{i}", "f.md", "note", f"w0 w{i % 7}")
                                         for i in range(40)])
    with transaction(far):
        far.execute("INSERT INTO chunks(rowid, id, source_file, source_type, content, "
                    "indexed_at, content_hash, content_date) VALUES "
                    "(?, 'far', 'f.md', 'note', 'w0 w1 w1', '', '', '2026-01-01')", (2**25 + 9,))
        mirror_new_rows(far, 40)
    got, plan = keyword_search(far, parse_query("w0 w1"), 5, "1=1", [], common_df=10,
                               budget=10)
    assert plan.path != "walk"
    assert got[0]["rowid"] == 2**25 + 9
    far.close()


def _churned_index(path):
    """An index written in many transactions (many FTS5 segments, one merge half done), with
    rows deleted and rewritten in each: the newest segment's entry for a row is the one that
    holds."""
    rng = random.Random(8)
    weights = [1 / (i + 1) for i in range(len(WORDS))]

    def text(n):
        return " ".join(rng.choices(WORDS, weights, k=rng.randint(3, n)))

    c = chunk_db(path, [])
    with transaction(c):  # small leaves: doclists and position lists span many of them
        c.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('pgsz', 120)")
        c.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 4)")
    with transaction(c):
        c.executemany(
            "INSERT INTO chunks(id, source_file, source_type, content, indexed_at, "
            "content_hash, content_date) VALUES (?, 'f.md', 'note', ?, '', '', '2026-01-01')",
            [(f"c{i}", text(60) + " w5" * (i % 40)) for i in range(2000)])
        mirror_new_rows(c, 0)
    for batch in range(30):
        with transaction(c):
            last = c.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
            c.executemany(
                "INSERT INTO chunks(id, source_file, source_type, content, indexed_at, "
                "content_hash, content_date) VALUES (?, 'g.md', 'note', ?, '', '', '2026-01-01')",
                [(f"b{batch}-{i}", text(60)) for i in range(rng.randint(1, 150))])
            mirror_new_rows(c, last)
            gone = c.execute("SELECT rowid FROM chunks ORDER BY random() LIMIT ?",
                             (rng.randint(0, 40),)).fetchall()
            c.executemany("DELETE FROM chunks WHERE rowid = ?", gone)
            changed = c.execute("SELECT rowid FROM chunks ORDER BY random() LIMIT ?",
                                (rng.randint(0, 20),)).fetchall()
            c.executemany("UPDATE chunks SET content = ? WHERE rowid = ?",
                          [(text(30), r[0]) for r in changed])
    with transaction(c):  # a merge left half done: its input segments lose their first leaves
        c.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', -3)")
    segments = c.execute("SELECT count(*) FROM chunks_fts_idx GROUP BY segid").fetchall()
    c.close()
    return len(segments)


def test_a_searcher_reads_postings_from_the_index_pages_as_fts5_does(tmp_path):
    # a read-only connection (a searcher's) reads each word's postings from FTS5's pages
    # itself: across segments, deletes and rewrites, the answer is the plain OR query's
    path = tmp_path / "churn.db"
    assert _churned_index(path) > 1
    reader = connect(path, readonly=True)
    if not reader.rank_extension:
        pytest.skip("memlens_topk needs engine.storage._memlensrank (built with a C compiler)")
    rng = random.Random(4)
    for i in range(80):
        words = rng.sample(WORDS[:8], rng.randint(1, 3)) + rng.sample(WORDS[8:], rng.randint(0, 3))
        if i % 7 == 0:  # a phrase whose words the query does not also say alone
            words = [w for w in words if w not in ("w0", "w1")] or ["w2"]
        text = " ".join(words) + (' "w0 w1"' if i % 7 == 0 else "")
        parsed = parse_query(text)
        got, plan = keyword_search(reader, parsed, 30, "1=1", [], common_df=300)
        assert plan.path == "walk"
        want = plain_or_as_said(reader, text, 30) if i % 7 else plain_or(reader, parsed, 30)
        assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want], text
        cut = want[-1]["score"] + 1e-9
        assert {r["rowid"] for r in got if r["score"] > cut} == \
            {r["rowid"] for r in want if r["score"] > cut}
    reader.close()


def test_a_walk_inside_a_write_sees_what_the_write_added(tmp_path):
    # inside a transaction FTS5 may hold new postings in memory, not yet on its pages: the walk
    # reads them through FTS5 then, so a writer searching what it just wrote finds it
    c = chunk_db(tmp_path / "w.db", [(f"c{i}", "f.md", "note", f"w0 w{i % 9}") for i in range(300)])
    try:
        with transaction(c):
            c.execute("INSERT INTO chunks(id, source_file, source_type, content, indexed_at, "
                      "content_hash, content_date) VALUES ('new', 'n.md', 'note', "
                      "'zebra zebra w0', '', '', '2026-01-01')")
            mirror_new_rows(c, 300)
            got, plan = keyword_search(c, parse_query("zebra w0"), 5, "1=1", [], common_df=50)
            assert plan.path == ("walk" if c.rank_extension else "or")
            assert got[0]["id"] == "new"
    finally:
        c.close()


def test_a_long_token_on_the_page_leaves_the_walk_reading(tmp_path):
    # pasted base64 makes tokens of thousands of bytes; the words after one on its page are
    # still read from the pages (before, any term past 1,023 bytes sent them to the plans)
    long_token = "a" + "QUJD" * 375  # 1,501 bytes: it and the short words share one leaf
    c = chunk_db(tmp_path / "long.db", [
        (f"c{i}", "f.md", "note", f"{long_token} aardvark{i % 3} apple w{i % 5}")
        for i in range(60)])  # few rows: the words after it share its leaf
    c.close()
    reader = connect(tmp_path / "long.db", readonly=True)
    try:
        if not reader.rank_extension:
            pytest.skip("memlens_topk needs engine.storage._memlensrank (built with a C compiler)")
        parsed = parse_query("apple w0 w1 aardvark2")
        got, plan = keyword_search(reader, parsed, 20, "1=1", [], common_df=50)
        assert plan.path == "walk"
        want = plain_or(reader, parsed, 20)
        assert [round(r["score"], 9) for r in got] == [round(r["score"], 9) for r in want]
    finally:
        reader.close()
