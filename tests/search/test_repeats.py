"""Repeats: chunks of the same text (dates aside) are one row that says how many and when, in
the engine, the command line, MCP and the app (engine/rank/repeats.py)."""
# ruff: noqa: F811 - the fixture imported from tests/app/conftest.py is an argument here

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace

from engine.config import load_config
from engine.display import repeats_text
from engine.library import Library
from engine.rank.candidates import Candidate, Repeat
from engine.rank.repeats import NORMALISED_CHARS, collapse_repeats, normalise, repeat_key
from tests.app.conftest import aio, demo_root, make_app, ready, search, wait_for  # noqa: F401

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
QUOTE = 'Quote: "If I can\'t explain it to Maya at dinner, I don\'t understand it yet."'
QUERY = "dinner with maya"


def cand(cid: str, content: str, source_type: str = "note", date: str | None = None,
         **kw) -> Candidate:
    return Candidate(id=cid, content=content, source_file=cid.split("#")[0],
                     source_type=source_type, content_date=date, **kw)


# -- the text repeats compare ------------------------------------------------------------------

def test_dates_times_case_punctuation_and_spacing_are_set_aside():
    same = ["Dinner with Maya on 2026-03-12 at 19:02.",
            "dinner with maya on 12/03/2026 at 7:02 pm",
            "Dinner  with Maya on Thu, 12 March 2026 at 7pm!",
            "DINNER with Maya on March 13th, 2026 at 19:02:00",
            "Dinner with Maya — on 2026-03-12T19:02:00Z at 12.03.2026"]
    assert {normalise(t) for t in same} == {"dinner with maya on at"}


def test_numbers_that_are_no_dates_stay():
    assert normalise("mood 7/10, energy 6/10") != normalise("mood 8/10, energy 6/10")
    assert normalise("release 1.2.3") != normalise("release 1.2.4")
    assert normalise("Photos: 60") != normalise("Photos: 7")
    assert normalise("room 2026") == "room 2026"


