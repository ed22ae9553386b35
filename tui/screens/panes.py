"""Moving between the main screen's panes: esc back one pane, h / l, the facets overlay,
the query box, hiding the preview. The screen holds a ``PaneController`` as ``pane_actions``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..widgets.facets import FacetList
from ..widgets.query import QueryInput

if TYPE_CHECKING:
    from .main_host import MainHost


class PaneController:
    """Moves the focus between the main screen's panes and shows or hides them."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen

    def escape(self) -> None:
        """Back one pane: preview → results → query box; from the query box to the results
        (its text is left alone: a vim user's esc-then-j must not replace the query)."""
        screen = self.screen
        query, facets = screen.query_one(QueryInput), screen.query_one(FacetList)
        focused, results = screen.focused, screen.results
        if screen.has_class("-show-facets") and focused is facets:
            screen.remove_class("-show-facets")
        elif focused is screen.preview and results.option_count:
            results.focus()
            return
        elif focused is query:
            if results.option_count:
                results.focus()
            return
        query.focus()

    def step(self, step: int) -> None:
        """h / l: the pane to the left or right (facets, results, preview) that is shown."""
        screen = self.screen
        panes = [w for w in (screen.query_one(FacetList), screen.results, screen.preview)
                 if w.display and w.region.width]
        focused = screen.focused
        if focused not in panes:
            return
        i = panes.index(focused) + step
        if 0 <= i < len(panes):
            panes[i].focus()

    def focus_query(self) -> None:
        self.screen.query_one(QueryInput).focus()

    def toggle_preview(self) -> None:
        self.screen.toggle_class("-hide-preview")

    def facets(self) -> None:
        screen = self.screen
        facets = screen.query_one(FacetList)
        if screen.has_class("-narrow") or screen.has_class("-compact"):
            if screen.has_class("-show-facets") and screen.focused is facets:
                screen.remove_class("-show-facets")
                screen.query_one(QueryInput).focus()
                return
            screen.add_class("-show-facets")
        if screen.focused is facets:
            screen.query_one(QueryInput).focus()
        else:
            facets.focus()
