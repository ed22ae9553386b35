"""Source-type facets: every type with its count, all checked by default.

The box shows its state as a glyph (☑ searched, ☐ not), not by colour alone. The counts are
the index's (no query yet) or the current query's: how many of its candidates (after the
filters, before the page is cut: ``SearchResponse.type_counts``) each checked type holds; the
border says which.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.selection_list import Selection

from engine.display import type_label

from .. import keys
from .badges import type_colour

NAME_WIDTH = 14
CHECKED, UNCHECKED = "☑", "☐"


class FacetList(SelectionList[str]):
    """Checked types are searched. ``space`` toggles, ``a`` all, ``n`` none, ``i`` only this."""

    BINDINGS = keys.FACETS

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.counts: dict[str, int] = {}  # the index's chunks per type
        self.query_counts: dict[str, int] | None = None  # the current query's, when shown
        self.border_title = "Source types"
        self._glyph_lines: dict[tuple[int, str], tuple[Strip, Strip]] = {}  # see render_line

    def set_counts(self, counts: dict[str, int], all_types: list[str]) -> None:
        """Show every type (those with chunks first, by count); keep what the user unchecked."""
        # what the user unchecked (types without chunks are never "unchecked": they had no box)
        unchecked = {t for t, n in self.counts.items() if n > 0 and t not in self.selected}
        self.counts = {t: counts.get(t, 0) for t in all_types}
        for t, n in counts.items():
            self.counts.setdefault(t, n)
        order = sorted(self.counts, key=lambda t: (-self.counts[t], t))
        highlighted = self.highlighted
        self.clear_options()
        self.add_options([
            Selection(self._prompt(t, self._shown(t)), t,
                      initial_state=t not in unchecked and self.counts[t] > 0,
                      disabled=self.counts[t] == 0)
            for t in order])
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)
        self.refresh_subtitle()

    def show_query_counts(self, counts: dict[str, int] | None) -> None:
        """The current query's counts per type (None: back to the index's); the order stays."""
        self.query_counts = None if counts is None else dict(counts)
        for i in range(self.option_count):
            value = self.get_option_at_index(i).value
            self.replace_option_prompt_at_index(i, self._prompt(value, self._shown(value)))
        self.refresh_subtitle()

    def _shown(self, source_type: str) -> int | None:
        """The count shown: the query's (None for a type the query did not search)."""
        if self.query_counts is None:
            return self.counts.get(source_type, 0)
        chosen = self.source_types
        if chosen is not None and source_type not in chosen:
            return None
        return self.query_counts.get(source_type, 0)

    @staticmethod
    def _prompt(source_type: str, count: int | None) -> Content:
        name = type_label(source_type)[:NAME_WIDTH].ljust(NAME_WIDTH)
        shown = "—" if count is None else f"{count:,}"
        return Content.assemble(
            ("▌", type_colour(source_type)), name,
            (f"{shown:>6}", "" if count else "dim"), strip_control_codes=False)

    def render_line(self, y: int) -> Strip:
        """Textual's box, with ☑ / ☐ inside it instead of the same mark in two colours."""
        line = super().render_line(y)
        segments = list(line)
        index = self.scroll_offset.y + y
        if len(segments) < 2 or not 0 <= index < self.option_count:
            return line
        value = self.get_option_at_index(index).value
        glyph = CHECKED if value in self.selected else UNCHECKED
        # a repaint asks for every line again: reuse the strip while the base line (cached by
        # Textual) and the mark are the same, so a busy screen does not starve worker threads
        key = (index, glyph)
        cached = self._glyph_lines.get(key)
        if cached is None or cached[0] is not line:
            segments[1] = Segment(glyph, segments[1].style, segments[1].control)
            cached = self._glyph_lines[key] = (line, Strip(segments, line.cell_length))
        return cached[1]

    @property
    def available(self) -> list[str]:
        return [t for t, n in self.counts.items() if n > 0]

    @property
    def source_types(self) -> tuple[str, ...] | None:
        """None when every type with chunks is checked (no filter), else the checked ones."""
        chosen = [t for t in self.selected if self.counts.get(t, 0) > 0]
        if set(chosen) >= set(self.available):
            return None
        return tuple(sorted(chosen))

    def refresh_subtitle(self) -> None:
        chosen = self.source_types
        total = len(self.available)
        state = "all" if chosen is None else f"{len(chosen)}/{total}"
        which = "index counts" if self.query_counts is None else "query counts"
        self.border_subtitle = f"{state} · {which}"

    def on_selection_list_selected_changed(self) -> None:
        self.refresh_subtitle()

    def action_facets_all(self) -> None:
        self.select_all()

    def action_facets_none(self) -> None:
        self.deselect_all()

    def action_facets_only(self) -> None:
        option = self.highlighted_option
        if option is None or option.disabled:
            return
        self.deselect_all()
        self.select(option.value)