def test_a_long_text_compares_its_rest_exactly():
    head = "word " * (NORMALISED_CHARS // 5)
    assert normalise(head + "tail 2026-03-01") != normalise(head + "tail 2026-03-02")
    assert normalise(head + "tail") != normalise(head + "tall")  # the rest is not cut off


# -- grouping --------------------------------------------------------------------------------

def test_the_same_text_on_other_days_is_one_row_at_the_best_place():
    ranked = [cand("a.md#1", "Dinner with Maya on 2026-02-12.", date="2026-02-12"),
              cand("b.md#1", "Lunch with Sam"),
              cand("c.md#1", "dinner with Maya on 2026-07-17", date="2026-07-17", rowid=7),
              cand("d.md#1", "Dinner with Maya on 11/08/2026", date="2026-11-08")]
    out = collapse_repeats(ranked)
    assert [c.id for c in out] == ["a.md#1", "b.md#1"]
    assert out[0].repeats == (Repeat("c.md#1", 7, "2026-07-17", "c.md", "note"),
                              Repeat("d.md#1", None, "2026-11-08", "d.md", "note"))
    assert ranked[0].repeats == ()  # the input is not changed
    assert [c.id for c in collapse_repeats(out)] == ["a.md#1", "b.md#1"]  # a second pass
    assert len(collapse_repeats(out)[0].repeats) == 2


def test_near_but_different_texts_never_group():
    texts = ["Dinner with Maya at the studio",
             "Dinner with Maya at the studio, again",
             "Maya with dinner at the studio",  # the same words, another order
             "Dinner with Maya at the studio 2",
             "Dinner with Mia at the studio",
             "Dinner with Maya at the studios"]
    out = collapse_repeats([cand(f"n{i}.md", t) for i, t in enumerate(texts)])
    assert len(out) == len(texts) and all(not c.repeats for c in out)


def test_profiles_and_texts_of_dates_only_never_group():
    profile = "Maya Chen (also: Maya)\nRelationship: partner"
    out = collapse_repeats([cand("p#1", profile, "profile", injected=True),
                            cand("p#2", profile, "profile", injected=True),
                            cand("x.md", "2026-03-01"), cand("y.md", "2026-03-02")])
    assert len(out) == 4
    assert repeat_key(out[0]) is None and repeat_key(out[2]) is None


def test_a_quote_or_an_event_is_its_first_line():
    # the lines under a quote or an event annotate one occurrence (engine.extractors'
    # HEADLINE_TYPES); a journal entry's title is no such line: its text is the entry
    quotes = [cand(f"q.jsonl#q{i}", f"{QUOTE}\nSource: interview\nContext: {ctx}", "quote")
              for i, ctx in enumerate(("On design docs", "Over coffee"))]
    events = [cand(f"e.jsonl#e{i}", f"Photo event: Dinner party at home — {day} at Oakland, "
                   f"CA\nMade {food}.\nPhotos: {n}", "event")
              for i, (day, food, n) in enumerate((("2026-10-12", "paella", 60),
                                                  ("2025-12-09", "soup", 7)))]
    other_event = cand("e.jsonl#e9", "Photo event: Dinner party at Olivia's — 2026-01-02",
                       "event")
    journals = [cand(f"j.jsonl#j{i}", f"Journal — 202{i}-08-22: Maya's birthday\n{text}",
                     "journal") for i, text in enumerate(("Osteria.", "A picnic."))]
    out = collapse_repeats([*quotes, *events, other_event, *journals])
    assert [(c.id, len(c.repeats)) for c in out] == [
        ("q.jsonl#q0", 1), ("e.jsonl#e0", 1), ("e.jsonl#e9", 0), ("j.jsonl#j0", 0),
        ("j.jsonl#j1", 0)]


def test_many_candidates_in_one_pass():
    ranked = [cand(f"n{i}.md", f"note {i % 50} written on 2026-01-{1 + i % 28:02d}")
              for i in range(2000)]
    out = collapse_repeats(ranked)
    assert len(out) == 50 and sum(len(c.repeats) for c in out) == 1950


# -- the line every front door shows ---------------------------------------------------------

def _row(date, *dates):
    return SimpleNamespace(content_date=date, repeats=[
        Repeat(f"x#{i}", None, d, "x", "note") for i, d in enumerate(dates)])


def test_repeats_text_names_how_many_and_when():
    assert repeats_text(_row("2026-02-12", "2026-07-17", "2026-11-08")) == \
        "3×: 2026-02-12, 07-17, 11-08"
    assert repeats_text(_row("2026-04-27", "2025-12-09", "2026-07-18")) == \
        "3×: 2025-12-09, 2026-04-27, 07-18"  # oldest first, the year said when it changes
    assert repeats_text(_row(None, "2026-07-17", None)) == "3×: 2026-07-17, 2 undated"
    assert repeats_text(_row("2026-01-01", *[f"2026-02-{d:02d}" for d in range(1, 15)]),
                        most=3) == "15×: 2026-01-01, 02-01, 02-02, 12 more"
    assert repeats_text(_row("2026-01-01")) == ""
    # two on one day: the day once, with its count
    assert repeats_text(_row("2026-10-12", "2026-07-18", "2026-10-12")) == \
        "3×: 2026-07-18, 10-12 ×2"


# -- end to end, on the demo root ------------------------------------------------------------

def _quote_rows(rows):
    return [r for r in rows if r.content.startswith(QUOTE)]


def test_the_page_shows_each_text_once_and_says_how_many(demo_root):
    with Library(load_config(demo_root)) as library:
        rows = library.search(QUERY, 20, now=NOW).results
    assert len(rows) == 20 and len({r.id for r in rows}) == 20  # still a full page
    keys = [repeat_key(cand(r.id, r.content, r.source_type)) for r in rows if not r.injected]
    assert len(keys) == len(set(keys))  # no text twice
    (quote,) = _quote_rows(rows)
    assert repeats_text(quote) == "3×: 2026-02-12, 07-17, 11-08"
    assert sum(r.content.startswith("Photo event: Dinner party at home") for r in rows) == 1
    shown = {r.id for r in rows}
    assert not shown & {x.id for r in rows for x in r.repeats}


def test_a_longer_page_is_filled_and_shows_no_repeat_as_a_row(demo_root):
    # pages past 20 rows are made of deeper rankings (search_pipeline.depth_tiers): a row
    # folded into one of the first 20 does not come back further down
    with Library(load_config(demo_root)) as library:
        for limit in (20, 60):
            rows = library.search(QUERY, limit, now=NOW).results
            assert len(rows) == limit
            ids = [r.id for r in rows]
            folded = {x.id for r in rows for x in r.repeats}
            assert len(set(ids)) == limit and not folded & set(ids)
            assert len(_quote_rows(rows)) == 1


def test_a_deeper_ranking_never_shows_a_folded_chunk_as_a_row(demo_root, monkeypatch):
    # a deeper ranking may rank another member of a group first: that chunk is folded into a
    # row of the page already, so it is not shown again as a row of its own
    import engine.retrieval.search_pipeline as sp
    from engine.rank.repeats import as_repeat

    first_depth, rank = sp.depth_tiers(60)[0][1], sp._rank

    def another_member_first(reader, parsed, text, depth, *args, **kw):
        ranking = rank(reader, parsed, text, depth, *args, **kw)
        if depth != first_depth:
            ranking.ranked = [_led_by_its_first_repeat(c) if c.repeats else c
                              for c in ranking.ranked]
        return ranking

    def _led_by_its_first_repeat(c):
        first, *rest = c.repeats
        return Candidate(id=first.id, content=c.content, source_file=first.source_file,
                         source_type=first.source_type, content_date=first.content_date,
                         rowid=first.rowid, score=c.score, repeats=(as_repeat(c), *rest))

    monkeypatch.setattr(sp, "_rank", another_member_first)
    with Library(load_config(demo_root)) as library:
        rows = library.search(QUERY, 60, now=NOW).results
    ids = [r.id for r in rows]
    assert len(set(ids)) == len(rows) == 60
    assert not {x.id for r in rows for x in r.repeats} & set(ids)
    assert len(_quote_rows(rows)) == 1


def test_the_cli_says_how_many_and_json_lists_them(demo_root, capsys):
    from cli.main import main as cli_main

    assert cli_main(["search", QUERY, "--root", str(demo_root), "--limit", "20"]) == 0
    out = capsys.readouterr().out
    assert "    3×: 2026-02-12, 07-17, 11-08" in out.splitlines()
    assert out.count("explain it to «Maya» at «dinner»") == 1
    assert cli_main(["search", QUERY, "--root", str(demo_root), "--limit", "20",
                     "--json"]) == 0
    (quote,) = [r for r in json.loads(capsys.readouterr().out)["results"]
                if r["content"].startswith(QUOTE)]
    assert [(x["content_date"], x["source_type"]) for x in quote["repeats"]] == [
        ("2026-07-17", "quote"), ("2026-11-08", "quote")]


def test_the_cli_line_fits_the_terminal(demo_root, capsys, monkeypatch):
    from cli.main import main as cli_main

    monkeypatch.setenv("COLUMNS", "30")
    assert cli_main(["search", QUERY, "--root", str(demo_root), "--limit", "20"]) == 0
    assert "    3×: 2026-02-12, 07-17, 11…" in capsys.readouterr().out.splitlines()


def test_mcp_rows_carry_the_grouping(demo_root):
    from mcp_server.tools import MemlensTools

    tools = MemlensTools(load_config(demo_root), max_chars=1_000_000)
    try:
        text, failed = tools.call("hybrid_search", {"query": QUERY, "limit": 20})
    finally:
        tools.close()
    assert not failed, text
    rows = [line for line in text.splitlines() if line.startswith("{")]
    quotes = [line for line in rows if "explain it to Maya at dinner" in line]
    assert len(rows) == 20 and len(quotes) == 1
    field = next(f for f in quotes[0].split(" | ") if f.startswith("repeats: "))
    dates, others = field.removeprefix("repeats: ").split("; others: ")
    assert dates == "3×: 2026-02-12, 07-17, 11-08"
    assert len(json.loads(others)) == 2


@aio
async def test_the_app_row_says_3x_and_unfolds_its_repeats(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, QUERY)
        results, preview = app.main.results, app.main.preview
        (quote,) = _quote_rows(results.results)
        at = results.results.index(quote)
        assert "▸3×" in str(results.get_option_at_index(at).prompt)
        assert sum("explain it to Maya" in str(results.get_option_at_index(i).prompt)
                   for i in range(results.option_count)) == 1
        count = results.option_count
        await pilot.press("enter")  # to the results
        results.highlighted = at
        await pilot.pause()
        assert "3×: 2026-02-12, 07-17, 11-08" in str(preview.query_one("#pv-title").render())
        await pilot.press("space")  # unfolded: one row each under it
        assert results.option_count == count + 2
        assert "▾3×" in str(results.get_option_at_index(at).prompt)
        assert "2026-07-17" in str(results.get_option_at_index(at + 1).prompt)
        await pilot.press("j")  # a repeat: read by its id and previewed like a result
        member = quote.repeats[0]
        await wait_for(pilot, lambda: preview.chunk is not None
                       and preview.chunk["id"] == member.id, what="the repeat")
        assert preview.border_subtitle == f"repeat 2 of 3 of result {at + 1}"
        assert results.current is quote and results.rank == at + 1
        await pilot.press("space")  # folded back: the highlight goes to the row
        assert results.option_count == count and results.highlighted == at
        results.highlighted = next(i for i, r in enumerate(results.results) if not r.repeats)
        await pilot.press("space")
        assert any("one chunk" in note for _, note, _ in app.notes)


def test_copies_in_other_typography_and_accents_fold_too():
    rows = [cand("a.md#s1", "“Café first,” she said — on Tue 12 March 2026 at 19:02…"),
            cand("b.md#s1", '"Café first," she said - on 7 July 2026 at 8:15 pm...'),
            cand("c.md#s1", '"Cafe first," she said - on 7 July 2026 at 8:15 pm...')]
    folded = collapse_repeats(rows)
    assert [c.id for c in folded] == ["a.md#s1", "c.md#s1"]  # café is not cafe
    assert [r.id for r in folded[0].repeats] == ["b.md#s1"]
