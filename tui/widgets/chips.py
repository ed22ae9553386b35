"""The filter chips beside the query box: mode, date range, person."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static

from .text import plain


class FilterChips(Static):
    def show(self, filters: Any) -> None:
        mode_style = ("bold reverse $warning" if filters.mode != "hybrid"
                      else "bold reverse $primary")
        parts: list[Content | str | tuple[str, str]] = [(f" {filters.mode} ", mode_style)]
        if filters.since or filters.until:
            parts += [" ", (f" {filters.since or '…'} – {filters.until or '…'} ",
                            "reverse $secondary")]
        if filters.person:
            parts += [" ", Content.styled(f" ◆ {plain(filters.person)} ", "reverse $accent",
                                          strip_control_codes=False)]
        self.update(Content.assemble(*parts, strip_control_codes=False))
