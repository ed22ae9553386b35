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

MENU_WIDTH = 110  # styles/app.tcss: .menu
MENU_CHROME = 12  # the dialog's border and padding, the list's border, padding, scrollbar
KEY_GAP = 2  # cells after the longest title and after the longest key
MIN_TEXT_WIDTH = 16
DEMO_NOTE = "Not on the demo root: open the app with --root DIR"  # its key says the whole line


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
    """Pick an action; dismisses with the action name (run by the app). An action refused now
    (a job runs, or the demo root takes no import) is listed greyed, with why."""

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
        ol.set_options(self._options())
        ol.highlighted = next((i for i, o in enumerate(ol.options) if not o.disabled), None)
        ol.focus()

    def on_resize(self) -> None:
        """The descriptions wrap at the new width; the highlight stays."""
        ol = self.query_one(OptionList)
        for i, option in enumerate(self._options()):
            ol.replace_option_prompt_at_index(i, option.prompt)

    def _options(self) -> list[Option]:
        """Title, key, then the description in a column of its own: wrapped under itself when
        the screen is narrow, never cut."""
        keys_shown = {a.id: key_for(self.app, a.id) for a in MENU}
        key_width = max(len(k) for k in keys_shown.values()) + KEY_GAP
        title_width = max(len(a.title) for a in MENU) + KEY_GAP
        # the dialog is MENU_WIDTH cells (at most 95% of the screen); borders, paddings and
        # the list's scrollbar take MENU_CHROME of them
        dialog = int(min(MENU_WIDTH, self.app.size.width * 0.95))
        text_width = max(dialog - MENU_CHROME - title_width - key_width, MIN_TEXT_WIDTH)
        indent = " " * (title_width + key_width)
        options = []
        for action in MENU:
            busy = bool(action.job and self.job_running)
            refused = self.app.demo_refusal(action.id) is not None
            disabled = busy or refused
            said = (DEMO_NOTE if refused
                    else f"{action.help} ({self.job_running} running)" if busy else action.help)
            lines = Content(said).wrap(text_width)
            text = Content("\n" + indent).join(line.rstrip() for line in lines)
            options.append(Option(Content.assemble(
                (f"{action.title:<{title_width}}", "bold" if not disabled else "dim"),
                (f"{keys_shown[action.id]:<{key_width}}", "$text-accent"),
                text.stylize("dim")), id=action.action, disabled=disabled))
        return options

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
