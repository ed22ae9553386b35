"""The result list: two lines per result, keyboard first (vim keys, pages, g/G)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.widgets.option_list import Option

from .. import keys
from .badges import arms_badge, decay_badge, type_badge
from .text import bar, one_line, snippet_content
from .vim_list import VimOptionList

SCORE_BAR_WIDTH = 6


def result_row(rank: int, result: Any, top_score: float, date_width: int = 10) -> Content:
    """Line 1: rank, score bar, decay, type, date (of its messages inside a date filter),
    arms, file; line 2: the snippet."""
    fraction = (result.score / top_score) if top_score > 0 else 0.0
    decay = result.decay
    head = [
        (f"{rank:>3} ", "bold" if rank <= 3 else "dim"),
        (bar(fraction, SCORE_BAR_WIDTH), "$text-primary"),
        " ",
        decay_badge(decay),
        " ",
        type_badge(result.source_type),
        " ",
        ((result.date_shown or "undated").ljust(date_width), "" if result.date_shown else "dim"),
        " ",
        arms_badge(result.found_by, result.injected),
        " ",
    ]
    if result.injected:
        person = (result.metadata or {}).get("person") or result.id
        head.append(("injected profile: ", "bold #ffd700"))
        head.append((one_line(person), "bold"))
    else:
        where = one_line(result.source_file.rsplit("/", 1)[-1])  # the preview has the path
        if result.section_path:
            where += " › " + " › ".join(one_line(s) for s in result.section_path)
        head.append((where, "dim"))
        if result.stale:
            head.append(("  stale", "$text-warning"))
        elif result.unread_source:  # its source's folder is not read now: shown as indexed
            head.append(("  not read now", "$text-warning"))
    snippet = snippet_content(result)
    return Content.assemble(*head, "\n     ", snippet, strip_control_codes=False)


class ResultList(VimOptionList):
    """Results as options; the id of each option is the chunk id."""

    BINDINGS = keys.RESULTS
    ROW_LINES = 2

    @dataclass
    class EndAsked(Message):
        """G on the last row: the next page, if there is one."""

    def __init__(self, **kwargs) -> None:
        super().__init__(markup=False, **kwargs)
        self.results: list[Any] = []
        self.jump_to_end = False  # G asked for the end: the next page lands on its last row
        self._placed: int | None = None

    def show(self, results: list[Any], keep: str | None = None) -> None:
        """Replace the rows; the highlight goes to the result with id ``keep`` if it is still
        there (a longer page of the same search), else to the first."""
        top = max((r.score for r in results), default=0.0)
        self.results = list(results)
        self.jump_to_end = False
        width = max((len(r.date_shown or "") for r in results), default=10)
        self.set_options(Option(result_row(i, r, top, max(width, 10)))
                         for i, r in enumerate(results, 1))
        if results:
            self.highlighted = next((i for i, r in enumerate(results) if r.id == keep), 0)
        self._placed = self.highlighted

    def reached_end(self, index: int) -> bool:
        """The cursor moved onto the last row (where ``show`` placed it does not count: a page
        that lands on its last row must not ask for the next one by itself)."""
        placed, self._placed = self._placed, None
        return index >= self.option_count - 1 and index != placed

    def action_last(self) -> None:
        self.jump_to_end = True
        if self.highlighted is not None and self.highlighted >= self.option_count - 1:
            self.post_message(self.EndAsked())
        else:
            super().action_last()

    @property
    def current(self) -> Any | None:
        if self.highlighted is None or not 0 <= self.highlighted < len(self.results):
            return None
        return self.results[self.highlighted]
