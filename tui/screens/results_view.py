"""What the main screen's results pane and status line show: the results or the empty state
(idle, no index, no results) and the search's status. The screen holds a ``ResultsView`` as
``results_view``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from ..widgets.empty import EmptyState
from ..widgets.facets import FacetList
from ..widgets.status import StatusLine, search_parts
from .modals import describe_error

if TYPE_CHECKING:
    from .main_host import MainHost


class ResultsView:
    """Shows the results list or the empty state in its place, and the status line."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen

    def empty(self) -> EmptyState:
        return self.screen.query_one(EmptyState)

    def show_results_pane(self, rows: bool) -> None:
        self.empty().display = not rows
        self.screen.results.display = rows

    def show_idle(self) -> None:
        screen = self.screen
        screen.results.show([])
        screen.query_one(FacetList).show_query_counts(None)  # no query: the index's counts
        screen.preview.show_nothing()
        ov = screen.overview
        if ov is not None and not ov.exists:
            self.show_no_index()
        else:
            self.empty().idle(ov.chunks if ov else None)
            self.show_results_pane(False)
        self.show_status()

    def show_no_index(self) -> None:
        ov, config = self.screen.overview, self.screen.app.config
        self.empty().no_index(str(config.root), ov.db_path if ov else str(config.db_path),
                              can_import=self.screen.app.demo_refusal("import") is None)
        self.show_results_pane(False)

    def show_no_results(self) -> None:
        screen = self.screen
        has_index = screen.overview is None or screen.overview.exists
        self.empty().no_results(screen.session.request, screen.filter_actions.summary(),
                                has_index)
        self.show_results_pane(False)
        screen.preview.show_nothing()

    def show_status(self) -> None:
        screen = self.screen
        parts = search_parts(screen.session, frozen=screen.app.frozen,
                             mismatch=screen.mismatch is not None,
                             job_running=screen.app.job is not None,
                             describe_error=describe_error,
                             coverage=(screen.overview.semantic_coverage if screen.overview
                                       else None))
        parts.append(Content.assemble(("mode: ", "dim"), screen.session.filters.mode))
        active = screen.filter_actions.summary()
        if active:
            parts.append(Content.styled("filters: " + ", ".join(active), "$text-accent"))
        screen.query_one(StatusLine).show(parts)
