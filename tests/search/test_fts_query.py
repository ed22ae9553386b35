"""FTS5 query building: adversarial input never raises and always yields valid MATCH syntax."""

from __future__ import annotations

import pytest
import sqlean as sqlite3

from engine.retrieval.fts_query import (
    FTS5_STOP_WORDS,
    LONG_REQUEST_TERMS,
    MAX_TERMS,
    ParsedQuery,
    build_match,
    light_stem,
    matched_terms,
    parse_query,
    quote,
    tokenize,
)

ADVERSARIAL = [
    "", "   ", "the of and", "???!!!", "NEAR(", "col:term", 'unbalanced "quote',
    '"harbor bridge" plan', "a" * 10000, "x\x00y\x1b[31mz", "'; DROP TABLE chunks; --",
    "AND OR NOT", "café naïve", "C++ & C#", "**wild*", "^start",
    # a few more of the same family
    '""', '"', '" "', "NEAR(a b, 3)", "content:harbor", "{a b}", "a OR", "-minus", "x*",
    "\u200b\ufeff", "word_with_underscore ___", "日本語 の テキスト", "🎉🎉", " ".join(["w"] * 500),
    " ".join(f"term{i}" for i in range(200)),
]


@pytest.fixture(scope="module")
def fts():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(content, "
               "tokenize='porter unicode61 remove_diacritics 2')")
    db.executemany("INSERT INTO t(content) VALUES (?)", [
        ("The harbor bridge plan was approved",),
        ("Cafe naive latte on Tuesday",),
        ("C programming with pointers",),
        ("Running the start script",),
    ])
    yield db
    db.close()


@pytest.mark.parametrize("query", ADVERSARIAL, ids=lambda q: repr(q[:20]))
@pytest.mark.parametrize("mode", ["or", "and"])
def test_adversarial_query_is_accepted_by_real_fts5(fts, query, mode):
    parsed = parse_query(query)
    expr = build_match(parsed, mode)
    assert isinstance(parsed, ParsedQuery)
    if expr is not None:
        (count,) = fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expr,)).fetchone()
        assert count >= 0
    matched_terms("harbor bridge cafe", parsed)  # never raises either


def test_nothing_to_search_gives_none():
    for query in ["", "   ", "???!!!", "\x00\x01", '""', None]:
        assert parse_query(query).terms == []
        assert build_match(parse_query(query)) is None


def test_stop_words_dropped_and_order_kept():
    parsed = parse_query("What did I say about the harbor bridge?")
    assert parsed.terms == ["say", "harbor", "bridge"]
    assert parsed.phrases == []
    assert build_match(parsed) == '"say" OR "harbor" OR "bridge"'
    assert build_match(parsed, "and") == '"say" AND "harbor" AND "bridge"'


def test_all_stop_words_fall_back_to_first_three_raw_tokens():
    assert parse_query("who am I to them").terms == ["who", "am", "i"]
    assert parse_query("the of and").terms == ["the", "of", "and"]
    assert parse_query("the the the of").terms == ["the", "of"]


def test_quoted_phrase_kept_as_phrase_and_its_words_as_terms():
    # quoting a title ranks the chunks holding it first; its words still find the chunks that
    # word it differently (a quoted title used to lose every chunk without the exact run)
    parsed = parse_query('"harbor bridge" plan')
    assert parsed.terms == ["plan", "harbor", "bridge"]
    assert parsed.phrases == [["harbor", "bridge"]]
    assert build_match(parsed) == '"plan" OR "harbor" OR "bridge" OR "harbor bridge"'


def test_phrase_keeps_stop_words_and_single_word_phrase_is_a_term():
    parsed = parse_query('"the who" "bridge" concert')
    assert parsed.phrases == [["the", "who"]]
    assert parsed.terms == ["concert", "bridge"]


