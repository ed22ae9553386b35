"""The timeline's "go to" prompt: a date, a range or any time phrase (engine/dates/timephrase.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from .. import keys


class JumpScreen(ModalScreen[str | None]):
    """Dismisses with the text typed (checked by the timeline, which says what was wrong)."""

    BINDINGS = keys.MODAL

    def __init__(self, current: str = "") -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content.styled("Go to", "bold"), classes="dialog-title")
            yield Static(Content.styled(
                "A date, a range or a phrase: 2026-03-14, 2026-03-01..2026-03-15, March, "
                "last week, two weeks ago, last summer, on this day.", "dim"))
            yield Input(self.current, placeholder="when", id="jump-when", max_length=120)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_close(self) -> None:
        self.dismiss(None)
