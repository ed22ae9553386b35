"""The events watch mode reports (engine/index/watch.py), each a frozen dataclass whose
``line()`` is what ``memlens watch`` prints and the app shows: :class:`Started`,
:class:`Changed`, :class:`Reindexed`, :class:`Reconfigured`, :class:`Rewatched`,
:class:`Waiting`, :class:`Failed`, :class:`Problem` and :class:`Stopped`. Kept apart from the
watcher's loop that makes them: front doors and tests match on them and print them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.display import one_line, plural, shown_path
from engine.index.run_report import IndexStats


@dataclass(frozen=True)
class Started:
    root: Path
    sources: tuple[str, ...] = ()  # the sources watched beside the root, by name
    missing: tuple[str, ...] = ()  # sources whose folder is not read now (the run says why)

    def line(self) -> str:
        also = f" and {plural(len(self.sources), 'source')} ({', '.join(self.sources)})" \
            if self.sources else ""
        gone = f"; not read now, not watched: {', '.join(self.missing)}" if self.missing else ""
        return f"watching {one_line(str(self.root))}{also} (ctrl+c stops){gone}"


@dataclass(frozen=True)
class Changed:
    paths: tuple[str, ...]  # routed paths relative to the root, sorted; a folder ends in "/"

    def line(self) -> str:
        names = ", ".join(shown_path(p) for p in self.paths[:3])
        more = f" (+{len(self.paths) - 3} more)" if len(self.paths) > 3 else ""
        folders = sum(p.endswith("/") for p in self.paths)
        counts = [plural(n, word) for n, word in ((len(self.paths) - folders, "file"),
                                                  (folders, "folder")) if n]
        return f"changed {' and '.join(counts)}: {names}{more}"


@dataclass(frozen=True)
class Reindexed:
    stats: IndexStats
    paths: tuple[str, ...] = ()  # empty for the catch-up run at start

    def line(self) -> str:
        s = self.stats
        errors = f", {plural(len(s.errors), 'file error')}" if s.errors else ""
        pending = f", {s.pending_embeddings:,} pending" if s.pending_embeddings else ""
        what = "caught up" if not self.paths else "reindexed"
        cancelled = " (stopped early: the rest is indexed next time)" if s.cancelled else ""
        upgraded = f" (upgraded the index: {s.upgraded})" if s.upgraded else ""
        return (f"{what}{upgraded}: {plural(s.files, 'file')}, {plural(s.chunks, 'chunk')} written, "
                f"{s.deleted_chunks:,} deleted, {s.embedded:,} embedded{pending}{errors} in "
                f"{s.seconds:.2f}s"
                f"{cancelled}")


@dataclass(frozen=True)
class Reconfigured:
    sources: tuple[str, ...]  # the sources watched now, by name
    again: bool = False  # memlens.toml loads again after it did not (broken, gone, emptied)
    changed: bool = True  # its routes or sources changed: a run follows

    def line(self) -> str:
        names = ", ".join(self.sources) if self.sources else "none"
        what = "memlens.toml loads again" if self.again else "memlens.toml changed"
        return f"{what}{': reindexing' if self.changed else ''}; sources watched: {names}"


@dataclass(frozen=True)
class Rewatched:
    sources: tuple[str, ...]  # the sources watched now, by name
    missing: tuple[str, ...] = ()  # sources whose folder is not read now
    why: str = "a source folder changed"  # or "@name/.gitignore changed"

    def line(self) -> str:
        names = ", ".join(self.sources) if self.sources else "none"
        gone = f"; not read now: {', '.join(self.missing)}" if self.missing else ""
        return f"{one_line(self.why)}: catching up; sources watched: {names}{gone}"


@dataclass(frozen=True)
class Waiting:
    holder: str  # what holds the writer lock, e.g. "reindex"

    def line(self) -> str:
        return f"waiting: a {one_line(self.holder)} is writing to the index; will retry"


@dataclass(frozen=True)
class Failed:
    message: str  # one line

    def line(self) -> str:
        return f"error: {self.message}"


@dataclass(frozen=True)
class Problem:
    """A file or folder a run could not index, or skipped with a warning, as ``memlens reindex``
    prints it; or something the watcher itself tells once (no path)."""

    level: str  # "error", "warning" or "embedding"
    path: str  # root-relative (``@name/...`` in a source); "" when about no one file
    message: str

    def line(self) -> str:
        where = f"{shown_path(self.path)}: " if self.path else ""
        return f"{self.level}: {where}{one_line(self.message)}"


@dataclass(frozen=True)
class Stopped:
    runs: int  # reindex runs since start (the catch-up included)

    def line(self) -> str:
        return f"stopped after {self.runs} reindex run{'s' * (self.runs != 1)}"


WatchEvent = (Started | Changed | Reconfigured | Rewatched | Reindexed | Problem | Waiting
              | Failed | Stopped)
EventCallback = Callable[[WatchEvent], None]
