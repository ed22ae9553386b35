"""Pilot tests of sources in place in the app: the sources dialog (F2 → Sources…) adds and
removes a folder outside the root, memlens.toml says so, the reindex job indexes the change;
the facets show each source by name and filter to it; the statistics and discover screens
show each source and a missing one."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from engine.config import DEMO_MARKER, load_config
from engine.index import add_source
from engine.indexer import reindex
from engine.library import Library
from tests.app.conftest import (
    SHARED_WORDS,
    WORD,
    GatedEmbedder,
    SharedEmbedder,
    aio,
    enter_text,
    lines_of,
    make_app,
    notes_text,
    ready,
    search,
    wait_for,
    write_vault,
)
from tests.conftest import make_root
from tui.screens.discover import DiscoverScreen
from tui.screens.modals import ConfirmScreen
from tui.screens.sources import AddSourceScreen, SourcesScreen
from tui.screens.stats import StatsScreen
from tui.widgets.facets import FacetList
from tui.widgets.jobpanel import JobPanel


@pytest.fixture
def root(tmp_path) -> Path:
    """A small root of one's own (slack and notes), indexed."""
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    return root




@pytest.fixture
def vault(tmp_path) -> Path:
    """A notes folder outside the root, two notes holding WORD (and one in a dot-folder,
    which a source skips)."""
    return write_vault(tmp_path / "vault")


@pytest.fixture
def root_with_vault(root, vault) -> Path:
    """The root with the vault declared and indexed."""
    add_source(load_config(root), vault, "note")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    return root


def declared(root: Path) -> dict:
    path = root / "memlens.toml"
    return tomllib.loads(path.read_text()).get("sources", {}) if path.exists() else {}


def toml_bytes(root: Path) -> bytes | None:
    path = root / "memlens.toml"
    return path.read_bytes() if path.exists() else None


def text_of(widget) -> str:
    return "\n".join(lines_of(widget))


def listed(app) -> str:
    """What the sources dialog lists, as plain text."""
    return "\n".join(o.prompt.plain for o in app.screen.query_one("#sources-list", OptionList)
                     .options)


async def open_sources(pilot) -> None:
    """F2, the menu's "Sources…", enter; wait for the list."""
    app = pilot.app
    await pilot.press("f2")
    menu = app.screen.query_one("#menu-list", OptionList)
    menu.highlighted = menu.get_option_index("sources")
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, SourcesScreen) and app.screen.loaded,
                   what="the sources dialog")


async def fill_form(pilot, path: Path | str, source_type: str | None = None,
                    name: str | None = None) -> None:
    """``a``, the folder entered, the type and name set when given, enter."""
    app = pilot.app
    await pilot.press("a")
    await wait_for(pilot, lambda: isinstance(app.screen, AddSourceScreen), what="the form")
    form = app.screen
    if source_type is not None:
        form.query_one("#source-type", Input).value = source_type
    if name is not None:
        form.query_one("#source-name", Input).value = name
    await enter_text(pilot, form.query_one("#source-path"), str(path))
    await pilot.pause()


def form_message(app) -> str:
    return app.screen.query_one("#source-message").render().plain


async def job_done(pilot) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.job is None, what="the reindex")
    await wait_for(pilot, lambda: not app.main.query_one(JobPanel).display, what="the panel")


def source_files(app) -> set[str]:
    return {r.source_file for r in app.main.results.results}


# -- adding ---------------------------------------------------------------------------------------

@aio
async def test_adding_a_source_from_the_menu_indexes_it_where_it_lives(root, vault):
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, WORD)
        assert source_files(app) == set()
        await open_sources(pilot)
        assert "No sources: press a" in listed(app)
        await fill_form(pilot, vault)  # the type box holds "note"
        assert declared(root) == {"vault": {"path": str(vault), "type": "note"}}
        # the app took the new configuration everywhere it holds one
        assert [s.name for s in app.config.sources] == ["vault"]
        assert app.searcher.config is app.config and app.library.config is app.config
        assert isinstance(app.screen, SourcesScreen)  # the form closed
        assert "Added source vault" in notes_text(app)
        await job_done(pilot)
        assert "Reindex finished" in notes_text(app) and "2 files indexed" in notes_text(app)
        await wait_for(pilot, lambda: app.screen.loaded and "2 chunks" in listed(app),
                       what="the counts read again")
        text = listed(app)
        assert "vault  note  ·  2 files · 2 chunks" in text and str(vault) in text
        assert "not read now" not in text
        await pilot.press("escape")
        await search(pilot, WORD)
        assert source_files(app) == {"@vault/Daily/2026-03-01.md", "@vault/Ideas/lamps.md"}


