"""The snippet builder (engine/retrieval/snippets.py): a window on the first match, spans, no markers."""

from __future__ import annotations

import random
import re

from engine.retrieval import snippets
from engine.retrieval.snippets import Snippet, build, marked, parse_marked


def shown(s: Snippet, span) -> str:
    return s.text[span[0]:span[1]]


def test_the_window_starts_just_before_the_first_match():
    text = " ".join(f"word{i}" for i in range(80)) + " harbor bridge " + "tail " * 40
    start = text.index("harbor")
    s = build(text, [(start, start + 6)])
    assert s.text.startswith("…") and s.text.endswith("…")
    assert [shown(s, h) for h in s.highlights] == ["harbor"]
    assert s.highlights[0][0] <= 1 + 20  # visible in a 40-cell row
    assert not s.text[1:].startswith("ord")  # begins at a word


def test_a_match_at_the_start_keeps_the_head_and_a_short_text_is_whole():
    s = build("harbor  bridge\n\nat night", [(0, 6), (8, 14)])
    assert s.text == "harbor bridge at night"
    assert [shown(s, h) for h in s.highlights] == ["harbor", "bridge"]
    assert build("no match here").text == "no match here"


def test_markdown_emphasis_becomes_spans_without_markers():
    text = "The **tile cache** is *slow* when `zoom=3`; snake_case_name stays"
    s = build(text)
    assert s.text == "The tile cache is slow when zoom=3; snake_case_name stays"
    assert [(shown(s, e[:2]), e[2]) for e in s.emphasis] == [
        ("tile cache", "bold"), ("slow", "em"), ("zoom=3", "code")]


def test_highlights_follow_the_removed_markers():
    text = "see **harbor** now"
    s = build(text, [(6, 12)])
    assert s.text == "see harbor now" and [shown(s, h) for h in s.highlights] == ["harbor"]
    assert s.emphasis == [(4, 10, "bold")]


def test_parse_marked_and_marked_round_trip():
    text, spans = parse_marked("a \x02b\x03 c \x02d", "\x02", "\x03")
    assert text == "a b c d" and spans == [(2, 3)]
    assert marked(build(text, spans)) == "a «b» c d"


def test_search_returns_a_window_on_the_match_with_spans_and_type_counts(tmp_path):
    from datetime import UTC, datetime

    from engine import reindex
    from engine.config import load_config
    from engine.searcher import Searcher
    from tests.conftest import make_root

    root = make_root(tmp_path / "root")
    (root / "notes/work").mkdir(parents=True)
    filler = " ".join(f"filler{i}" for i in range(60))
    (root / "notes/work/long.md").write_text(
        f"# Long\n\n{filler} the **zephyrine** kayak trip `kit list` and more words after.\n")
    reindex(config=load_config(root))
    searcher = Searcher(load_config(root))
    try:
        response = searcher.search("zephyrine kayak", 10, mode="keyword",
                                   now=datetime(2026, 4, 10, tzinfo=UTC))
        top = response.results[0]
        assert top.source_file == "notes/work/long.md"
        assert "**" not in top.snippet and "`" not in top.snippet and "«" not in top.snippet
        words = [top.snippet[a:b] for a, b in top.highlights]
        assert words == ["zephyrine", "kayak"] and top.highlights[0][0] <= 22
        assert [(top.snippet[a:b], k) for a, b, k in top.emphasis] == [
            ("zephyrine", "bold"), ("kit list", "code")]
        assert response.type_counts == {"note": 1}
        harbor = searcher.search("harbor bridge", 10, mode="keyword")
        assert harbor.type_counts["slack"] >= 10 and sum(harbor.type_counts.values()) >= len(
            harbor.results)
    finally:
        searcher.close()


def test_type_labels_are_readable_and_safe():
    from engine.display import type_label
    from engine.index.routes import FILE_ROUTES

    assert type_label("rwgps_memory") == "ride memory"
    assert all(type_label(t) and "_" not in type_label(t) for _, t in FILE_ROUTES)
    assert type_label("my_type\x1b[31m") == "my type␛[31m"


def test_a_match_deep_in_a_long_chunk_is_shown_from_a_slice():
    text = "lorem ipsum " * 2000 + "the **harbor** bridge " + "tail words " * 500
    start = text.index("harbor")
    s = build(text, [(start, start + 6)])
    assert s.text.startswith("…") and s.text.endswith("…") and len(s.text) <= 202
    assert [shown(s, h) for h in s.highlights] == ["harbor"]
    assert [shown(s, e[:2]) for e in s.emphasis] == ["harbor"] and "**" not in s.text


def _parse_by_character(marked, open_mark, close_mark):
    """The definition parse_marked keeps: one character at a time."""
    out, spans, pos, start = [], [], 0, None
    for ch in marked:
        if ch == open_mark:
            start = pos
        elif ch == close_mark:
            if start is not None and pos > start:
                spans.append((start, pos))
            start = None
        else:
            out.append(ch)
            pos += 1
    return "".join(out), spans


def test_parse_marked_reads_any_marker_sequence_as_the_character_walk_does():
    import random
    rng = random.Random(4)
    for _ in range(500):
        marked = "".join(rng.choice("ab \x02\x03é") for _ in range(rng.randint(0, 30)))
        assert parse_marked(marked, "\x02", "\x03") == _parse_by_character(marked, "\x02", "\x03")


def test_text_without_markers_takes_the_word_walk_with_the_same_result(monkeypatch):
    """build()'s fast path (no emphasis markers: a word at a time) gives exactly what the
    character walk gives, whitespace of every kind, matches across spaces and cuts included."""
    rng = random.Random(7)
    words = ["budget", "review", "Zoë", "café", "x", "meeting-notes", "2026", "日本語", "a"]
    spaces = [" ", "  ", "\n", "\t", " \n ", "\u00a0", "\u2003", "\r\n"]
    cases = []
    for _ in range(400):
        parts = [rng.choice(spaces)] if rng.random() < 0.2 else []
        for _ in range(rng.randint(1, 120)):
            parts += [rng.choice(words), rng.choice(spaces)]
        text = "".join(parts)
        matches = []
        for _ in range(rng.randint(0, 4)):
            s = rng.randrange(len(text))
            matches.append((s, min(len(text), s + rng.randint(1, 15))))
        cases.append((text, matches, rng.choice([40, 80, 200]), rng.choice([5, 20])))
    fast = [build(t, m, w, lead) for t, m, w, lead in cases]
    monkeypatch.setattr(snippets, "_EMPHASIS", (*snippets._EMPHASIS, ("em", re.compile("()"))))
    walked = [build(t, m, w, lead) for t, m, w, lead in cases]
    assert fast == walked
    assert sum(bool(s.highlights) for s in fast) > 250 and any(s.text.startswith("…") for s in fast)
