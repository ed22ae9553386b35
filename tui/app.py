"""memlens, the app: browse a person's long-term memory over the hybrid search engine.

The App is kept small: it owns the engine objects (config, searcher), the one index job that
may run at a time, and the app-wide actions (menu, palette, help, stats, theme). The screens
and widgets live in ``tui/screens`` and ``tui/widgets``; work off the UI thread is in
``tui/workers`` and only posts messages (``tui/messages``).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.screen import Screen

from engine.config import Config, load_config

from . import keys
from .actions import JobKind
from .app_state import StateMixin
from .commands import MemlensCommands
from .messages import (
    EmbedderMismatchFound,
    EmbedderRepaired,
    ExplainToggled,
    ImportRequest,
    JobCancelling,
    JobEnded,
    JobFailed,
    JobFinished,
    JobProgress,
    JobStarted,
    SourcesChanged,
)
from .screens.main import MainScreen
from .summaries import cancelled, has_errors, import_summary, job_summary
from .workers import import_job, run_job

STYLES = Path(__file__).resolve().parent.parent / "styles"


def _css_path() -> Path:
    """styles/app.tcss next to the packages (a source tree or an installed wheel)."""
    try:
        from importlib.resources import files

        candidate = Path(str(files("styles") / "app.tcss"))
        if candidate.exists():
            return candidate
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    return STYLES / "app.tcss"


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


class MemlensApp(StateMixin, App[int]):
    """``MemlensApp(config, now=None, searcher=None)``; tests also pass ``frozen=True`` (fixed
    theme, no blinking cursor, no timing numbers) and an ``embedder`` for index jobs."""

    TITLE = "memlens"
    CSS_PATH = str(_css_path())
    BINDINGS = keys.APP
    COMMANDS = App.COMMANDS | {MemlensCommands}

    def __init__(self, config: Config, now: datetime | None = None, searcher: Any = None, *,
                 embedder: Any = None, frozen: bool = False) -> None:
        super().__init__()
        self.config = config
        self.now = now
        self.frozen = frozen
        self._embedder = embedder
        if searcher is None:
            from engine.searcher import Searcher

            searcher = Searcher(config, embedder)
        self.searcher = searcher
        self.job: Job | None = None
        self.explain = "plain"  # the preview's explain: plain → exact → off (x cycles)
        self.main: MainScreen | None = None
        self.last_import: ImportRequest | None = None  # the dialog starts from it
        self.heap_settled = False
        if frozen:
            self.theme = "textual-dark"
        self._apply_keymap()
        self._init_state()  # theme, history, filters, watch (tui/state.py)

    def _apply_keymap(self) -> None:
        keymap = dict(self.config.keys or {})
        self._unknown_keys = sorted(k for k in keymap if k not in keys.ALL_IDS)
        # what help and the menu show as the keys of each binding id
        self.key_overrides = {k: v for k, v in keymap.items() if k in keys.ALL_IDS}
        if self.key_overrides:
            self.set_keymap(self.key_overrides)

    def get_default_screen(self) -> Screen:
        self.main = MainScreen()
        return self.main

    def on_mount(self) -> None:
        self.run_worker(self._warm_up, thread=True, group="warm-up", exit_on_error=False)
        if self._unknown_keys:
            self.notify("memlens.toml [keys] names unknown binding ids: "
                        + ", ".join(self._unknown_keys) + " (F1 lists the ids)",
                        severity="warning", markup=False)
        self._restore_state()

    def _warm_up(self) -> None:
        """Load the embedding model and the vector index while the user types the first query."""
        warm_up = getattr(self.searcher, "warm_up", None)
        if warm_up is not None:
            warm_up()

    def settle_heap(self) -> None:
        """Once, after the first search is on screen: collect, then freeze what is alive.

        By then the heap holds ~120k long-lived objects (widgets, styles, Textual's strip
        caches, the engine's index). Python's full collections walk all of them: 70-110 ms
        pauses, now and then, in the middle of typing. Frozen objects are skipped by every
        later collection (refcounting still frees them), so those pauses shrink to what was
        allocated since.
        """
        if self.heap_settled:
            return
        self.heap_settled = True
        gc.collect()
        gc.freeze()

    def on_unmount(self) -> None:
        if self.heap_settled:
            gc.unfreeze()  # collectable again (a test suite runs many apps in one process)
        self._stop_watch()
        if self.job is not None:
            self.job.cancel.set()
        close = getattr(self.searcher, "close", None)
        if close:
            close()

    # -- the command palette ----------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands (quit, keys, screenshot…) but its theme picker: the
        catalogue's ``MemlensCommands`` offers every memlens action, the theme included."""
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    # -- app-wide actions ------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_job":
            return self.job is not None
        return True

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_menu(self) -> None:
        from .screens.menu import MenuScreen

        if isinstance(self.screen, MenuScreen):
            return

        def chosen(action: str | None) -> None:
            if action:
                self.call_later(self.run_action, action)
        self.push_screen(MenuScreen(self.job.title if self.job else None), chosen)

    def action_stats(self) -> None:
        from .screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen())

    def action_discover(self) -> None:
        from .screens.discover import DiscoverScreen

        if not isinstance(self.screen, DiscoverScreen):
            self.push_screen(DiscoverScreen())

    def action_timeline(self) -> None:
        from .screens.timeline import TimelineScreen

        if not isinstance(self.screen, TimelineScreen):
            today = (self.now or datetime.now().astimezone()).date()
            self.push_screen(TimelineScreen(today, "week"))

    def action_toggle_explain(self) -> None:
        from .widgets.preview import EXPLAIN_MODES

        self.explain = EXPLAIN_MODES[(EXPLAIN_MODES.index(self.explain) + 1) % len(EXPLAIN_MODES)]
        self._tell_main(ExplainToggled())
        words = {"plain": "in words", "exact": "exact numbers", "off": "off"}
        self.notify(f"Explain: {words[self.explain]}", timeout=2)

    # -- index jobs ------------------------------------------------------------------------
    @property
    def job_title(self) -> str | None:
        return self.job.title if self.job else None

    def _tell_main(self, message: Any) -> None:
        if self.main is not None:
            # for the main screen only: bubbling back up, a forwarded JobProgress reached this
            # App's handler again and was forwarded again, a loop for as long as a job ran
            message.bubble = False
            self.main.post_message(message)

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
        """The import dialog; the import then runs as a job (refused while one runs)."""
        from engine.importers import IMPORTERS

        from .screens.import_dialog import ImportScreen

        if self._refuse_busy() or isinstance(self.screen, ImportScreen):
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
        kind = JobKind(message.kind)
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
        from engine.schema import EmbedderMismatch

        from .screens.modals import ErrorScreen

        self.job = None
        self.refresh_bindings()
        self._tell_main(JobEnded(refresh=True))
        if isinstance(message.error, EmbedderMismatch) and self.main is not None:
            self._tell_main(EmbedderMismatchFound(message.error))
            return
        self.push_screen(ErrorScreen(f"{JobKind(message.kind).title} failed", message.error))

    # -- the editor -----------------------------------------------------------------------
    def open_in_editor(self, path: Path, line: int | None = None) -> None:
        """Open ``path`` in $EDITOR (at ``line`` for editors that take +N); the app suspends
        while the editor runs and resumes afterwards."""
        from .editor import choose_editor, editor_argv, run_editor
        from .screens.modals import ErrorScreen

        chosen = choose_editor()
        if chosen is None:
            self.notify("Set $EDITOR to open files in your editor (no nano or vi on PATH "
                        "either).", severity="warning", markup=False)
            return
        editor, fallback = chosen
        if fallback:
            self.notify(fallback, timeout=4, markup=False)
        try:
            argv = editor_argv(path, line, editor)
        except ValueError as exc:  # unbalanced quotes in the variable
            self.push_screen(ErrorScreen("Could not read the editor command", exc))
            return
        try:
            code = run_editor(self, argv)
        except OSError as exc:
            self.push_screen(ErrorScreen("Could not start the editor", exc))
            return
        if code:
            self.notify(f"The editor exited with status {code}.", severity="warning",
                        markup=False)
        else:
            self._tell_main(SourcesChanged())  # the file may have changed: stale flags


def run_app(root: Path, db: str | None) -> int:
    """Open the app on ``root`` (``db`` overrides the index path); the exit code."""
    config = load_config(root, db)
    app = MemlensApp(config)
    result = app.run()
    return result if isinstance(result, int) else 0
