"""Dialogs: errors, the embedder-mismatch offer, the date range and person filters."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from engine.dates import now as clock_now

from .. import keys
from ..widgets.text import one_line, plain, safe


def describe_error(error: BaseException) -> str:
    """One human message for an exception (its class name only when it says nothing)."""
    text = str(error).strip()
    if isinstance(error, FileNotFoundError) and error.filename and not text.startswith("no "):
        text = f"file not found: {error.filename}"
    return text or type(error).__name__


class MessageDialog(ModalScreen[None]):
    """A box with an OK button: enter, escape or the button close it."""

    BINDINGS = keys.MODAL

    def on_mount(self) -> None:
        self.query_one("#ok").focus()

    def on_button_pressed(self, _: Button.Pressed) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class ErrorScreen(MessageDialog):
    """An error as a message in a box (never a traceback)."""

    def __init__(self, title: str, error: BaseException | str) -> None:
        super().__init__()
        self.title_text = title
        self.message = error if isinstance(error, str) else describe_error(error)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog error"):
            yield Static(Content.styled(plain(self.title_text), "bold $text-error"),
                         classes="dialog-title")
            yield Static(safe(self.message), id="error-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("OK", variant="error", id="ok")


class ConfirmScreen(ModalScreen[bool]):
    """Ask before work is lost or a long job starts: ``y`` / the first button confirms;
    ``n``, escape or the second button (focused first, so enter never confirms) decline."""

    BINDINGS = [*keys.MODAL, *keys.CONFIRM]

    def __init__(self, title: str, message: str, confirm: str, decline: str = "No") -> None:
        super().__init__()
        self.title_text, self.message = title, message
        self.labels = (confirm, decline)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content.styled(plain(self.title_text), "bold $text-warning"),
                         classes="dialog-title")
            yield Static(safe(self.message))
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.labels[0]} (y)", variant="warning", id="yes")
                yield Button(f"{self.labels[1]} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_close(self) -> None:
        self.dismiss(False)


class MismatchScreen(ModalScreen[bool]):
    """The index holds another embedder's vectors: offer a re-embed (True) or keyword-only;
    or, when they still serve searches (a response), the re-embed or later."""

    BINDINGS = keys.MODAL

    def __init__(self, error: BaseException | str) -> None:
        super().__init__()
        self.error = error

    def compose(self) -> ComposeResult:
        stored = getattr(self.error, "stored", None)
        configured = getattr(self.error, "configured", None)
        serving = getattr(self.error, "serving_embedder", None)  # a response: still hybrid
        staged = getattr(self.error, "re_embed", None)
        with Vertical(classes="dialog"):
            yield Static(Content.styled("Re-embed" if serving or staged else "Embedder mismatch",
                                        "bold $text-warning"), classes="dialog-title")
            if serving or staged:
                said = ["Searches use the index's vectors, made by ", (plain(serving), "bold"),
                        ", not the embedder memlens.toml names.\n"] if serving else []
                if staged:
                    said += ["A re-embed was stopped part-way: ", plain(staged), ".\n"]
                yield Static(Content.assemble(
                    *said, "\nRe-embed every chunk with the configured embedder now (it runs "
                    "in the background; search stays hybrid on the current vectors until it "
                    "is done), or later (F2 → Re-embed)."))
            elif stored and configured:
                yield Static(Content.assemble(
                    "The index was embedded with ", (plain(stored.describe()), "bold"),
                    ",\nbut the configured embedder is ", (plain(configured.describe()), "bold"),
                    ".\n\nVectors are never mixed. Re-embed every chunk with the configured "
                    "embedder now (it runs in the background; keyword search keeps working), "
                    "or search with the keyword arm only."))
            else:
                message = self.error if isinstance(self.error, str) else describe_error(
                    self.error)
                yield Static(Content.assemble(
                    safe(message), "\n\nSearch goes on with the keyword arm until the index is "
                    "re-embedded (it runs in the background)."))
            with Horizontal(classes="dialog-buttons"):
                yield Button("Re-embed now", variant="warning", id="re-embed")
                yield Button("Later" if serving or staged else "Keyword only", id="keyword")

    def on_mount(self) -> None:
        self.query_one("#re-embed").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "re-embed")

    def action_close(self) -> None:
        self.dismiss(False)


DATE_HINT = "try 2026-03-14, 2026-07, july, last month, 3 weeks ago"


def read_date(text: str, now: datetime | date, end: bool) -> str | None:
    """What a date box holds as an ISO date: the first day of what ``text`` names (``end``: its
    last day), through the engine's time phrases; None when empty. ValueError (one line) for
    what it cannot read."""
    text = text.strip()
    if not text:
        return None
    from engine.dates import resolve_time

    rng = resolve_time(text, now)
    if rng is None or rng.month_day is not None:
        raise ValueError(f"cannot read {plain(text)[:40]!r} as a date ({DATE_HINT})")
    day = rng.until if end else rng.since
    if day is None:  # "before June" in since, "since June" in until: the other side is open
        day = rng.since if end else rng.until
    return day.isoformat() if day else None


class DateRangeScreen(ModalScreen[tuple[str | None, str | None] | None]):
    """since / until (a date, a month or a phrase: the engine's time phrases; either may be
    empty), or a preset: the last 7/30/90/365 days before the app's clock."""

    BINDINGS = keys.MODAL
    PRESETS = (("7", 7), ("30", 30), ("90", 90), ("365", 365))

    def __init__(self, since: str | None, until: str | None, now: datetime | None) -> None:
        super().__init__()
        self.since, self.until = since, until
        self.now = now or clock_now()
        self.today = self.now.date()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content.styled("Date range", "bold"), classes="dialog-title")
            yield Static(Content.styled(
                "Only chunks dated within the range. Each box takes a date, a month or a "
                f"phrase ({DATE_HINT}): since its first day, until its last; leave one "
                "empty for an open range.", "dim"))
            with Horizontal(classes="date-row"):
                yield Input(self.since or "", placeholder="since", id="since")
                yield Input(self.until or "", placeholder="until", id="until")
            yield Static(id="date-error")
            with Horizontal(classes="dialog-buttons"):
                for label, days in self.PRESETS:
                    yield Button(f"last {label} d", id=f"last-{days}", classes="preset")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Clear", id="clear")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#since", Input).focus()
        self._read()

    def on_input_changed(self, _: Input.Changed) -> None:
        self._read()

    def on_input_submitted(self, _: Input.Submitted) -> None:
        self._apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid == "apply":
            self._apply()
        elif bid == "clear":
            self.dismiss((None, None))
        elif bid == "cancel":
            self.dismiss(None)
        elif bid.startswith("last-"):
            self.action_preset(int(bid[5:]))

    def action_preset(self, days: int) -> None:
        self.dismiss(((self.today - timedelta(days=days)).isoformat(), None))

    def _read(self) -> tuple[str | None, str | None] | None:
        """The range the boxes hold, shown under them (or the one-line error); None if
        unreadable."""
        line = self.query_one("#date-error", Static)
        try:
            since = read_date(self.query_one("#since", Input).value, self.now, end=False)
            until = read_date(self.query_one("#until", Input).value, self.now, end=True)
        except ValueError as exc:
            line.update(Content.styled(str(exc), "$text-error"))
            return None
        if since and until and since > until:
            since, until = until, since
        line.update(Content.styled(f"→ {since or '…'} – {until or '…'}" if since or until
                                   else "→ no date filter", "$text-accent"))
        return since, until

    def _apply(self) -> None:
        value = self._read()
        if value is not None:
            self.dismiss(value)

    def action_close(self) -> None:
        self.dismiss(None)


