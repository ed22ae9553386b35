"""Walking the data root for the routes' globs without ever leaving it.

The rules (docs/reliability.md):

- nothing outside the root is read: a symlinked folder is never walked, a symlinked file is
  never indexed under its own name (a link to a routed file inside the root is an alias: the
  target is indexed under its real path, once; any other link is refused and reported);
- ``secrets/``, ``memlens.toml`` and the index (``data/search/``, the db, its
  ``-wal``/``-shm``/``-journal``/``.lock`` files and its vector sidecar) are never indexed,
  whatever a route says, under their own names or through a hard link
  (``engine/index/protected.py``);
- a name that is not valid UTF-8 (or, on Windows, one Windows cannot open: engine/path_style.py),
  a FIFO, a socket or a device is skipped and reported, never opened; a folder that cannot
  be listed is reported and marked ``unlisted``, so the indexed files under it are kept (see
  :func:`classify_missing`).

Globs follow ``pathlib`` (case-sensitive ``fnmatch`` segments, ``**`` = zero or more folders,
hidden folders walked, hidden files skipped). A top-level name of the root starting with ``@``
is never indexed: ``@<name>/`` is where a source's files are known (engine/index/sources.py).
The same walker walks a source folder, with its paths prefixed by ``@<name>/``, its ignore rules
applied, and no link leading out of the source.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from engine import path_style
from engine.index.protected import Protected
from engine.index.routes import route_of

_GONE = (errno.ENOENT, errno.ENOTDIR)
_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device",
          stat.S_IFBLK: "a device", stat.S_IFDIR: "a folder"}


@dataclass(frozen=True)
class WalkProblem:
    path: str  # root-relative, as display_path() gives it
    message: str
    unlisted: bool = False  # a folder whose listing failed: what was indexed under it stays
    refused: bool = False  # may not be read: what was indexed from it (or under it) goes
    absent: bool = False  # a source folder that is not there now (unmounted): a warning


@dataclass(frozen=True)
class Found:
    rel: str
    path: Path
    st: os.stat_result


def display_path(rel: str) -> str:
    """The path as plain text: bytes of a name that are not UTF-8 shown as ``\\xNN``."""
    try:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return rel.encode("utf-8", "backslashreplace").decode("utf-8")


def _valid_name(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _join(dir_rel: str, name: str) -> str:
    return f"{dir_rel}/{name}" if dir_rel else name


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def split_pattern(pattern: str) -> tuple[str, ...] | None:
    """A route glob as segments; None if it is absolute or climbs out with ``..``."""
    if pattern.startswith("/") or "\\" in pattern:
        return None
    segs = [s for s in pattern.split("/") if s not in ("", ".")]
    if not segs or ".." in segs:
        return None
    out: list[str] = []
    for seg in segs:
        if not (seg == "**" and out and out[-1] == "**"):
            out.append(seg)
    return tuple(out)


class _Entry:
    __slots__ = ("name", "mode", "st")

    def __init__(self, name: str, st: os.stat_result | None, mode: int):
        self.name, self.st, self.mode = name, st, mode


class Walker:
    """One walk of the root: listings are cached across routes, problems collected once."""

    def __init__(self, root: Path, routes: Iterable[tuple[str, str]],
                 db_path: Path | None = None, *, prefix: str = "",
                 skip: Callable[[str, bool], bool] | None = None,
                 protected: Protected | None = None):
        """``root`` is the folder walked: the data root, or a source folder with ``prefix``
        (``@name/``) before every path, ``skip`` its ignore rules and ``protected`` the data
        root's protected files (engine/index/sources.py)."""
        self.root = Path(root)
        self.routes = tuple(routes)
        self.protected = protected or Protected(self.root, db_path)
        self.prefix = prefix
        self.skip = skip
        self.where = "the source" if prefix else "the data root"
        self.windows = path_style.windows()
        self.problems: list[WalkProblem] = []
        self._said: set[str] = set()
        self._listings: dict[str, list[_Entry] | None] = {}

    def report(self, rel: str, message: str, unlisted: bool = False,
               refused: bool = False) -> None:
        shown = display_path(self.prefix + rel)
        if shown not in self._said:
            self._said.add(shown)
            self.problems.append(WalkProblem(shown, message, unlisted, refused))

    # -- listing ---------------------------------------------------------------------

    def _list(self, dir_rel: str) -> list[_Entry]:
        if dir_rel in self._listings:
            return self._listings[dir_rel] or []
        entries: list[_Entry] | None = []
        try:
            with os.scandir(str(self.root / dir_rel) if dir_rel else str(self.root)) as it:
                for entry in it:
                    entries.append(self._entry(entry))
        except OSError as exc:
            if exc.errno not in _GONE:
                self.report(dir_rel + "/", f"cannot list this folder ({exc.strerror or exc}); "
                            "the files indexed under it are kept", unlisted=True)
            entries = None
        self._listings[dir_rel] = entries
        return entries or []

    @staticmethod
    def _entry(entry: os.DirEntry) -> _Entry:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:  # vanished since the listing
            return _Entry(entry.name, None, 0)
        return _Entry(entry.name, st, st.st_mode)

    def _lookup(self, dir_rel: str, name: str) -> list[_Entry]:
        if dir_rel in self._listings:
            return [e for e in self._list(dir_rel) if e.name == name]
        try:
            st = os.lstat(self.root / _join(dir_rel, name))
        except OSError as exc:
            if exc.errno not in _GONE:
                self.report(_join(dir_rel, name), f"cannot read ({exc.strerror or exc}); "
                            "what was indexed there is kept", unlisted=True)
            return []
        return [_Entry(name, st, st.st_mode)]

    def _candidates(self, dir_rel: str, seg: str) -> list[_Entry]:
        if not any(c in seg for c in "*?["):
            return self._lookup(dir_rel, seg)  # a literal name: no need to list the folder
        return [e for e in self._list(dir_rel) if fnmatch.fnmatchcase(e.name, seg)]

    # -- matching --------------------------------------------------------------------

    def match(self, pattern: str) -> Iterator[Found]:
        segs = split_pattern(pattern)
        if segs is None:
            self.report(pattern, "route glob must stay inside the data root; ignored")
            return
        yield from self._match("", segs)

    def _match(self, dir_rel: str, segs: tuple[str, ...]) -> Iterator[Found]:
        seg, rest = segs[0], segs[1:]
        if seg == "**":
            if rest:
                yield from self._match(dir_rel, rest)
            for entry in sorted(self._list(dir_rel), key=lambda e: e.name):
                if stat.S_ISDIR(entry.mode):
                    sub = self._subdir(dir_rel, entry, quiet=True)
                    if sub is not None:
                        yield from self._match(sub, segs)
                elif stat.S_ISLNK(entry.mode) and self._points_to_dir(_join(dir_rel, entry.name)):
                    self._folder_link(_join(dir_rel, entry.name))
            return
        for entry in sorted(self._candidates(dir_rel, seg), key=lambda e: e.name):
            rel = _join(dir_rel, entry.name)
            if not rest:
                found = self._file(rel, entry)
                if found is not None:
                    yield found
            elif stat.S_ISDIR(entry.mode):
                sub = self._subdir(dir_rel, entry, quiet=False)
                if sub is not None:
                    yield from self._match(sub, rest)
            elif stat.S_ISLNK(entry.mode) and self._points_to_dir(rel):
                self._folder_link(rel)

    def _skipped(self, dir_rel: str, rel: str, folder: bool) -> bool:
        """A source's ignored name, or a top-level ``@`` name of the root (said once)."""
        if self.skip is not None:
            return self.skip(rel, folder)
        if not dir_rel and rel.startswith("@"):  # said even under "**": it looks indexed
            self.report(rel, "a top-level name starting with '@' is where sources' files "
                        "are known; not indexed (rename it)")
            return True
        return False

    def _subdir(self, dir_rel: str, entry: _Entry, quiet: bool) -> str | None:
        rel = _join(dir_rel, entry.name)
        if self._skipped(dir_rel, rel, True):
            return None
        if not _valid_name(entry.name):
            self.report(rel, "folder name is not valid UTF-8; not indexed (rename it)")
            return None
        if self._refused_name(rel, entry.name, "folder"):
            return None
        if rel in self.protected:
            if not quiet:
                self.report(rel + "/", "protected (secrets or the index); never indexed")
            return None
        return rel

    def _refused_name(self, rel: str, name: str, what: str) -> bool:
        """A name this system lists but cannot open by it (on Windows: one ending in a dot,
        a device name, made by WSL or another system's sync): said, never read, and what
        was indexed from it (or under it) goes, as it cannot be read here."""
        why = path_style.windows_name_problem(name) if self.windows else None
        if why is not None:
            self.report(rel, f"{what} name {why}; not indexed (rename it)", refused=True)
        return why is not None

    def _points_to_dir(self, rel: str) -> bool:
        try:
            return stat.S_ISDIR(os.stat(self.root / rel).st_mode)
        except OSError:
            return False

    def _folder_link(self, rel: str) -> None:
        self.report(rel, "symlinked folder not walked (a route must name the real folder "
                    f"inside {self.where})")

    def _file(self, rel: str, entry: _Entry) -> Found | None:
        if entry.name.startswith(".") or entry.st is None or stat.S_ISDIR(entry.mode):
            return None
        if self._skipped(rel.rpartition("/")[0], rel, False):
            return None
        if not _valid_name(entry.name):
            self.report(rel, "file name is not valid UTF-8; not indexed (rename it)")
            return None
        if self._refused_name(rel, entry.name, "file"):
            return None
        if rel in self.protected:
            self.report(rel, "protected (secrets, config or index); never indexed")
            return None
        if stat.S_ISLNK(entry.mode):
            self._file_link(rel)
            return None
        if not stat.S_ISREG(entry.mode):
            self.report(rel, f"not a regular file ({_kind(entry.mode)}); not read, "
                        "chunks indexed from it before are kept")
            return None
        why = self.protected.refusal(entry.st)  # a hard link: the name says nothing
        if why is not None:
            self.report(rel, why, refused=True)
            return None
        return Found(self.prefix + rel, self.root / rel, entry.st)

    def _file_link(self, rel: str) -> None:
        """A symlinked file is never indexed under its own name; say why unless it is a
        harmless alias of a file the walk indexes anyway."""
        path = self.root / rel
        try:
            st = os.stat(path)
        except OSError as exc:
            why = "a symlink loop" if exc.errno == errno.ELOOP else "a broken symlink"
            self.report(rel, f"{why}; not read")
            return
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(self.root):
            self.report(rel, f"symlink leads outside {self.where}; not read")
            return
        real_rel = real.relative_to(self.root).as_posix()
        if real_rel in self.protected:
            self.report(rel, "symlink to a protected file (secrets, config or index); not read")
        elif stat.S_ISDIR(st.st_mode):
            self._folder_link(rel)
        elif not stat.S_ISREG(st.st_mode):
            self.report(rel, f"symlink to {_kind(st.st_mode)}; not read")
        elif route_of(real_rel, self.routes) is None:
            self.report(rel, f"symlink to {display_path(real_rel)}, which no route indexes; "
                        "not read")
        # else: an alias of a routed file, indexed under its real path

    def walk(self) -> Iterator[tuple[Found, str]]:
        """(file, source type) for every file a route claims, once each, first route wins;
        each route's files in path order."""
        seen: set[str] = set()
        for pattern, source_type in self.routes:
            for found in sorted(self.match(pattern), key=lambda f: f.rel.split("/")):
                if found.rel not in seen:
                    seen.add(found.rel)
                    yield found, source_type


