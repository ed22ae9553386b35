"""memlens, the app: browse a person's long-term memory over the hybrid search engine.

The App is kept small: it owns the engine objects (config, searcher) and the app-wide actions
(menu, palette, help, stats, theme, editor), and holds three parts typed against what they use
of it (``tui/app_host``): the one index job that may run at a time (``app.jobs``,
``tui/app_jobs``), the remembered state and watch mode (``app.state``, ``tui/app_state``), the
sources in place and taking a changed configuration (``app.sources``, ``tui/app_sources``).
Textual finds actions and message handlers by name on the App, so those stay here as one-line
calls into the parts. The screens and widgets
live in ``tui/screens`` and ``tui/widgets``; work off the UI thread is in ``tui/workers`` and
only posts messages (``tui/messages``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.message import Message
from textual.screen import Screen

from engine.config import Config, load_config
from engine.dates import now as clock_now

from . import keys
from .actions import BY_ID, JobKind
from .app_jobs import Job, JobRunner
from .app_sources import SourceKeeper
from .app_state import StateKeeper
from .commands import MemlensCommands
from .messages import (
    ExplainToggled,
    JobFailed,
    JobFinished,
    JobProgress,
    SourcesChanged,
    WatchReport,
)
from .screens.main import MainScreen

if TYPE_CHECKING:
    from engine import Searcher

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


class MemlensApp(App[int]):
    """``MemlensApp(config, now=None, searcher=None)``; tests also pass ``frozen=True`` (fixed
    theme, no blinking cursor, no timing numbers) and an ``embedder`` for index jobs."""

    TITLE = "memlens"
    CSS_PATH = str(_css_path())
    BINDINGS = keys.APP
    COMMANDS = App.COMMANDS | {MemlensCommands}

    def __init__(self, config: Config, now: datetime | None = None,
                 searcher: Searcher | None = None, *, embedder: object | None = None,
                 frozen: bool = False) -> None:
        super().__init__()
        self.config = config
        self.now = now
        self.frozen = frozen
        self.embedder = embedder
        from engine.library import Library

        if searcher is None:
            from engine import Searcher

            searcher = Searcher(config, embedder)
        self.searcher = searcher  # warm for the app's life; warmed up, closed and reopened here
        # every read goes through the facade (its search holds one read transaction and
        # turns a damaged index into one line)
        self.library = Library(config, embedder=embedder, searcher=searcher)
        self.explain = "plain"  # the preview's explain: plain → exact → off (x cycles)
        self.main: MainScreen | None = None
        self.heap_settled = False
        # theme, history, filters, watch (tui/state_file.py): made before the first theme
        # change, which watch_theme tells it of
        self.state = StateKeeper(self)
        if frozen:
            self.theme = "textual-dark"
        self.jobs = JobRunner(self)  # the one index job
        self.sources = SourceKeeper(self, self.jobs, self.state)
        self._apply_keymap()
        self.state.apply_theme()

    def _apply_keymap(self) -> None:
        """Apply the [keys] remaps that are right; say the others (the command line stops on
        them before the app opens: this is for an app made some other way)."""
        keymap = dict(self.config.keys or {})
        self._key_problems = keys.remap_problems(keymap)
        wrong = {p.split()[1] for p in self._key_problems}  # "[keys] <id> ..."
        # what help and the menu show as the keys of each binding id
        self.key_overrides = {k: v for k, v in keymap.items()
                              if k in keys.ALL_IDS and k not in wrong}
        if self.key_overrides:
            self.set_keymap(self.key_overrides)

    def get_default_screen(self) -> Screen:
        self.main = MainScreen()
        return self.main

    def on_mount(self) -> None:
        self.run_worker(self.warm_up, thread=True, group="warm-up", exit_on_error=False)
        for problem in self._key_problems:
            self.notify(f"memlens.toml: {problem}; not applied", severity="warning",
                        markup=False)
        self.state.restore()

    def warm_up(self) -> None:
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
        self.state.stop_watch()
        self.jobs.stop()
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

    # -- what the demo root refuses ---------------------------------------------------------
    def demo_refusal(self, action_id: str) -> str | None:
        """The engine's one line that refuses the catalogue action ``action_id`` on the demo
        root (``memlens demo`` owns it: nothing is imported into it, no source is added), or
        None. Its key says the line at once; the menu greys the action, the palette leaves it
        out: nothing suggests what would be refused."""
        from engine.config import is_demo_root

        if not BY_ID[action_id].writes_root or not is_demo_root(self.config.root):
            return None
        if action_id == "import":
            from engine.importers import demo_root_refused

            return str(demo_root_refused(self.config.root))
        from engine.index import demo_root_takes_no_source

        return str(demo_root_takes_no_source())

    def refuse_on_demo_root(self, action_id: str) -> bool:
        """Say the demo root's one line refusing ``action_id``, if it refuses it."""
        refused = self.demo_refusal(action_id)
        if refused is not None:
            self.notify(refused, title="Not on the demo root", severity="warning",
                        markup=False)
        return refused is not None

    # -- app-wide actions ------------------------------------------------------------------
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
        self.push_screen(MenuScreen(self.jobs.title), chosen)

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
            today = (self.now or clock_now()).date()
            self.push_screen(TimelineScreen(today, "week"))

    def action_toggle_explain(self) -> None:
        from .widgets.preview import EXPLAIN_MODES

        self.explain = EXPLAIN_MODES[(EXPLAIN_MODES.index(self.explain) + 1) % len(EXPLAIN_MODES)]
        self.tell_main(ExplainToggled())
        words = {"plain": "in words", "exact": "exact numbers", "off": "off"}
        self.notify(f"Explain: {words[self.explain]}", timeout=2)

    def tell_main(self, message: Message) -> bool:
        """Post ``message`` to the main screen alone; False when there is none yet."""
        if self.main is None:
            return False
        # for the main screen only: bubbling back up, a forwarded JobProgress reached this
        # App's handler again and was forwarded again, a loop for as long as a job ran
        message.bubble = False
        self.main.post_message(message)
        return True

    # -- the remembered state and watch mode (tui/app_state.py) ------------------------------
    def watch_theme(self, _: str) -> None:
        self.state.theme_changed()

    @property
    def watch_label(self) -> str | None:
        """What the header says about watch mode."""
        return self.state.watch_label

    def action_toggle_watch(self) -> None:
        self.state.toggle_watch()

    def on_watch_report(self, message: WatchReport) -> None:
        self.state.report(message)

    # -- index jobs (tui/app_jobs.py) ----------------------------------------------------
    @property
    def job(self) -> Job | None:
        """The index job running now, or None."""
        return self.jobs.job

    @property
    def job_title(self) -> str | None:
        return self.jobs.title

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_job":
            return self.jobs.job is not None
        return True

    def action_reindex(self) -> None:
        self.jobs.start(JobKind.REINDEX)

    def action_full_rebuild(self) -> None:
        self.jobs.start(JobKind.FULL)

    def action_re_embed(self) -> None:
        self.jobs.start(JobKind.RE_EMBED)

    def action_maintenance(self) -> None:
        self.jobs.start(JobKind.MAINTENANCE)

    def action_maintenance_no_vacuum(self) -> None:
        self.jobs.start(JobKind.MAINTENANCE_NO_VACUUM)

    def action_import_data(self) -> None:
        self.jobs.open_import()

    def action_cancel_job(self) -> None:
        self.jobs.cancel()

    async def action_quit(self) -> None:
        """Quit, saving what the app shows (after a yes while a job runs)."""
        self.jobs.quit(self._leave)

    def _leave(self) -> None:
        self.state.remember()
        self.exit()

    def on_job_progress(self, message: JobProgress) -> None:
        self.jobs.progress(message)

    def on_job_finished(self, message: JobFinished) -> None:
        self.jobs.finished(message)

    def on_job_failed(self, message: JobFailed) -> None:
        self.jobs.failed(message)

    # -- sources in place (tui/app_sources.py) -----------------------------------------------
    def action_sources(self) -> None:
        self.sources.open()

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
            self.tell_main(SourcesChanged())  # the file may have changed: stale flags


def run_app(root: Path, db: str | None) -> int:
    """Open the app on ``root`` (``db`` overrides the index path); the exit code."""
    config = load_config(root, db)
    app = MemlensApp(config)
    result = app.run()
    return result if isinstance(result, int) else 0
