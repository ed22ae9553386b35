"""Snapshot tests (pytest-textual-snapshot) of the main screens: fixed size, theme and clock.

The app runs ``frozen`` (fixed theme, no blinking cursors, no timing numbers), ``now`` is a
fixed datetime and $HOME is the demo root's parent, so the header shows ``~/root`` wherever
the test runs. Update with ``pytest tests/app/test_app_snapshots.py --snapshot-update`` and look at
the SVGs in tests/app/__snapshots__/ before committing them.
"""

from __future__ import annotations

import pytest

from tests.app.conftest import MARKUP_QUERY, SIZE, make_app, searched, wait_until
from tui.screens.stats import StatsScreen
from tui.screens.viewer import FileViewerScreen


def test_main_screen_with_results(home, snap_compare):
    """The first result holds Rich markup and an ANSI escape: both shown literally."""
    assert snap_compare(make_app(home), terminal_size=SIZE,
                        run_before=searched(MARKUP_QUERY, "enter"))


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_main_screen_with_results_at(home, snap_compare, size):
    """The rows, the header, the status and the footer at either edge of the layouts: each
    shortened after a whole word, or left out whole (tests/app/test_app_fit.py reads the same
    screens for a word cut mid-word)."""
    assert snap_compare(make_app(home), terminal_size=size,
                        run_before=searched(MARKUP_QUERY, "enter"))


def test_preview_with_explain(home, snap_compare):
    assert snap_compare(make_app(home), terminal_size=SIZE,
                        run_before=searched("maya birthday dinner", "enter", "enter"))


def test_file_viewer(home, snap_compare):
    async def run_before(pilot) -> None:
        await searched(MARKUP_QUERY, "enter", "o")(pilot)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, FileViewerScreen))
        await pilot.pause(0.1)
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=run_before)


def test_stats_screen(home, snap_compare, monkeypatch):
    # whether this machine compiled engine/csrc/ is not the screen's to vary: one build shown
    from engine.index import compiled_parts, contents

    monkeypatch.setattr(contents, "compiled_parts", lambda rank_loaded: [
        compiled_parts.CompiledPart("vector kernels", "engine/csrc/kernels.c", True),
        compiled_parts.CompiledPart("bm25 with known counts", "engine/csrc/memlensrank.c",
                                    False, "FTS5's bm25 serves (not built: no C compiler at "
                                    "install)"),
        compiled_parts.CompiledPart("passage scans", "engine/csrc/passages.c", True)])

    async def run_before(pilot) -> None:
        await searched("")(pilot)
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, StatsScreen)
                    and pilot.app.screen.loaded)
        await pilot.pause(0.1)
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=run_before)


def test_menu(home, snap_compare):
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=searched("", "f2"))


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_menu_at(home, snap_compare, size):
    """The descriptions wrap under themselves at 80 columns, one line each wider; on the demo
    root Import… and Sources… are greyed with the way out."""
    assert snap_compare(make_app(home), terminal_size=size, run_before=searched("", "f2"))


def test_help(home, snap_compare):
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=searched("", "f1"))


def test_narrow_80x24(home, snap_compare):
    assert snap_compare(make_app(home), terminal_size=(80, 24),
                        run_before=searched("climbing"))