@aio
async def test_adding_a_source_while_watching_restarts_the_watcher_on_it(root, vault,
                                                                         monkeypatch):
    monkeypatch.setenv("MEMLENS_WATCH", "on")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        first = app.state.watcher
        assert first is not None and first.running
        await open_sources(pilot)
        await fill_form(pilot, vault, name="notes-vault")
        assert app.state.watcher is not first and not first.running
        assert app.state.watcher.running and app.state.watcher.config is app.config
        assert [s.name for s in app.state.watcher.config.sources] == ["notes-vault"]
        await job_done(pilot)
        # the job indexed the source: the watcher did not take the writer lock from it
        assert "Reindex finished" in notes_text(app) and "2 files indexed" in notes_text(app)
        assert isinstance(app.screen, SourcesScreen)
        await pilot.press("escape")
        await search(pilot, WORD)
        assert source_files(app) == {"@notes-vault/Daily/2026-03-01.md",
                                     "@notes-vault/Ideas/lamps.md"}


@aio
async def test_a_refused_source_says_why_in_the_form_and_changes_nothing(root, vault):
    (root / "memlens.toml").write_text("# my settings\n[search]\nrrf_k = 60\n")
    before = toml_bytes(root)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await open_sources(pilot)
        cases = [(root / "notes", None, "lies inside the data root"),
                 (vault.parent / "no-such-folder", None,
                  f"no such folder: {vault.parent / 'no-such-folder'}"),
                 (vault, "spreadsheet", "unknown source type 'spreadsheet'")]
        for path, source_type, why in cases:
            await fill_form(pilot, path, source_type)
            assert isinstance(app.screen, AddSourceScreen), why  # the form stays open
            assert why in form_message(app)
            assert "Traceback" not in form_message(app)
            assert app.screen.query_one("#source-path", Input).value == str(path)  # kept
            assert toml_bytes(root) == before and app.job is None
            assert app.config.sources == ()
            await pilot.press("escape")
            assert isinstance(app.screen, SourcesScreen)
        # an empty path is asked for; typing clears the refusal
        await fill_form(pilot, "")
        assert "Enter the folder's path." in form_message(app)
        await pilot.press("x")
        assert "Enter the folder's path." not in form_message(app)


@aio
async def test_the_demo_root_refuses_sources_before_anything_is_asked(tmp_path):
    """The menu greys Sources… (with the way out), the palette leaves it out, the action
    says the engine's one line at once: no dialog, no form to fill first."""
    from tui.commands import MemlensCommands

    root = make_root(tmp_path / "demo")
    (root / DEMO_MARKER).write_text("{}")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f2")
        option = app.screen.query_one("#menu-list", OptionList).get_option("sources")
        assert option.disabled and "Not on the demo root" in option.prompt.plain
        await pilot.press("escape")
        assert "Sources…" not in {t for t, _, _ in MemlensCommands(app.screen).commands}
        await app.run_action("sources")
        await pilot.pause()
        assert app.screen is app.main
        assert app.notes[-1][1].startswith("the demo root owns its configuration")
        assert toml_bytes(root) is None and app.job is None


@aio
async def test_sources_cannot_change_while_a_job_runs(root, vault):
    (root / "notes/home/new.md").write_text("# New\n\nSomething to embed.\n")
    gate = GatedEmbedder()
    app = make_app(root, embedder=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, gate.entered.is_set, what="the reindex to embed")
        await open_sources(pilot)
        await pilot.press("a")
        assert isinstance(app.screen, SourcesScreen)  # no form
        note = app.screen.query_one("#sources-note").render().plain
        assert "Reindex is running" in note and "after it" in note
        gate.release.set()
        await wait_for(pilot, lambda: app.job is None, what="the reindex")
        await wait_for(pilot, lambda: app.screen.loaded
                       and not app.screen.query_one("#sources-note").render().plain,
                       what="the note to go")
        await fill_form(pilot, vault)
        assert "vault" in declared(root)


# -- removing -------------------------------------------------------------------------------------

