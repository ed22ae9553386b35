"""The main screen's actions on the chunk the preview shows: the whole file, the chunks before
and after it, the editor, the clipboard."""

from __future__ import annotations

from typing import Any

from ..messages import NeighbourLoaded
from ..workers import neighbour_job
from .answer_wait import waits_for_answer


class ChunkActions:
    """Mixed into ``MainScreen``: uses its ``preview``, ``session`` and ``app``, and the
    Screen's ``notify``, ``post_message`` and ``run_worker``."""

    preview: Any
    session: Any
    app: Any
    notify: Any
    post_message: Any
    run_worker: Any

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_file", "step", "edit", "copy"):
            return True if self.preview.chunk is not None else None  # shown, but disabled
        return True

    @waits_for_answer
    def action_open_file(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        from .viewer import FileViewerScreen

        response = self.session.response
        terms = list(response.terms or []) if response is not None else []
        self.app.push_screen(FileViewerScreen(chunk, frozen=self.app.frozen, terms=terms))

    def action_step(self, direction: int) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        if chunk.get("injected"):
            self.notify("A profile has no neighbouring chunks.", timeout=3)
            return
        config = self.app.config
        chunk_id, post = chunk["id"], self.post_message
        self.run_worker(lambda: neighbour_job(config, chunk_id, direction, post),
                        thread=True, group="neighbour", exclusive=True, exit_on_error=False)

    def on_neighbour_loaded(self, message: NeighbourLoaded) -> None:
        if message.chunk is None:
            where = "first" if message.direction < 0 else "last"
            self.notify(f"This is the {where} chunk of the file.", timeout=3)
            return
        response = self.session.response
        terms = list(response.terms) if response is not None else []
        self.preview.show_chunk(message.chunk, terms=terms, position=message.position)

    @waits_for_answer
    def action_edit(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        from engine.library import ReadRefused

        from ..workers import chunk_lines, locate_chunk, read_source, source_path

        try:
            path = source_path(self.app.config, chunk["source_file"])
        except ReadRefused as exc:
            self.notify(f"Cannot open it: {exc}", severity="warning", timeout=4, markup=False)
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
        self.app.open_in_editor(path, line)

    @waits_for_answer
    def action_copy(self) -> None:
        chunk = self.preview.chunk
        if chunk is None:
            return
        self.app.copy_to_clipboard(chunk["content"])
        self.notify(f"Copied {len(chunk['content']):,} characters of "
                    f"{'the profile' if chunk.get('injected') else 'the chunk'}", timeout=2)

