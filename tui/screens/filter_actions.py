"""The main screen's filters: mode, date range, person, and clearing them all (the checked
types and source included); the filters and the query history the app remembers between runs."""

from __future__ import annotations

from typing import Any

from textual.widgets import SelectionList

from ..messages import StateRestored
from ..session import FILTER_KEYS
from ..widgets.chips import FilterChips
from ..widgets.facets import FacetList
from ..widgets.query import QueryInput
from .modals import DateRangeScreen, PersonScreen


class FilterActions:
    """Mixed into ``MainScreen``: uses its ``session``, ``overview``, ``mismatch``,
    ``schedule_search`` and ``show_infobar``, and the Screen's ``query_one``, ``notify`` and
    ``prevent``."""

    session: Any
    overview: Any
    mismatch: Any
    app: Any
    schedule_search: Any
    show_infobar: Any
    query_one: Any
    notify: Any
    prevent: Any

    def _filters_changed(self, note: str | None = None) -> None:
        self._show_chips()
        if note:
            self.notify(note, timeout=2)
        self.schedule_search(0)

    def action_cycle_mode(self) -> None:
        self._filters_changed(f"Search mode: {self.session.cycle_mode()}")

    def action_date_filter(self) -> None:
        f = self.session.filters

        def done(value: tuple[str | None, str | None] | None) -> None:
            if value is not None:
                f.since, f.until = value
                self._filters_changed()
        self.app.push_screen(DateRangeScreen(f.since, f.until, self.app.now), done)

    def action_person_filter(self) -> None:
        f = self.session.filters

        def done(name: str | None) -> None:
            if name is not None:
                f.person = name or None
                self._filters_changed()
        people = self.overview.people if self.overview else []
        error = self.overview.people_error if self.overview else None
        self.app.push_screen(PersonScreen(people, f.person, error), done)

    def action_clear_filters(self) -> None:
        facets = self.query_one(FacetList)
        with self.prevent(SelectionList.SelectedChanged):
            facets.search_everywhere()
        facets.refresh_subtitle()
        self.session.clear_filters(keep_mode=self.mismatch is not None)
        self._remove_time_phrase()
        self._filters_changed("Filters cleared")

    def _remove_time_phrase(self) -> None:
        """The time chip's filter lives in the query's words: clearing it takes them out."""
        phrase = getattr(self, "time_phrase", None)
        box = self.query_one(QueryInput)
        if phrase and phrase in box.value:
            box.value = " ".join(box.value.replace(phrase, " ", 1).split())
        self.time_phrase = None
        self.query_one(FilterChips).show(self.session.filters, None)

    def _filter_summary(self) -> list[str]:
        facets = self.query_one(FacetList)
        chosen = facets.source_types
        return self.session.filters.summary(None if chosen is None else len(chosen),
                                            len(facets.available), facets.path_prefix)

    def _show_chips(self) -> None:
        self.query_one(FilterChips).show(self.session.filters)

    # -- remembered between runs (the app loads and saves them: tui/app_state.py) -------------
    def on_state_restored(self, message: StateRestored) -> None:
        self.session.restore(message.filters)
        self.query_one(QueryInput).history = list(message.history)
        self._show_chips()
        self.show_infobar()

    def remembered(self) -> tuple[dict[str, Any], list[str]]:
        """The filters and the query history, to save."""
        f = self.session.filters
        return {k: getattr(f, k) for k in FILTER_KEYS}, list(self.query_one(QueryInput).history)