class PersonScreen(ModalScreen[str | None]):
    """The person filter: pick a person from profile/relationships.json (type to narrow the
    list); the search keeps only chunks with or about them (the engine's ``person=``)."""

    BINDINGS = keys.MODAL
    CLEAR = "\x00clear"

    def __init__(self, people: list[Any], current: str | None, load_error: str | None = None
                 ) -> None:
        super().__init__()
        self.people = people
        self.current = current
        self.load_error = load_error

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog person-dialog"):
            yield Static(Content.styled("Person filter", "bold"), classes="dialog-title")
            yield Static(Content.styled(
                "Only chunks with or about this person: they take part or are named, or it "
                "is their entity file or profile.", "dim"))
            yield Input(placeholder="find a person by name or alias…", id="person-filter")
            yield OptionList(id="people", markup=False)
            if self.load_error:
                yield Static(safe(self.load_error, "$text-error"))

    def on_mount(self) -> None:
        self._fill("")
        self.query_one("#person-filter", Input).focus()

    def _fill(self, needle: str) -> None:
        needle = needle.lower().strip()
        options = []
        if self.current:
            options.append(Option(Content.assemble(("✕ clear person filter ", "bold"),
                                                   (f"({plain(self.current)})", "dim")),
                                  id=self.CLEAR))
        for i, p in enumerate(self.people):
            keys_ = [p.name, *p.aliases]
            if needle and not any(needle in k.lower() for k in keys_):
                continue
            label = Content.assemble(("● " if p.name == self.current else "  ", "$text-accent"),
                                     (one_line(p.name), "bold"),
                                     (f"  {one_line(p.relationship or '')}", "dim"))
            options.append(Option(label, id=f"p{i}"))
        if not self.people:
            options.append(Option(Content.styled("no people in profile/relationships.json",
                                                 "dim"), disabled=True))
        ol = self.query_one("#people", OptionList)
        ol.set_options(options)
        if options:
            ol.highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def on_input_submitted(self, _: Input.Submitted) -> None:
        ol = self.query_one("#people", OptionList)
        if ol.highlighted is not None:
            self._choose(ol.get_option_at_index(ol.highlighted))

    def on_key(self, event) -> None:
        if event.key in ("down", "up") and self.focused is self.query_one("#person-filter"):
            ol = self.query_one("#people", OptionList)
            ol.action_cursor_down() if event.key == "down" else ol.action_cursor_up()
            event.stop()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option)

    def _choose(self, option: Option) -> None:
        if option.disabled:
            return
        if option.id == self.CLEAR:
            self.dismiss("")
        elif option.id and option.id.startswith("p"):
            self.dismiss(self.people[int(option.id[1:])].name)

    def action_close(self) -> None:
        self.dismiss(None)
