"""The main screen's actions on the chunk the preview shows: the whole file, the chunks before
and after it, the editor, the clipboard. The screen holds a ``ChunkController`` as
``chunk_actions``; its ``action_*`` methods (found by name by Textual) call it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..messages import NeighbourLoaded
from ..workers import neighbour_job

if TYPE_CHECKING:
    from .main_host import MainHost

# the actions on the shown chunk (this controller's and the time controller's): shown, but
# disabled, while the preview shows no chunk
CHUNK_ACTIONS = ("open_file", "step", "edit", "copy", "timeline_here", "conversation")


class ChunkController:
    """Opens, steps through, edits and copies the chunk in the main screen's preview."""

    def __init__(self, screen: MainHost) -> None:
        self.screen = screen

    def open_file(self) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        from .viewer import FileViewerScreen

        response = screen.session.response
        terms = list(response.terms or []) if response is not None else []
        screen.app.push_screen(FileViewerScreen(chunk, frozen=screen.app.frozen, terms=terms))

    def step(self, direction: int) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        if chunk.get("injected"):
            screen.notify("A profile has no neighbouring chunks.", timeout=3)
            return
        config = screen.app.config
        chunk_id, post = chunk["id"], screen.post_message
        screen.run_worker(lambda: neighbour_job(config, chunk_id, direction, post),
                          thread=True, group="neighbour", exclusive=True, exit_on_error=False)

    def neighbour_loaded(self, message: NeighbourLoaded) -> None:
        screen = self.screen
        if message.chunk is None:
            where = "first" if message.direction < 0 else "last"
            screen.notify(f"This is the {where} chunk of the file.", timeout=3)
            return
        response = screen.session.response
        terms = list(response.terms) if response is not None else []
        screen.preview.show_chunk(message.chunk, terms=terms, position=message.position)

    def edit(self) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        from engine.library import ReadRefused

        from ..workers import chunk_lines, locate_chunk, read_source, source_path

        try:
            path = source_path(screen.app.config, chunk["source_file"])
        except ReadRefused as exc:
            screen.notify(f"Cannot open it: {exc}", severity="warning", timeout=4, markup=False)
            return
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
        screen.app.open_in_editor(path, line)

    def copy(self) -> None:
        screen = self.screen
        chunk = screen.preview.chunk
        if chunk is None:
            return
        screen.app.copy_to_clipboard(chunk["content"])
        screen.notify(f"Copied {len(chunk['content']):,} characters of "
                      f"{'the profile' if chunk.get('injected') else 'the chunk'}", timeout=2)
