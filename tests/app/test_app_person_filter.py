"""The person filter means one thing wherever memlens takes a person: the engine's ``person=``,
what ``memlens search --person NAME`` passes. The app's key (ctrl+n) applies that filter, shows
it and clears it as the other filters, and its dialog, help and palette say "Person filter"; the
MCP search tools take the same filter and say so."""

from __future__ import annotations

from engine.config import load_config
from engine.library import Library
from engine.searcher import Searcher
from mcp_server.descriptions import HYBRID_DESCRIPTION, KEYWORD_DESCRIPTION, SEMANTIC_DESCRIPTION
from mcp_server.schemas import search_schema
from mcp_server.tools import MemlensTools
from tests.app.conftest import NOW, SharedEmbedder, SpySearcher, aio, make_app, ready, wait_for
from tui.actions import BY_ID
from tui.commands import MemlensCommands
from tui.screens.help import help_content
from tui.screens.modals import PersonScreen
from tui.session import PAGE_SIZES
from tui.widgets.query import QueryInput

PERSON = "Robert Okafor"  # "Bobby" in profile/relationships.json


def _plain(screen, selector: str) -> str:
    return screen.query_one(selector).render().plain


@aio
async def test_ctrl_n_is_the_filter_of_memlens_search_person(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "ctrl+n")
        dialog = app.screen
        assert isinstance(dialog, PersonScreen)
        said = " ".join(s.render().plain for s in dialog.query("Static"))
        assert "Person filter" in said and "Only chunks with or about this person" in said
        assert "to the search" not in said  # it was "Adds the person's name to the search"
        await pilot.press(*"bobby", "enter")
        await wait_for(pilot, lambda: app.main.idle and spy.calls, what="the filtered search")
        # the name is a filter, not words: the query box stays as it was
        assert app.main.query_one(QueryInput).value == ""
        assert spy.calls[-1][1]["person"] == PERSON
        # the rows are the engine's person filter's, as `memlens search --person` asks it
        cli = Library(config, embedder=SharedEmbedder()).search(
            "", PAGE_SIZES[0], None, person=PERSON, now=NOW)
        assert [r.id for r in app.main.results.results] == [r.id for r in cli.results]
        # shown as the active filters are: a chip, and the status's filters
        assert f"◆ {PERSON}" in _plain(app.main, "#chips")
        assert f"filters: person {PERSON}" in _plain(app.main, "#status")
        # cleared from its own dialog, as the date range is from its own
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, PersonScreen)
        await pilot.press("enter")  # the first option: clear the person filter
        await wait_for(pilot, lambda: app.main.idle and app.main.request.person is None,
                       what="the filter cleared")
        assert PERSON not in _plain(app.main, "#chips")
        assert "person" not in _plain(app.main, "#status")


@aio
async def test_the_key_help_and_palette_say_person_filter(demo_root):
    action = BY_ID["person_filter"]
    assert action.title == "Person filter" and action.short == "Person"
    assert action.help.startswith("Person filter: only results with or about one person")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert "Person filter" in {t for t, _, _ in MemlensCommands(app.screen).commands}
        assert "Person filter: only results with or about one person" in \
            help_content(app, 110).plain


def test_the_mcp_search_tools_take_the_same_person_filter_and_say_so(demo_root):
    described = search_schema()["properties"]["person"]["description"]
    assert described.startswith("Optional person filter:")
    for description in (HYBRID_DESCRIPTION, KEYWORD_DESCRIPTION, SEMANTIC_DESCRIPTION):
        assert "person: Optional person filter" in description
    tools = MemlensTools(load_config(demo_root), max_chars=1_000_000)
    text, is_error = tools.call("keyword_search", {"query": "dinner", "person": "Bobby"})
    assert not is_error and f"person: {PERSON}" in text
