"""Moving between the main screen's panes: esc back one pane, h / l, the facets overlay,
the query box, hiding the preview."""

from __future__ import annotations

from typing import Any

from ..widgets.facets import FacetList
from ..widgets.query import QueryInput


class PaneActions:
    """Mixed into ``MainScreen``: uses its ``results`` and ``preview``, and the Screen's
    ``query_one``, ``focused`` and classes."""

    results: Any
    preview: Any
    query_one: Any
    focused: Any
    has_class: Any
    add_class: Any
    remove_class: Any
    toggle_class: Any

    def action_escape(self) -> None:
        """Back one pane: preview → results → query box; from the query box to the results
        (its text is left alone: a vim user's esc-then-j must not replace the query)."""
        query, facets = self.query_one(QueryInput), self.query_one(FacetList)
        focused = self.focused
        if self.has_class("-show-facets") and focused is facets:
            self.remove_class("-show-facets")
        elif focused is self.preview and self.results.option_count:
            self.results.focus()
            return
        elif focused is query:
            if self.results.option_count:
                self.results.focus()
            return
        query.focus()

    def action_pane(self, step: int) -> None:
        """h / l: the pane to the left or right (facets, results, preview) that is shown."""
        panes = [w for w in (self.query_one(FacetList), self.results, self.preview)
                 if w.display and w.region.width]
        if self.focused not in panes:
            return
        i = panes.index(self.focused) + step
        if 0 <= i < len(panes):
            panes[i].focus()

    def action_focus_query(self) -> None:
        self.query_one(QueryInput).focus()

    def action_toggle_preview(self) -> None:
        self.toggle_class("-hide-preview")

    def action_facets(self) -> None:
        facets = self.query_one(FacetList)
        if self.has_class("-narrow") or self.has_class("-compact"):
            if self.has_class("-show-facets") and self.focused is facets:
                self.remove_class("-show-facets")
                self.query_one(QueryInput).focus()
                return
            self.add_class("-show-facets")
        if self.focused is facets:
            self.query_one(QueryInput).focus()
        else:
            facets.focus()
