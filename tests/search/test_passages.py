"""Passage evidence in chat windows (engine/retrieval/passages.py, docs/benchmarks.md): words said
together in a message outrank the same words spread over a window, a passage reaches into the
neighbouring window, and chunks that are not chat windows keep their bm25 order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.retrieval.passages import (
    message_starts,
    neighbour_ids,
    passage_scores,
    word_heads,
    word_hits,
)
from tests.conftest import indexed_searcher, write_chat

NOW = datetime(2026, 11, 30, tzinfo=UTC)


FILLER = [f"the weather on day {i} was grey and windy" for i in range(10)]
# window 0: "pottery" twice and "classes" once, in three different messages
SPREAD = ["my pottery teacher is away", *FILLER[:3], "classes start late this year",
          *FILLER[3:6], "pottery again next month", FILLER[6]]
# window 1: both words in one message
TOGETHER = [*FILLER[:5], "I signed up for a pottery class yesterday", *FILLER[5:9]]


@pytest.fixture(scope="module")
def searcher(tmp_path_factory):
    root = tmp_path_factory.mktemp("passages") / "root"
    write_chat(root / "data/telegram/ana.jsonl", SPREAD + TOGETHER + FILLER)
    write_chat(root / "data/telegram/other.jsonl", [f"lunch menu item {i} was soup" for i in range(60)])
    (root / "notes").mkdir()
    (root / "notes/a.md").write_text("# Clay\n\npottery pottery pottery classes\n")
    (root / "notes/b.md").write_text("# Clay too\n\npottery classes\n")
    yield from indexed_searcher(root)


def test_words_said_together_outrank_words_spread_over_a_window(searcher):
    r = searcher.search("pottery classes", mode="keyword", now=NOW,
                        path_prefix="data/telegram/")
    ids = [x.id for x in r]
    assert ids[:2] == ["data/telegram/ana.jsonl#w1", "data/telegram/ana.jsonl#w0"], [
        (x.id, x.bm25, x.fusion_terms) for x in r]
    spread, together = r[1], r[0]
    assert spread.bm25 > together.bm25  # plain bm25 alone would put the spread window first
    assert "passage" in together.fusion_terms["keyword"]


def test_chunks_that_are_not_chat_windows_keep_their_bm25_order(searcher):
    r = searcher.search("pottery classes", mode="keyword", now=NOW, path_prefix="notes/")
    assert [x.id.split("#")[0] for x in r] == ["notes/a.md", "notes/b.md"]
    assert all("passage" not in x.fusion_terms["keyword"] for x in r)


def test_a_passage_reaches_into_the_neighbouring_window():
    w0 = "\n".join(f"[2026-11-01 09:0{i}] Ana: nothing here {i}" for i in range(9))
    w0 += "\n[2026-11-01 09:09] Ana: how was the coconut ice cream"
    w1 = "\n".join(f"[2026-11-01 09:1{i}] Ben: super good {i}" for i in range(10))
    ids = ["data/telegram/x.jsonl#w0", "data/telegram/x.jsonl#w1"]
    weights = {"coconut": 2.0}
    alone = passage_scores(weights, [ids[1]], {ids[1]: w1})
    seam = passage_scores(weights, [ids[1]], {ids[0]: w0, ids[1]: w1})
    assert alone[ids[1]] == 0.0 and seam[ids[1]] > 0.0


def test_message_layout_and_window_ids():
    text = "[2026-11-01 09:00] Ana: one\nline two\n[2026-11-01 09:01] Ben: three"
    assert message_starts(text) == [0, text.index("[2026-11-01 09:01]")]
    assert message_starts("# a note\n[2026-11-01 09:00] Ana: x") == []
    assert neighbour_ids("data/slack/general.jsonl#w0") == ("data/slack/general.jsonl#w1",)
    assert neighbour_ids("data/slack/general.jsonl#w5") == ("data/slack/general.jsonl#w4",
                                                            "data/slack/general.jsonl#w6")
    assert neighbour_ids("notes/a.md") == ()


def _regex_hits(content, heads):
    """The definition word_hits must agree with: words starting with a head, any case."""
    import re
    near = re.compile(r"\b(?:" + "|".join(map(re.escape, heads)) + r")\w*", re.IGNORECASE)
    return [(m.start(), m.group().lower()) for m in near.finditer(content)]


@pytest.mark.parametrize("content", [
    "[2026-11-01 09:00] Ana: Pottery POTTERS potted spot_pottery repotted pot-tery",
    "Café CAFÉS cafeteria _café 2café café2 «café»",
    "İstanbul pottery: the İ lowercases to two characters, so offsets take the regex",
    "",
])
def test_word_hits_finds_the_words_the_case_blind_regex_finds(content):
    heads = word_heads({"potteri": 1.0, "pot": 1.0, "café": 1.0, "caf": 1.0})
    assert heads == ["caf", "pot"]  # "café", "potteri" start with a shorter head
    assert word_hits(content, heads) == _regex_hits(content, heads)
    assert word_hits(content, ["zzz"]) == []


def test_a_chat_search_leaves_its_connection_unwritten(searcher):
    """Stemming happens on the stemmer's own database: a write on the search connection
    would drop its cached word counts (engine/retrieval/keyword_arm.py) after every chat query."""
    conn = searcher.connection()
    searcher.search("pottery classes", mode="keyword", now=NOW)
    before = conn.total_changes
    r = searcher.search("pottery yesterday signed", mode="keyword", now=NOW)
    assert r.results and "passage" in r.results[0].fusion_terms["keyword"]
    assert conn.total_changes == before


def test_the_stemmer_reads_words_as_the_index_does():
    from engine.retrieval import stemmer
    assert stemmer.tokens(["running", "spot_pottery", "--", "Café"]) == {
        "running": ("run",), "spot_pottery": ("spot", "potteri"), "--": (), "Café": ("cafe",)}
    assert stemmer.stem(["running", "spot_pottery", "--"]) == {"running": "run"}
