"""Which changed paths matter to watch mode (engine/index/watch.py): :class:`PathFilter` keeps
the routed files of the root and its sources, and folders that can hold them, and drops the
index's own files, ``data/search/``, ``secrets/``, hidden and temporary files and what a
source's .gitignore ignores; it also tells when a source folder is not the one watched any more
(back, gone, replaced, swapped for a link) or a source's top .gitignore changed, so the watcher
watches anew. The watcher makes one for each configuration in force."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from engine.index.protected import INDEX_SUFFIXES, index_paths
from engine.index.routes import glob_regex, route_matches
from engine.index.sources import GITIGNORE, Folder, Source, folder_now
from engine.index.walk import skipped_path
from engine.path_style import slashed

FOLDER_CHECK_S = 2.0  # how often the source folders are looked at again (a replaced one)
IGNORED_DIRS = ("data/search/", "secrets/")
TEMP_SUFFIXES = (".tmp", ".temp", ".swp", ".swx", ".part", ".partial", ".crdownload", "~")
ADDED, MODIFIED, DELETED = 1, 2, 3  # watchfiles.Change values


@dataclass
class PathFilter:
    """Says which changed paths can change the index: the routed files, and folders that can
    hold them when one is added or removed whole (``mv`` of a folder of notes reports the
    folder only, not the files in it)."""

    root: Path
    routes: Iterable[tuple[str, str]]
    db_path: Path
    _regexes: list[re.Pattern] = field(init=False)
    _roots: tuple[str, ...] = field(init=False)
    _index_files: frozenset[str] = field(init=False)
    _folders: list[tuple[str, bool]] = field(init=False)  # (a route's folder, has **)

    def __post_init__(self) -> None:
        self._regexes = [glob_regex(pattern) for pattern, _ in self.routes]
        self._folders = [(folder.split("/**")[0], "**" in folder)
                         for folder in (p.rsplit("/", 1)[0] for p, _ in self.routes if "/" in p)]
        roots = {slashed(str(self.root))}
        try:
            roots.add(slashed(str(self.root.resolve())))
        except OSError:
            pass
        self._roots = tuple(sorted(roots, key=len, reverse=True))
        db = slashed(str(self.db_path))
        self._index_files = frozenset(db + suffix for suffix in INDEX_SUFFIXES)
        self._source_dirs = []
        self._identities = {}
        self._checked_at = time.monotonic()
        for source in self.sources:  # as configured and with links resolved: either is seen
            folder = self._folder(source)
            self._identities[source.name] = _identity(folder)
            real = folder.real
            if real is None:
                continue  # not there, or leading where no source may: not watched
            skip = source.ignore_rules(real)
            for folder in dict.fromkeys((slashed(str(source.path)), slashed(str(real)))):
                self._source_dirs.append((folder.rstrip("/"), source, skip))

    sources: tuple[Source, ...] = ()
    _source_dirs: list[tuple[str, Source, Callable[[str, bool], bool]]] = field(init=False)
    _identities: dict[str, tuple] = field(init=False)  # a source folder's, by name
    _checked_at: float = field(init=False)  # when the source folders were last looked at

    def _folder(self, source: Source) -> Folder:
        return folder_now(source, self.root, index_paths(self.db_path), sources=self.sources)

    def watched_names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(sources whose folder is watched, sources whose folder is not read now), by name."""
        return (tuple(n for n, ident in self._identities.items() if ident[0] != NOT_READ),
                tuple(n for n, ident in self._identities.items() if ident[0] == NOT_READ))

    def source_folders(self) -> list[Path]:
        """The source folders watched beside the root (their real paths)."""
        return [Path(folder) for folder in dict.fromkeys(
            f for f, _, _ in self._source_dirs) if os.path.isdir(folder)]

    def folders_moved(self, changes: Iterable[tuple[int, str]] = ()) -> bool:
        """Whether a source folder is not the one being watched any more: back, gone,
        replaced by a new folder or swapped for a link (one stat or two per source). A
        folder deleted and made again at once can get the same inode back, so its own
        deletion among ``changes`` says so too (its file system watch died with it)."""
        watched = {folder for folder, _, _ in self._source_dirs}
        if any(change == DELETED and path.rstrip("/") in watched for change, path in changes):
            return True
        now = time.monotonic()  # looked at every FOLDER_CHECK_S: a few stats per source each
        if now - self._checked_at < FOLDER_CHECK_S:
            return False
        self._checked_at = now
        return any(_identity(self._folder(s)) != self._identities.get(s.name)
                   for s in self.sources)

    def ignores_changed(self, changes: Iterable[tuple[int, str]]) -> str | None:
        """``@name/.gitignore`` of a source whose top .gitignore is among ``changes``: the
        filter read it once (the walk reads it at every run), and it skips dot-files."""
        tops = {folder + "/" + GITIGNORE: source for folder, source, _ in self._source_dirs}
        for _, path in changes:
            if path in tops:
                return tops[path].prefix + GITIGNORE
        return None

    def _in_source(self, path: str, change: int) -> str | None:
        for folder, source, skip in self._source_dirs:
            if not path.startswith(folder + "/"):
                continue
            inner = path[len(folder) + 1:]
            name = inner.rsplit("/", 1)[-1]
            if name.endswith(TEMP_SUFFIXES) or name.startswith(("~", "#")):
                return None
            if skipped_path(inner, skip):
                return None
            if any(route_matches(pattern, inner) for pattern, _ in source.routes):
                return source.prefix + inner
            if change == DELETED or (change == ADDED and os.path.isdir(path)):
                return source.prefix + inner + "/"  # its globs reach every depth
            return None
        return None

    def relative(self, path: str, change: int = MODIFIED) -> str | None:
        """The path relative to the root (``@name/...`` in a source) if this change can matter
        to the index, else None."""
        if path in self._index_files:
            return None
        if self._source_dirs and (found := self._in_source(path, change)) is not None:
            return found
        for root in self._roots:
            if path.startswith(root.rstrip("/") + "/"):
                rel = path[len(root.rstrip("/")) + 1:]
                break
        else:
            return None
        if rel.startswith(IGNORED_DIRS):
            return None
        name = rel.rsplit("/", 1)[-1]
        if name.startswith((".", "~", "#")) or name.endswith(TEMP_SUFFIXES):
            return None
        if any(rx.match(rel) for rx in self._regexes):
            return rel
        if change == DELETED or (change == ADDED and os.path.isdir(path)):
            if any(folder == rel or folder.startswith(rel + "/")
                   or (deep and rel.startswith(folder + "/")) for folder, deep in self._folders):
                return rel + "/"  # a folder added or removed whole
        return None


NOT_READ = "not read"


def _identity(folder: Folder) -> tuple:
    """What tells one folder from another at the same path: a new one made after a delete
    has another inode, a link swapped in another real path; a folder not read, why not (a
    link swapped from another source to secrets/ is a new reason, said by the next run)."""
    if folder.real is None:
        return NOT_READ, folder.why
    try:
        st = os.stat(folder.real)
    except OSError:
        return NOT_READ, "gone"
    return str(folder.real), st.st_dev, st.st_ino
