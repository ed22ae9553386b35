"""The timeline: everything dated in a day, week, month or phrase, day by day and by source
type, with counts, over an activity calendar of the year (engine/dates/timeline.py, read through
engine.library on a worker thread). Keys move by day / week / month, go to any date or phrase,
show "on this day"; enter opens an item (a conversation, else the file at the chunk)."""

from __future__ import annotations

from datetime import date, datetime

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static

from engine.dates import now as clock_now
from engine.dates import period, shift
from engine.display import in_units, type_label, units_text
from engine.library import CONVERSATION_TYPES, unit_of

from .. import keys
from ..widgets.calendar import ActivityCalendar
from ..widgets.text import one_line, safe
from ..widgets.timeline_rows import timeline_options
from ..widgets.vim_list import VimOptionList
from .modals import describe_error

LIMIT = 300  # items listed; the counts always cover the whole range
UNITS = ("day", "week", "month")


class TimelineScreen(Screen[None]):
    """``TimelineScreen(at, unit, focus)``: ``unit`` is day, week or month (the period holding
    ``at``); ``focus``, a chunk id, is highlighted when listed (the result it was opened
    from); a phrase or "on this day" is shown by ``jump_to``."""

    BINDINGS = keys.TIMELINE

    def __init__(self, at: date, unit: str = "week", focus: str | None = None) -> None:
        super().__init__()
        self.focus = focus
        self.anchor, self.unit = at, unit
        self.phrase: str | None = None  # unit "phrase": what was typed
        self.types: list[str] | None = None  # None: every source
        self.timeline = None
        self.items: list = []
        self.loaded = False  # tests wait on this
        self._activity: dict = {}  # (year, type) -> Activity
        self._last_good: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="tl-title")
        yield ActivityCalendar(id="tl-calendar")
        yield VimOptionList(id="tl-items", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        from engine.library import Library

        self.library = Library(self.app.config)
        self.query_one("#tl-items").border_title = "Day by day"
        self.load()

    @property
    def now(self) -> datetime:
        return self.app.now or clock_now()

    # -- loading ------------------------------------------------------------------------
    def load(self) -> None:
        self.loaded = False
        library, now = self.library, self.now
        anchor, unit, phrase = self.anchor, self.unit, self.phrase
        types = self.types
        one = types[0] if types else None
        cached = self._activity

        def work() -> None:
            try:
                if unit == "on_this_day":
                    timeline = library.on_this_day(now=anchor, types=types, limit=LIMIT)
                elif unit == "phrase":
                    timeline = library.timeline(phrase, types, LIMIT, now=now)
                else:
                    timeline = library.timeline(period(anchor, unit), types, LIMIT)
                year = (timeline.range.since or timeline.range.until or anchor).year \
                    if unit != "on_this_day" else anchor.year
                activity = cached.get((year, one)) or library.activity(year, one)
            except Exception as exc:  # noqa: BLE001 - shown in one line
                self.app.call_from_thread(self._failed, exc)
                return
            self.app.call_from_thread(self._show, timeline, activity)
        self.run_worker(work, thread=True, group="timeline", exclusive=True,
                        exit_on_error=False)

    def _failed(self, exc: BaseException) -> None:
        self.loaded = True
        self.notify(one_line(describe_error(exc))[:200], title="Timeline",
                    severity="warning", timeout=5, markup=False)
        if self._last_good is not None:  # back to what was shown
            self.anchor, self.unit, self.phrase = self._last_good

    def _show(self, timeline, activity) -> None:
        self.timeline = timeline
        self._activity[(activity.year, activity.source_type)] = activity
        rng = timeline.range
        if self.unit == "phrase" and rng.since:
            self.anchor = rng.since  # moving on goes from the range shown
        self._last_good = (self.anchor, self.unit, self.phrase)
        self.query_one("#tl-title", Static).update(self._title(timeline))
        marked = (rng.since, rng.until) if rng.since and rng.until else None
        self.query_one(ActivityCalendar).set_data(
            activity, marked, ", ".join(map(type_label, self.types)) if self.types
            else "all sources")
        items = self.query_one("#tl-items", OptionList)
        options, self.items = timeline_options(timeline, max(items.size.width - 4, 40))
        items.set_options(options)
        at = next((i for i, o in enumerate(options)
                   if o.id and self.items[int(o.id[1:])].id == self.focus), None)
        items.highlighted = at if at is not None else next(
            (i for i, o in enumerate(options) if not o.disabled), None)
        items.focus()
        self.loaded = True

    def _title(self, timeline) -> Content:
        what = {"on_this_day": "on this day", "phrase": f'"{self.phrase}"'}.get(
            self.unit, self.unit)
        counts = " · ".join(f"{type_label(t)} {in_units(n, unit_of(t))}"
                            for t, n in list(timeline.counts.items())[:8])
        more = " · …" if len(timeline.counts) > 8 else ""
        cut = (f"  ·  first {timeline.shown:,} listed" if timeline.truncated else "")
        return Content.assemble(
            (" timeline ", "bold reverse $accent"), " ",
            (timeline.range.label(), "bold $text-primary"), ("  ·  ", "dim"), safe(what),
            ("  ·  ", "dim"), (units_text(timeline.messages, timeline.entries), "bold"),
            (f"  ·  {counts}{more}" if counts else "", "dim"), (cut, "$text-warning"))

    # -- moving --------------------------------------------------------------------------
    def action_move(self, unit: str, by: int) -> None:
        if unit not in UNITS:
            return
        self.anchor, self.unit, self.phrase = shift(self.anchor, unit, by), unit, None
        self.load()

    def action_today(self) -> None:
        self.anchor, self.unit, self.phrase = self.now.date(), "day", None
        self.load()

    def action_on_this_day(self) -> None:
        self.unit, self.phrase = "on_this_day", None
        self.load()

    def action_jump(self) -> None:
        from .jump import JumpScreen

        def chosen(text: str | None) -> None:
            if text:
                self.jump_to(text)
        self.app.push_screen(JumpScreen(self.phrase or ""), chosen)

    def jump_to(self, text: str) -> None:
        """Show a date, range or phrase; "on this day" is the anchor's month-day."""
        if one_line(text).lower() in ("on this day", "this day"):
            self.action_on_this_day()
            return
        self.unit, self.phrase = "phrase", text
        self.load()

    def action_source(self) -> None:
        """All sources, then each type the index has dated chunks of, then all again."""
        known = list(dict.fromkeys(t for _, t in self.app.config.routes))
        if self.types is None:
            self.types = known[:1] or None
        else:
            at = known.index(self.types[0]) if self.types[0] in known else len(known)
            self.types = [known[at + 1]] if at + 1 < len(known) else None
        self.load()

    # -- opening an item ------------------------------------------------------------------
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        if option_id.startswith("i"):
            self.open_item(self.items[int(option_id[1:])])

    def open_item(self, item) -> None:
        if item.source_type in CONVERSATION_TYPES:
            from .conversation import ConversationScreen

            self.app.push_screen(ConversationScreen(item.id))
            return
        chunk = self.library.chunk(item.id)
        if chunk is None:
            self.notify("That chunk is gone from the index (reindexed meanwhile).",
                        severity="warning", timeout=4, markup=False)
            return
        from .viewer import FileViewerScreen

        self.app.push_screen(FileViewerScreen(chunk.to_dict(), frozen=self.app.frozen))

    def action_close(self) -> None:
        self.dismiss(None)
