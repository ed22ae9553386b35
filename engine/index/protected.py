"""What no route may index and no read may serve, whatever the routes say: ``secrets/``, the
configuration and the index (its database, the database's companions and its vector sidecar).

One definition for the walk (index time) and for every read (``engine/index/data_files.py``), by
name and by identity (docs/reliability.md, "Links"):

- by name: the root-relative path is, or lies under, one of those;
- by identity: a regular file that is the same file (st_dev, st_ino) as one of those is a hard
  link to it; a file with more than one link is served only when every one of its links is
  found inside the root, since a hard link to a file outside it looks like any other file.

A source folder (engine/index/sources.py) is checked by identity against the same root's
protected files, every file of it (a bind mount of ``secrets/`` inside a source shows its files
with one link each), its hard links counted inside the source; the root's names mean nothing
there, since :func:`source_folder` refuses a folder that leads into the root or holds the index.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.config import CONFIG_FILENAME, DB_RELATIVE_PATH
from engine.index.sources import Folder, Source, folder_now

PROTECTED_DIRS = ("secrets/", "data/search/")
INDEX_SUFFIXES = ("", "-wal", "-shm", "-journal", ".lock")
SIDECAR_SUFFIX = ".vectors"  # the vector sidecar's folder beside the database

Identity = tuple[int, int]


def _identity(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino


class Protected:
    """The protected names and files of one root; identities are read on first need."""

    def __init__(self, root: Path, db_path: Path | None, inside: Path | None = None):
        """``inside``: the folder read, when it is a source folder rather than the root."""
        self.root = Path(root)
        self.inside = Path(inside) if inside is not None else self.root
        self.db = Path(db_path) if db_path is not None else self.root / DB_RELATIVE_PATH
        self.files = {CONFIG_FILENAME}
        dirs = list(PROTECTED_DIRS)
        try:
            db_rel = self.db.resolve().relative_to(self.root.resolve()).as_posix()
        except (OSError, ValueError):
            db_rel = None  # the index lives outside the root: nothing to walk into
        if db_rel:
            self.files.update(db_rel + s for s in INDEX_SUFFIXES)
            dirs.append(db_rel + SIDECAR_SUFFIX + "/")
        self.dirs = tuple(dirs)
        self._identities: set[Identity] | None = None
        self._links_inside: dict[Identity, int] | None = None

    def __contains__(self, rel: str) -> bool:
        """Whether the path relative to the folder read is protected by its name."""
        if self.inside != self.root:
            return False
        return rel in self.files or (rel + "/").startswith(self.dirs)

    def holds(self, path: Path) -> bool:
        """Whether ``path`` (links resolved) is, or lies under, a protected name of the root:
        ``secrets/``, the configuration, the index."""
        try:
            rel = Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root))
        except ValueError:
            return False
        return rel.as_posix() in self or (rel.as_posix() + "/").startswith(self.dirs)

    def refusal(self, st: os.stat_result) -> str | None:
        """Why the regular file with this stat may not be read, or None when it may."""
        if st.st_nlink <= 1 and self.inside == self.root:
            return None  # its only name is the one being walked or read
        if _identity(st) in self.identities():
            return "a hard link to a protected file (secrets, config or index); not read"
        if st.st_nlink <= 1:
            return None
        inside = self.links_inside().get(_identity(st), 0)
        if inside < st.st_nlink:
            where = "the data root" if self.inside == self.root else "the source"
            return (f"a hard link with {st.st_nlink} names, {inside} of them inside {where}: "
                    "the others may be anywhere; not read (copy the file instead)")
        return None

    def identities(self) -> set[Identity]:
        """(st_dev, st_ino) of every protected file: the config, everything under the
        protected folders, the database and its companions (inside the root or not)."""
        if self._identities is None:
            paths = [self.root / CONFIG_FILENAME]
            paths += [Path(f"{self.db}{s}") for s in INDEX_SUFFIXES]
            for folder in (*(self.root / d for d in self.dirs), Path(f"{self.db}{SIDECAR_SUFFIX}")):
                paths += _files_under(folder)
            found = set()
            for path in paths:
                try:
                    found.add(_identity(os.lstat(path)))
                except OSError:
                    continue  # absent: nothing to protect
            self._identities = found
        return self._identities

    def links_inside(self) -> dict[Identity, int]:
        """How many names each multiply-linked regular file has inside the folder read (one
        walk of all of it, without following links, done only when such a file is met)."""
        if self._links_inside is None:
            counts: dict[Identity, int] = {}
            for path in _files_under(self.inside):
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                    counts[_identity(st)] = counts.get(_identity(st), 0) + 1
            self._links_inside = counts
        return self._links_inside


def index_paths(db_path: Path) -> tuple[Path, ...]:
    """The index's database, its companions and its vector sidecar folder."""
    return (*(Path(f"{db_path}{s}") for s in INDEX_SUFFIXES), Path(f"{db_path}{SIDECAR_SUFFIX}"))


def source_folder(config, source: Source, was_mounted: bool = False) -> Folder:
    """``source``'s folder as it is now, checked against ``config``'s root and index
    (engine/index/sources.py, :func:`~engine.index.sources.folder_now`)."""
    return folder_now(source, config.root, index_paths(config.db_path), was_mounted,
                      config.sources)


def _files_under(folder: Path) -> list[Path]:
    """Every non-folder entry under ``folder``, links not followed; unreadable parts skipped
    (a link there then counts as not found inside, which refuses, never serves)."""
    out = []
    for dirpath, _dirs, names in os.walk(folder, followlinks=False):
        out += [Path(dirpath) / name for name in names]
    return out
