"""The main screen: query box, facets, results, preview, progress and status.

Search runs as you type; what to ask and which answer to show is decided by the screen's
``SearchSession`` (``tui/session.py``, tested without Textual). The app talks to the screen
only through messages (``tui/messages``), handled here. The screen holds a controller for each
job, typed against what they use of it (``main_host``): the search flow, its debounce timer,
workers and answers (``search_flow``), what the results pane and status line show
(``results_view``), the actions on a shown chunk (``chunk_actions``, ``time_actions``), the
filters (``filter_actions``), moving between panes (``panes``). Textual finds actions and
handlers by name on the screen, so the ``action_*`` and ``on_*`` methods stay here as
one-line calls into the controllers.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, OptionList, SelectionList

from .. import keys
from ..messages import (
    EmbedderMismatchFound,
    EmbedderRepaired,
    ExplainToggled,
    HeaderChanged,
    JobCancelling,
    JobEnded,
    JobProgress,
    JobStarted,
    NeighbourLoaded,
    Overview,
    OverviewLoaded,
    RepeatLoaded,
    SearchDone,
    SearchFailed,
    SourcesChanged,
    StateRestored,
)
from ..session import SearchRequest, SearchSession
from ..widgets.bars import InfoBar
from ..widgets.chips import FilterChips
from ..widgets.empty import EmptyState
from ..widgets.facets import FacetList
from ..widgets.footer import MemlensFooter
from ..widgets.jobpanel import JobPanel
from ..widgets.legend import BORDER_KEY
from ..widgets.preview import Preview
from ..widgets.query import QueryInput
from ..widgets.results import ResultList
from ..widgets.status import StatusLine
from ..workers import overview_job, repeat_job
from .answer_wait import waits_for_answer
from .chunk_actions import CHUNK_ACTIONS, ChunkController
from .filter_actions import FilterController
from .panes import PaneController
from .results_view import ResultsView
from .search_flow import SearchFlow
from .time_actions import TimeController


class MainScreen(Screen[None]):
    BINDINGS = keys.MAIN
    # narrow: preview below the results; compact and narrow: facets only on ctrl+f
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (90, "-compact"), (120, "-medium"), (150, "-wide")]

    def __init__(self) -> None:
        super().__init__()
        self.session = SearchSession()
        self.overview: Overview | None = None
        self.mismatch: BaseException | str | None = None  # the embedder mismatch, once seen
        # enter pressed before its answer came: the result keys typed since, run once the
        # answer's first result is previewed (tui/screens/answer_wait.py)
        self.after_enter: list[str] | None = None
        self._run_when_previewed: list[str] = []
        self.chunk_actions = ChunkController(self)
        self.time_actions = TimeController(self)
        self.filter_actions = FilterController(self)
        self.pane_actions = PaneController(self)
        self.search_flow = SearchFlow(self)
        self.results_view = ResultsView(self)

    # -- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield InfoBar(id="infobar")
        with Horizontal(id="query-row"):
            yield QueryInput(id="query")
            yield FilterChips(id="chips")
        with Horizontal(id="body"):
            yield FacetList(id="facets")
            with Vertical(id="results-pane"):
                yield ResultList(id="results")
                yield EmptyState(id="empty")
            yield Preview(id="preview")
        yield JobPanel(id="job")
        yield StatusLine(id="status")
        yield MemlensFooter(compact=True)

    def on_mount(self) -> None:
        query = self.query_one(QueryInput)
        if self.app.frozen:
            query.cursor_blink = False
        pane = self.query_one("#results-pane")
        pane.border_title, pane.border_subtitle = "Results", BORDER_KEY
        self.query_one(JobPanel).display = False
        self.query_one(InfoBar).show(self.app.config.root, None)
        self.filter_actions.show_chips()
        self.results_view.show_idle()
        self.reload_overview()
        query.focus()

    @property
    def results(self) -> ResultList:
        return self.query_one(ResultList)

    @property
    def preview(self) -> Preview:
        return self.query_one(Preview)

    @property
    def request(self) -> SearchRequest:
        return self.session.request

    @property
    def response(self) -> Any:
        return self.session.response

    @property
    def error(self) -> BaseException | None:
        return self.session.error

    @property
    def idle(self) -> bool:
        """No search waiting for its timer or its answer (tests wait on this)."""
        return self.session.idle

    # -- overview: header, facets, people ---------------------------------------------
    def reload_overview(self) -> None:
        config = self.app.config
        self.run_worker(lambda: overview_job(config, self.post_message), thread=True,
                        group="overview", exclusive=True, exit_on_error=False)

    def on_overview_loaded(self, message: OverviewLoaded) -> None:
        self.overview = overview = message.overview
        self.show_infobar()
        all_types = list(dict.fromkeys(t for _, t in self.app.config.routes))
        facets = self.query_one(FacetList)
        checked_source = facets.path_prefix
        with self.prevent(SelectionList.SelectedChanged):
            facets.set_counts(overview.per_type, all_types, self._source_counts(overview))
        if facets.path_prefix != checked_source:  # the checked source was removed
            self.schedule_search(0)
        if not self.query_one(QueryInput).value.strip():
            self.results_view.show_idle()
        else:
            self.results_view.show_status()  # the semantic coverage may have changed

    def _source_counts(self, overview: Overview) -> list[tuple[str, str, int]]:
        """(prefix, source type, chunks) of each source the configuration declares now."""
        chunks = {s.name: s.chunks for s in overview.sources}
        return [(s.prefix, s.source_type, chunks.get(s.name, 0))
                for s in self.app.config.sources]

    def show_infobar(self) -> None:
        self.query_one(InfoBar).show(self.app.config.root, self.overview, self.app.job_title)

    # -- searching ------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "query":
            self.schedule_search()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "query":
            return
        query = self.query_one(QueryInput)
        query.remember(event.value)
        self.search_flow.fire_pending()
        if not self.session.idle:
            # the answer is on its way: what is typed next is meant for its results
            self.after_enter = []
            self.set_focus(None)
        elif self.results.option_count:
            self.results.focus()
        # a pasted line break was this enter: what followed it arrives as keys, after it
        typed, query.after_enter = query.after_enter, ""
        for char in typed:
            self.app.simulate_key("enter" if char == "\n" else char)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        method = getattr(self, f"action_{action}", None)
        if self.after_enter is not None and getattr(method, "waits_for_answer", False):
            return True  # kept for the answer on its way (tui/screens/answer_wait.py)
        if action in CHUNK_ACTIONS:
            return True if self.preview.chunk is not None else None  # shown, but disabled
        return True

    def answer_came(self, rows: bool) -> None:
        """After enter: focus the results (or the box again when there are none) and run the
        result keys typed meanwhile once the first result is in the preview."""
        if self.after_enter is None:
            return
        waiting, self.after_enter = self.after_enter, None
        if rows:
            self._run_when_previewed = waiting
            self.results.focus()
        else:
            self.query_one(QueryInput).focus()

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        self.schedule_search()

    def schedule_search(self, delay: float | None = None) -> None:
        self.search_flow.schedule(delay)

    def on_search_done(self, message: SearchDone) -> None:
        self.search_flow.done(message)

    def on_search_failed(self, message: SearchFailed) -> None:
        self.search_flow.failed(message)

    # -- preview --------------------------------------------------------------------------
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list is self.results:
            self._update_preview()
            waiting, self._run_when_previewed = self._run_when_previewed, []
            for action in waiting:
                getattr(self, f"action_{action}")()
            if self.results.reached_end(event.option_index):
                self.search_flow.load_more()

    @on(ResultList.EndAsked)
    def _end_asked(self) -> None:
        self.search_flow.load_more()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list is self.results:
            self.remove_class("-hide-preview")
            self.preview.focus()

    def on_descendant_focus(self, event) -> None:
        if event.widget is self.results or event.widget is self.preview:
            self.query_one(QueryInput).remember(self.session.request.query)

    def _update_preview(self) -> None:
        result = self.results.current
        resp = self.session.response
        if result is None or resp is None:
            return
        if self.results.current_repeat is not None:  # read by its id, shown when it comes
            config, post = self.app.config, self.post_message
            chunk_id = self.results.current_repeat[0].id
            self.run_worker(lambda: repeat_job(config, chunk_id, post), thread=True,
                            group="repeat", exclusive=True, exit_on_error=False)
            return
        person = None
        if result.injected:
            name = (result.metadata or {}).get("person")
            person = next((p for p in (self.overview.people if self.overview else [])
                           if p.name == name), None)
        terms = list(resp.terms or []) + list(result.matched_terms or [])
        self.preview.show_result(
            result, terms=terms, explain=self.app.explain, rank=self.results.rank,
            total=len(self.results.results), rrf_k=resp.rrf_k, person=person)

    def on_repeat_loaded(self, message: RepeatLoaded) -> None:
        shown = self.results.current_repeat
        if shown is None or shown[0].id != message.chunk_id:
            return  # the highlight moved on meanwhile
        if message.chunk is None:
            self.preview.show_message(Content.styled(
                "This chunk is no longer in the index (reindexed since this search?).", "dim"))
            return
        result, resp = self.results.current, self.session.response
        terms = list(resp.terms or []) + list(result.matched_terms or []) if resp else []
        self.preview.show_chunk(
            message.chunk, terms=terms, position=None,
            repeat=f"repeat {shown[1]} of {len(result.repeats) + 1} of result {self.results.rank}")

    # -- what the app tells it (tui/messages) -------------------------------------------------
    def on_job_started(self, message: JobStarted) -> None:
        self.query_one(JobPanel).start(message.title, message.cancellable)
        self.show_infobar()

    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).progress(message.progress, message.elapsed)

    def on_job_cancelling(self, _: JobCancelling) -> None:
        self.query_one(JobPanel).cancelling()

    def on_job_ended(self, message: JobEnded) -> None:
        self.query_one(JobPanel).stop()
        self.show_infobar()
        if message.refresh:
            self.reload_overview()
            if self.session.request.asks or self.session.error is not None:
                self.search_flow.again()

    def on_embedder_repaired(self, _: EmbedderRepaired) -> None:
        if self.mismatch is not None:
            self.mismatch = None
            self.session.filters.mode = "hybrid"
            self.filter_actions.show_chips()

    def on_embedder_mismatch_found(self, message: EmbedderMismatchFound) -> None:
        self.mismatch = None  # offer the re-embed again
        self.search_flow.mismatch_found(message.error)

    def on_explain_toggled(self, _: ExplainToggled) -> None:
        if self.preview.result is not None:
            self._update_preview()

    def on_sources_changed(self, _: SourcesChanged) -> None:
        self.search_flow.again()

    def on_header_changed(self, _: HeaderChanged) -> None:
        self.show_infobar()

    def on_state_restored(self, message: StateRestored) -> None:
        self.filter_actions.restore(message)

    def remembered(self) -> tuple[dict[str, Any], list[str]]:
        """The filters and the query history, to save (tui/app_state.py)."""
        return self.filter_actions.remembered()

    # -- actions on the shown chunk (chunk_actions, time_actions) -----------------------------
    @waits_for_answer
    def action_open_file(self) -> None:
        self.chunk_actions.open_file()

    def action_step(self, direction: int) -> None:
        self.chunk_actions.step(direction)

    def on_neighbour_loaded(self, message: NeighbourLoaded) -> None:
        self.chunk_actions.neighbour_loaded(message)

    @waits_for_answer
    def action_edit(self) -> None:
        self.chunk_actions.edit()

    @waits_for_answer
    def action_copy(self) -> None:
        self.chunk_actions.copy()

    @waits_for_answer
    def action_timeline_here(self) -> None:
        self.time_actions.timeline_here()

    @waits_for_answer
    def action_conversation(self) -> None:
        self.time_actions.conversation()

    # -- filters (filter_actions) -------------------------------------------------------------
    def action_cycle_mode(self) -> None:
        self.filter_actions.cycle_mode()

    def action_date_filter(self) -> None:
        self.filter_actions.date_filter()

    def action_person_filter(self) -> None:
        self.filter_actions.person_filter()

    def action_clear_filters(self) -> None:
        self.filter_actions.clear()

    # -- panes (panes) ------------------------------------------------------------------------
    def action_escape(self) -> None:
        self.pane_actions.escape()

    def action_pane(self, step: int) -> None:
        self.pane_actions.step(step)

    def action_focus_query(self) -> None:
        self.pane_actions.focus_query()

    def action_toggle_preview(self) -> None:
        self.pane_actions.toggle_preview()

    def action_facets(self) -> None:
        self.pane_actions.facets()
