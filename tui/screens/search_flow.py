"""The main screen's search flow: the debounce timer, one exclusive thread worker (group
"search") per search, the next page, and what an answer or a failure changes (the results,
the facet counts, the chips, the embedder mismatch and its re-embed offer). What to ask and
which answer to show is the ``SearchSession``'s decision (``tui/session.py``). The screen
holds a ``SearchFlow`` as ``search_flow``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import JobKind
from ..messages import SearchDone, SearchFailed
from ..session import SearchRequest
from ..widgets.chips import FilterChips
from ..widgets.facets import FacetList
from ..widgets.query import QueryInput
from ..widgets.text import one_line
from ..workers import search_job
from .modals import describe_error

if TYPE_CHECKING:
    from textual.timer import Timer

    from .main_host import MainHost


class SearchFlow:
    """Asks the main screen's searches and shows their answers; ``re_embed_offered``: the
    re-embed dialog was shown this session."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen
        self.re_embed_offered = False
        self._timer: Timer | None = None
        self._phrases_told: str | None = None  # the phrases note last shown (_tell_phrases)

    def schedule(self, delay: float | None = None) -> None:
        """Search now or when the typing pauses (the session's debounce)."""
        wait = self.screen.session.change(delay)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if wait is None:
            self._fire()
        else:
            self._timer = self.screen.set_timer(wait, self._fire)
            self.screen.results_view.show_status()

    def fire_pending(self) -> None:
        """Enter: ask now what the debounce timer waits to ask."""
        if self._timer is not None:
            self._fire()

    def _current_request(self) -> SearchRequest:
        screen = self.screen
        facets = screen.query_one(FacetList)
        return screen.session.request_for(screen.query_one(QueryInput).value,
                                          facets.source_types, facets.path_prefix)

    def _fire(self, force: bool = False) -> None:
        self._timer = None
        seq = self.screen.session.fire(self._current_request(), force=force)
        if seq is None:
            # nothing new to ask: the status must not stay "searching…"
            self.screen.results_view.show_status()
            return
        self._search(seq)

    def again(self) -> None:
        """Ask the current request again, from its first page: the index or a file changed
        under it (the same request would otherwise be skipped as already asked)."""
        if self._timer is not None:
            self._timer.stop()
        self._fire(force=True)

    def load_more(self) -> None:
        """The same search for the next page size; the highlighted result stays highlighted."""
        current = self.screen.results.current
        seq = self.screen.session.next_page(current.id if current is not None else None)
        if seq is not None:
            self._search(seq)

    def _search(self, seq: int) -> None:
        screen = self.screen
        view = screen.results_view
        request = screen.session.request
        if not request.asks or request.source_types == ():
            screen.session.settle(seq)
            if request.source_types == () and request.asks:
                screen.results.show([])
                view.empty().no_types()
                view.show_results_pane(False)
                screen.preview.show_nothing()  # no result: no preview of the one before
                view.show_status()
            else:
                view.show_idle()
            return
        library, now, post = screen.app.library, screen.app.now, screen.post_message
        screen.run_worker(lambda: search_job(library, request, seq, now, post), thread=True,
                          exclusive=True, group="search", name=f"search-{seq}",
                          exit_on_error=False)
        view.show_status()

    def done(self, message: SearchDone) -> None:
        screen, app = self.screen, self.screen.app
        rows = screen.session.accept(message.seq, message.response)
        if rows is None:
            return  # stale: a newer search was asked for meanwhile
        response = message.response
        if getattr(response, "semantic_error", None) == "embedder_mismatch":
            self.mismatch_found(getattr(response, "semantic_detail", None)
                                or "the index holds another embedder's vectors")
        elif (getattr(response, "serving_embedder", None) or getattr(response, "re_embed", None)
              ) and app.job is None and not self.re_embed_offered:
            # searches use the index's own vectors: offer the re-embed that switches them
            self._offer_re_embed(response)
        if not app.heap_settled and app.screen is screen:
            screen.call_after_refresh(app.settle_heap)  # once, when the answer is painted
        keep = screen.session.kept(message.seq)
        if keep is not None and screen.results.jump_to_end:  # G asked for the end: go there
            keep = rows[-1].id
        # the highlight's OptionHighlighted fills the preview, after the list is painted
        screen.results.show(rows, keep=keep)
        screen.query_one(FacetList).show_query_counts(
            getattr(message.response, "type_counts", None), screen.session.request.path_prefix)
        time = getattr(message.response, "time", None)
        screen.query_one(FilterChips).show(screen.session.filters,
                                           time.removeprefix("time: ") if time else None)
        screen.filter_actions.time_phrase = getattr(message.response, "time_phrase", None)
        self._tell_phrases(getattr(message.response, "phrases", None))
        if rows:
            screen.results_view.show_results_pane(True)
        else:
            screen.results_view.show_no_results()
        screen.answer_came(bool(rows))
        screen.results_view.show_status()

    def _tell_phrases(self, note: str | None) -> None:
        """A quoted phrase no row holds: the rows shown are the nearest without it, said once
        per query (a next page brings the same note)."""
        if note and "no result holds" in note and note != self._phrases_told:
            self.screen.notify(note.removeprefix("phrases: "), severity="warning", timeout=6,
                               markup=False)
        self._phrases_told = note

    def failed(self, message: SearchFailed) -> None:
        screen, view = self.screen, self.screen.results_view
        outcome = screen.session.fail(message.seq, message.error)
        if outcome is None:
            return
        if outcome == "page":
            screen.notify("Could not load more results: "
                          + one_line(describe_error(message.error))[:160],
                          severity="warning", timeout=4, markup=False)
            view.show_status()
            return
        screen.results.show([])
        screen.query_one(FacetList).show_query_counts(None)
        from engine import EmbedderMismatch

        if isinstance(message.error, EmbedderMismatch):
            self.mismatch_found(message.error)
            screen.session.filters.mode = "keyword"  # an engine that raises instead of degrading
            screen.filter_actions.show_chips()
            self.schedule(0)
            return
        if isinstance(message.error, FileNotFoundError):
            view.show_no_index()
        else:
            view.empty().failed(describe_error(message.error))
            view.show_results_pane(False)
        screen.preview.show_nothing()
        screen.answer_came(False)
        view.show_status()

    def mismatch_found(self, error: BaseException | str) -> None:
        """The index holds another embedder's vectors and no embedder here reads them: search
        goes on with keywords (the engine says so in ``arms``); offer a re-embed once per
        session."""
        first = self.screen.mismatch is None
        self.screen.mismatch = error
        if first:
            self._offer_re_embed(error)

    def _offer_re_embed(self, why: Any) -> None:
        """The re-embed dialog (``why``: the mismatch, or a response whose vectors are another
        embedder's or whose re-embed stopped part-way), once per session."""
        from .modals import MismatchScreen

        self.re_embed_offered = True
        app = self.screen.app

        def chosen(re_embed: bool | None) -> None:
            if re_embed:
                app.jobs.start(JobKind.RE_EMBED)
        app.push_screen(MismatchScreen(why), chosen)
