"""The query box, with history on up/down."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from .. import keys

HISTORY_SIZE = 200


class QueryInput(Input):
    BINDINGS = keys.QUERY

    def __init__(self, **kwargs) -> None:
        # select_on_focus off: coming back must not select the query (the next key replaced it)
        super().__init__(placeholder="Search your memory…  (F1 help · F2 menu · ctrl+p commands)",
                         select_on_focus=False, **kwargs)
        self.history: list[str] = []
        self._cursor: int | None = None  # index into history while browsing it
        self._draft = ""
        self.after_enter = ""  # what a paste held after its line break (the screen replays it)

    def _on_paste(self, event: events.Paste) -> None:
        """A paste holding a line break is the query, then enter, then keys: what follows the
        break reaches the results as if typed ("sourdough porch⏎c" opens the conversation)."""
        head, brk, rest = event.text.replace("\r\n", "\n").replace("\r", "\n").partition("\n")
        if not brk:
            return  # Input's own handler pastes it
        event.prevent_default()  # not Input's handler too: it would paste the first line again
        event.stop()
        self.insert_text_at_cursor(head)
        self.after_enter = rest
        self.post_message(self.Submitted(self, self.value))

    def remember(self, query: str) -> None:
        query = query.strip()
        if not query:
            return
        if query in self.history:
            self.history.remove(query)
        self.history.append(query)
        del self.history[:-HISTORY_SIZE]
        self._cursor = None

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._cursor is None:
            if step > 0:
                return
            self._draft = self.value
            self._cursor = len(self.history)
        self._cursor += step
        if self._cursor >= len(self.history):
            self._cursor = None
            self.value = self._draft
        else:
            self._cursor = max(self._cursor, 0)
            self.value = self.history[self._cursor]
        self.cursor_position = len(self.value)
