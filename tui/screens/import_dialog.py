"""The import dialog (ctrl+o / F2 → Import…) and the list of an import's problems.

The dialog only gathers an :class:`~tui.messages.ImportRequest` (kind, path, merge people, dry
run, and what ``memlens import`` takes as ``--date-order`` and ``--tz``) and checks the path and
the zone; the app runs it as a job (``tui.workers.import_job``).
Everything shown from the export (paths, problem messages) is data: plain text, never markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from .. import keys
from ..messages import ImportRequest
from ..widgets.bars import display_path
from ..widgets.text import plain, safe
from .modals import MessageDialog

DEFAULT_KIND = "whatsapp"
MAX_PROBLEM_LINES = 2000  # more than anyone reads in a dialog; the CLI's --json has them all
AUTO_ORDER = "auto"  # the Dates choice that leaves the order to the importer (date_order None)
DATE_ORDER_CHOICES = [("detect from the dates (default)", AUTO_ORDER),
                      ("day/month (dmy)", "dmy"), ("month/day (mdy)", "mdy")]
WHATSAPP_NOTE = ("WhatsApp chats are kept as data/whatsapp/<chat>.jsonl: one log per chat, named "
                 "after it; a newer export of the same chat adds only its new messages.")


def clean_path(raw: str) -> Path | None:
    """The path the user typed or pasted (a terminal drop adds quotes or backslash-escaped
    spaces), ``~`` expanded; None when empty."""
    text = raw.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    if not text:
        return None
    path = Path(text).expanduser()
    if not path.exists() and "\\ " in text:
        unescaped = Path(text.replace("\\ ", " ")).expanduser()
        if unescaped.exists():
            return unescaped
    return path


class ImportScreen(ModalScreen[ImportRequest | None]):
    """Kind, dates (WhatsApp), time zone, path, merge people, dry run; dismisses with the
    request (None: cancelled)."""

    BINDINGS = keys.MODAL

    def __init__(self, kinds: dict[str, str], root: Path,
                 last: ImportRequest | None = None) -> None:
        super().__init__()
        self.kinds = kinds  # kind -> description, in the order shown
        self.root = root
        self.last = last

    def compose(self) -> ComposeResult:
        last = self.last
        kind = last.kind if last and last.kind in self.kinds else (
            DEFAULT_KIND if DEFAULT_KIND in self.kinds else next(iter(self.kinds)))
        with Vertical(classes="dialog import-dialog"):
            yield Static(Content.styled("Import an export", "bold"), classes="dialog-title")
            # the fields scroll (tab brings each into view); the buttons stay on screen
            with VerticalScroll(id="import-form"):
                yield Static(Content.assemble(
                    ("Writes the data layer's files under ", "dim"),
                    safe(display_path(self.root), "bold"),
                    ("; a reindex then makes them searchable.", "dim")))
                yield Label("Kind", classes="field-label")
                yield Select([(k, k) for k in self.kinds], value=kind, allow_blank=False,
                             id="import-kind")
                yield Static(id="import-kind-help")
                # WhatsApp's dates do not say which field is the day (--date-order)
                yield Label("Dates", classes="field-label", id="import-date-order-label")
                yield Select(DATE_ORDER_CHOICES, allow_blank=False, id="import-date-order",
                             value=last.date_order if last and last.date_order else AUTO_ORDER)
                yield Label("Time zone of the export's times", classes="field-label")
                yield Input((last.local_tz or "") if last else "", id="import-tz",
                            placeholder="system zone, or Europe/Berlin, +02:00")
                yield Label("Path: a file, folder or .zip", classes="field-label")
                yield Input(str(last.source) if last else "", id="import-path",
                            placeholder="~/Downloads/WhatsApp Chat with Maya.txt")
                yield Static(id="import-error")
                yield Checkbox("Merge people into profile/relationships.json",
                               id="import-people", value=bool(last and last.people))
                yield Checkbox("Dry run: write nothing, list what would be written",
                               id="import-dry-run", value=bool(last and last.dry_run))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Import", variant="primary", id="import")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self._fit()
        self._show_kind(self.query_one("#import-kind", Select).value)
        self.query_one("#import-path", Input).focus()

    def on_resize(self, _) -> None:
        self._fit()

    def _fit(self) -> None:
        """The form gets what the title, buttons, borders and paddings leave of the dialog's
        90% of the screen (TCSS has no calc), so the buttons are always on screen."""
        self.query_one("#import-form").styles.max_height = max(
            int(self.app.size.height * 0.9) - 10, 4)

    def _show_kind(self, kind: Any) -> None:
        """The kind's description, and the Dates choice only where it applies (WhatsApp)."""
        text = self.kinds.get(kind, "") if isinstance(kind, str) else ""
        text = text.replace(" -> ", " → ")
        if kind == "whatsapp":
            text += "\n" + WHATSAPP_NOTE
        self.query_one("#import-kind-help", Static).update(safe(text, "dim"))
        for field in ("#import-date-order-label", "#import-date-order"):
            self.query_one(field).display = kind == "whatsapp"

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "import-kind":
            self._show_kind(event.value)

    def on_input_changed(self, _: Input.Changed) -> None:
        self._error(None)

    def on_input_submitted(self, _: Input.Submitted) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "import":
            self._submit()
        else:
            self.dismiss(None)

    def _error(self, message: str | None) -> None:
        error = self.query_one("#import-error", Static)
        error.update(safe(message, "$text-error") if message else Content(""))
        error.display = bool(message)

    def _submit(self) -> None:
        kind = self.query_one("#import-kind", Select).value
        raw = self.query_one("#import-path", Input).value
        path = clean_path(raw)
        if not isinstance(kind, str) or kind not in self.kinds:
            self._error("Choose the kind of export.")
            return
        zone = self.query_one("#import-tz", Input).value.strip() or None
        if zone is not None:
            from engine.importers import ImportFailed, resolve_zone

            try:
                resolve_zone(zone)
            except ImportFailed as exc:
                self._error(f"Time zone: {exc}")
                self.query_one("#import-tz", Input).focus()
                return
        if path is None:
            self._error("Enter the path of the export (a file, folder or .zip).")
            self.query_one("#import-path", Input).focus()
            return
        if not path.exists():
            self._error(f"No such file or folder: {raw.strip()}")
            self.query_one("#import-path", Input).focus()
            return
        order = self.query_one("#import-date-order", Select).value
        if kind != "whatsapp" or order == AUTO_ORDER:
            order = None  # the other kinds take no date order (the CLI refuses one)
        self.dismiss(ImportRequest(kind, path.resolve(),
                                   people=self.query_one("#import-people", Checkbox).value,
                                   dry_run=self.query_one("#import-dry-run", Checkbox).value,
                                   date_order=order, local_tz=zone))

    def action_close(self) -> None:
        self.dismiss(None)


