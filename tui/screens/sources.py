"""Sources in place (F2 → Sources…): the folders outside the root that memlens indexes where
they live, each with its type, what the index holds of it and whether its folder is there.

``a`` adds one (a small form), ``d`` removes the highlighted one after a yes. The app makes the
change (``app.sources``, ``tui/app_sources.py``: ``engine.index`` checks it and edits
memlens.toml), takes the new configuration and reindexes; a refusal is shown here, as its one line. Paths, names and
messages are data: plain text, never markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from engine import SOURCE_TYPES
from engine.config import ConfigError
from engine.display import one_line, plural, type_label

from .. import keys
from ..messages import SourcesLoaded
from ..widgets.badges import type_colour
from ..widgets.bars import display_path
from ..widgets.text import safe, shown_path
from ..workers import sources_job
from .import_dialog import clean_path
from .menu import key_for
from .modals import ConfirmScreen, describe_error

DEFAULT_TYPE = "note"
NOT_INDEXED_SHOWN = 5  # a source's files not indexed, listed under it with why
MISSING = "not read now"  # beside a route of a source whose folder is not read
TYPE_HINT = ("Type: note for a markdown vault, or any source type F4 lists (journal, meeting…), "
             "by id or label; → completes it.")


def source_lines(source: Any) -> Content:
    """A source's lines: name, type, its files and what the index holds; its folder and
    state; then each of its files not indexed, with why (the first few)."""
    head = Content.assemble(
        (source.name, "bold"), "  ", (type_label(source.source_type),
                                      type_colour(source.source_type)),
        (f"  ·  {source.counts} · {plural(source.chunks, 'chunk')}", "dim"))
    where = Content.assemble("  ", safe(display_path(Path(source.path)), "$text-secondary"))
    if source.state:
        where += Content.styled(f"  {source.state} (its chunks are kept)", "bold $text-warning")
    if source.ignore:
        where += safe(f"  ignore: {', '.join(source.ignore)}", "dim")
    lines = [head, where]
    shown = source.not_indexed[:NOT_INDEXED_SHOWN]
    lines += [safe(f"  not indexed: {shown_path(n.rel)}: {one_line(n.why)}", "$text-warning")
              for n in shown]
    if len(source.not_indexed) > len(shown):
        lines.append(Content.styled(f"  not indexed: {len(source.not_indexed) - len(shown):,} "
                                    "more (memlens source list)", "$text-warning"))
    lines += [safe(f"  not read: {shown_path(n.rel)}: {one_line(n.why)}", "$text-warning")
              for n in source.not_read[:NOT_INDEXED_SHOWN]]
    if len(source.not_read) > NOT_INDEXED_SHOWN:
        lines.append(Content.styled(f"  not read: {len(source.not_read) - NOT_INDEXED_SHOWN:,} "
                                    "more (memlens source list)", "$text-warning"))
    return Content("\n").join(lines)


class SourcesScreen(ModalScreen[None]):
    """The sources, ``a`` add, ``d`` remove, esc close. ``loaded``: the list is read."""

    BINDINGS = [*keys.MODAL, *keys.SOURCES]

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[Any] = []
        self.loaded = False
        self.keep: str | None = None  # the source to highlight once the list is read

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog sources-dialog"):
            yield Static(Content.styled("Sources", "bold"), classes="dialog-title")
            yield Static(Content.styled(
                "Folders outside the data root, indexed where they live (never written); "
                "their files are known as @name/….", "dim"))
            yield OptionList(id="sources-list", markup=False)
            yield Static(id="sources-note")
            yield Static(id="sources-keys")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.action_refresh()

    def action_refresh(self) -> None:
        """Read the sources again (the app calls it when a job ends under this dialog)."""
        self.loaded = False
        config = self.app.config
        self.run_worker(lambda: sources_job(config, self.post_message), thread=True,
                        group="sources", exclusive=True, exit_on_error=False)
        self._note_job()
        self._show_keys()

    def on_sources_loaded(self, message: SourcesLoaded) -> None:
        self.loaded = True
        if message.error is not None:
            self._note(describe_error(message.error), "$text-error")
            return
        keep = self.keep or self._highlighted_name()
        self.keep = None
        self.sources = message.sources
        listed = self.query_one(OptionList)
        if not self.sources:
            listed.set_options([Option(Content.styled(
                f"No sources: press {key_for(self.app, 'sources_add')} to index a folder where "
                "it lives (an Obsidian vault, a notes folder…).", "dim"), disabled=True)])
            return
        listed.set_options([Option(source_lines(s), id=s.name) for s in self.sources])
        names = [s.name for s in self.sources]
        listed.highlighted = names.index(keep) if keep in names else 0

    def _highlighted_name(self) -> str | None:
        listed = self.query_one(OptionList)
        if listed.highlighted is None or not self.sources:
            return None
        return listed.get_option_at_index(listed.highlighted).id

    def _highlighted(self) -> Any | None:
        name = self._highlighted_name()
        return next((s for s in self.sources if s.name == name), None)

    # -- what the dialog says under the list ----------------------------------------------
    def _note(self, text: str, style: str) -> None:
        self.query_one("#sources-note", Static).update(safe(text, style))

    def _note_job(self) -> None:
        job = self.app.job_title
        self._note(f"{job} is running: the counts are read again when it ends; add or remove "
                   "a source after it." if job else "", "$text-warning")

    def _show_keys(self) -> None:
        app = self.app
        self.query_one("#sources-keys", Static).update(Content.styled(
            f"{key_for(app, 'sources_add')} adds · {key_for(app, 'sources_remove')} removes · "
            f"{key_for(app, 'modal_close')} closes", "dim"))

    def _busy(self) -> bool:
        """A job runs: the change waits for it (said under the list)."""
        if self.app.job is None:
            return False
        self._note_job()
        return True

    # -- actions --------------------------------------------------------------------------
    def action_cursor_down(self) -> None:
        self.query_one(OptionList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(OptionList).action_cursor_up()

    def action_add(self) -> None:
        if self._busy():
            return

        def added(source: Any) -> None:
            if source is not None:
                self.keep = source.name
                self.action_refresh()
        self.app.push_screen(AddSourceScreen(), added)

    def action_remove(self) -> None:
        source = self._highlighted()
        if source is None or self._busy():
            return

        def chosen(yes: bool | None) -> None:
            if yes:
                self._remove(source.name)
        self.app.push_screen(ConfirmScreen(
            f"Remove source {source.name}?",
            f"Its {plural(source.chunks, 'chunk')} leave the index with the reindex that "
            f"follows. The folder {source.path} is untouched: it can be added again.",
            "Remove"), chosen)

    def _remove(self, name: str) -> None:
        try:
            self.app.sources.remove(name)
        except ConfigError as exc:
            self._note(str(exc), "$text-error")
            return
        self.action_refresh()

    def action_close(self) -> None:
        self.dismiss(None)


class AddSourceScreen(ModalScreen[Any]):
    """Folder, type (default note), name (optional); the app adds it on submit. A refusal is
    shown under the fields, which keep what was typed; dismisses with the source added (None:
    cancelled)."""

    BINDINGS = keys.MODAL

    def compose(self) -> ComposeResult:
        names = list(dict.fromkeys(n for t in SOURCE_TYPES for n in (type_label(t), t)))
        with Vertical(classes="dialog source-form"):
            yield Static(Content.styled("Add a source", "bold"), classes="dialog-title")
            with Horizontal(classes="field-row"):
                yield Label("Folder", classes="field-label")
                yield Input(id="source-path", placeholder="~/Vault")
            with Horizontal(classes="field-row"):
                yield Label("Type", classes="field-label")
                yield Input(DEFAULT_TYPE, id="source-type",
                            suggester=SuggestFromList(names, case_sensitive=False))
            with Horizontal(classes="field-row"):
                yield Label("Name", classes="field-label")
                yield Input(id="source-name", placeholder="optional (default: the folder's name)")
            yield Static(id="source-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Add", variant="primary", id="add")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._message(None)
        self.query_one("#source-path", Input).focus()

    def on_input_changed(self, _: Input.Changed) -> None:
        self._message(None)

    def on_input_submitted(self, _: Input.Submitted) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "add":
            self._submit()
        else:
            self.dismiss(None)

    def _message(self, error: str | None) -> None:
        """The refusal, or (none) what the type box takes."""
        self.query_one("#source-message", Static).update(
            safe(error, "$text-error") if error else Content.styled(TYPE_HINT, "dim"))

    def _submit(self) -> None:
        raw = self.query_one("#source-path", Input).value
        path = clean_path(raw)
        if path is None:
            self._message("Enter the folder's path.")
            self.query_one("#source-path", Input).focus()
            return
        source_type = self.query_one("#source-type", Input).value.strip()
        name = self.query_one("#source-name", Input).value.strip() or None
        try:
            source = self.app.sources.add(path, source_type, name)
        except ConfigError as exc:  # SourceRefused: one line, memlens.toml as it was
            self._message(str(exc))
            return
        self.dismiss(source)

    def action_close(self) -> None:
        self.dismiss(None)
