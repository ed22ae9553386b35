"""The filter chips beside the query box: mode, date range, person."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from .text import WordCut, plain


class FilterChips(Static):
    time: str | None = None  # the query's time phrase as the engine read it ("2026-03-09..")

    def show(self, filters: Any, time: str | None = ...) -> None:
        """The chips of ``filters``; ``time`` (the last answer's time range, None: none) is kept
        when not given, since it changes with answers, not with filters."""
        if time is not ...:
            self.time = time
        mode_style = ("bold reverse $warning" if filters.mode != "hybrid"
                      else "bold reverse $primary")
        parts: list[Content | str | tuple[str, str]] = [(f" {filters.mode} ", mode_style)]
        if filters.since or filters.until:
            parts += [" ", (f" {filters.since or '…'} – {filters.until or '…'} ",
                            "reverse $secondary")]
        if self.time:  # a phrase in the query ("last week"): ctrl+l removes it with the filters
            parts += [" ", Content.styled(f" ⏱ {plain(self.time)} ", "reverse $secondary",
                                          strip_control_codes=False)]
        if filters.person:
            parts += [" ", Content.styled(f" ◆ {plain(filters.person)} ", "reverse $accent",
                                          strip_control_codes=False)]
        self.update(WordCut.of(Content.assemble(*parts, strip_control_codes=False)))