def problem_lines(problems: list[tuple[str, int | None, str]]) -> list[str]:
    """``file:line: message`` per problem (capped), as plain text."""
    lines = []
    for file, line, message in problems[:MAX_PROBLEM_LINES]:
        where = f"{file}:{line}" if line is not None else f"{file}"
        lines.append(f"{where}: {message}")
    if len(problems) > MAX_PROBLEM_LINES:
        lines.append(f"… and {len(problems) - MAX_PROBLEM_LINES:,} more "
                     "(`memlens import --json` lists every one)")
    return lines


class ImportResultScreen(MessageDialog):
    """What an import did (the summary, whole and wrapped: a toast cut it off at the right),
    and what it could not read, file:line: message; everything shown literally."""

    def __init__(self, report: Any, title: str, summary: str) -> None:
        super().__init__()
        self.report = report
        self.title_text = title
        self.summary = summary

    def compose(self) -> ComposeResult:
        report = self.report
        n = len(report.problems)
        style = "bold $text-warning" if n or not report.ok else "bold $text-success"
        with Vertical(classes="dialog import-result"):
            yield Static(Content.styled(plain(self.title_text), style), classes="dialog-title")
            summary = self.summary
            if report.kind == "whatsapp" and report.ok:
                summary += "\n" + WHATSAPP_NOTE
            yield Static(safe(summary), id="import-summary")
            if n:
                verb = "would import" if report.dry_run else "imported"
                yield Static(Content.styled(
                    f"{n:,} problem{'s' if n != 1 else ''}: {plain(report.kind)} {verb} "
                    f"{report.records_imported:,} records; these parts of the export were "
                    "skipped:" if report.ok else f"{n:,} problems: nothing could be imported:",
                    "bold $text-warning"), id="import-problems-title")
                with VerticalScroll(id="import-problems-body"):
                    yield Static(safe("\n".join(problem_lines(report.problems))),
                                 id="import-problems-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button("OK", variant="primary", id="ok")
