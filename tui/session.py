"""The search session behind the main screen: what to ask the engine, and which answer to show.

A plain class (no Textual) so its decisions are tested on their own (tests/app/test_session.py):

- debounce: the first change after a pause searches at once (no added latency for a single
  keystroke or a facet toggle); changes that follow within the delay are coalesced into one
  trailing search when the typing pauses;
- sequence numbers: every search asked for gets the next number; an answer whose number is
  not the latest is dropped, so a slow, stale answer never replaces a newer one;
- paging: a search asks for one page (``PAGE_SIZES[0]``: the engine's work grows with the
  limit); at the end of the list the same search runs for the next page size and only its new
  results are appended (the rows shown stay: a deeper search may rank its head slightly
  differently), up to that page size;
- the filters (mode, dates, person) that, with the query, the checked types and the checked
  source, make the request.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.search_options import MODES

DEBOUNCE_SECONDS = 0.15
FILTER_KEYS = ("mode", "since", "until", "person")  # the fields of ChipFilters, as saved

# results per search: the first page (what a search as you type asks for: the engine's work
# grows with it, depth = 5 x limit per arm), then each "more" when the cursor reaches the end
PAGE_SIZES = (20, 50, 100, 200)


@dataclass(frozen=True)
class SearchRequest:
    """What the user asked for: the query box plus every filter."""

    query: str = ""
    source_types: tuple[str, ...] | None = None  # None: every type
    path_prefix: str | None = None  # one source in place ("@vault/"); None: everywhere
    mode: str = "hybrid"
    since: str | None = None
    until: str | None = None
    person: str | None = None
    limit: int = PAGE_SIZES[0]

    @property
    def engine_query(self) -> str:
        """The text sent to the engine (the person is a filter of its own, ``person=``)."""
        return self.query.strip()

    @property
    def asks(self) -> bool:
        """Something to search: a query, or a person alone (their chunks, newest first)."""
        return bool(self.engine_query or self.person)


@dataclass
class ChipFilters:
    """Mode, date range and person: what the chips show (types and sources live in the
    facets)."""

    mode: str = "hybrid"
    since: str | None = None
    until: str | None = None
    person: str | None = None

    def summary(self, chosen_types: int | None, all_types: int,
                source: str | None = None) -> list[str]:
        """The active filters in words ("types 3/25", "source @vault", "dates 2026-01-01 – …")."""
        out = []
        if chosen_types is not None:
            out.append(f"types {chosen_types}/{all_types}")
        if source:
            out.append(f"source {source.rstrip('/')}")
        if self.since or self.until:
            out.append(f"dates {self.since or '…'} – {self.until or '…'}")
        if self.person:
            out.append(f"person {self.person}")
        return out


class SearchSession:
    """``change()`` on every edit, ``fire()`` when the debounce timer runs out, ``accept()`` /
    ``fail()`` with each answer; ``rows`` is what the result list shows."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 debounce: float = DEBOUNCE_SECONDS) -> None:
        self.clock = clock
        self.debounce = debounce
        self.filters = ChipFilters()
        self.request = SearchRequest()  # the latest asked for
        self.response: Any = None
        self.error: BaseException | None = None
        self.rows: list[Any] = []
        self.seq = 0  # the latest search asked for
        self.answered = 0  # the latest search whose answer was applied
        self.waiting = False  # a trailing search waits for its timer
        self._last_fire = float("-inf")
        self._page: tuple[int, str | None] | None = None  # (seq, id to keep) of a next page

    # -- state -------------------------------------------------------------------------------
    @property
    def idle(self) -> bool:
        """No search waiting for its timer or its answer."""
        return not self.waiting and self.answered == self.seq

    @property
    def searching(self) -> bool:
        return not self.idle

    def request_for(self, query: str, source_types: tuple[str, ...] | None,
                    path_prefix: str | None = None) -> SearchRequest:
        f = self.filters
        return SearchRequest(query=query, source_types=source_types, path_prefix=path_prefix,
                             mode=f.mode, since=f.since, until=f.until, person=f.person)

    # -- debounce -----------------------------------------------------------------------------
    def change(self, delay: float | None = None) -> float | None:
        """Something the request depends on changed: None to search now (the leading edge),
        else the delay after which ``fire()`` should run (restarting any earlier timer)."""
        delay = self.debounce if delay is None else delay
        if not self.waiting and self.clock() - self._last_fire >= delay:
            return None
        self.waiting = True
        return max(delay, 0.01)

    def fire(self, request: SearchRequest, *, force: bool = False) -> int | None:
        """Ask for ``request`` (the timer ran out, or a change searches at once): its sequence
        number, or None when exactly this was asked already. ``force`` asks again anyway (the
        index or a file changed under the same request)."""
        self.waiting = False
        self._last_fire = self.clock()
        if request == self.request and self.error is None and not force:
            return None
        return self.begin(request)

    def begin(self, request: SearchRequest, *, page: bool = False, keep: str | None = None
              ) -> int:
        """A new sequence number for ``request`` (``page``: a next page of the rows shown)."""
        self.request = request
        self.seq += 1
        self._page = (self.seq, keep) if page else None
        return self.seq

    def settle(self, seq: int) -> None:
        """A request answered without the engine (empty query, no type checked)."""
        if seq == self.seq:
            self.answered = seq
            self.response, self.error, self.rows = None, None, []

    # -- answers ------------------------------------------------------------------------------
    def accept(self, seq: int, response: Any) -> list[Any] | None:
        """The rows to show for this answer, or None when it is stale. A next page keeps the
        rows shown and appends its new ones, up to its page size."""
        if seq != self.seq:
            return None
        self.answered = seq
        self.response, self.error = response, None
        results = list(response.results)
        if self._page is not None and self._page[0] == seq:
            seen = {r.id for r in self.rows}
            results = (self.rows + [r for r in results if r.id not in seen])[:self.request.limit]
        self.rows = results
        return results

    def fail(self, seq: int, error: BaseException) -> str | None:
        """None when stale; "page" when a next page failed (the page shown stays and the
        request shrinks back to it); else "search"."""
        if seq != self.seq:
            return None
        self.answered = seq
        if self._page is not None and self._page[0] == seq:
            self.request = replace(self.request, limit=len(self.rows) or PAGE_SIZES[0])
            return "page"
        self.response, self.error, self.rows = None, error, []
        return "search"

    # -- paging -------------------------------------------------------------------------------
    @property
    def page_full(self) -> bool:
        """The answer filled its page: the engine may hold more."""
        return self.response is not None and len(self.rows) >= self.request.limit

    @property
    def more_available(self) -> bool:
        """A longer page can be asked for."""
        return self.page_full and self.request.limit < PAGE_SIZES[-1]

    @property
    def at_cap(self) -> bool:
        """The largest page is full: more may exist, but only a narrower query shows them."""
        return self.page_full and self.request.limit >= PAGE_SIZES[-1]

    def next_page(self, keep: str | None) -> int | None:
        """The same search for the next page size (``keep``: the row to keep highlighted)."""
        if not self.idle or not self.more_available:
            return None
        limit = next(n for n in PAGE_SIZES if n > self.request.limit)
        return self.begin(replace(self.request, limit=limit), page=True, keep=keep)

    def kept(self, seq: int) -> str | None:
        """The row to keep highlighted when the answer to ``seq`` is shown."""
        return self._page[1] if self._page is not None and self._page[0] == seq else None

    # -- filters ------------------------------------------------------------------------------
    def cycle_mode(self) -> str:
        f = self.filters
        f.mode = MODES[(MODES.index(f.mode) + 1) % len(MODES)]
        return f.mode

    def restore(self, remembered: dict[str, Any]) -> None:
        """The filters saved at the last quit (``tui/state_file.py``); an unknown mode is left out."""
        f = self.filters
        for key in FILTER_KEYS:
            value = remembered.get(key)
            if key in remembered and (key != "mode" or value in MODES):
                setattr(f, key, value)

    def clear_filters(self, keep_mode: bool) -> None:
        self.filters = ChipFilters(mode=self.filters.mode if keep_mode else "hybrid")
