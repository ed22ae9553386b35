"""Pilot tests of the app bugs a new user hit: each failed before its fix."""
from __future__ import annotations

import re

from engine.config import load_config
from engine.display import type_label
from engine.searcher import Searcher
from tests.app.conftest import (
    SharedEmbedder,
    SpySearcher,
    add_chat,
    aio,
    lines_of,
    make_app,
    ready,
    screen_lines,
    search,
    wait_for,
)
from tui.screens.discover import DiscoverScreen
from tui.widgets.query import QueryInput


def status_of(app) -> str:
    return app.main.query_one("#status").render().plain


@aio
async def test_reindex_refreshes_the_results_of_an_unchanged_query(writable_root):
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "zephyrine kayak")
        assert all("kayak.jsonl" not in r.source_file for r in app.main.results.results)
        add_chat(writable_root, "kayak")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.job is None, what="the reindex")
        await wait_for(pilot, lambda: app.main.results.results and app.main.results.results[0]
                       .source_file == "data/telegram/kayak.jsonl", what="the new results")


@aio
async def test_status_leaves_searching_after_facet_only_this(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await pilot.press("ctrl+f", "j", "i")
        await wait_for(pilot, lambda: app.main.idle, what="the facet search")
        await pilot.pause(0.3)
        assert "searching" not in status_of(app) and "results" in status_of(app)


@aio
async def test_status_leaves_searching_after_a_burst_of_typing(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        query = app.main.query_one(QueryInput)
        query.value = "gard"  # two changes handled in one go: the leading edge asks the last
        query.value = "garden"
        await wait_for(pilot, lambda: app.main.session.seq and app.main.idle
                       and app.main.response is not None, what="the search")
        await pilot.pause(0.3)
        assert "searching" not in status_of(app) and "results" in status_of(app)


@aio
async def test_preview_found_by_has_a_space_after_the_badge(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "maya birthday dinner")
        await pilot.press("enter", "x")  # the exact numbers
        await pilot.pause()
        explain = app.main.query_one("#pv-explain").render().plain
        line = next(ln for ln in explain.splitlines() if "found by" in ln)
        assert re.search(r"found by\s+(KS|K |S ) ?\s*(keyword|semantic)", line), line
        assert not re.search(r"[KS](keyword|semantic)", line), line


@aio
async def test_narrow_facets_footer_has_no_stray_characters(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await pilot.press("ctrl+f")
        await pilot.pause(0.2)
        text = screen_lines(app)[-1]
        assert "palettee" not in text and "palette" in text, text


@aio
async def test_paging_counts_pages_exactly_and_g_goes_to_the_last_row(demo_root):
    config = load_config(demo_root)
    spy = SpySearcher(Searcher(config, SharedEmbedder()))
    app = make_app(demo_root, searcher=spy)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "the")
        results = app.main.results
        assert results.option_count == 20
        await pilot.press("enter")
        for size in (50, 100, 200):
            await pilot.press("G")
            await wait_for(pilot, lambda size=size: app.main.idle
                           and results.option_count == size, what=f"page of {size}")
            await pilot.pause(0.1)
            assert results.highlighted == size - 1
            assert f"{size}+ results" in status_of(app)
        assert "more may exist" in status_of(app)
        calls = len(spy.calls)
        await pilot.press("G")  # the cap: nothing more to load
        await pilot.pause(0.2)
        assert len(spy.calls) == calls and results.option_count == 200


@aio
async def test_discover_columns_fit_on_first_load(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 48)) as pilot:
        await ready(pilot)
        await pilot.press("f4")
        await wait_for(pilot, lambda: isinstance(app.screen, DiscoverScreen)
                       and app.screen.loaded, what="discover")
        await pilot.pause(0.1)
        table = app.screen.query_one("#routes")
        shown = [ln for ln in lines_of(table)[1:] if ln.strip()]
        assert len(shown) >= 10
        for line in shown:  # every visible row shows its type's label and pattern whole
            assert any(type_label(t) in line and p in line
                       for p, t in app.config.routes), line


# -- rough edges: panes, esc, half pages, questions before losing work -------------------------

@aio
async def test_esc_from_the_query_goes_to_the_results_and_leaves_the_text(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        main, query = app.main, app.main.query_one(QueryInput)
        await pilot.press("escape")
        assert main.focused is main.results and query.value == "climbing"
        await pilot.press("j")  # a vim user's esc-then-j moves the cursor, not the query
        assert query.value == "climbing" and main.results.highlighted == 1
        await pilot.press("enter", "escape")  # from the preview: back to the results
        assert main.focused is main.results
        await pilot.press("escape", "x")  # in the query box, x is typed
        assert query.value == "climbingx" and app.explain


@aio
async def test_h_and_l_move_between_the_panes(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        main = app.main
        await pilot.press("enter", "l")
        assert main.focused is main.preview
        await pilot.press("h")
        assert main.focused is main.results
        await pilot.press("h")
        assert main.focused is main.query_one("#facets")
        await pilot.press("l")
        assert main.focused is main.results


@aio
async def test_ctrl_d_and_ctrl_u_move_half_a_page(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        results = app.main.results
        await pilot.press("enter", "pagedown")
        page = results.highlighted
        await pilot.press("g", "ctrl+d")
        half = results.highlighted
        assert 0 < half < page and abs(2 * half - page) <= 2
        await pilot.press("ctrl+u")
        assert results.highlighted == 0


@aio
async def test_cancel_and_quit_during_a_job_ask_first(writable_root):
    from tests.app.conftest import GatedEmbedder
    from tui.screens.modals import ConfirmScreen

    add_chat(writable_root, "kayak-a")
    gate = GatedEmbedder()
    app = make_app(writable_root, embedder=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, gate.entered.is_set, what="the reindex to embed")
        from tui.commands import MemlensCommands

        offered = {title for title, _, _ in MemlensCommands(app.screen).commands}
        assert "Cancel job" in offered and not offered & {"Reindex", "Maintenance", "Import…"}
        await pilot.press("escape")  # esc in the query box never cancels
        assert not app.job.cancel.is_set()
        await pilot.press("ctrl+g")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")  # the focused answer is "keep it running"
        assert app.screen is app.main and not app.job.cancel.is_set()
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.screen is app.main and app.is_running and app.job is not None
        gate.release.set()
        await wait_for(pilot, lambda: app.job is None, what="the reindex")


@aio
async def test_vacuum_from_the_stats_screen_asks_first(writable_root):
    from tui.screens.modals import ConfirmScreen
    from tui.screens.stats import StatsScreen

    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.loaded)
        await pilot.press("M")
        assert isinstance(app.screen, ConfirmScreen) and app.job is None
        await pilot.press("n")
        assert isinstance(app.screen, StatsScreen) and app.job is None
        await pilot.press("M", "y")
        await wait_for(pilot, lambda: "Maintenance (rewrite + VACUUM) finished"
                       in "\n".join(t for t, _, _ in app.notes), what="the maintenance")


def test_the_editor_command_is_read_the_way_its_platform_writes_it(tmp_path, monkeypatch):
    import shutil

    from tui.editor import editor_argv

    note = tmp_path / "a note.md"
    assert editor_argv(note, 12, "vim -p", windows=False) == ["vim", "-p", "+12", str(note)]
    assert editor_argv(note, 12, "code --wait", windows=False) == ["code", "--wait", str(note)]
    windows = r'"C:\Program Files\Vim\vim91\vim.exe" -p'
    assert editor_argv(note, 7, windows, windows=True) == [
        r"C:\Program Files\Vim\vim91\vim.exe", "-p", "+7", str(note)]
    assert editor_argv(note, 7, r"C:\Windows\notepad.exe", windows=True) == [
        r"C:\Windows\notepad.exe", str(note)]
    # %EDITOR%=code --wait: VS Code's launcher is code.cmd, started by its full name there
    found = {"code": r"C:\Users\ana\AppData\Local\Programs\VS Code\bin\code.CMD",
             "vim": r"C:\Program Files\Vim\vim91\vim.EXE"}
    monkeypatch.setattr(shutil, "which", found.get)
    assert editor_argv(note, 7, "code --wait", windows=True) == [found["code"], "--wait", str(note)]
    assert editor_argv(note, 7, "vim", windows=True) == [found["vim"], "+7", str(note)]
