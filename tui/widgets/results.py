"""The result list: two lines per result, keyboard first (vim keys, pages, g/G); a row that
stands for chunks of the same text (engine/rank/repeats.py) says "3×" and unfolds them (space)
as one-line rows of their own, each previewed and opened like a result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.content import Content
from textual.message import Message
from textual.widgets.option_list import Option

from .. import keys
from .badges import arms_badge, decay_badge, type_badge
from .text import WordCut, bar, one_line, snippet_content
from .vim_list import VimOptionList

SCORE_BAR_WIDTH = 6


def result_row(rank: int, result: Any, top_score: float, date_width: int = 10,
               unfolded: bool = False) -> Content:
    """Line 1: rank, score bar, decay, type, date (of its messages inside a date filter),
    arms, "▸3×" when it stands for chunks of the same text (▾ when they are shown under it),
    file; line 2: the snippet."""
    fraction = (result.score / top_score) if top_score > 0 else 0.0
    decay = result.decay
    # no score anywhere (browsing by date, newest first: the status says so): no bar column
    score = ([(bar(fraction, SCORE_BAR_WIDTH), "$text-primary"),
              ("↓", "bold $text-warning") if getattr(result, "placed", None) else " ", " "]
             if top_score > 0 else [])
    head = [
        (f"{rank:>3} ", "bold" if rank <= 3 else "dim"),
        *score,
        decay_badge(decay),
        " ",
        type_badge(result.source_type),
        " ",
        ((result.date_shown or "undated").ljust(date_width), "" if result.date_shown else "dim"),
        " ",
        arms_badge(result.found_by, result.injected),
        " ",
    ]
    if getattr(result, "repeats", None):  # before the file name, which a narrow pane cuts
        head.append((f"{'▾' if unfolded else '▸'}{len(result.repeats) + 1}× ",
                     "bold $text-accent"))
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


def repeat_row(repeat: Any, place: int, total: int, date_width: int = 10) -> Content:
    """One line under an unfolded row: a chunk of the same text, its date, type and file."""
    day = repeat.content_date
    return Content.assemble(
        (f"    ↳ {place}/{total} ", "$text-accent"),
        ((day or "undated").ljust(date_width), "" if day else "dim"), " ",
        type_badge(repeat.source_type), " ",
        (one_line(repeat.source_file.rsplit("/", 1)[-1]), "dim"),
        ("  same text", "dim italic"), strip_control_codes=False)


class ResultList(VimOptionList):
    """Results as options, and under an unfolded row its repeats, one option each; a line
    wider than the list is cut after a whole word, never mid-word."""

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
        self.unfolded: set[str] = set()  # ids of the rows whose repeats are shown
        # per option: (index into results, index into its repeats or None for the row itself)
        self._rows: list[tuple[int, int | None]] = []

    def show(self, results: list[Any], keep: str | None = None) -> None:
        """Replace the rows; the highlight goes to the result with id ``keep`` if it is still
        there (a longer page of the same search, whose unfolded rows stay unfolded), else to
        the first."""
        self.results = list(results)
        self.jump_to_end = False
        ids = {r.id for r in results}
        self.unfolded = self.unfolded & ids if keep is not None else set()
        self._lay_out()
        if results:
            self.highlighted = next((self._option_of(i) for i, r in enumerate(results)
                                     if r.id == keep), 0)
        self._placed = self.highlighted

    def _lay_out(self) -> None:
        top = max((r.score for r in self.results), default=0.0)
        date_width = max(10, max((len(r.date_shown or "") for r in self.results), default=10))
        prompts, rows = [], []
        for i, r in enumerate(self.results):
            unfolded = r.id in self.unfolded
            prompts.append(result_row(i + 1, r, top, date_width, unfolded))
            rows.append((i, None))
            if unfolded:
                for j, repeat in enumerate(r.repeats):
                    prompts.append(repeat_row(repeat, j + 2, len(r.repeats) + 1, date_width))
                    rows.append((i, j))
        self._rows = rows
        self.set_options([Option(WordCut.of(prompt)) for prompt in prompts])

    def _option_of(self, index: int) -> int:
        return next(o for o, (i, j) in enumerate(self._rows) if i == index and j is None)

    def action_toggle_repeats(self) -> None:
        """Unfold the highlighted row's repeats under it, or fold them back (from the row or
        from one of them: the highlight goes back to the row)."""
        if self.highlighted is None or not self._rows:
            return
        index, _ = self._rows[self.highlighted]
        result = self.results[index]
        if not getattr(result, "repeats", None):
            self.notify("This row is one chunk: no other has its text.", timeout=2)
            return
        self.unfolded ^= {result.id}
        self._lay_out()
        self.highlighted = self._option_of(index)
        self._placed = self.highlighted  # unfolding the last row asks for no next page

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
    def rank(self) -> int | None:
        """The 1-based rank of the highlighted row (of the row it is a repeat of)."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self._rows):
            return None
        return self._rows[self.highlighted][0] + 1

    @property
    def current(self) -> Any | None:
        """The highlighted result (the row a highlighted repeat is folded into)."""
        rank = self.rank
        return None if rank is None else self.results[rank - 1]

    @property
    def current_repeat(self) -> tuple[Any, int] | None:
        """(the repeat, its 1-based place in its row's chunks: the row is 1) when a repeat
        is highlighted, else None."""
        if self.highlighted is None or not 0 <= self.highlighted < len(self._rows):
            return None
        index, j = self._rows[self.highlighted]
        return None if j is None else (self.results[index].repeats[j], j + 2)
