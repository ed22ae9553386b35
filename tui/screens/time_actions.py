"""The main screen's ways out to time and context: the timeline at the shown result's date
(``t``) and the shown chat, meeting or transcript hit inside its conversation (``c``)."""

from __future__ import annotations

from datetime import date
from typing import Any

from engine.library import CONVERSATION_TYPES

from .answer_wait import waits_for_answer


class TimeActions:
    """Mixed into ``MainScreen`` (before ``ChunkActions``): uses its ``preview``, ``results``
    and ``app``, and the Screen's ``notify``."""

    preview: Any
    results: Any
    app: Any
    notify: Any

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("timeline_here", "conversation"):
            return True if self.preview.chunk is not None else None  # shown, but disabled
        return super().check_action(action, parameters)  # type: ignore[misc]

    @waits_for_answer
    def action_timeline_here(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        try:
            day = date.fromisoformat((chunk.get("content_date") or "")[:10])
        except ValueError:
            self.notify("This chunk has no date: the timeline opens at today.", timeout=3)
            self.app.action_timeline()
            return
        from .timeline import TimelineScreen

        self.app.push_screen(TimelineScreen(day, "day", chunk["id"]))

    @waits_for_answer
    def action_conversation(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        if chunk.get("injected") or chunk.get("source_type") not in CONVERSATION_TYPES:
            self.notify("Only chat, meeting, voice and transcript hits open as a "
                        "conversation.", timeout=3, markup=False)
            return
        from .conversation import ConversationScreen

        hits = [r.id for r in self.results.results if not r.injected]
        inside = getattr(self.preview.result, "in_range", None)  # opens at those messages
        self.app.push_screen(ConversationScreen(chunk["id"], hits,
                                                inside.before if inside is not None else 0))
