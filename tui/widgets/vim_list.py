"""An option list that answers the keys every list in the app answers: j / k, g / G, and
ctrl+u / ctrl+d for half a page, as in vim (the arrows, home / end and page keys too)."""

from __future__ import annotations

from textual.widgets import OptionList

from .. import keys


class VimOptionList(OptionList):
    """The timeline's day list and the conversation's messages; the result list is one too,
    with keys of its own."""

    BINDINGS = keys.LIST
    ROW_LINES = 1  # lines an option takes: half a page is half the rows in view

    def action_half_page(self, direction: int) -> None:
        if not self.option_count:
            return
        step = max(1, self.scrollable_content_region.height // (2 * self.ROW_LINES)) * direction
        current = self.highlighted if self.highlighted is not None else 0
        self.highlighted = min(max(current + step, 0), self.option_count - 1)
