"""The main screen's side of what the app tells it (``tui/messages``): the job's start,
progress and end, the embedder repaired or mismatched, the explain mode, a changed source and
the header (watch mode). The app never reaches into the screen: it posts these."""

from __future__ import annotations

from typing import Any

from ..messages import (
    EmbedderMismatchFound,
    EmbedderRepaired,
    ExplainToggled,
    HeaderChanged,
    JobCancelling,
    JobEnded,
    JobProgress,
    JobStarted,
    SourcesChanged,
)
from ..widgets.jobpanel import JobPanel


class AppEvents:
    """Mixed into ``MainScreen``: uses its ``session``, ``mismatch``, ``preview``,
    ``show_infobar``, ``reload_overview``, ``search_again``, ``_mismatch_found``,
    ``_update_preview`` and ``_show_chips``, and the Screen's ``query_one``."""

    session: Any
    mismatch: Any
    preview: Any
    query_one: Any
    show_infobar: Any
    reload_overview: Any
    search_again: Any
    _mismatch_found: Any
    _update_preview: Any
    _show_chips: Any

    def on_job_started(self, message: JobStarted) -> None:
        self.query_one(JobPanel).start(message.title, message.cancellable)
        self.show_infobar()

    def on_job_progress(self, message: JobProgress) -> None:
        self.query_one(JobPanel).progress(message.progress, message.elapsed)

    def on_job_cancelling(self, _: JobCancelling) -> None:
        self.query_one(JobPanel).cancelling()

    def on_job_ended(self, message: JobEnded) -> None:
        self.query_one(JobPanel).stop()
        self.show_infobar()
        if message.refresh:
            self.reload_overview()
            if self.session.request.asks or self.session.error is not None:
                self.search_again()

    def on_embedder_repaired(self, _: EmbedderRepaired) -> None:
        if self.mismatch is not None:
            self.mismatch = None
            self.session.filters.mode = "hybrid"
            self._show_chips()

    def on_embedder_mismatch_found(self, message: EmbedderMismatchFound) -> None:
        self.mismatch = None  # offer the re-embed again
        self._mismatch_found(message.error)

    def on_explain_toggled(self, _: ExplainToggled) -> None:
        if self.preview.result is not None:
            self._update_preview()

    def on_sources_changed(self, _: SourcesChanged) -> None:
        self.search_again()

    def on_header_changed(self, _: HeaderChanged) -> None:
        self.show_infobar()
