"""A hit inside its conversation: individual messages (sender, time, text) around a chat,
meeting, voice or transcript chunk, the query's hits marked (engine/read/conversation.py, read
through engine.library on a worker thread). Older and newer pages load when the cursor reaches
either end (a seek by byte offset, never the whole log); n / N go to the query's next /
previous hit in the same file."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static

from .. import keys
from ..widgets.conv_rows import message_options
from ..widgets.text import one_line, safe, shown_path
from ..widgets.vim_list import VimOptionList
from .modals import describe_error

AROUND = 30  # messages read each way when opening
PAGE = 60  # messages per page when scrolling on
EDGE = 2  # rows from either end at which the next page loads


class ConversationScreen(Screen[None]):
    """``ConversationScreen(chunk_id, hit_ids, skip)``: ``hit_ids`` are the current query's
    results (marked where they are in this file, and what n / N step through); ``skip``: the
    chunk's messages before the one to open at (a window's first message inside the dates of
    a date filter)."""

    BINDINGS = keys.CONVERSATION

    def __init__(self, chunk_id: str, hit_ids: Sequence[str] = (), skip: int = 0) -> None:
        super().__init__()
        self.chunk_id = chunk_id
        self.origin = chunk_id  # where the view was opened: c comes back here after n / N
        self.skip = skip
        self.hit_ids = tuple(hit_ids)
        self.page = None  # the first page (file, type, title, hits, stale)
        self.messages: list = []
        self.before = self.after = None  # cursors of the messages held
        self.target: int | None = None  # position of the message opened at
        self.loaded = False  # tests wait on this
        self._paging = False

    def compose(self) -> ComposeResult:
        yield Static(id="conv-title")
        yield VimOptionList(id="conv-messages", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        from engine.library import Library

        self.library = Library(self.app.config)
        self.open(self.chunk_id)

    # -- opening at a chunk -----------------------------------------------------------------
    def open(self, chunk_id: str) -> None:
        self.loaded = False
        library, hit_ids = self.library, self.hit_ids

        def work() -> None:
            try:
                page = library.conversation(chunk_id, before=AROUND, after=AROUND,
                                            hit_ids=hit_ids)
                chunk = library.chunk(chunk_id)
            except Exception as exc:  # noqa: BLE001 - one line, the screen stays as it was
                self.app.call_from_thread(self._failed, exc)
                return
            self.app.call_from_thread(self._opened, chunk_id, page, chunk)
        self.run_worker(work, thread=True, group="conversation", exclusive=True,
                        exit_on_error=False)

    def _failed(self, exc: BaseException) -> None:
        self.loaded = True
        self._paging = False
        self.notify(one_line(describe_error(exc))[:200], title="Conversation",
                    severity="warning", timeout=5, markup=False)
        if self.page is None:
            self.query_one("#conv-title", Static).update(Content.assemble(
                (" conversation ", "bold reverse $accent"), " ",
                safe(describe_error(exc), "$text-error")))

    def _opened(self, chunk_id: str, page, chunk) -> None:
        self.chunk_id, self.page = chunk_id, page
        self.messages = list(page.messages)
        self.before, self.after = page.before, page.after
        self.target = _target(page.messages, chunk,
                              self.skip if chunk_id == self.origin else 0)
        self._title()
        self._fill(self.target)
        self.loaded = True

    def _title(self) -> None:
        page = self.page
        hits = sum(1 for m in self.messages if m.hit)
        self.query_one("#conv-title", Static).update(Content.assemble(
            (" conversation ", "bold reverse $accent"), " ", safe(page.title, "bold"),
            ("  ·  ", "dim"), safe(page.source_type), ("  ·  ", "dim"),
            safe(shown_path(page.source_file), "$text-primary"),
            (f"  ·  {len(self.hit_ids)} query hits" if self.hit_ids else "", "dim"),
            (f", {hits} marked messages loaded" if self.hit_ids else "", "dim"),
            ("  ·  changed since indexed: positions may be off" if page.stale else "",
             "$text-warning")))

    def _fill(self, position: int | None) -> None:
        """Show the messages held, the cursor on ``position`` (a file position)."""
        listing = self.query_one("#conv-messages", OptionList)
        self._paging = True  # the highlight set below must not load a page
        listing.set_options(message_options(self.messages))
        at = next((i for i, m in enumerate(self.messages) if m.position == position), None)
        if at is None:
            at = next((i for i, m in enumerate(self.messages) if m.hit), 0)
        if self.messages:
            listing.highlighted = at
            self.call_after_refresh(listing.scroll_to_highlight, top=True)
        listing.border_title = f"{len(self.messages):,} messages loaded"
        listing.focus()
        self.call_after_refresh(self._settled)

    def _settled(self) -> None:
        self._paging = False

    # -- paging ---------------------------------------------------------------------------
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self._paging or self.page is None:
            return
        index = event.option_index
        if index <= EDGE and self.before is not None:
            self.load_page(-1)
        elif index >= len(self.messages) - 1 - EDGE and self.after is not None:
            self.load_page(1)

    def load_page(self, direction: int) -> None:
        """Older (``direction`` < 0) or newer messages, from the held ones' cursor."""
        cursor = self.before if direction < 0 else self.after
        if cursor is None or self._paging:
            return
        self._paging = True
        page, library = self.page, self.library

        def work() -> None:
            try:
                more = library.conversation_page(page.source_file, page.source_type, cursor,
                                                 direction, count=PAGE, hits=page.hits)
            except Exception as exc:  # noqa: BLE001
                self.app.call_from_thread(self._failed, exc)
                return
            self.app.call_from_thread(self._paged, direction, more)
        self.run_worker(work, thread=True, group="conversation-page", exclusive=True,
                        exit_on_error=False)

    def _paged(self, direction: int, more) -> None:
        listing = self.query_one("#conv-messages", OptionList)
        current = listing.highlighted
        keep = self.messages[current].position if current is not None else None
        if direction < 0:
            self.messages = list(more.messages) + self.messages
            self.before = more.before
        else:
            self.messages = self.messages + list(more.messages)
            self.after = more.after
        self._title()
        self._fill(keep)

    # -- the query's hits -------------------------------------------------------------------
    def action_hit(self, direction: int) -> None:
        if not self.hit_ids:
            self.notify("Opened without a query: there are no hits to step through.",
                        timeout=3, markup=False)
            return
        found = self.library.adjacent_hit(self.chunk_id, self.hit_ids, direction)
        if found is None:
            way = "after" if direction > 0 else "before"
            self.notify(f"No hit of this query {way} this one in this conversation.",
                        timeout=3, markup=False)
            return
        self.open(found)

    def action_center(self) -> None:
        """Back to the message the view was opened at, however many hits n / N went to."""
        if self.chunk_id != self.origin:
            self.open(self.origin)
        elif self.page is not None:
            self._fill(self.target)

    def action_close(self) -> None:
        self.dismiss(None)


def _target(messages, chunk, skip: int = 0) -> int | None:
    """The position of the message opened at: a log window's first line (``skip`` messages
    on), else the first marked message."""
    lines = (chunk.metadata or {}).get("lines") if chunk is not None else None
    if isinstance(lines, list) and len(lines) == 2:
        ours = [m.position for m in messages if m.position >= lines[0]]
        return ours[min(skip, len(ours) - 1)] if ours else None
    return next((m.position for m in messages if m.hit), None)
