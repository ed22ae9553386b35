"""Source-type facets: every type with its count, all checked by default."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import SelectionList
from textual.widgets.selection_list import Selection

from .. import keys
from .badges import type_colour

NAME_WIDTH = 14


class FacetList(SelectionList[str]):
    """Checked types are searched. ``space`` toggles, ``a`` all, ``n`` none, ``i`` only this."""

    BINDINGS = keys.FACETS

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.counts: dict[str, int] = {}
        self.border_title = "Source types"

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
            Selection(self._prompt(t, self.counts[t]), t,
                      initial_state=t not in unchecked and self.counts[t] > 0,
                      disabled=self.counts[t] == 0)
            for t in order])
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)
        self.refresh_subtitle()

    @staticmethod
    def _prompt(source_type: str, count: int) -> Content:
        name = source_type[:NAME_WIDTH].ljust(NAME_WIDTH)
        return Content.assemble(
            ("▌", type_colour(source_type)), name,
            (f"{count:>6,}", "" if count else "dim"), strip_control_codes=False)

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
        self.border_subtitle = "all" if chosen is None else f"{len(chosen)}/{total}"

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
