"""The app's one background job, held by ``MemlensApp`` as ``app.jobs`` (a ``JobRunner``):
starting an index job or an import (refused while one runs), cancelling it, quitting while it
runs, and what the app does when it ends (a notification, the import's result dialog, the
searcher reopened). The job's work runs in ``tui/workers`` and only posts messages; the main
screen hears of the job through the messages of ``tui/messages``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .actions import JobKind
from .messages import (
    EmbedderMismatchFound,
    EmbedderRepaired,
    ImportRequest,
    JobCancelling,
    JobEnded,
    JobFailed,
    JobFinished,
    JobProgress,
    JobStarted,
)
from .summaries import cancelled, has_errors, import_summary, job_summary
from .workers import import_job, run_job

if TYPE_CHECKING:
    from engine.importers import ImportReport

    from .app_host import AppHost


@dataclass
class Job:
    kind: JobKind
    cancel: threading.Event
    label: str | None = None  # a more precise title ("Import whatsapp (dry run)")

    @property
    def title(self) -> str:
        return self.label or self.kind.title

    @property
    def cancellable(self) -> bool:
        return self.kind.cancellable


class JobRunner:
    """The one index job at a time: ``job`` is the running one (None when idle) and
    ``last_import`` the import request the dialog starts from."""

    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.job: Job | None = None
        self.last_import: ImportRequest | None = None  # the dialog starts from it

    @property
    def title(self) -> str | None:
        """The running job's title, or None."""
        return self.job.title if self.job else None

    def open_import(self) -> None:
        """The import dialog; the import then runs as a job (refused while one runs, and at
        once on the demo root: no dialog to fill first)."""
        from engine.importers import IMPORTERS

        from .screens.import_dialog import ImportScreen

        app = self.app
        if (app.refuse_on_demo_root("import") or self.refuse_busy()
                or isinstance(app.screen, ImportScreen)):
            return

        def chosen(request: ImportRequest | None) -> None:
            if request is not None:
                self.last_import = request
                self.start(JobKind.IMPORT, request)
        kinds = {k: IMPORTERS[k].description for k in sorted(IMPORTERS)}
        app.push_screen(ImportScreen(kinds, app.config.root, self.last_import), chosen)

    def refuse_busy(self) -> bool:
        """Say (a notification) that a job runs, if one does."""
        if self.job is None:
            return False
        hint = " or cancel it (ctrl+g)" if self.job.cancellable else ""
        self.app.notify(f"{self.job.title} is already running: wait for it to finish{hint}.",
                        title="Busy", severity="warning", markup=False)
        return True

    def start(self, kind: JobKind | str, request: ImportRequest | None = None) -> bool:
        """Start an index job (or an import of ``request``) in a thread worker; refuse (with a
        notification) while one runs."""
        kind = JobKind(kind)
        app = self.app
        if self.refuse_busy():
            return False
        if kind.maintenance and not app.config.db_path.exists():
            app.notify("There is no index to maintain yet: press ctrl+r to build it.",
                       severity="warning", markup=False)
            return False
        config, embedder, post = app.config, app.embedder, app.post_message
        if kind is JobKind.IMPORT:
            if request is None:
                raise ValueError("an import job needs its ImportRequest")
            label = f"Import {request.kind}" + (" (dry run)" if request.dry_run else "")
            job = self.job = Job(kind, threading.Event(), label)

            def work() -> None:
                import_job(request, config.root, post)
        else:
            job = self.job = Job(kind, threading.Event())

            def work() -> None:
                run_job(kind, config, embedder, job.cancel, post)
        app.tell_main(JobStarted(job.title, job.cancellable))
        app.run_worker(work, thread=True, group="index", name=kind, exit_on_error=False)
        app.refresh_bindings()
        return True

    def cancel(self) -> None:
        """Cancel the running job, after a yes (it stops at the next file boundary)."""
        job = self.job
        if job is None:
            return
        if not job.cancellable:
            self.app.notify(f"{job.title} cannot be cancelled; it finishes shortly.",
                            timeout=3, markup=False)
            return
        if job.cancel.is_set():
            return
        from .screens.modals import ConfirmScreen

        def chosen(yes: bool | None) -> None:
            if yes and self.job is job and not job.cancel.is_set():
                job.cancel.set()
                self.app.tell_main(JobCancelling())
                self.app.notify(f"Cancelling the {job.title.lower()} at the next file "
                                "boundary…", timeout=3)
        self.app.push_screen(ConfirmScreen(
            f"Cancel the {job.title.lower()}?", "It stops at the next file boundary: the files "
            "done so far stay indexed; run it again to finish.", "Cancel it",
            "Keep it running"), chosen)

    def quit(self, leave: Callable[[], None]) -> None:
        """``leave`` (save and exit); while a job runs, only after a yes (a reindex stops at the
        next file boundary, keeping what it wrote)."""
        job = self.job
        if job is None:
            leave()
            return
        from .screens.modals import ConfirmScreen

        def chosen(yes: bool | None) -> None:
            if yes:
                leave()
        self.app.push_screen(ConfirmScreen(
            f"Quit while the {job.title.lower()} runs?",
            "Its work so far is kept; run it again to finish.", "Quit", "Keep running"),
            chosen)

    def stop(self) -> None:
        """The app closes: ask the running job to stop at its next file boundary."""
        if self.job is not None:
            self.job.cancel.set()

    def progress(self, message: JobProgress) -> None:
        if self.job is not None and not self.job.cancel.is_set():
            self.app.tell_main(JobProgress(message.kind, message.progress, message.elapsed))

    def finished(self, message: JobFinished) -> None:
        kind = message.kind
        app = self.app
        self.job = None
        app.refresh_bindings()
        if kind is JobKind.IMPORT:
            self._import_finished(message.result, message.elapsed)
            return
        if kind.reopens_searcher:
            close = getattr(app.searcher, "close", None)
            if close:
                close()  # reopen with the new vectors on the next search
        if kind is JobKind.RE_EMBED:
            app.tell_main(EmbedderRepaired())
        done = "cancelled" if cancelled(message.result) else "finished"
        app.notify(job_summary(kind, message.result, message.elapsed),
                   title=f"{kind.title} {done}",
                   severity="warning" if has_errors(message.result) else "information",
                   timeout=8, markup=False)
        app.tell_main(JobEnded(refresh=True))
        refresh = getattr(app.screen, "action_refresh", None)
        if refresh is not None:  # the statistics or discover screen is open: show the new state
            refresh()

    def _import_finished(self, report: ImportReport, elapsed: float) -> None:
        """The whole summary and the problems in a dialog (a one-line notification too), and
        the reindex that makes the imported records searchable (started automatically)."""
        app = self.app
        reindex = bool(not report.dry_run and (report.files_written or report.people_added))
        if not report.ok:
            title = "Import: nothing imported"
        else:
            title = "Import (dry run) finished" if report.dry_run else "Import finished"
        summary = import_summary(report, elapsed, reindex)
        severity = "warning" if report.problems or not report.ok else "information"
        app.notify(summary.splitlines()[0], title=title, severity=severity, timeout=4,
                   markup=False)  # one line: the whole summary is in the dialog
        app.tell_main(JobEnded(refresh=not reindex))  # else the reindex refreshes at its end
        from .screens.import_dialog import ImportResultScreen

        app.push_screen(ImportResultScreen(report, title, summary))
        if reindex:
            self.start(JobKind.REINDEX)

    def failed(self, message: JobFailed) -> None:
        from engine import EmbedderMismatch

        from .screens.modals import ErrorScreen

        app = self.app
        self.job = None
        app.refresh_bindings()
        app.tell_main(JobEnded(refresh=True))
        if isinstance(message.error, EmbedderMismatch) and app.tell_main(
                EmbedderMismatchFound(message.error)):
            return  # the main screen offers the re-embed
        app.push_screen(ErrorScreen(f"{message.kind.title} failed", message.error))
