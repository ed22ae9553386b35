"""The help screen (F1 / ?): every key, generated from the bindings (remaps included)."""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from .. import keys
from ..widgets.legend import legend_content

KEY_WIDTH = 18


def _keys_of(app, binding) -> str:
    shown = []
    for key in keys.keys_of(binding, app.key_overrides):
        text = app.get_key_display(binding.with_key(key))
        shown.append(text.upper() if len(text) <= 3 and text[:1] == "f" and text[1:].isdigit()
                     else text)
    return " / ".join(dict.fromkeys(shown))


def help_rows(app) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """(section, [(keys, what it does, binding id)]) for every binding of the app."""
    extra: dict[str, list[tuple[str, str]]] = {}
    for section, key, text in keys.EXTRA_HELP:
        extra.setdefault(section, []).append((key, text))
    out = []
    for section, group in keys.SECTIONS:
        rows = [(_keys_of(app, b), b.tooltip or b.description, b.id or "") for b in group]
        rows += [(k, t, "") for k, t in extra.get(section, [])]
        out.append((section, rows))
    return out


def help_content(app, width: int = 100) -> Content:
    """The key table laid out for ``width`` cells: keys, what they do, the binding id, each in
    its column; a description too long for its column wraps inside it, so an id never lands
    on a line of its own (at 80 columns it read as another key)."""
    id_width = max(len(b.id or "") for _, g in keys.SECTIONS for b in g) + 1  # " " + id
    sections = help_rows(app)
    widest_key = max(len(k) for _, rows in sections for k, _, _ in rows) + 1
    key_width = min(widest_key, KEY_WIDTH) if width >= 100 else 14
    text_width = max(width - key_width - 2 - id_width, 16)
    lines: list[Content] = [
        Content.styled("memlens keys", "bold $text-accent"),
        Content.styled("Remap any key in memlens.toml: [keys] <id> = \"key\" (the ids are "
                       "shown dimmed).", "dim"),
    ]
    for section, rows in sections:
        lines.append(Content(""))
        lines.append(Content.styled(section, "bold underline"))
        for key, text, bid in rows:
            parts = textwrap.wrap(text, text_width) or [""]
            key_parts = textwrap.wrap(key, key_width) or [""]
            for i in range(max(len(parts), len(key_parts))):
                lines.append(Content.assemble(
                    (f"  {(key_parts[i] if i < len(key_parts) else ''):<{key_width}}",
                     "bold $text-primary"),
                    f"{(parts[i] if i < len(parts) else ''):<{text_width}}",
                    (" " + bid if i == 0 and bid else "", "dim")))
    lines += [Content(""), legend_content(key_width, width)]
    return Content("\n").join(lines)


class HelpText(Static):
    def render(self) -> Content:
        return help_content(self.app, self.content_region.width or 100)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [*keys.MODAL, ("q", "close", "Close"), ("f1", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body", classes="dialog help"):
            yield HelpText(id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()

    def action_close(self) -> None:
        self.dismiss(None)
