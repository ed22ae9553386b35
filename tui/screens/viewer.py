"""The whole source file, opened at the chunk (read-only, line numbers, chunk selected).

Keys as in ``less``/vim: j/k scroll a line, g/G go to the top/bottom, ``/`` searches the file
(n/N the next/previous match); the query's terms are highlighted throughout.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.widgets.text_area import Selection

from .. import keys
from ..widgets.footer import MemlensFooter
from ..widgets.text import human_bytes, plain, safe, shown_path
from ..widgets.viewer_text import ViewerText, find_all
from ..workers import chunk_lines, locate_chunk, read_source, source_path


def span_words(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}–{last}"


class FileViewerScreen(Screen[None]):
    BINDINGS = keys.VIEWER

    def __init__(self, chunk: dict, *, frozen: bool = False,
                 terms: list[str] | tuple[str, ...] = ()) -> None:
        super().__init__()
        self.chunk = chunk
        self.path: Path | None = None  # once the read facade allows it (on mount)
        self.frozen = frozen
        self.terms = tuple(terms)
        self.span: tuple[int, int] | None = None  # 0-based lines in the TextArea
        self.matches: list[tuple[int, int]] = []  # (row, column) of the search's matches
        self.match: int | None = None  # the index of the match shown

    def compose(self) -> ComposeResult:
        yield Static(id="viewer-title")
        area = ViewerText("", read_only=True, show_line_numbers=True, soft_wrap=True,
                          id="viewer-text", highlight_cursor_line=False, terms=self.terms)
        if self.frozen:
            area.cursor_blink = False
        yield area
        search = Input(placeholder="search the file (enter finds, esc closes)",
                       id="viewer-search", select_on_focus=False)
        search.display = False
        yield search
        yield Static(id="viewer-found")
        yield MemlensFooter(compact=True)

    @property
    def area(self) -> ViewerText:
        return self.query_one(ViewerText)

    def on_mount(self) -> None:
        title = self.query_one("#viewer-title", Static)
        area = self.area
        self.query_one("#viewer-found").display = False
        from engine.library import ReadRefused

        try:
            path = source_path(self.app.config, self.chunk["source_file"])
            recorded = chunk_lines(self.chunk)
            lines, first, cut = read_source(path, around=recorded[0] if recorded else None)
            span = locate_chunk(lines, self.chunk, first)
            size = human_bytes(path.stat().st_size)
        except (OSError, ReadRefused) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            title.update(Content.assemble((" file viewer ", "bold reverse $accent"), " ",
                                          safe(shown_path(self.chunk["source_file"]), "bold"), "\n",
                                          safe(f"cannot open: {why}", "$text-error")))
            area.display = False
            return
        self.path = path
        area.line_number_start = first + 1
        area.load_text("\n".join(plain(line, keep_newlines=False) for line in lines))
        self.span = span
        where = ("chunk at " + span_words(span[0] + first + 1, span[1] + first + 1) if span
                 else "chunk position unknown: showing the top")
        n = len(lines)
        title.update(Content.assemble(
            (" file viewer ", "bold reverse $accent"), " ",
            safe(shown_path(self.chunk["source_file"]), "bold $text-primary"),
            (f"  ·  {n:,} line{'s' if n != 1 else ''}  ·  {size}  ·  ", "dim"),
            (where, "$text-accent"),
            ("  ·  (window of the file)" if cut else "", "$text-warning"),
            strip_control_codes=False))
        area.focus()
        self.call_after_refresh(self.action_center)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("next_match", "scroll", "top", "bottom", "search"):
            # typed into the search box, these are letters
            return not self.query_one("#viewer-search", Input).has_focus
        return True

    def action_center(self) -> None:
        area = self.area
        if self.span is None:
            area.move_cursor((0, 0))
            return
        start, end = self.span
        end = min(end, area.document.line_count - 1)
        start = min(start, end)
        area.selection = Selection((end, len(area.document.get_line(end))), (start, 0))
        self._show_row(start)

    def _show_row(self, row: int) -> None:
        area = self.area
        area.scroll_to(y=max(area.wrapped_document.location_to_offset((row, 0)).y - 2, 0),
                       animate=False)

    def action_scroll(self, lines: int) -> None:
        self.area.scroll_relative(y=lines, animate=False)

    def action_top(self) -> None:
        self.area.move_cursor((0, 0))
        self.area.scroll_home(animate=False)

    def action_bottom(self) -> None:
        area = self.area
        area.move_cursor((area.document.line_count - 1, 0))
        area.scroll_end(animate=False)

    # -- search ---------------------------------------------------------------------------
    def action_search(self) -> None:
        box = self.query_one("#viewer-search", Input)
        box.value = ""  # as in vim: a new search; n / N repeat the last one
        box.display = True
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        area = self.area
        area.set_search(text)
        self.matches = find_all(area.document.lines, text)
        self.match = None
        event.input.display = False
        area.focus()
        if not self.matches:
            self._found(f"not found: {text}" if text else None, error=bool(text))
            return
        here = area.cursor_location
        self.match = next((i for i, m in enumerate(self.matches) if m >= here), 0)
        self._go()

    def on_key(self, event) -> None:
        box = self.query_one("#viewer-search", Input)
        if event.key == "escape" and box.has_focus:
            box.display = False
            self.area.focus()
            event.stop()

    def action_next_match(self, step: int) -> None:
        if not self.matches:
            self._found("no search yet: / searches the file" if not self.area.search_text
                        else f"not found: {self.area.search_text}", error=True)
            return
        self.match = ((self.match or 0) + step) % len(self.matches) if self.match is not None \
            else 0
        self._go()

    def _go(self) -> None:
        row, col = self.matches[self.match or 0]
        area = self.area
        area.selection = Selection((row, col), (row, col + len(area.search_text)))
        self._show_row(row)
        self._found(f"match {(self.match or 0) + 1} of {len(self.matches)} · "
                    "n next · N previous")

    def _found(self, text: str | None, *, error: bool = False) -> None:
        found = self.query_one("#viewer-found", Static)
        found.display = bool(text)
        found.update(safe(text or "", "$text-error" if error else "$text-accent"))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_edit(self) -> None:
        if self.path is None:
            return  # refused or unreadable: the title says why
        line = self.span[0] + 1 if self.span else None
        self.app.open_in_editor(self.path, line)
