"""The whole source file, opened at the chunk (read-only, line numbers, chunk selected)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea
from textual.widgets.text_area import Selection

from .. import keys
from ..widgets.text import human_bytes, plain, safe
from ..workers import chunk_lines, locate_chunk, read_source


class FileViewerScreen(Screen[None]):
    BINDINGS = keys.VIEWER

    def __init__(self, root: Path, chunk: dict, *, frozen: bool = False) -> None:
        super().__init__()
        self.root = root
        self.chunk = chunk
        self.path = root / chunk["source_file"]
        self.frozen = frozen
        self.span: tuple[int, int] | None = None  # 0-based lines in the TextArea

    def compose(self) -> ComposeResult:
        yield Static(id="viewer-title")
        area = TextArea("", read_only=True, show_line_numbers=True, soft_wrap=True,
                        id="viewer-text", highlight_cursor_line=False)
        if self.frozen:
            area.cursor_blink = False
        yield area
        yield Footer(compact=True)

    def on_mount(self) -> None:
        title = self.query_one("#viewer-title", Static)
        area = self.query_one(TextArea)
        try:
            recorded = chunk_lines(self.chunk)
            lines, first, cut = read_source(self.path, around=recorded[0] if recorded else None)
            span = locate_chunk(lines, self.chunk, first)
        except OSError as exc:
            title.update(Content.assemble((" file viewer ", "bold reverse $accent"), " ",
                                          safe(str(self.path), "bold"), "\n",
                                          safe(f"cannot open: {exc.strerror or exc}",
                                               "$text-error")))
            area.display = False
            return
        area.line_number_start = first + 1
        area.load_text("\n".join(plain(line, keep_newlines=False) for line in lines))
        self.span = span
        where = (f"chunk at lines {span[0] + first + 1}–{span[1] + first + 1}" if span
                 else "chunk position unknown: showing the top")
        size = human_bytes(self.path.stat().st_size)
        title.update(Content.assemble(
            (" file viewer ", "bold reverse $accent"), " ",
            safe(self.chunk["source_file"], "bold $text-primary"),
            (f"  ·  {len(lines):,} lines  ·  {size}  ·  ", "dim"), (where, "$text-accent"),
            ("  ·  (window of the file)" if cut else "", "$text-warning"),
            strip_control_codes=False))
        area.focus()
        self.call_after_refresh(self.action_center)

    def action_center(self) -> None:
        area = self.query_one(TextArea)
        if self.span is None:
            area.move_cursor((0, 0))
            return
        start, end = self.span
        end = min(end, area.document.line_count - 1)
        start = min(start, end)
        area.selection = Selection((end, len(area.document.get_line(end))), (start, 0))
        area.scroll_to(y=max(area.wrapped_document.location_to_offset((start, 0)).y - 2, 0),
                       animate=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_edit(self) -> None:
        line = self.span[0] + 1 if self.span else None
        self.app.open_in_editor(self.path, line)
