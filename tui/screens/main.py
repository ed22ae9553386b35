"""The main screen: query box, facets, results, preview, progress and status.

Search runs as you type: each keystroke (re)starts a short timer; when it fires, one search
goes to an exclusive thread worker (group "search") tagged with a sequence number. An answer
whose number is not the latest is dropped, so a slow, stale answer never replaces a newer one.

A search asks for one page of results (``PAGE_SIZES[0]``: the engine's work grows with the
limit); when the cursor reaches the last row of a full page, the same search runs again for
the next page size and its new results are appended (the rows already shown stay as they
are: a deeper search may rank its head slightly differently).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, SelectionList, Static

from .. import keys
from ..messages import (
    PAGE_SIZES,
    NeighbourLoaded,
    Overview,
    OverviewLoaded,
    SearchDone,
    SearchFailed,
    SearchRequest,
)
from ..widgets.bars import InfoBar, StatusLine
from ..widgets.facets import FacetList
from ..widgets.jobpanel import JobPanel
from ..widgets.preview import Preview
from ..widgets.query import QueryInput
from ..widgets.results import ResultList
from ..widgets.text import human_count, one_line, plain, safe
from ..workers import neighbour_job, overview_job, search_job
from .modals import DateRangeScreen, PersonScreen, describe_error

DEBOUNCE_SECONDS = 0.15
MODES = ("hybrid", "keyword", "semantic")


class MainScreen(Screen[None]):
    BINDINGS = keys.MAIN
    # narrow: preview below the results; compact and narrow: facets only on ctrl+f
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (90, "-compact"), (120, "-medium"), (150, "-wide")]

    def __init__(self) -> None:
        super().__init__()
        self.mode = "hybrid"
        self.since: str | None = None
        self.until: str | None = None
        self.person: str | None = None
        self.request = SearchRequest()
        self.response: Any = None
        self.error: BaseException | None = None
        self.overview: Overview | None = None
        self.mismatch: BaseException | None = None  # the embedder mismatch, once seen
        self._seq = 0  # the latest search asked for
        self._answered = 0  # the latest search whose answer was applied
        self._timer: Timer | None = None
        self._last_fire = 0.0  # monotonic time of the last search fired
        self._keep: tuple[int, str] | None = None  # (seq, chunk id) to keep highlighted
        self._neighbour_pending = False

    # -- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield InfoBar(id="infobar")
        with Horizontal(id="query-row"):
            yield QueryInput(id="query")
            yield Static(id="chips")
        with Horizontal(id="body"):
            yield FacetList(id="facets")
            with Vertical(id="results-pane"):
                yield ResultList(id="results")
                yield Static(id="empty")
            yield Preview(id="preview")
        yield JobPanel(id="job")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        query = self.query_one(QueryInput)
        if self.app.frozen:
            query.cursor_blink = False
        self.query_one("#results-pane").border_title = "Results"
        self.query_one(JobPanel).display = False
        self.query_one(InfoBar).show(self.app.config.root, None)
        self._show_chips()
        self._show_idle()
        self.reload_overview()
        query.focus()

    @property
    def results(self) -> ResultList:
        return self.query_one(ResultList)

    @property
    def preview(self) -> Preview:
        return self.query_one(Preview)

    @property
    def idle(self) -> bool:
        """No search waiting for its timer or its answer (tests wait on this)."""
        return self._timer is None and self._answered == self._seq

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
        with self.prevent(SelectionList.SelectedChanged):
            facets.set_counts(overview.per_type, all_types)
        if not self.query_one(QueryInput).value.strip():
            self._show_idle()

    def show_infobar(self) -> None:
        job = self.app.job_title
        self.query_one(InfoBar).show(self.app.config.root, self.overview, job)

    # -- searching ------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "query":
            self.schedule_search()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "query":
            return
        self.query_one(QueryInput).remember(event.value)
        if self._timer is not None:
            self._fire()
        if self.results.option_count:
            self.results.focus()

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        self.schedule_search()

    def schedule_search(self, delay: float = DEBOUNCE_SECONDS) -> None:
        """Leading and trailing debounce: the first change after a pause searches at once
        (no added latency for a single keystroke or a facet toggle); changes that follow
        within ``delay`` are coalesced into one search when the typing pauses."""
        if self._timer is None and time.monotonic() - self._last_fire >= delay:
            self._fire()
            return
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(max(delay, 0.01), self._fire)

    def _current_request(self) -> SearchRequest:
        return SearchRequest(
            query=self.query_one(QueryInput).value, source_types=self.query_one(
                FacetList).source_types, mode=self.mode, since=self.since, until=self.until,
            person=self.person)

    def _fire(self) -> None:
        self._timer = None
        self._last_fire = time.monotonic()
        request = self._current_request()
        if request == self.request and self.error is None:
            return  # the leading edge already asked exactly this
        self._search(request)

    @property
    def more_available(self) -> bool:
        """The answer filled its page: a longer page may hold more."""
        resp, limit = self.response, self.request.limit
        return (resp is not None and len(resp.results) >= limit
                and any(n > limit for n in PAGE_SIZES))

    def load_more(self) -> None:
        """The same search for the next page size; the highlighted result stays highlighted."""
        if not self.idle or not self.more_available:
            return
        current = self.results.current
        limit = next(n for n in PAGE_SIZES if n > self.request.limit)
        self._search(replace(self.request, limit=limit),
                     keep=current.id if current is not None else None)

    def _search(self, request: SearchRequest, keep: str | None = None) -> None:
        self.request = request
        self._seq += 1
        seq = self._seq
        self._keep = (seq, keep) if keep else None
        if not request.engine_query:
            self._answered = seq
            self.response, self.error = None, None
            self._show_idle()
            return
        if request.source_types == ():
            self._answered = seq
            self.response, self.error = None, None
            self.results.show([])
            self._show_empty(Content.assemble(
                ("No source type is checked.", "bold"), "\n\n",
                "Press ctrl+f to go to the facets, then ", ("a", "bold $text-accent"),
                " to check them all."))
            self._show_status()
            return
        searcher, now, post = self.app.searcher, self.app.now, self.post_message
        self.run_worker(lambda: search_job(searcher, request, seq, now, post), thread=True,
                        exclusive=True, group="search", name=f"search-{seq}",
                        exit_on_error=False)
        self._show_status()

    def on_search_done(self, message: SearchDone) -> None:
        if message.seq != self._seq:
            return  # stale: a newer search was asked for meanwhile
        self._answered = message.seq
        self.response, self.error = message.response, None
        results = list(message.response.results)
        if getattr(message.response, "semantic_error", None) == "embedder_mismatch":
            self.on_embedder_mismatch(getattr(message.response, "semantic_detail", None)
                                      or "the index holds another embedder's vectors")
        if not self.app.heap_settled and self.app.screen is self:
            self.call_after_refresh(self.app.settle_heap)  # once, when the answer is painted
        keep = self._keep[1] if self._keep and self._keep[0] == message.seq else None
        if keep is not None:  # the next page: append what is new, keep the rows shown
            shown = self.results.results
            seen = {r.id for r in shown}
            results = shown + [r for r in results if r.id not in seen]
        # the highlight's OptionHighlighted fills the preview, after the list is painted
        self.results.show(results, keep=keep)
        if results:
            self._show_empty(None)
        else:
            self._show_no_results()
        self._show_status()

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.seq != self._seq:
            return
        self._answered = message.seq
        if self._keep and self._keep[0] == message.seq:  # the next page: keep this one
            self.request = replace(self.request, limit=len(self.results.results) or 1)
            self.notify("Could not load more results: "
                        + one_line(describe_error(message.error))[:160],
                        severity="warning", timeout=4, markup=False)
            self._show_status()
            return
        self.response, self.error = None, message.error
        self.results.show([])
        from engine.schema import EmbedderMismatch

        if isinstance(message.error, EmbedderMismatch):
            self.on_embedder_mismatch(message.error)
            self.mode = "keyword"  # an engine that raises instead of degrading
            self._show_chips()
            self.schedule_search(0)
            return
        if isinstance(message.error, FileNotFoundError):
            self._show_no_index()
        else:
            self._show_empty(Content.assemble(("Search failed", "bold $text-error"), "\n\n",
                                              safe(describe_error(message.error))))
        self._show_status()

    def on_embedder_mismatch(self, error: BaseException | str) -> None:
        """The index holds another embedder's vectors: search goes on with keywords (the engine
        says so in ``arms``); offer a re-embed once per session."""
        first = self.mismatch is None
        self.mismatch = error
        if first:
            def chosen(re_embed: bool | None) -> None:
                if re_embed:
                    self.app.start_job("re_embed")
            self.app.push_screen(_mismatch_screen(error), chosen)

    def search_again(self) -> None:
        """Re-run the current search (after a reindex, a filter change...)."""
        self.schedule_search(0)

    # -- what the result pane shows -------------------------------------------------------
    def _show_empty(self, content: Content | None) -> None:
        empty = self.query_one("#empty", Static)
        if content is None:
            empty.display = False
            self.results.display = True
            return
        empty.update(content)
        empty.display = True
        self.results.display = False

    def _show_idle(self) -> None:
        self.results.show([])
        self.preview.show_message(Content.styled("Nothing selected.", "dim"))
        ov = self.overview
        if ov is not None and not ov.exists:
            self._show_no_index()
            self._show_status()
            return
        count = f"{human_count(ov.chunks)} chunks" if ov else "your memory"
        hint = ("$text-accent", "bold $text-accent")
        self._show_empty(Content.assemble(
            ("Type to search ", "bold"), (count, "bold"), (".", "bold"), "\n\n",
            "Keyword (BM25) and semantic search run together and are fused; every result "
            "says why it is here.\n\n",
            ("enter", hint[1]), " / ", ("tab", hint[1]), " go to the results  ",
            ("↑ ↓", hint[1]), " query history\n",
            ("ctrl+f", hint[1]), " facets  ", ("ctrl+t", hint[1]), " mode  ",
            ("ctrl+b", hint[1]), " dates  ", ("ctrl+n", hint[1]), " person\n",
            ("F1", hint[1]), " every key  ", ("F2", hint[1]), " menu  ",
            ("ctrl+p", hint[1]), " commands"))
        self._show_status()

    def _show_no_index(self) -> None:
        ov = self.overview
        where = ov.db_path if ov else str(self.app.config.db_path)
        self._show_empty(Content.assemble(
            ("No index yet.", "bold $text-warning"), "\n\n",
            "memlens has not indexed ", safe(str(self.app.config.root), "bold"),
            " yet (the index goes to ", safe(where, "dim"), ").\n\n",
            "Press ", ("ctrl+r", "bold $text-accent"), " to build it now (or ",
            ("F2", "bold $text-accent"), " → Reindex). You can keep typing while it runs; ",
            ("F4", "bold $text-accent"), " shows what will be indexed, ",
            ("ctrl+o", "bold $text-accent"), " imports an export (WhatsApp, Slack, mbox…)."))

    def _show_no_results(self) -> None:
        r = self.request
        lines: list[Content | str | tuple[str, str]] = [
            ("Nothing found for ", "bold"), safe(f"“{one_line(r.query)}”", "bold"), "\n\n",
            "Try:\n"]
        active = self._filter_summary()
        if active:
            lines += ["  • ", ("ctrl+l", "bold $text-accent"), " clear the filters (",
                      safe(", ".join(active)), ")\n"]
        if r.mode != "keyword":
            lines += ["  • ", ("ctrl+t", "bold $text-accent"),
                      " switch mode (keyword mode matches exact words)\n"]
        else:
            lines += ["  • ", ("ctrl+t", "bold $text-accent"),
                      " switch to hybrid or semantic mode (finds related wording)\n"]
        lines += ["  • fewer or other words, or a \"quoted phrase\"\n"]
        if self.overview is not None and not self.overview.exists:
            lines += ["  • ", ("ctrl+r", "bold $text-accent"), " build the index first\n"]
        self._show_empty(Content.assemble(*lines))
        self.preview.show_message(Content.styled("Nothing selected.", "dim"))

    def _filter_summary(self) -> list[str]:
        out = []
        facets = self.query_one(FacetList)
        chosen = facets.source_types
        if chosen is not None:
            out.append(f"types {len(chosen)}/{len(facets.available)}")
        if self.since or self.until:
            out.append(f"dates {self.since or '…'} – {self.until or '…'}")
        if self.person:
            out.append(f"person {self.person}")
        return out

    def _show_chips(self) -> None:
        parts: list[Content | str | tuple[str, str]] = []
        mode_style = "bold reverse $warning" if self.mode != "hybrid" else "bold reverse $primary"
        parts += [(f" {self.mode} ", mode_style)]
        if self.since or self.until:
            parts += [" ", (f" {self.since or '…'} – {self.until or '…'} ", "reverse $secondary")]
        if self.person:
            parts += [" ", Content.styled(f" ◆ {plain(self.person)} ", "reverse $accent",
                                          strip_control_codes=False)]
        self.query_one("#chips", Static).update(Content.assemble(*parts,
                                                                 strip_control_codes=False))

    def _show_status(self) -> None:
        parts: list[Content | str | tuple[str, str]] = []
        resp = self.response
        if self._seq != self._answered or self._timer is not None:
            parts.append(("searching…", "$text-accent"))
        if resp is not None:
            arms = resp.arms
            if resp.semantic_error:
                hint = (" — F2 → Re-embed" if resp.semantic_error == "embedder_mismatch"
                        else "")
                parts.append(Content.styled(f"arms: {plain(arms)}{hint}", "bold $text-warning"))
            elif self.mismatch is not None and resp.mode == "keyword":
                parts.append(("arms: keyword (embedder mismatch — F2 → Re-embed)",
                              "bold $text-warning"))
            else:
                parts.append(Content.assemble(("arms: ", "dim"),
                                              (plain(arms), "bold $text-success")))
            conf_style = "bold $text-success" if resp.confidence == "ok" else "bold $text-warning"
            parts.append(Content.assemble(("confidence: ", "dim"), (resp.confidence, conf_style)))
            more = "+" if self.more_available else ""
            parts.append(f"{len(self.results.results)}{more} results")
            if self.app.frozen:
                parts.append(("-- ms", "dim"))
            else:
                parts.append(f"{resp.timings_ms.get('total', 0):.0f} ms")
            if resp.index_transition and self.app.job is None:
                parts.append((f"index: {resp.index_transition} running", "$text-warning"))
        elif self.error is not None:
            parts.append(Content.styled("search unavailable: " + one_line(
                describe_error(self.error))[:120], "$text-error"))
        else:
            parts.append(("ready", "dim"))
        parts.append(Content.assemble(("mode: ", "dim"), self.mode))
        active = self._filter_summary()
        if active:
            parts.append(Content.styled("filters: " + ", ".join(active), "$text-accent"))
        self.query_one(StatusLine).show(parts)

    # -- preview --------------------------------------------------------------------------
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list is self.results:
            self._update_preview()
            if event.option_index >= self.results.option_count - 1:
                self.load_more()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list is self.results:
            self.remove_class("-hide-preview")
            self.preview.focus()

    def on_descendant_focus(self, event) -> None:
        if event.widget is self.results or event.widget is self.preview:
            self.query_one(QueryInput).remember(self.request.query)

    def refresh_preview(self) -> None:
        if self.preview.result is not None:
            self._update_preview()

    def _update_preview(self) -> None:
        result = self.results.current
        resp = self.response
        if result is None or resp is None:
            return
        person = None
        if result.injected:
            name = (result.metadata or {}).get("person")
            person = next((p for p in (self.overview.people if self.overview else [])
                           if p.name == name), None)
        terms = list(resp.terms or []) + list(result.matched_terms or [])
        self.preview.show_result(
            result, terms=terms, explain=self.app.explain, rank=self.results.highlighted + 1,
            total=len(self.results.results), rrf_k=resp.rrf_k, person=person)

    # -- actions --------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_file", "step", "edit", "copy"):
            return True if self.preview.chunk is not None else None
        return True

    def action_escape(self) -> None:
        query = self.query_one(QueryInput)
        if self.has_class("-show-facets") and self.focused is self.query_one(FacetList):
            self.remove_class("-show-facets")
        if self.focused is query and self.app.job is not None:
            self.app.action_cancel_job()
            return
        query.focus()

    def action_focus_query(self) -> None:
        self.query_one(QueryInput).focus()

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

    def action_cycle_mode(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self._show_chips()
        self.notify(f"Search mode: {self.mode}", timeout=2)
        self.schedule_search(0)

    def action_date_filter(self) -> None:
        def done(value: tuple[str | None, str | None] | None) -> None:
            if value is None:
                return
            self.since, self.until = value
            self._show_chips()
            self.schedule_search(0)
        self.app.push_screen(DateRangeScreen(self.since, self.until, self.app.now), done)

    def action_person_filter(self) -> None:
        def done(name: str | None) -> None:
            if name is None:
                return
            self.person = name or None
            self._show_chips()
            self.schedule_search(0)
        people = self.overview.people if self.overview else []
        error = self.overview.people_error if self.overview else None
        self.app.push_screen(PersonScreen(people, self.person, error), done)

    def action_clear_filters(self) -> None:
        self.since = self.until = self.person = None
        facets = self.query_one(FacetList)
        with self.prevent(SelectionList.SelectedChanged):
            facets.select_all()
        facets._update_subtitle()
        if self.mismatch is None:
            self.mode = "hybrid"
        self._show_chips()
        self.notify("Filters cleared", timeout=2)
        self.schedule_search(0)

    def action_toggle_preview(self) -> None:
        self.toggle_class("-hide-preview")

    def action_open_file(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        from .viewer import FileViewerScreen

        self.app.push_screen(FileViewerScreen(self.app.config.root, chunk,
                                              frozen=self.app.frozen))

    def action_step(self, direction: int) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        if chunk.get("injected"):
            self.notify("A profile has no neighbouring chunks.", timeout=3)
            return
        config = self.app.config
        self._neighbour_pending = True
        chunk_id, post = chunk["id"], self.post_message
        self.run_worker(lambda: neighbour_job(config, chunk_id, direction, post),
                        thread=True, group="neighbour", exclusive=True, exit_on_error=False)

    def on_neighbour_loaded(self, message: NeighbourLoaded) -> None:
        self._neighbour_pending = False
        if message.chunk is None:
            where = "first" if message.direction < 0 else "last"
            self.notify(f"This is the {where} chunk of the file.", timeout=3)
            return
        terms = list(self.response.terms) if self.response else []
        self.preview.show_chunk(message.chunk, terms=terms, position=message.position)

    def action_edit(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        from ..workers import chunk_lines, locate_chunk, read_source

        path = self.app.config.root / chunk["source_file"]
        line = None
        recorded = chunk_lines(chunk)
        if recorded is not None:
            line = recorded[0]
        else:
            try:
                lines, first, _ = read_source(path)
                span = locate_chunk(lines, chunk, first)
                line = span[0] + first + 1 if span else None
            except OSError:
                pass
        self.app.open_in_editor(path, line)

    def action_copy(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        self.app.copy_to_clipboard(chunk["content"])
        self.notify(f"Copied {len(chunk['content']):,} characters of "
                    f"{'the profile' if chunk.get('injected') else 'the chunk'}", timeout=2)

    # -- index jobs (driven by the app) ---------------------------------------------------
    def job_started(self, title: str, cancellable: bool) -> None:
        self.query_one(JobPanel).start(title, cancellable)
        self.show_infobar()

    def job_progress(self, progress: Any, elapsed: float) -> None:
        self.query_one(JobPanel).progress(progress, elapsed)

    def job_cancelling(self) -> None:
        self.query_one(JobPanel).cancelling()

    def job_ended(self, refresh: bool) -> None:
        self.query_one(JobPanel).stop()
        self.show_infobar()
        if refresh:
            self.reload_overview()
            if self.request.engine_query or self.error is not None:
                self.search_again()


def _mismatch_screen(error: BaseException):
    from .modals import MismatchScreen

    return MismatchScreen(error)
