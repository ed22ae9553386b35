"""The main screen's filters: mode, date range, person, and clearing them all (the checked
types and source included); the filters and the query history the app remembers between runs.
The screen holds a ``FilterController`` as ``filter_actions``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import SelectionList

from ..messages import StateRestored
from ..session import FILTER_KEYS
from ..widgets.chips import FilterChips
from ..widgets.facets import FacetList
from ..widgets.query import QueryInput
from .modals import DateRangeScreen, PersonScreen

if TYPE_CHECKING:
    from .main_host import MainHost


class FilterController:
    """Changes the main screen's filters and shows them as chips; ``time_phrase`` is the
    query's words the last answer read as its time filter (its chip)."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen
        self.time_phrase: str | None = None

    def changed(self, note: str | None = None) -> None:
        self.show_chips()
        if note:
            self.screen.notify(note, timeout=2)
        self.screen.schedule_search(0)

    def cycle_mode(self) -> None:
        self.changed(f"Search mode: {self.screen.session.cycle_mode()}")

    def date_filter(self) -> None:
        f = self.screen.session.filters

        def done(value: tuple[str | None, str | None] | None) -> None:
            if value is not None:
                f.since, f.until = value
                self.changed()
        app = self.screen.app
        app.push_screen(DateRangeScreen(f.since, f.until, app.now), done)

    def person_filter(self) -> None:
        screen = self.screen
        f = screen.session.filters

        def done(name: str | None) -> None:
            if name is not None:
                f.person = name or None
                self.changed()
        people = screen.overview.people if screen.overview else []
        error = screen.overview.people_error if screen.overview else None
        screen.app.push_screen(PersonScreen(people, f.person, error), done)

    def clear(self) -> None:
        screen = self.screen
        facets = screen.query_one(FacetList)
        with screen.prevent(SelectionList.SelectedChanged):
            facets.search_everywhere()
        facets.refresh_subtitle()
        screen.session.clear_filters(keep_mode=screen.mismatch is not None)
        self._remove_time_phrase()
        self.changed("Filters cleared")

    def _remove_time_phrase(self) -> None:
        """The time chip's filter lives in the query's words: clearing it takes them out."""
        phrase = self.time_phrase
        box = self.screen.query_one(QueryInput)
        if phrase and phrase in box.value:
            box.value = " ".join(box.value.replace(phrase, " ", 1).split())
        self.time_phrase = None
        self.screen.query_one(FilterChips).show(self.screen.session.filters, None)

    def summary(self) -> list[str]:
        """The active filters, in words."""
        facets = self.screen.query_one(FacetList)
        chosen = facets.source_types
        return self.screen.session.filters.summary(
            None if chosen is None else len(chosen), len(facets.available), facets.path_prefix)

    def show_chips(self) -> None:
        self.screen.query_one(FilterChips).show(self.screen.session.filters)

    # -- remembered between runs (the app loads and saves them: tui/app_state.py) -------------
    def restore(self, message: StateRestored) -> None:
        screen = self.screen
        screen.session.restore(message.filters)
        screen.query_one(QueryInput).history = list(message.history)
        self.show_chips()
        screen.show_infobar()

    def remembered(self) -> tuple[dict[str, Any], list[str]]:
        """The filters and the query history, to save."""
        f = self.screen.session.filters
        return ({k: getattr(f, k) for k in FILTER_KEYS},
                list(self.screen.query_one(QueryInput).history))
