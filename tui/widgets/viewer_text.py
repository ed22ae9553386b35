"""The file viewer's text: a read-only TextArea that marks the query's terms and the matches of
the viewer's own search (``/``)."""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text
from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme

THEME = "memlens-viewer"  # TextArea's CSS theme, but for the selection (painted in get_line)


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
    another style.

    All three are painted in ``get_line``, the hook TextArea documents for styling a line. It
    runs before TextArea paints its selection, which would cover the terms' colour in the
    selected chunk; so the viewer's theme gives the selection no style and ``get_line`` paints
    it first, as TextArea does: the selection, then the terms, then the search matches."""

    def __init__(self, *args, terms: list[str] | tuple[str, ...] = (), **kwargs) -> None:
        self._terms = term_pattern(terms)
        self._search: re.Pattern | None = None
        self.search_text = ""
        super().__init__(*args, **kwargs)
        self.register_theme(TextAreaTheme(THEME, selection_style=Style()))
        self.theme = THEME

    def set_search(self, text: str) -> None:
        self.search_text = text
        self._search = re.compile(re.escape(text), re.IGNORECASE) if text else None
        self.notify_style_update()  # the rendered lines are cached: paint them again

    def highlight_styles(self) -> tuple[Style, Style]:
        """The terms' and the search matches' styles, from the app's theme."""
        colours = self.app.current_theme
        return (Style(bold=True, underline=True, color=colours.accent or "yellow"),
                Style(bold=True, color="black", bgcolor=colours.warning or "yellow"))

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        line = self._select(line, line_index)
        if self._terms is None and self._search is None:
            return line
        term, match = self.highlight_styles()
        for pattern, style in ((self._terms, term), (self._search, match)):
            if pattern is not None:
                for m in pattern.finditer(line.plain):
                    line.stylize(style, m.start(), m.end())
        return line

    def _select(self, line: Text, row: int) -> Text:
        """The selection's part of ``row`` styled as TextArea styles it (an empty line inside
        a selection shows as a bar)."""
        start, end = self.selection
        (top, left), (bottom, right) = sorted(self.selection)
        if start == end or not top <= row <= bottom:
            return line
        style = self.get_component_rich_style("text-area--selection")
        if not line.plain:
            if row != end[0]:
                return Text("▌", Style(color=style.bgcolor), end="", no_wrap=True)
            return line
        line.stylize(style, left if row == top else 0, right if row == bottom else len(line))
        return line
