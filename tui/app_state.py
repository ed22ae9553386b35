"""The app's remembered state (``tui/state_file.py``) and its watch mode (``engine.index.watch``), mixed
into ``MemlensApp``: theme, query history, last filters and the watch setting are loaded at
start and saved when they change or the app quits; the watcher reindexes changed files and the
results refresh when its reindex lands."""

from __future__ import annotations

from typing import Any

from .messages import HeaderChanged, JobEnded, SourcesChanged, StateRestored, WatchReport
from .state_file import AppState, load_state, save_state, watch_override


class StateMixin:
    """Uses the App's ``config``, ``frozen``, ``job``, ``main``, ``notify``, ``theme``,
    ``post_message``, ``_embedder``, ``searcher`` and ``_tell_main``."""

    config: Any
    frozen: bool
    job: Any
    main: Any
    searcher: Any
    _embedder: Any
    notify: Any
    post_message: Any
    _tell_main: Any

    def _init_state(self) -> None:
        self.state, self._state_notice = load_state()
        forced = watch_override()
        self.watching = self.state.watch if forced is None else forced
        self.watcher: Any = None
        self.watch_label: str | None = None  # what the header says about watching
        if self.state.theme in self.available_themes:  # type: ignore[attr-defined]
            self.theme = self.state.theme

    def _restore_state(self) -> None:
        """On mount: the notice about an unreadable file, the history and the filters."""
        if self._state_notice:
            self.notify(self._state_notice, severity="warning", markup=False)
        # the screen shows them once its widgets exist (a message waits for its mount)
        self._tell_main(StateRestored(dict(self.state.filters), list(self.state.history)))
        if self.watching:
            self._start_watch()
        else:
            self.watch_label = "watch off"
        self._state_ready = True

    def remember_state(self) -> None:
        """Save what the app shows now (called when the theme or watch changes, and at quit)."""
        state = self.state
        state.theme = self.theme  # type: ignore[attr-defined]
        main = self.main
        if main is not None and main.is_mounted:
            state.filters, state.history = main.remembered()
        error = save_state(state)
        if error:
            self.notify(error, severity="warning", markup=False)

    def watch_theme(self, _: str) -> None:
        if getattr(self, "_state_ready", False):
            self.remember_state()

    # -- watch mode --------------------------------------------------------------------------
    def action_toggle_watch(self) -> None:
        self.watching = self.state.watch = not self.watching  # saved: MEMLENS_WATCH is not
        if self.watching:
            self._start_watch()
        else:
            self._stop_watch()
            self.watch_label = "watch off"
        self.notify("Watching the data root: changed files are reindexed shortly after"
                    if self.watching else "Watch off: ctrl+r reindexes", timeout=3)
        self._show_watch()
        self.remember_state()

    def _start_watch(self, catch_up: bool = True) -> None:
        from engine.index import Watcher

        if self.watcher is not None and self.watcher.running:
            return
        embedder = self._embedder or getattr(self.searcher, "embedder", None)
        post = self.post_message
        # catch up with what changed while the app was closed, but never build a first index
        # unasked (the empty state says how: ctrl+r)
        catch_up = catch_up and self.config.db_path.exists()
        self.watcher = Watcher(self.config, lambda event: post(WatchReport(event)),
                               embedder=embedder, catch_up=catch_up).start()
        self.watch_label = "watching"

    def _stop_watch(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop(timeout=10)

    def _show_watch(self) -> None:
        self._tell_main(HeaderChanged())

    def on_watch_report(self, message: WatchReport) -> None:
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
            if s.files or s.removed_files or s.deleted_chunks:
                # the results refresh as after a reindex job (a job's own end does it then)
                self._tell_main(JobEnded(refresh=True) if self.job is None
                                else SourcesChanged())
        elif isinstance(event, Failed):
            self.watch_label = "watch: error"
            self.notify("Watch: " + event.message, severity="warning", timeout=6, markup=False)
        elif isinstance(event, Stopped) and self.watcher is not None \
                and not self.watcher.running:
            self.watch_label = "watch stopped"
        self._show_watch()


__all__ = ["AppState", "StateMixin"]