def test_a_long_request_keeps_its_stop_words_for_scoring_only():
    question = parse_query("what did I do with the harbor bridge plan")
    assert question.function_words == []
    request = parse_query("I would like papers on the use of journals in libraries, both "
                          "current and back issues, and how libraries coped with budget cuts")
    assert len(request.terms) >= LONG_REQUEST_TERMS
    assert "the" in request.function_words and "the" not in request.terms
    assert request.counts["libraries"] == 2 and request.counts["and"] == 2


def test_unbalanced_quote_is_ignored():
    parsed = parse_query('unbalanced "quote')
    assert parsed.terms == ["unbalanced", "quote"]
    assert parsed.phrases == []


def test_dedupe_case_insensitive():
    parsed = parse_query("Garden garden GARDEN plan Plan")
    assert parsed.terms == ["garden", "plan"]


def test_operators_become_plain_words():
    assert parse_query("col:term").terms == ["col", "term"]
    assert parse_query("NEAR(harbor bridge)").terms == ["near", "harbor", "bridge"]
    assert parse_query("AND OR NOT").terms == ["and", "or", "not"]  # fallback, quoted
    assert build_match(parse_query("AND OR NOT")) == '"and" OR "or" OR "not"'
    assert parse_query("**wild*").terms == ["wild"]


def test_control_characters_split_words():
    assert parse_query("x\x00y\x1b[31mz").terms == ["x", "y", "31mz"]


def test_unicode_words_kept():
    assert tokenize("Café NAÏVE 日本") == ["café", "naïve", "日本"]
    # decomposed input is recomposed, so the word is not split at the combining mark
    assert tokenize("nai\u0308ve") == ["naïve"]


def test_long_input_capped_to_max_terms():
    parsed = parse_query(" ".join(f"term{i}" for i in range(200)))
    assert len(parsed.terms) == MAX_TERMS
    assert parsed.terms[0] == "term0"
    assert parse_query("a" * 10000).terms == ["a" * 10000]


def test_quote_doubles_embedded_quotes():
    assert quote('say "hi"') == '"say ""hi"""'
    assert build_match(ParsedQuery(terms=['x"y'])) == '"x""y"'


def test_build_match_rejects_unknown_mode():
    with pytest.raises(ValueError):
        build_match(parse_query("harbor"), "near")


def test_stop_words_cover_interrogatives_and_auxiliaries():
    assert {"what", "when", "where", "who", "how", "why", "which"} <= FTS5_STOP_WORDS
    assert {"the", "a", "an", "of", "is", "was", "did", "she", "they"} <= FTS5_STOP_WORDS


def test_match_finds_rows_through_porter(fts):
    expr = build_match(parse_query("runs"))
    rows = fts.execute("SELECT content FROM t WHERE t MATCH ?", (expr,)).fetchall()
    assert rows == [("Running the start script",)]
    expr = build_match(parse_query("café naïve"), "and")
    assert fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expr,)).fetchone() == (1,)


def test_light_stem_agrees_on_common_inflections():
    assert light_stem("running") == light_stem("runs") == light_stem("run") == "run"
    assert light_stem("planned") == light_stem("plans") == "plan"
    assert light_stem("notes") == "note"
    assert light_stem("boxes") == "box"
    assert light_stem("parties") == "party"
    assert light_stem("strings") == light_stem("string")
    assert light_stem("is") == "is"
    assert light_stem("Café") == "cafe"


def test_matched_terms_reports_terms_and_phrases_present():
    parsed = parse_query('"harbor bridge" running plans budget')
    content = "Plan for the Harbor Bridge: he runs the numbers."
    assert matched_terms(content, parsed) == ["running", "plans", "harbor bridge"]


def test_matched_terms_phrase_needs_consecutive_words():
    parsed = parse_query('"harbor bridge"')
    assert matched_terms("the bridge by the harbor", parsed) == ["harbor", "bridge"]
    assert matched_terms("harbor bridges", parsed) == ["harbor bridge"]


def test_matched_terms_folds_diacritics():
    assert matched_terms("a cafe in town", parse_query("café")) == ["café"]
