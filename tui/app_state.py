"""The app's remembered state (``tui/state_file.py``) and its watch mode (``engine.index.watch``),
held by ``MemlensApp`` as ``app.state`` (a ``StateKeeper``): theme, query history, last filters
and the watch setting are loaded at start and saved when they change or the app quits; the
watcher reindexes changed files and the results refresh when its reindex lands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .app_host import AppHost
from .messages import HeaderChanged, JobEnded, SourcesChanged, StateRestored, WatchReport
from .state_file import AppState, load_state, save_state, watch_override

if TYPE_CHECKING:
    from engine.index import Watcher

    from .app_jobs import Job


class Remembering(Protocol):
    """The main screen, as far as the saved state goes: its filters and query history."""

    @property
    def is_mounted(self) -> bool: ...

    def remembered(self) -> tuple[dict[str, object], list[str]]: ...


class StateHost(AppHost, Protocol):
    """What ``StateKeeper`` uses of the app beyond ``AppHost``."""

    theme: str

    @property
    def available_themes(self) -> dict[str, object]: ...

    @property
    def main(self) -> Remembering | None: ...

    @property
    def job(self) -> Job | None: ...


class StateKeeper:
    """The saved state (``saved``) and watch mode: ``watching`` (the setting), ``watcher``
    (the running ``Watcher`` or None) and ``watch_label`` (what the header says of it)."""

    def __init__(self, app: StateHost) -> None:
        self.app = app
        self.saved, self.notice = load_state()
        forced = watch_override()
        self.watching = self.saved.watch if forced is None else forced
        self.watcher: Watcher | None = None
        self.watch_label: str | None = None  # what the header says about watching
        self.ready = False  # restored: a theme change from now on is the user's, and saved

    def apply_theme(self) -> None:
        """The saved theme, if this Textual still has it."""
        if self.saved.theme in self.app.available_themes:
            self.app.theme = self.saved.theme

    def restore(self) -> None:
        """On mount: the notice about an unreadable file, the history and the filters."""
        if self.notice:
            self.app.notify(self.notice, severity="warning", markup=False)
        # the screen shows them once its widgets exist (a message waits for its mount)
        self.app.tell_main(StateRestored(dict(self.saved.filters), list(self.saved.history)))
        if self.watching:
            self.start_watch()
        else:
            self.watch_label = "watch off"
        self.ready = True

    def remember(self) -> None:
        """Save what the app shows now (called when the theme or watch changes, and at quit)."""
        state = self.saved
        state.theme = self.app.theme
        main = self.app.main
        if main is not None and main.is_mounted:
            state.filters, state.history = main.remembered()
        error = save_state(state)
        if error:
            self.app.notify(error, severity="warning", markup=False)

    def theme_changed(self) -> None:
        if self.ready:
            self.remember()

    # -- watch mode --------------------------------------------------------------------------
    def toggle_watch(self) -> None:
        self.watching = self.saved.watch = not self.watching  # saved: MEMLENS_WATCH is not
        if self.watching:
            self.start_watch()
        else:
            self.stop_watch()
            self.watch_label = "watch off"
        self.app.notify("Watching the data root: changed files are reindexed shortly after"
                        if self.watching else "Watch off: ctrl+r reindexes", timeout=3)
        self._show_watch()
        self.remember()

    def start_watch(self, catch_up: bool = True) -> None:
        from engine.index import Watcher

        if self.watcher is not None and self.watcher.running:
            return
        app = self.app
        embedder = app.embedder or getattr(app.searcher, "embedder", None)
        post = app.post_message
        # catch up with what changed while the app was closed, but never build a first index
        # unasked (the empty state says how: ctrl+r)
        catch_up = catch_up and app.config.db_path.exists()
        self.watcher = Watcher(app.config, lambda event: post(WatchReport(event)),
                               embedder=embedder, catch_up=catch_up).start()
        self.watch_label = "watching"

    def stop_watch(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop(timeout=10)

    def _show_watch(self) -> None:
        self.app.tell_main(HeaderChanged())

    def report(self, message: WatchReport) -> None:
        """What the watcher says: the header's label, and the results refreshed after its
        reindex."""
        from engine.index import Changed, Failed, Reindexed, Stopped, Waiting

        event = message.event
        if not self.watching:
            return
        if isinstance(event, Changed):
            self.watch_label = "watch: reindexing…"
        elif isinstance(event, Waiting):
            self.watch_label = "watch: waiting for the index"
        elif isinstance(event, Reindexed):
            self.watch_label = "watching"
            s = event.stats
            if s.files or s.removed_files or s.deleted_chunks or s.upgraded:
                # the results refresh as after a reindex job (a job's own end does it then)
                self.app.tell_main(JobEnded(refresh=True) if self.app.job is None
                                   else SourcesChanged())
        elif isinstance(event, Failed):
            self.watch_label = "watch: error"
            self.app.notify("Watch: " + event.message, severity="warning", timeout=6,
                            markup=False)
        elif isinstance(event, Stopped) and self.watcher is not None \
                and not self.watcher.running:
            self.watch_label = "watch stopped"
        self._show_watch()


__all__ = ["AppState", "StateKeeper"]
