"""The first results do not move with the page size asked, and every front door shows the same
first rows: the injected profile's score and place come from a fixed head of the ranking
(docs/design.md, stage 7), each stretch of the page from a fixed depth (stage 3)."""
# ruff: noqa: F811 - the fixture imported from tests/app/conftest.py is an argument here

from __future__ import annotations

import json
from datetime import UTC, datetime

from engine.config import load_config
from engine.library import Library
from tests.app.conftest import aio, demo_root, make_app, ready, search  # noqa: F401 - a fixture

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def test_the_injected_profile_sits_at_one_place_whatever_the_limit(demo_root):
    with Library(load_config(demo_root)) as library:
        for query in ("dinner with maya", "maya birthday"):
            seen = set()
            for limit in (5, 10, 20, 50):
                rows = library.search(query, limit, now=NOW).results
                seen |= {(i, f"{r.score:.4f}") for i, r in enumerate(rows) if r.injected}
            assert len(seen) == 1, (query, seen)  # one place, one shown score, at every limit
            (place, _), = seen
            assert place < 5  # among the first results


def test_the_first_rows_are_the_same_whatever_the_limit(demo_root):
    # each page size is ranked from a fixed depth (search_pipeline.depth_tiers): a page of 50
    # or 200 starts with the page of 10, in every mode
    with Library(load_config(demo_root)) as library:
        for query in ("work plan", "sleep", "dinner with maya", "running"):
            for mode in ("hybrid", "keyword", "semantic"):
                pages = {limit: [r.id for r in library.search(query, limit, mode=mode,
                                                              now=NOW).results]
                         for limit in (5, 10, 20, 50, 100, 200)}
                for small, big in zip(list(pages), list(pages)[1:], strict=False):
                    assert pages[big][:len(pages[small])] == pages[small], (query, mode,
                                                                            small, big)
                assert len(set(pages[200])) == len(pages[200])  # no row twice


@aio
async def test_the_app_the_cli_and_mcp_show_the_same_first_rows(demo_root, capsys):
    from cli.main import main as cli_main
    from mcp_server.tools import MemlensTools

    query = "work plan"
    assert cli_main(["search", query, "--root", str(demo_root), "--json"]) == 0  # 10 rows
    cli = [r["source_file"] for r in json.loads(capsys.readouterr().out)["results"]]
    tools = MemlensTools(load_config(demo_root), max_chars=1_000_000)  # no row dropped
    try:
        text, failed = tools.call("hybrid_search", {"query": query, "limit": 50})
    finally:
        tools.close()
    assert not failed, text
    mcp = [json.loads(line[:line.index("}") + 1])["path"] for line in text.splitlines()
           if line.startswith("{")]
    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:  # a page of 20
        await ready(pilot)
        await search(pilot, query)
        shown = [r.source_file for r in app.main.results.results]
    assert len(cli) == 10 and len(shown) == 20 and len(mcp) >= 20
    assert shown[:10] == cli and mcp[:20] == shown
