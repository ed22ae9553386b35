"""The help screen (F1 / ?): every key, generated from the bindings (remaps included)."""

from __future__ import annotations

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
    """The key table laid out for ``width`` cells: ids in their own column when there is room,
    else after the description."""
    id_width = max(len(b.id or "") for _, g in keys.SECTIONS for b in g) + 2
    text_width = max(width - KEY_WIDTH - 2 - id_width, 20)
    columns = width >= KEY_WIDTH + 2 + 40 + id_width
    lines: list[Content] = [
        Content.styled("memlens keys", "bold $text-accent"),
        Content.styled("Remap any key in memlens.toml: [keys] <id> = \"key\" (the ids are "
                       "shown dimmed).", "dim"),
    ]
    for section, rows in help_rows(app):
        lines.append(Content(""))
        lines.append(Content.styled(section, "bold underline"))
        for key, text, bid in rows:
            if columns:
                lines.append(Content.assemble(
                    (f"  {key:<{KEY_WIDTH}}", "bold $text-primary"),
                    f"{text[:text_width]:<{text_width}}", (bid, "dim")))
            else:
                lines.append(Content.assemble(
                    (f"  {key:<{KEY_WIDTH}}", "bold $text-primary"), text,
                    (f"  {bid}" if bid else "", "dim")))
    lines += [Content(""), legend_content(KEY_WIDTH)]
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
