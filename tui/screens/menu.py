"""The menu (F2 / m): every index and view action, with its key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import keys
from ..actions import MENU

TITLE_WIDTH = 24

def key_for(app, binding_id: str) -> str:
    """The key shown for a binding id (its first key, remapped or not); "" without one."""
    binding = keys.BY_BINDING.get(binding_id)
    if binding is None:
        return ""
    if binding.key_display and binding_id not in app.key_overrides:
        return binding.key_display
    first = keys.keys_of(binding, app.key_overrides)[0]
    return app.get_key_display(binding.with_key(first))


class MenuScreen(ModalScreen[str | None]):
    """Pick an action; dismisses with the action name (run by the app)."""

    BINDINGS = keys.MODAL

    def __init__(self, job_running: str | None = None) -> None:
        super().__init__()
        self.job_running = job_running

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog menu"):
            yield Static(Content.styled("Menu", "bold"), classes="dialog-title")
            yield OptionList(id="menu-list", markup=False)
            yield Static(Content.styled("enter runs · esc closes · ctrl+p searches every "
                                        "command", "dim"))

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        # the dialog is 96 cells (at most 95% of the screen); the text column is what is left
        # after borders, paddings, title and key: cut there, a wrapped line reads as an item
        text_width = max(int(min(96, self.app.size.width * 0.95)) - 12 - TITLE_WIDTH - 8, 12)
        options = []
        for action in MENU:
            disabled = bool(action.job and self.job_running)
            note = f"  ({self.job_running} running)" if disabled else ""
            text = action.help + note
            if len(text) > text_width:
                text = text[:text_width - 1] + "…"
            options.append(Option(Content.assemble(
                (f"{action.title:<{TITLE_WIDTH}}", "bold" if not disabled else "dim"),
                (f"{key_for(self.app, action.id):<8}", "$text-accent"),
                (text, "dim")), id=action.action, disabled=disabled))
        ol.set_options(options)
        ol.highlighted = next((i for i, o in enumerate(options) if not o.disabled), None)
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
