"""Source-type facets: every type with its count, all checked by default; then, when
memlens.toml declares sources in place, a row per source by name (``@vault``).

The box shows its state as a glyph (☑ searched, ☐ not), not by colour alone. The counts are
the index's (no query yet) or the current query's: how many of its candidates (after the
filters, before the page is cut: ``SearchResponse.type_counts``) each checked type holds; the
border says which.

A source row narrows the search to that source's files (the engine's path-prefix filter,
``@vault/``): unchecked by default (every file), and at most one checked, since the engine
takes one prefix. Its count follows the types': what the index holds of it, or during a query
the query's candidates in it when it is the source checked (the query's per-type counts are
then all in it, and add up to its count); the engine counts a query's candidates per type,
not per source, so the other sources show "—" then, as the types the query did not search.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import set_cell_size
from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.selection_list import Selection

from engine.display import type_label

from .. import keys
from .badges import type_colour
from .text import cut_at_word

NAME_WIDTH = 14
CHECKED, UNCHECKED = "☑", "☐"
SOURCES_HEADING = "@"  # the value of the row over the sources: no source's prefix


def fit(name: str, width: int) -> str:
    """``name`` in ``width`` cells, padded: whole, or cut after a whole word with "…" so a cut
    name never reads as another one (``@Obsidian-Vaul``); the border names the checked source
    whole."""
    return set_cell_size(cut_at_word(name, width), width)


class FacetList(SelectionList[str]):
    """Checked types are searched, in the checked source if one is. ``space`` toggles, ``a``
    all (no source), ``n`` none, ``i`` only this."""

    BINDINGS = keys.FACETS

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.counts: dict[str, int] = {}  # the index's chunks per type
        self.query_counts: dict[str, int] | None = None  # the current query's, when shown
        self.query_source: str | None = None  # the source the query was narrowed to
        self.sources: dict[str, tuple[str, int]] = {}  # prefix -> (source type, its chunks)
        self.border_title = "Source types"
        self._glyph_lines: dict[tuple[int, str], tuple[Strip, Strip]] = {}  # see render_line

    def set_counts(self, counts: dict[str, int], all_types: list[str],
                   sources: Iterable[tuple[str, str, int]] = ()) -> None:
        """Show every type (those with chunks first, by count), then each source (prefix,
        source type, chunks) in the order declared; keep what the user (un)checked."""
        # what the user unchecked (types without chunks are never "unchecked": they had no box)
        unchecked = {t for t, n in self.counts.items() if n > 0 and t not in self.selected}
        checked_source = self.path_prefix
        self.counts = {t: counts.get(t, 0) for t in all_types}
        for t, n in counts.items():
            self.counts.setdefault(t, n)
        self.sources = {prefix: (source_type, n) for prefix, source_type, n in sources}
        order = sorted(self.counts, key=lambda t: (-self.counts[t], t))
        highlighted = self.highlighted
        # the filter the rows will show, known before the old rows go: while they are rebuilt
        # nothing is checked, which would read as "none searched" and show every count as "—"
        kept = [t for t in order if t not in unchecked and self.counts[t] > 0]
        chosen = None if set(kept) >= set(self.available) else tuple(sorted(kept))
        self.clear_options()
        self.add_options([
            Selection(self._prompt(t, self._shown(t, chosen)), t,
                      initial_state=t not in unchecked and self.counts[t] > 0,
                      disabled=self.counts[t] == 0)
            for t in order])
        self.add_options(self._source_rows(checked_source))
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)
        self.refresh_subtitle()

    def _source_rows(self, checked: str | None) -> list[Selection[str]]:
        """A heading, then a row per source (none without sources)."""
        if not self.sources:
            return []
        heading = Selection(Content.styled("sources", "dim italic"), SOURCES_HEADING,
                            disabled=True)
        return [heading, *(Selection(self._prompt(p, self._shown(p, None)), p,
                                     initial_state=p == checked,
                                     disabled=n == 0)
                           for p, (_, n) in self.sources.items())]

    def show_query_counts(self, counts: dict[str, int] | None, source: str | None = None
                          ) -> None:
        """The current query's counts per type (None: back to the index's) and the source it
        was narrowed to (its prefix, None: every file); the order stays."""
        self.query_counts = None if counts is None else dict(counts)
        self.query_source = source
        chosen = self.source_types
        for i in range(self.option_count):
            value = self.get_option_at_index(i).value
            if value != SOURCES_HEADING:
                self.replace_option_prompt_at_index(i, self._prompt(value, self._shown(value, chosen)))
        self.refresh_subtitle()

    def _shown(self, value: str, chosen: tuple[str, ...] | None) -> int | None:
        """The count shown for a type or a source: the index's, or the query's (None where
        the query has no count: a type outside ``chosen``, the types it searched (None: all),
        or a source it was not narrowed to)."""
        if self.query_counts is None:
            return self.sources[value][1] if value in self.sources else self.counts.get(value, 0)
        if value in self.sources:
            return sum(self.query_counts.values()) if value == self.query_source else None
        if chosen is not None and value not in chosen:
            return None
        return self.query_counts.get(value, 0)

    def _prompt(self, value: str, count: int | None) -> Content:
        """A type's row (its label), or a source's (its name as paths start: ``@vault``), in
        the colour of its type."""
        source = self.sources.get(value)
        source_type = source[0] if source else value
        name = value.rstrip("/") if source else type_label(value)
        shown = "—" if count is None else f"{count:,}"
        return Content.assemble(
            ("▌", type_colour(source_type)), fit(name, NAME_WIDTH),
            (f"{shown:>6}", "" if count else "dim"), strip_control_codes=False)

    def render_line(self, y: int) -> Strip:
        """Textual's box, with ☑ / ☐ inside it instead of the same mark in two colours."""
        line = super().render_line(y)
        segments = list(line)
        index = self.scroll_offset.y + y
        if len(segments) < 4 or not 0 <= index < self.option_count:
            return line
        glyph = self._glyph(self.get_option_at_index(index).value)
        # a repaint asks for every line again: reuse the strip while the base line (cached by
        # Textual) and the mark are the same, so a busy screen does not starve worker threads
        key = (index, glyph)
        cached = self._glyph_lines.get(key)
        if cached is None or cached[0] is not line:
            cached = self._glyph_lines[key] = (line, Strip(_with_box(segments, glyph),
                                                           line.cell_length))
        return cached[1]

    def _glyph(self, value: str) -> str:
        """☑ or ☐; none for the sources' heading, which is no choice."""
        if value == SOURCES_HEADING:
            return ""
        return CHECKED if value in self.selected else UNCHECKED

    @property
    def available(self) -> list[str]:
        return [t for t, n in self.counts.items() if n > 0]

    @property
    def path_prefix(self) -> str | None:
        """The checked source's prefix (``@vault/``); None when none is (every file)."""
        return next((p for p in self.sources if p in self.selected), None)

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
        if self.path_prefix:
            state = f"{self.path_prefix.rstrip('/')} · {state}"
        which = "index counts" if self.query_counts is None else "query counts"
        self.border_subtitle = f"{state} · {which}"

    def on_selection_list_selected_changed(self) -> None:
        self.refresh_subtitle()

    def toggle(self, selection: Selection[str] | str) -> FacetList:
        """space or a click; checking a source unchecks the other sources."""
        value = selection.value if isinstance(selection, Selection) else selection
        if value in self.sources and value not in self.selected:
            self._check_source(value)
            return self
        return super().toggle(selection)

    def _check_source(self, prefix: str) -> None:
        for other in self.sources:
            if other != prefix:
                self.deselect(other)
        self.select(prefix)

    def search_everywhere(self) -> None:
        """Every type checked and no source: no filter."""
        self.select_all()
        for prefix in self.sources:
            self.deselect(prefix)

    def action_facets_all(self) -> None:
        self.search_everywhere()

    def action_facets_none(self) -> None:
        self.deselect_all()

    def action_facets_only(self) -> None:
        """Only this type (the checked source stays), or only this source (the types stay)."""
        option = self.highlighted_option
        if option is None or option.disabled:
            return
        if option.value in self.sources:
            self._check_source(option.value)
            return
        source = self.path_prefix
        self.deselect_all()
        self.select(option.value)
        if source is not None:
            self.select(source)


def _with_box(segments: list[Segment], glyph: str) -> list[Segment]:
    """A row's segments with ``glyph`` inside Textual's box (its first three segments); blank
    where the box was without one (the sources' heading)."""
    if not glyph:
        width = sum(s.cell_length for s in segments[:3])
        return [Segment(" " * width, segments[3].style), *segments[3:]]
    segments[1] = Segment(glyph, segments[1].style, segments[1].control)
    return segments
