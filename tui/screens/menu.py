"""The menu (F2 / m): every index and view action, with its key."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import keys

# (action, title, help, binding id for the key hint, is an index job)
MENU_ITEMS: list[tuple[str, str, str, str | None, bool]] = [
    ("reindex", "Reindex", "index new and changed files", "reindex", True),
    ("import_data", "Import…", "import WhatsApp, Slack, mbox… exports, then reindex",
     "import", True),
    ("full_rebuild", "Full rebuild", "re-read every file (unchanged chunks keep vectors)",
     None, True),
    ("re_embed", "Re-embed", "embed every chunk again with the configured embedder", None, True),
    ("maintenance", "Maintenance", "rebuild the vector index and VACUUM", None, True),
    ("maintenance_no_vacuum", "Maintenance (no vacuum)", "rebuild the vector index only", None,
     True),
    ("discover", "Discover", "routes and the files waiting to be indexed", "discover", False),
    ("stats", "Index statistics", "charts: chunks per type and month, size, bloat", "stats",
     False),
    ("toggle_explain", "Toggle explain", "ranks, RRF terms, decay and MMR in the preview",
     "explain", False),
    ("change_theme", "Theme", "pick a colour theme", "theme", False),
    ("help", "Help", "every key", "help", False),
]


def key_for(app, binding_id: str | None) -> str:
    """The key shown for a binding id, honouring the user's keymap."""
    if binding_id is None:
        return ""
    keymap = getattr(app, "_keymap", {}) or {}
    b = _binding(binding_id)
    if binding_id in keymap:
        return app.get_key_display(b.with_key(keymap[binding_id].split(",")[0].strip()))
    return b.key_display or app.get_key_display(b.with_key(b.key.split(",")[0].strip()))


def _binding(binding_id: str):
    for _, group in keys.SECTIONS:
        for b in group:
            if b.id == binding_id:
                return b
    raise KeyError(binding_id)


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
        options = []
        for action, title, help_text, binding_id, is_job in MENU_ITEMS:
            disabled = bool(is_job and self.job_running)
            key = key_for(self.app, binding_id)
            note = f"  ({self.job_running} running)" if disabled else ""
            options.append(Option(Content.assemble(
                (f"{title:<24}", "bold" if not disabled else "dim"),
                (f"{key:<8}", "$text-accent"), (help_text + note, "dim")), id=action,
                disabled=disabled))
        ol.set_options(options)
        ol.highlighted = next((i for i, o in enumerate(options) if not o.disabled), None)
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)
