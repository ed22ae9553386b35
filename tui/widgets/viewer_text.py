"""The file viewer's text: a read-only TextArea that marks the query's terms and the matches of
the viewer's own search (``/``)."""

from __future__ import annotations

import re

from rich.style import Style
from textual.widgets import TextArea

TERM = "memlens.term"
MATCH = "memlens.match"


def term_pattern(terms: list[str] | tuple[str, ...]) -> re.Pattern | None:
    """One case-insensitive pattern for the query's words (longest first, so "garden" wins over
    "gar"); None without any."""
    words = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)


def find_all(lines: list[str], needle: str) -> list[tuple[int, int]]:
    """(row, column) of every case-insensitive occurrence of ``needle``, in reading order."""
    if not needle:
        return []
    low, out = needle.lower(), []
    for row, line in enumerate(lines):
        text, start = line.lower(), 0
        while (col := text.find(low, start)) >= 0:
            out.append((row, col))
            start = col + max(len(low), 1)
    return out


class ViewerText(TextArea):
    """``terms`` are highlighted wherever they occur; ``search`` (set by the screen) too, in
    another style."""

    def __init__(self, *args, terms: list[str] | tuple[str, ...] = (), **kwargs) -> None:
        self._terms = term_pattern(terms)
        self.search_text = ""
        super().__init__(*args, **kwargs)

    def set_search(self, text: str) -> None:
        self.search_text = text
        self._build_highlight_map()
        self.refresh()

    def _set_theme(self, theme: str) -> None:
        super()._set_theme(theme)
        colours = self.app.current_theme
        self._theme.syntax_styles = {
            **self._theme.syntax_styles,
            TERM: Style(bold=True, underline=True, color=colours.accent or "yellow"),
            MATCH: Style(bold=True, color="black", bgcolor=colours.warning or "yellow"),
        }

    def _build_highlight_map(self) -> None:
        super()._build_highlight_map()
        search = re.compile(re.escape(self.search_text), re.IGNORECASE) if self.search_text \
            else None
        if self._terms is None and search is None:
            return
        for row in range(self.document.line_count):
            line = self.document.get_line(row)
            for pattern, name in ((self._terms, TERM), (search, MATCH)):
                if pattern is None:
                    continue
                for m in pattern.finditer(line):
                    start = len(line[:m.start()].encode("utf-8"))  # TextArea counts bytes
                    end = start + len(m.group().encode("utf-8"))
                    self._highlights[row].append((start, end, name))