def classify_missing(root: Path, routes: Iterable[tuple[str, str]], db_path: Path | None,
                     rels: Iterable[str], problems: list[WalkProblem], *, prefix: str = "",
                     skip: Callable[[str, bool], bool] | None = None,
                     protected: Protected | None = None
                     ) -> tuple[list[str], list[WalkProblem]]:
    """Indexed files the walk did not find: (those to remove, those kept with a reason).

    Removed: a file that is gone (ENOENT), that no route claims any more, that the walk
    refused to read (a hard link, see engine/index/protected.py; a name this system cannot
    open, or one under such a folder), or whose path now leads through a link (out of the
    root, to a protected file, or to an alias). Kept: a file under a folder that could not be
    listed, one that cannot be stat'ed, and one that is now a FIFO, socket or folder (a walk
    error never deletes anything). A source's paths (``prefix``,
    ``skip``, ``protected`` as for :class:`Walker`) are looked up inside its folder ``root``;
    one its ignore rules skip now is removed.
    """
    root = Path(root)
    routes = tuple(routes)
    protected = protected or Protected(root, db_path)
    unlisted = tuple(p.path for p in problems if p.unlisted)
    said = {p.path for p in problems}
    refused = tuple(p.path for p in problems if p.refused)
    remove: list[str] = []
    kept: list[WalkProblem] = []
    for rel in sorted(rels):
        inner = rel[len(prefix):]
        if any(rel == r or rel.startswith(r + "/") for r in refused):
            # e.g. now a hard link to a secret, or a name this system cannot open (a folder's
            # too): its chunks must not be served
            remove.append(rel)
            continue
        path = root / inner
        try:
            st = os.lstat(path)
        except OSError as exc:
            if exc.errno in _GONE:
                remove.append(rel)
            elif rel not in said:
                kept.append(WalkProblem(rel, f"cannot stat ({exc.strerror or exc}); its "
                                        "indexed chunks are kept"))
            continue
        real = Path(os.path.realpath(path))
        if (stat.S_ISLNK(st.st_mode) or real != path or inner in protected
                or route_of(inner, routes) is None or skipped_path(inner, skip)):
            remove.append(rel)
        elif any(rel == u or rel.startswith(u.rstrip("/") + "/") for u in unlisted):
            continue  # its folder's walk error is reported once
        elif rel not in said:
            what = "not reached by the walk" if stat.S_ISREG(st.st_mode) else (
                f"now {_kind(st.st_mode)}")
            kept.append(WalkProblem(rel, f"{what}; its indexed chunks are kept"))
    return remove, kept


def skipped_path(inner: str, skip: Callable[[str, bool], bool] | None) -> bool:
    """Whether a source's ignore rules skip the file or any folder on its way."""
    if skip is None:
        return False
    parts = inner.split("/")
    return any(skip("/".join(parts[:i]), True) for i in range(1, len(parts))) or skip(inner, False)