@aio
async def test_removing_a_source_asks_then_reindexes_its_chunks_away(root_with_vault):
    root = root_with_vault
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, WORD)
        assert source_files(app) == {"@vault/Daily/2026-03-01.md", "@vault/Ideas/lamps.md"}
        await open_sources(pilot)
        assert "vault  note  ·  2 files · 2 chunks" in listed(app)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # no: nothing changes
        assert isinstance(app.screen, SourcesScreen) and "vault" in declared(root)
        await pilot.press("delete", "y")
        assert declared(root) == {} and app.config.sources == ()
        assert "Removed source vault" in notes_text(app)
        await job_done(pilot)
        await wait_for(pilot, lambda: app.screen.loaded and "No sources" in listed(app),
                       what="the list read again")
        await pilot.press("escape")
        await search(pilot, WORD)
        assert source_files(app) == set()
        assert Library(load_config(root)).sources() == []


# -- facets ---------------------------------------------------------------------------------------

VAULT_ROW = f"▌{'@vault':<14}{2:>6}"  # its name and its chunks


def facet_rows(app) -> list[str]:
    return [o.prompt.plain for o in app.main.query_one(FacetList).options]


@aio
async def test_facets_show_each_source_by_name_and_filter_to_it(root_with_vault):
    app = make_app(root_with_vault)
    async with app.run_test(size=(160, 50)) as pilot:
        await ready(pilot)
        facets = app.main.query_one(FacetList)
        rows = facet_rows(app)
        assert rows[-2:] == ["sources", VAULT_ROW]
        await search(pilot, SHARED_WORDS)
        both = source_files(app)
        assert "@vault/Daily/2026-03-01.md" in both
        assert any(f.startswith("data/slack/") for f in both)
        # check the source alone: only its files
        facets.focus()
        facets.highlighted = len(rows) - 1
        await pilot.press("space")
        await wait_for(pilot, lambda: app.main.idle and app.main.request.path_prefix,
                       what="the filtered search")
        assert source_files(app) == {"@vault/Daily/2026-03-01.md"}
        assert "source @vault" in app.main.query_one("#status").render().plain
        assert "@vault" in facets.border_subtitle
        # a: every type, no source
        await pilot.press("a")
        await wait_for(pilot, lambda: app.main.idle and app.main.request.path_prefix is None,
                       what="the search everywhere")
        assert source_files(app) == both
        # ctrl+l clears the source with every other filter
        await pilot.press("i")
        await wait_for(pilot, lambda: app.main.idle and app.main.request.path_prefix)
        app.main.query_one("#query").focus()
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: app.main.idle and app.main.request.path_prefix is None)
        assert source_files(app) == both


@aio
async def test_facets_at_80x24_list_the_source_in_the_overlay(root_with_vault):
    app = make_app(root_with_vault)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+f")
        facets = app.main.query_one(FacetList)
        assert facets.display and app.main.focused is facets
        facets.highlighted = facets.option_count - 1
        await pilot.pause()
        assert VAULT_ROW in text_of(facets)


# -- statistics and discover ----------------------------------------------------------------------

@aio
async def test_stats_and_discover_show_each_source_and_a_missing_one(root_with_vault, tmp_path):
    root = root_with_vault
    old = write_vault(tmp_path / "old-disk")
    add_source(load_config(root), old, "note", name="old")
    reindex(config=load_config(root), embedder=SharedEmbedder())
    old.rename(tmp_path / "old-disk-unmounted")
    app = make_app(root)
    async with app.run_test(size=(140, 50)) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.loaded,
                       what="the statistics")
        lines = app.screen.query_one("#stats-sources").render().plain.splitlines()
        assert lines[0] == "Sources in place"
        vault_line = next(line for line in lines if line.startswith("  vault"))
        assert "note" in vault_line and "2 files" in vault_line and "2 chunks" in vault_line
        assert "not read now" not in vault_line
        old_line = next(line for line in lines if line.startswith("  old"))
        assert "note" in old_line and str(old) in old_line
        assert "not read now: its folder is not there (not mounted?)" in old_line  # kept
        assert "2 chunks" in old_line
        await pilot.press("escape", "f4")
        await wait_for(pilot, lambda: isinstance(app.screen, DiscoverScreen)
                       and app.screen.loaded, what="discover")
        routes = app.screen.query_one("#routes")
        patterns = [str(routes.get_row_at(i)[1]) for i in range(routes.row_count)]
        assert "@vault/**/*.md" in patterns
        assert any(p.startswith("@old/") and p.endswith("not read now")
                   for p in patterns)
        pending = app.screen.query_one("#pending")
        assert pending.row_count == 0  # its files are not "removed": their chunks are kept
        await pilot.press("escape")
        await open_sources(pilot)
        text = listed(app)
        assert "old  note  ·  2 files · 2 chunks" in text
        assert "not read now: its folder is not there (not mounted?) (its chunks are kept)" in text
