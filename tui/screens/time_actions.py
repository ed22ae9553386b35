"""The main screen's ways out to time and context: the timeline at the shown result's date
(``t``) and the shown chat, meeting or transcript hit inside its conversation (``c``). The
screen holds a ``TimeController`` as ``time_actions``."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from engine.library import CONVERSATION_TYPES

if TYPE_CHECKING:
    from .main_host import MainHost


class TimeController:
    """Opens the timeline or the conversation at the chunk in the main screen's preview."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen

    def timeline_here(self) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        try:
            day = date.fromisoformat((chunk.get("content_date") or "")[:10])
        except ValueError:
            screen.notify("This chunk has no date: the timeline opens at today.", timeout=3)
            screen.app.action_timeline()
            return
        from .timeline import TimelineScreen

        screen.app.push_screen(TimelineScreen(day, "day", chunk["id"]))

    def conversation(self) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        if chunk.get("injected") or chunk.get("source_type") not in CONVERSATION_TYPES:
            screen.notify("Only chat, meeting, voice and transcript hits open as a "
                          "conversation.", timeout=3, markup=False)
            return
        from .conversation import ConversationScreen

        hits = [r.id for r in screen.results.results if not r.injected]
        inside = getattr(screen.preview.result, "in_range", None)  # opens at those messages
        screen.app.push_screen(ConversationScreen(chunk["id"], hits,
                                                  inside.before if inside is not None else 0))
