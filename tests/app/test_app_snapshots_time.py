"""Snapshots of the timeline screen and the conversation view (fixed size, theme and clock,
as in tests/app/test_app_snapshots.py). Update with ``--snapshot-update`` and look at the SVGs."""

from __future__ import annotations

from tests.app.conftest import SIZE, make_app, searched, wait_until
from tui.screens.conversation import ConversationScreen
from tui.screens.timeline import TimelineScreen


def test_timeline_week_with_calendar(home, snap_compare):
    async def run_before(pilot) -> None:
        await searched("")(pilot)
        await pilot.press("escape", "f5")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, TimelineScreen)
                    and pilot.app.screen.loaded)
        await pilot.pause(0.1)
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=run_before)


def test_conversation_at_a_chat_hit(home, snap_compare):
    async def run_before(pilot) -> None:
        await searched("maya birthday dinner")(pilot)
        main = pilot.app.main
        main.results.focus()
        main.results.highlighted = next(i for i, r in enumerate(main.results.results)
                                        if r.source_type == "telegram")
        await pilot.pause(0.05)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConversationScreen)
                    and pilot.app.screen.loaded)
        await pilot.pause(0.2)
    assert snap_compare(make_app(home), terminal_size=SIZE, run_before=run_before)
