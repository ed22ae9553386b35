"""Sources in place (folders outside the root, indexed where they live), held by ``MemlensApp``
as ``app.sources`` (a ``SourceKeeper``): the sources dialog, adding and removing a source
through ``engine.index`` (which checks the change and edits memlens.toml), then the new
configuration everywhere the app holds it and the ordinary reindex job that indexes the change
(a removed source's chunks go then)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .actions import JobKind
from .app_host import AppHost

if TYPE_CHECKING:
    from engine.config import Config, Source
    from engine.library import Library

    from .app_jobs import JobRunner
    from .app_state import StateKeeper


class SourcesHost(AppHost, Protocol):
    """What ``SourceKeeper`` uses of the app beyond ``AppHost``: the read facade it makes anew
    and the warm-up it runs again."""

    library: Library

    def warm_up(self) -> None: ...


class SourceKeeper:
    """Adds and removes sources in place, and hands a changed configuration to the app, its
    watcher (``state``) and the reindex job (``jobs``)."""

    def __init__(self, app: SourcesHost, jobs: JobRunner, state: StateKeeper) -> None:
        self.app = app
        self.jobs = jobs
        self.state = state

    def open(self) -> None:
        """The sources dialog; on the demo root, which takes no source, its refusal at once."""
        from .screens.sources import SourcesScreen

        if self.app.refuse_on_demo_root("sources") or isinstance(self.app.screen, SourcesScreen):
            return
        self.app.push_screen(SourcesScreen())

    def add(self, path: Path, source_type: str, name: str | None = None) -> Source:
        """Declare the folder ``path`` a source (``SourceRefused``, one line, when it cannot
        be: memlens.toml is left as it was), then index it."""
        from engine.index import add_source

        self._refuse_while_a_job_runs()
        source = add_source(self.app.config, path, source_type, name)
        self._changed(f"Added source {source.name}: its files are known as "
                      f"{source.prefix}… once the reindex is done.")
        return source

    def remove(self, name: str) -> Source:
        """Forget the source ``name`` (``SourceRefused`` when it cannot be), then reindex,
        which deletes its chunks; its folder is never touched."""
        from engine.index import remove_source

        self._refuse_while_a_job_runs()
        source = remove_source(self.app.config, name)
        self._changed(f"Removed source {source.name}: its chunks leave the index "
                      "with the reindex; the folder is untouched.")
        return source

    def _refuse_while_a_job_runs(self) -> None:
        """A running job indexes with the configuration it started with, and a second one
        cannot start to index the change: the change waits for it."""
        from engine.index import SourceRefused

        if self.jobs.job is not None:
            raise SourceRefused(f"{self.jobs.job.title} is running: add or remove sources "
                                "when it ends")

    def _changed(self, note: str) -> None:
        from engine.config import load_config

        config = self.app.config
        self.use_config(load_config(config.root, config.db_path))
        self.app.notify(note, title="Sources", timeout=4, markup=False)
        self.jobs.start(JobKind.REINDEX)

    def use_config(self, config: Config) -> None:
        """Every holder of the configuration sees ``config``: the searcher and the read
        facade are made anew over it (results name and find source files by it), the
        watcher is restarted on it; the screens read ``app.config`` when they need it.

        The restarted watcher does not catch up: the reindex job that follows indexes the
        change, and a watcher run meanwhile would take the writer lock from it."""
        from engine import Searcher
        from engine.library import Library

        app, watching = self.app, self.state.watching
        if watching:  # stopped before its own run for the edited memlens.toml
            self.state.stop_watch()
        old = app.searcher
        embedder = app.embedder or getattr(old, "embedder", None)  # the model stays loaded
        app.config = config
        app.searcher = Searcher(config, embedder)
        app.library = Library(config, embedder=app.embedder, searcher=app.searcher)
        close = getattr(old, "close", None)
        if close:
            close()  # waits for a search in flight (the searcher's lock)
        app.run_worker(app.warm_up, thread=True, group="warm-up", exit_on_error=False)
        if watching:
            self.state.start_watch(catch_up=False)
