"""Sources in place (folders outside the root, indexed where they live), mixed into
``MemlensApp``: the sources dialog, adding and removing a source through ``engine.index`` (which
checks the change and edits memlens.toml), then the new configuration everywhere the app holds
it and the ordinary reindex job that indexes the change (a removed source's chunks go then)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .actions import JobKind


class SourcesMixin:
    """Uses the App's ``config``, ``searcher``, ``library``, ``job``, ``watching``, ``screen``,
    ``notify``, ``push_screen``, ``run_worker``, ``start_job``, ``refuse_on_demo_root``,
    ``_embedder``, ``_warm_up``, ``_start_watch`` and ``_stop_watch``."""

    config: Any
    searcher: Any
    library: Any
    job: Any
    watching: bool
    screen: Any
    _embedder: Any
    notify: Any
    push_screen: Any
    run_worker: Any
    start_job: Any
    refuse_on_demo_root: Any
    _warm_up: Any
    _start_watch: Any
    _stop_watch: Any

    def action_sources(self) -> None:
        """The sources dialog; on the demo root, which takes no source, its refusal at once."""
        from .screens.sources import SourcesScreen

        if self.refuse_on_demo_root("sources") or isinstance(self.screen, SourcesScreen):
            return
        self.push_screen(SourcesScreen())

    def add_source(self, path: Path, source_type: str, name: str | None = None) -> Any:
        """Declare the folder ``path`` a source (``SourceRefused``, one line, when it cannot
        be: memlens.toml is left as it was), then index it."""
        from engine.index import add_source

        self._refuse_while_a_job_runs()
        source = add_source(self.config, path, source_type, name)
        self._sources_changed(f"Added source {source.name}: its files are known as "
                              f"{source.prefix}… once the reindex is done.")
        return source

    def remove_source(self, name: str) -> Any:
        """Forget the source ``name`` (``SourceRefused`` when it cannot be), then reindex,
        which deletes its chunks; its folder is never touched."""
        from engine.index import remove_source

        self._refuse_while_a_job_runs()
        source = remove_source(self.config, name)
        self._sources_changed(f"Removed source {source.name}: its chunks leave the index "
                              "with the reindex; the folder is untouched.")
        return source

    def _refuse_while_a_job_runs(self) -> None:
        """A running job indexes with the configuration it started with, and a second one
        cannot start to index the change: the change waits for it."""
        from engine.index import SourceRefused

        if self.job is not None:
            raise SourceRefused(f"{self.job.title} is running: add or remove sources when it "
                                "ends")

    def _sources_changed(self, note: str) -> None:
        from engine.config import load_config

        self.use_config(load_config(self.config.root, self.config.db_path))
        self.notify(note, title="Sources", timeout=4, markup=False)
        self.start_job(JobKind.REINDEX)

    def use_config(self, config: Any) -> None:
        """Every holder of the configuration sees ``config``: the searcher and the read
        facade are made anew over it (results name and find source files by it), the
        watcher is restarted on it; the screens read ``app.config`` when they need it.

        The restarted watcher does not catch up: the reindex job that follows indexes the
        change, and a watcher run meanwhile would take the writer lock from it."""
        from engine import Searcher
        from engine.library import Library

        if self.watching:  # stopped before its own run for the edited memlens.toml
            self._stop_watch()
        old = self.searcher
        embedder = self._embedder or getattr(old, "embedder", None)  # the model stays loaded
        self.config = config
        self.searcher = Searcher(config, embedder)
        self.library = Library(config, embedder=self._embedder, searcher=self.searcher)
        close = getattr(old, "close", None)
        if close:
            close()  # waits for a search in flight (the searcher's lock)
        self.run_worker(self._warm_up, thread=True, group="warm-up", exit_on_error=False)
        if self.watching:
            self._start_watch(catch_up=False)
