"""The progress panel of a running reindex or maintenance."""

from __future__ import annotations

from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import ProgressBar, Static

from ..messages import ImportProgress
from .text import human_count, one_line


def eta_text(done: int, total: int, elapsed: float) -> str:
    if done <= 0 or total <= 0 or done >= total or elapsed <= 0:
        return "ETA —"
    seconds = elapsed / done * (total - done)
    m, s = divmod(int(seconds + 0.5), 60)
    return f"ETA {m}:{s:02d}"


class JobPanel(Vertical):
    """Hidden until a job runs; shows files done/total, chunks embedded, current file, ETA."""

    def compose(self):
        yield Static(id="job-text")
        yield ProgressBar(id="job-bar", show_eta=False)

    def start(self, title: str, cancellable: bool) -> None:
        self.title_text = title
        self.cancellable = cancellable
        self.display = True
        self._phase, self._phase_start = None, 0.0
        # no bar until a total is known: the indeterminate bar animates at the frame rate, and
        # that repainting took the GIL from the reindex thread (a scan ran 10x slower)
        bar = self.query_one(ProgressBar)
        bar.update(total=None, progress=0)
        bar.display = False
        self._text(Content.assemble((title, "bold"), ("  starting…", "dim")))

    def progress(self, p: Any, elapsed: float) -> None:
        if isinstance(p, ImportProgress):
            self.import_progress(p, elapsed)
            return
        bar = self.query_one(ProgressBar)
        if p.phase != getattr(self, "_phase", None):  # the ETA of each phase on its own pace
            self._phase, self._phase_start = p.phase, elapsed
        phase_elapsed = elapsed - self._phase_start
        if p.phase == "re-embed":  # searches stay hybrid on the current vectors meanwhile
            done, total = p.pending_done, p.pending_total
            what = (f"re-embedding {human_count(done)}/{human_count(total)} "
                    "(searching the current vectors)")
        elif p.phase in ("pending", "messages"):
            done, total = p.pending_done, p.pending_total
            which = "pending chunks" if p.phase == "pending" else "chat windows' messages"
            what = f"embedding {which} {human_count(done)}/{human_count(total)}"
        elif p.phase in ("index", "done"):
            done, total = p.files_done, p.files_total
            what = f"files {human_count(done)}/{human_count(total)}"
        elif p.phase == "migrate":
            done, total = p.pending_done, p.pending_total
            what = "upgrading the index to this version (once)…"
        elif p.phase == "compact":
            done, total = 0, 0
            what = "handing back the space the upgrade freed (once)…"
        else:
            done, total, what = 0, 0, "scanning the data root…"
        if total:
            bar.display = True
            bar.update(total=total, progress=done)
        parts: list[Content | str | tuple[str, str]] = [
            (self.title_text, "bold"), "  ", what, ("  ·  ", "dim"),
            f"{human_count(p.chunks_embedded)} chunks embedded",
        ]
        if total:
            parts += [("  ·  ", "dim"), eta_text(done, total, phase_elapsed)]
        if p.current_file:
            parts += ["\n", ("now: ", "dim"), (one_line(p.current_file), "italic")]
        self._text(Content.assemble(*parts, strip_control_codes=False))

    def import_progress(self, p: ImportProgress, elapsed: float) -> None:
        """An import: files of the export read (done/total), the export being read."""
        if p.total:
            bar = self.query_one(ProgressBar)
            bar.display = True
            bar.update(total=p.total, progress=p.done)
        parts: list[Content | str | tuple[str, str]] = [
            (self.title_text, "bold"), "  ",
            f"reading the export: files {human_count(p.done)}/{human_count(p.total)}"]
        if p.total:
            parts += [("  ·  ", "dim"), eta_text(p.done, p.total, elapsed)]
        if p.source:
            parts += ["\n", ("from: ", "dim"), (one_line(p.source), "italic")]
        self._text(Content.assemble(*parts, strip_control_codes=False))

    def cancelling(self) -> None:
        self._text(Content.assemble((self.title_text, "bold"),
                                    ("  cancelling at the next file boundary…", "$text-warning")))

    def stop(self) -> None:
        self.display = False

    def _text(self, content: Content) -> None:
        hint = ("   ctrl+g cancels" if getattr(self, "cancellable", False)
                else "   (cannot be cancelled)")
        self.query_one("#job-text", Static).update(
            Content.assemble(content, (hint, "dim"), strip_control_codes=False))
