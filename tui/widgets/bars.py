"""The header bar: what index is open (the status line is in ``status``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.content import Content
from textual.widgets import Static

from engine.display import plural

from .text import WordCut, human_bytes, plain


def display_path(path: Path) -> str:
    """A path with the home folder shown as ~."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


class InfoBar(Static):
    """memlens · root · chunks · embedder · index size."""

    def show(self, root: Path, overview: Any | None, job: str | None = None) -> None:
        parts: list[Content | str | tuple[str, str]] = [
            (" memlens ", "bold reverse $accent"), " ",
            Content.styled(plain(display_path(root)), "bold", strip_control_codes=False),
        ]
        sep = ("  │  ", "dim")
        watch = getattr(self.app, "watch_label", None)  # the app's watch mode, early: the
        if watch:  # line is cut at its right end
            parts += [sep, (f"◉ {watch}" if watch != "watch off" else watch,
                            "$text-success" if watch == "watching" else "dim")]
        if overview is None:
            parts += [sep, ("loading…", "dim")]
        elif overview.error:
            parts += [sep, Content.styled("index unreadable: " + plain(overview.error)[:200],
                                          "$text-error", strip_control_codes=False)]
        elif not overview.exists:
            parts += [sep, ("no index yet", "$text-warning")]
        else:
            parts += [sep, plural(overview.chunks, "chunk")]
            if overview.pending_embeddings:
                parts += [sep, (f"{plural(overview.pending_embeddings, 'embedding')} pending",
                                "bold $text-warning")]
            parts += [sep,
                      human_bytes(overview.db_bytes), sep,
                      (plain(overview.embedder or "no embedder yet"), "")]
        if job:
            parts += [sep, (f"⟳ {job}", "bold $text-warning")]
        # one fixed line: a repaint, no layout of the screen; cut after a whole word
        self.update(WordCut.of(Content.assemble(*parts, strip_control_codes=False)),
                    layout=False)
