"""The person chip is a filter (search's ``person=``), not words added to the query."""

from __future__ import annotations

from engine.config import load_config
from engine.library import Library
from engine.searcher import Searcher
from tests.app.conftest import (
    SharedEmbedder,
    SpySearcher,
    aio,
    make_app,
    ready,
    search,
    wait_for,
)
from tui.screens.modals import PersonScreen


@aio
async def test_a_person_alone_lists_their_chunks_and_the_chip_removes(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    person = Library(config).person("Robert Okafor")
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "ctrl+n")
        assert isinstance(app.screen, PersonScreen)
        await pilot.press(*"bobby", "enter")
        await wait_for(pilot, lambda: app.main.idle and spy.calls, what="the person's search")
        assert spy.calls[-1][0] == "" and spy.calls[-1][1]["person"] == "Robert Okafor"
        rows = [r for r in app.main.results.results if not r.injected]
        assert rows and all(
            person.name in (r.metadata or {}).get("participants", [])
            or r.source_file in person.entity_files
            or any(key in r.content for key in (person.name, *person.aliases)) for r in rows)
        assert "Robert Okafor" in app.main.query_one("#chips").render().plain
        await search(pilot, "airline")
        assert spy.calls[-1][0] == "airline" and spy.calls[-1][1]["person"] == "Robert Okafor"
        await pilot.press("escape", "ctrl+l")
        await wait_for(pilot, lambda: app.main.idle and spy.calls[-1][1]["person"] is None,
                       what="the filter removed")
        assert spy.calls[-1][0] == "airline"
