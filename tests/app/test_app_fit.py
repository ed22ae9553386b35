"""What the app says fits at 80, 120 and 160 columns, shortened by design, never cut mid-word;
and nothing on screen suggests what the same screen would refuse (the demo root takes no
import and no source); the facet counts are all the query's or all the index's, and say which.

A word cut mid-word is found as a word on screen that no widget holds whole: every widget's
text (its whole lines, before any cut), its border's titles and the keys' descriptions make
the vocabulary, and the screen, read from its screenshot, may only show its words."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual.widgets import OptionList

from engine import SOURCE_TYPES
from engine.config import DEMO_MARKER, load_config
from engine.display import type_label
from engine.importers import demo_root_refused
from engine.index import add_source
from engine.indexer import reindex
from tests.app.conftest import (
    MARKUP_QUERY,
    SHARED_WORDS,
    SharedEmbedder,
    aio,
    make_app,
    ready,
    screen_lines,
    search,
    wait_for,
    write_vault,
)
from tests.conftest import make_root
from tui.actions import ACTIONS, MENU
from tui.commands import MemlensCommands
from tui.screens.import_dialog import ImportScreen
from tui.screens.menu import DEMO_NOTE, MenuScreen
from tui.widgets.badges import BADGE_WIDTH, short_name, type_badge
from tui.widgets.facets import FacetList

SIZES = [(80, 24), (120, 40), (160, 50)]
SIZE_IDS = ["80x24", "120x40", "160x50"]


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W_]+", text)}


def held_whole(screen) -> set[str]:
    """Every word the screen's widgets hold whole: their text before any cut, the options of
    their lists, their borders' titles, the keys' descriptions."""
    held: set[str] = set()
    for widget in screen.walk_children(with_self=True):
        for title in (widget.border_title, widget.border_subtitle):
            held |= words(str(title or ""))
        if isinstance(widget, OptionList):
            for option in widget.options:
                held |= words(str(option.prompt))
        for attribute in ("value", "placeholder", "description"):
            held |= words(str(getattr(widget, attribute, "") or ""))
        shown = widget.render()
        held |= words(shown.plain if hasattr(shown, "plain") else str(shown))
    return held


def cut_words(app, lines: list[str]) -> list[str]:
    """The words shown on ``lines`` that no widget of the screen holds whole."""
    held = held_whole(app.screen) | held_whole(app.main)
    return sorted({w for line in lines for w in words(line)} - held)


async def _searched(pilot, query: str) -> None:
    app = pilot.app
    await ready(pilot)
    await search(pilot, query)
    await pilot.press("enter")
    await wait_for(pilot, lambda: app.main.preview.chunk is not None, what="the preview")
    await pilot.pause(0.1)


# -- 3: labels that fit ------------------------------------------------------------------------

@pytest.mark.parametrize("source_type", [*SOURCE_TYPES, "profile"])
def test_each_type_has_a_designed_short_name_not_its_first_letters(source_type):
    """"experim" or "voice" (of "voice note") read as cut: a type whose label does not fit the
    column gets a name of its own (a whole word or a standard abbreviation)."""
    short, label = short_name(source_type), type_label(source_type)
    assert cell_len(short) <= BADGE_WIDTH
    if short.lower() != label.lower():
        assert not label.lower().startswith(short.lower()), (short, label)
    assert type_badge(source_type).plain == f" {short.ljust(BADGE_WIDTH)} "


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@aio
async def test_the_main_screen_with_results_cuts_no_word(demo_root, size):
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await _searched(pilot, MARKUP_QUERY)
        assert cut_words(app, screen_lines(app)) == []


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@aio
async def test_the_menu_wraps_its_descriptions_whole(own_root, size):
    app = make_app(own_root)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await pilot.pause()
        listed = app.screen.query_one(OptionList)
        room = listed.scrollable_content_region.width
        for action, option in zip(MENU, listed.options, strict=True):
            lines = option.prompt.plain.split("\n")
            assert all(cell_len(line.rstrip()) <= room for line in lines), lines
            title, text = lines[0][:len(action.title)], " ".join(
                line.strip() for line in [lines[0][len(action.title):], *lines[1:]])
            assert title == action.title and text.endswith(action.help)  # after the key
        if size[0] >= 120:  # one line each: the list shows every action, unscrolled
            assert all("\n" not in o.prompt.plain for o in listed.options)
            assert listed.max_scroll_y == 0


@aio
async def test_every_description_fits_the_palette_at_80_columns(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: app.screen.query("CommandList"), what="the palette")
        await pilot.pause()
        listed = app.screen.query_one("CommandList")
        padding = listed.get_component_styles("option-list--option").padding
        room = listed.scrollable_content_region.width - padding.left - padding.right
        assert [a.help for a in ACTIONS if cell_len(a.help) > room] == []  # one line each


# -- 1: the demo root refuses at once, and nothing suggests what it refuses ----------------

@aio
async def test_import_on_the_demo_root_is_refused_at_once(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "ctrl+o")
        await pilot.pause()
        assert not isinstance(app.screen, ImportScreen) and app.screen is app.main
        assert app.notes[-1][1:] == (str(demo_root_refused(demo_root)), "warning")
        await pilot.press("f2")
        menu = app.screen.query_one(OptionList)
        for action in ("import_data", "sources"):
            option = menu.get_option(action)
            assert option.disabled and DEMO_NOTE in option.prompt.plain
        await pilot.press("escape")
        offered = {t for t, _, _ in MemlensCommands(app.screen).commands}
        assert not {"Import…", "Sources…"} & offered


@aio
async def test_a_root_of_ones_own_still_offers_and_opens_the_import(own_root):
    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        offered = {t for t, _, _ in MemlensCommands(app.screen).commands}
        assert {"Import…", "Sources…"} <= offered
        await pilot.press("f2")
        assert not app.screen.query_one(OptionList).get_option("import_data").disabled
        await pilot.press("escape", "escape", "ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen), what="the dialog")


@pytest.mark.parametrize("demo", [True, False], ids=["demo-root", "own-root"])
@aio
async def test_the_no_index_text_suggests_an_import_only_where_one_is_taken(tmp_path, demo):
    root = make_root(tmp_path / "root")  # not indexed
    if demo:
        (root / DEMO_MARKER).write_text("{}")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        empty = app.main.query_one("#empty").render().plain
        assert "No index yet." in empty
        assert ("imports an export" in empty) is not demo


# -- 4: the facet counts are the query's or the index's, all of them -----------------------

def _row(facets: FacetList, value: str) -> str:
    return next(o.prompt.plain for o in facets.options if o.value == value)


def _count(facets: FacetList, value: str) -> str:
    return _row(facets, value).split()[-1]


@aio
async def test_a_source_row_counts_as_the_type_rows_do(tmp_path):
    root = make_root(tmp_path / "root")
    add_source(load_config(root), write_vault(tmp_path / "vault"), "note")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    app = make_app(root)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        facets = app.main.query_one(FacetList)
        vault = "@vault/"
        assert _count(facets, vault) == "2" and "index counts" in facets.border_subtitle
        await pilot.press("ctrl+t")  # keyword: the query's candidates are its matches
        await search(pilot, SHARED_WORDS)
        counts = app.main.response.type_counts
        assert "query counts" in facets.border_subtitle
        assert _count(facets, "slack") == f"{counts['slack']:,}"
        # the engine counts a query's candidates per type: a source it was not narrowed to
        # has no count of the query's (not the index's 2 beside the query's type counts)
        assert _count(facets, vault) == "—"
        facets.focus()
        facets.highlighted = next(i for i, o in enumerate(facets.options) if o.value == vault)
        await pilot.press("space")
        await wait_for(pilot, lambda: app.main.idle and app.main.request.path_prefix == vault
                       and app.main.response.type_counts != counts, what="the source alone")
        in_vault = app.main.response.type_counts
        assert in_vault == {"note": 1}  # one of its two notes says "harbor bridge"
        assert _count(facets, vault) == "1" == _count(facets, "note")
        await pilot.press("escape")
        await search(pilot, "")
        assert _count(facets, vault) == "2" and "index counts" in facets.border_subtitle



def test_nothing_found_quotes_a_phrase_once():
    from tui.widgets.empty import quoted

    assert quoted('"pecan pie"') == "“pecan pie”"
    assert quoted('"pecan pie" recipe') == "“\"pecan pie\" recipe”"
    assert quoted("pecan") == "“pecan”"


@aio
async def test_index_counts_arriving_during_a_query_keep_the_querys_counts():
    # a reindex reloads the index's counts while the query is searched again: rebuilding the
    # rows with the query's counts shown must not read the half-built list as "none searched"
    from textual.app import App

    class Facets(App):
        def compose(self):
            yield FacetList()

    app = Facets()
    async with app.run_test() as pilot:
        facets = app.query_one(FacetList)
        facets.set_counts({"slack": 5, "whatsapp": 2}, ["slack", "whatsapp", "garmin"])
        facets.show_query_counts({"whatsapp": 1})
        await pilot.pause()
        assert (_count(facets, "whatsapp"), _count(facets, "slack")) == ("1", "0")
        facets.set_counts({"slack": 5, "whatsapp": 3}, ["slack", "whatsapp", "garmin"])
        await pilot.pause()
        assert (_count(facets, "whatsapp"), _count(facets, "slack")) == ("1", "0")
        facets.deselect("slack")  # a type the user unchecked is not searched: no count
        facets.set_counts({"slack": 5, "whatsapp": 4}, ["slack", "whatsapp", "garmin"])
        await pilot.pause()
        assert (_count(facets, "whatsapp"), _count(facets, "slack")) == ("1", "—")
