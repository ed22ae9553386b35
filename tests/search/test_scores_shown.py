"""The number beside each row is the one the list is ordered by, or the row says why it sits
where it does; one arm alone shows its own 0-1 score; a page browsed by date shows no score."""
# ruff: noqa: F811 - the fixture imported from tests/app/conftest.py is an argument here

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from engine.config import load_config
from engine.library import Library
from engine.rank.calibration import calibration_for
from mcp_server.tools import MemlensTools
from tests.app.conftest import aio, demo_root, make_app, ready, search  # noqa: F401 - a fixture

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def test_a_row_above_a_higher_score_is_never_silent(demo_root):
    with Library(load_config(demo_root)) as library:
        for query in ("dinner with maya", "work plan", "sleep"):
            rows = library.search(query, 20, now=NOW).results
            for i, r in enumerate(rows):
                lower_above = [j + 1 for j in range(i) if rows[j].score < r.score - 1e-9]
                if lower_above:
                    assert r.placed and r.placed.startswith(
                        f"placed below row{'s' if len(lower_above) > 1 else ''} "
                        f"{lower_above[0]}"), (query, i, r.placed)
                    assert "for variety: " in r.placed
                else:
                    assert r.placed is None, (query, i, r.placed)
        placed = [r for r in library.search("dinner with maya", 20, now=NOW).results
                  if r.placed]
        assert placed  # the demo's repeated quote is held back by the diversity step


def test_one_arm_alone_shows_its_own_score_on_0_to_1(demo_root):
    weight = calibration_for("local").semantic_weight
    with Library(load_config(demo_root)) as library:
        semantic = library.search("dinner with maya", 10, mode="semantic", now=NOW)
        assert semantic.results[0].score > weight  # not capped at the semantic weight
        for r in semantic.results:
            assert r.score == max(0.0, min(1.0, r.similarity))
        keyword = library.search("dinner with maya", 10, mode="keyword", now=NOW)
        assert keyword.results[0].score == 1.0
        scores = [r.score for r in keyword.results]
        assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
        assert all(r.placed is None for r in semantic.results + keyword.results)


def test_the_cli_marks_a_row_held_back_and_says_why(demo_root, capsys):
    from cli.main import main as cli_main

    assert cli_main(["search", "dinner with maya", "--root", str(demo_root),
                     "--limit", "12"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^ ?\d+\. \d\.\d{4}↓ ", out, re.M)  # the score says it, beside it
    assert "    ↓ placed below row" in out


def test_browsing_by_date_shows_the_order_not_a_column_of_zeros(demo_root, capsys):
    from cli.main import main as cli_main

    assert cli_main(["search", "what did I do", "--since", "2026-11-01",
                     "--root", str(demo_root), "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "newest first" in out and "0.0000" not in out
    tools = MemlensTools(load_config(demo_root), max_chars=1_000_000)
    try:
        text, failed = tools.call("hybrid_search", {"query": "what did I do",
                                                    "since": "2026-11-01", "limit": 5})
        ranked, _ = tools.call("hybrid_search", {"query": "dinner with maya", "limit": 20})
    finally:
        tools.close()
    assert not failed, text
    assert "score: - (newest first)" in text and "score: 0.00000" not in text
    assert "| placed: below row" in ranked


@aio
async def test_the_app_marks_a_held_back_row_and_drops_the_bar_when_browsing(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "dinner with maya")
        results = app.main.results
        rows = [o.prompt.plain.split("\n")[0] for o in results.options]
        held = [i for i, r in enumerate(results.results) if r.placed]
        assert held and all("↓" in rows[i] for i in held)
        assert all("↓" not in rows[i] for i in range(len(rows)) if i not in held)
        await search(pilot, "what did I do last week")  # nothing to rank by: newest first
        rows = [o.prompt.plain.split("\n")[0] for o in results.options]
        assert rows and not any(ch in row for row in rows for ch in "█▏▎▍▌▋▊▉")


def test_a_page_browsed_by_date_says_no_score_everywhere(demo_root, capsys):
    from cli.main import main as cli_main

    assert cli_main(["search", "what did I do", "--since", "2026-11-01", "--json",
                     "--root", str(demo_root), "--limit", "3"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert rows and all(r["score"] is None for r in rows)
    assert cli_main(["search", "what did I do", "--since", "2026-11-01", "--explain",
                     "--root", str(demo_root), "--limit", "3"]) == 0
    assert "decay: not applied (nothing ranks this page: the newest first)" in \
        capsys.readouterr().out
    tools = MemlensTools(load_config(demo_root), max_chars=1_000_000)
    try:
        text, _ = tools.call("hybrid_search", {"query": "what did I do",
                                               "since": "2026-11-01", "limit": 3})
    finally:
        tools.close()
    assert "arm_depth: - (no arm ran" in text and "explain: 0.0" not in text
    assert "explain: - (nothing ranks this page" in text


def test_sorted_by_date_the_header_says_so(demo_root, capsys):
    from cli.main import main as cli_main

    assert cli_main(["search", "dinner with maya", "--sort", "date",
                     "--root", str(demo_root), "--limit", "5"]) == 0
    assert "sorted by date: the best results, newest first" in capsys.readouterr().out


def test_the_profile_obeys_a_folder_or_tag_filter(demo_root):
    with Library(load_config(demo_root)) as library:
        assert any(r.injected for r in library.search("maya", 10, now=NOW).results)
        for options in ({"path_prefix": "notes/work/"}, {"tags": ["nosuchtag"]}):
            rows = library.search("maya", 10, now=NOW, **options).results
            assert not any(r.injected for r in rows), options


def test_a_phrase_no_row_holds_is_not_said_to_show_the_nearest_when_none_is(demo_root):
    with Library(load_config(demo_root)) as library:
        response = library.search('"zqxj vortpl"', 10, now=NOW)
    assert not [r for r in response.results if not r.injected]
    assert response.phrases == 'phrases: no result holds "zqxj vortpl" as written'
