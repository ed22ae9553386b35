"""The app's one background job, mixed into ``MemlensApp``: starting an index job or an import
(refused while one runs), cancelling it, quitting while it runs, and what the app does when it
ends (a notification, the import's result dialog, the searcher reopened). The job's work runs
in ``tui/workers`` and only posts messages; the main screen hears of the job through the
messages of ``tui/messages``."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

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


class JobsMixin:
    """Uses the App's ``config``, ``searcher``, ``main``, ``screen``, ``notify``,
    ``push_screen``, ``run_worker``, ``post_message``, ``refresh_bindings``, ``exit``,
    ``remember_state``, ``refuse_on_demo_root``, ``_embedder`` and ``_tell_main``."""

    config: Any
    searcher: Any
    main: Any
    screen: Any
    _embedder: Any
    notify: Any
    push_screen: Any
    run_worker: Any
    post_message: Any
    refresh_bindings: Any
    exit: Any
    remember_state: Any
    refuse_on_demo_root: Any
    _tell_main: Any

    def _init_jobs(self) -> None:
        self.job: Job | None = None
        self.last_import: ImportRequest | None = None  # the dialog starts from it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_job":
            return self.job is not None
        return True

    @property
    def job_title(self) -> str | None:
        return self.job.title if self.job else None

    def action_reindex(self) -> None:
        self.start_job(JobKind.REINDEX)

    def action_full_rebuild(self) -> None:
        self.start_job(JobKind.FULL)

    def action_re_embed(self) -> None:
        self.start_job(JobKind.RE_EMBED)

    def action_maintenance(self) -> None:
        self.start_job(JobKind.MAINTENANCE)

    def action_maintenance_no_vacuum(self) -> None:
        self.start_job(JobKind.MAINTENANCE_NO_VACUUM)

    def action_import_data(self) -> None:
        """The import dialog; the import then runs as a job (refused while one runs, and at
        once on the demo root: no dialog to fill first)."""
        from engine.importers import IMPORTERS

        from .screens.import_dialog import ImportScreen

        if (self.refuse_on_demo_root("import") or self._refuse_busy()
                or isinstance(self.screen, ImportScreen)):
            return

        def chosen(request: ImportRequest | None) -> None:
            if request is not None:
                self.last_import = request
                self.start_job(JobKind.IMPORT, request)
        kinds = {k: IMPORTERS[k].description for k in sorted(IMPORTERS)}
        self.push_screen(ImportScreen(kinds, self.config.root, self.last_import), chosen)

    def _refuse_busy(self) -> bool:
        if self.job is None:
            return False
        hint = " or cancel it (ctrl+g)" if self.job.cancellable else ""
        self.notify(f"{self.job.title} is already running: wait for it to finish{hint}.",
                    title="Busy", severity="warning", markup=False)
        return True

    def start_job(self, kind: JobKind | str, request: ImportRequest | None = None) -> bool:
        """Start an index job (or an import of ``request``) in a thread worker; refuse (with a
        notification) while one runs."""
        kind = JobKind(kind)
        if self._refuse_busy():
            return False
        if kind.maintenance and not self.config.db_path.exists():
            self.notify("There is no index to maintain yet: press ctrl+r to build it.",
                        severity="warning", markup=False)
            return False
        config, embedder, post = self.config, self._embedder, self.post_message
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
        self._tell_main(JobStarted(job.title, job.cancellable))
        self.run_worker(work, thread=True, group="index", name=kind, exit_on_error=False)
        self.refresh_bindings()
        return True

    def action_cancel_job(self) -> None:
        job = self.job
        if job is None:
            return
        if not job.cancellable:
            self.notify(f"{job.title} cannot be cancelled; it finishes shortly.", timeout=3,
                        markup=False)
            return
        if job.cancel.is_set():
            return
        from .screens.modals import ConfirmScreen

        def chosen(yes: bool | None) -> None:
            if yes and self.job is job and not job.cancel.is_set():
                job.cancel.set()
                self._tell_main(JobCancelling())
                self.notify(f"Cancelling the {job.title.lower()} at the next file boundary…",
                            timeout=3)
        self.push_screen(ConfirmScreen(
            f"Cancel the {job.title.lower()}?", "It stops at the next file boundary: the files "
            "done so far stay indexed; run it again to finish.", "Cancel it",
            "Keep it running"), chosen)

    async def action_quit(self) -> None:
        """Quit; while a job runs, only after a yes (a reindex stops at the next file boundary,
        keeping what it wrote)."""
        job = self.job
        if job is None:
            self.remember_state()
            self.exit()
            return
        from .screens.modals import ConfirmScreen

        def chosen(yes: bool | None) -> None:
            if yes:
                self.remember_state()
                self.exit()
        self.push_screen(ConfirmScreen(
            f"Quit while the {job.title.lower()} runs?",
            "Its work so far is kept; run it again to finish.", "Quit", "Keep running"),
            chosen)

    def on_job_progress(self, message: JobProgress) -> None:
        if self.job is not None and not self.job.cancel.is_set():
            self._tell_main(JobProgress(message.kind, message.progress, message.elapsed))

    def on_job_finished(self, message: JobFinished) -> None:
        kind = message.kind
        self.job = None
        self.refresh_bindings()
        if kind is JobKind.IMPORT:
            self._import_finished(message.result, message.elapsed)
            return
        if kind.reopens_searcher:
            close = getattr(self.searcher, "close", None)
            if close:
                close()  # reopen with the new vectors on the next search
        if kind is JobKind.RE_EMBED:
            self._tell_main(EmbedderRepaired())
        done = "cancelled" if cancelled(message.result) else "finished"
        self.notify(job_summary(kind, message.result, message.elapsed),
                    title=f"{kind.title} {done}",
                    severity="warning" if has_errors(message.result) else "information",
                    timeout=8, markup=False)
        self._tell_main(JobEnded(refresh=True))
        refresh = getattr(self.screen, "action_refresh", None)
        if refresh is not None:  # the statistics or discover screen is open: show the new state
            refresh()

    def _import_finished(self, report: Any, elapsed: float) -> None:
        """The whole summary and the problems in a dialog (a one-line notification too), and
        the reindex that makes the imported records searchable (started automatically)."""
        reindex = bool(not report.dry_run and (report.files_written or report.people_added))
        if not report.ok:
            title = "Import: nothing imported"
        else:
            title = "Import (dry run) finished" if report.dry_run else "Import finished"
        summary = import_summary(report, elapsed, reindex)
        severity = "warning" if report.problems or not report.ok else "information"
        self.notify(summary.splitlines()[0], title=title, severity=severity, timeout=4,
                    markup=False)  # one line: the whole summary is in the dialog
        self._tell_main(JobEnded(refresh=not reindex))  # else the reindex refreshes at its end
        from .screens.import_dialog import ImportResultScreen

        self.push_screen(ImportResultScreen(report, title, summary))
        if reindex:
            self.start_job(JobKind.REINDEX)

    def on_job_failed(self, message: JobFailed) -> None:
        from engine import EmbedderMismatch

        from .screens.modals import ErrorScreen

        self.job = None
        self.refresh_bindings()
        self._tell_main(JobEnded(refresh=True))
        if isinstance(message.error, EmbedderMismatch) and self.main is not None:
            self._tell_main(EmbedderMismatchFound(message.error))
            return
        self.push_screen(ErrorScreen(f"{message.kind.title} failed", message.error))
