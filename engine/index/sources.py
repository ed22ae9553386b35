"""Sources in place: folders outside the data root that memlens reads where they live and never
writes (an Obsidian vault, a notes folder, a folder of exports), each of one source type.

A file of a source is known everywhere (chunks, reads, the app) by ``@<name>/<path inside the
source>``: the ``@`` keeps it apart from every root-relative path, since the walk of the root
never indexes a top-level name starting with ``@`` (engine/index/walk.py). The rules
(docs/reliability.md, "Sources in place"):

- a source never overlaps the root or another source, so no file is indexed twice and
  ``secrets/`` and the index never become readable through one;
- inside a source, dot-folders (``.obsidian/``, ``.git/``, ``.trash/``), what its top
  ``.gitignore`` ignores and its own ``ignore`` globs are skipped; a symlink never leads out;
- a source folder that is missing (an unmounted disk) keeps its indexed chunks until the
  source is removed on purpose;
- what a source's path leads to is checked again at every walk and every read
  (:func:`folder_now`), since the folder can be swapped for a link while memlens runs: a folder
  that now leads into the root, contains it or holds the index is not read, and one that is
  empty (a mount point without its disk) counts as not there.

This module imports nothing of the engine but the routes, so the configuration can use it.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.index.routes import FILE_ROUTES, SOURCE_TYPES

PREFIX = "@"
NAME_MAX = 40
NAME_PUNCTUATION = " ._-"
NAME_RULE = ("1-40 letters (of any script), digits, spaces, '.', '_' or '-', starting with a "
             "letter or digit")
GITIGNORE = ".gitignore"


def file_patterns(source_type: str) -> tuple[str, ...]:
    """The globs a source of ``source_type`` takes, inside it: the file names its routes under
    the root take (``notes/**/*.md`` -> ``*.md``), at any depth."""
    names = dict.fromkeys(pattern.rsplit("/", 1)[-1] for pattern, t in FILE_ROUTES
                          if t == source_type)
    return tuple(f"**/{name}" for name in names)


@dataclass(frozen=True)
class Source:
    name: str
    path: Path  # absolute, as configured (``~`` expanded); may be missing (unmounted)
    source_type: str
    ignore: tuple[str, ...] = ()  # gitignore-style patterns, relative to the source

    @property
    def prefix(self) -> str:
        return f"{PREFIX}{self.name}/"

    @property
    def routes(self) -> tuple[tuple[str, str], ...]:
        """The source's globs, relative to its folder."""
        return tuple((p, self.source_type) for p in file_patterns(self.source_type))

    def ignore_rules(self, folder: Path | None = None) -> IgnoreRules:
        """Read now, in ``folder`` (the folder as :func:`folder_now` found it; default the
        configured path): a walk sees the ``.gitignore`` as it is at that walk."""
        return IgnoreRules(self.path if folder is None else folder, self.ignore)


@dataclass(frozen=True)
class Folder:
    """A source's folder as it is at one moment: ``real`` (links resolved) to walk or read,
    else None and ``why`` not, in words fit for a warning (never a file's text)."""

    real: Path | None
    why: str = ""
    refused: bool = False  # it leads where no source may (the root, the index), not just absent


def folder_now(source: Source, root: Path, index_paths: Iterable[Path] = (),
               was_mounted: bool = False, sources: Sequence[Source] = ()) -> Folder:
    """Where ``source`` leads now, checked: the folder must neither contain the data root nor
    lie inside it, nor hold any of ``index_paths`` (the index and its sidecar), nor overlap
    another of the declared ``sources`` it yields to (:func:`_yields`), however links were
    swapped since the configuration was read; a folder with nothing but dot-entries is
    counted as not there (an unmounted disk leaves its empty mount point), and so is one
    ``was_mounted`` (its own file system when last indexed) that is now on its parent's."""
    try:
        real = Path(os.path.realpath(source.path))
        if not real.is_dir():
            return Folder(None, "its folder is not there (not mounted?)")
        home = Path(os.path.realpath(root))
        if real == home or real.is_relative_to(home):
            return Folder(None, "its folder now leads into the data root (a link swapped "
                          "in?)", refused=True)
        if home.is_relative_to(real):
            return Folder(None, "its folder now contains the data root (a link swapped "
                          "in?)", refused=True)
        for path in index_paths:
            if Path(os.path.realpath(path)).is_relative_to(real):
                return Folder(None, "its folder holds the index", refused=True)
        for other in sources:
            if other.name != source.name and _yields(source, real, other, sources):
                return Folder(None, f"its folder now overlaps source {other.name!r} (a link "
                              "swapped in?): its files would be indexed twice", refused=True)
        if was_mounted and os.stat(real).st_dev == os.stat(real.parent).st_dev:
            return Folder(None, "its folder is no longer a mounted disk, as it was when "
                          "indexed (not mounted?)")
        if _only_dot_entries(real):
            return Folder(None, "its folder is empty (a disk's mount point, not mounted?)")
    except (OSError, RuntimeError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return Folder(None, f"its folder cannot be read ({why})")
    return Folder(real)


def _yields(source: Source, real: Path, other: Source, sources: Sequence[Source]) -> bool:
    """Whether ``source`` (leading to ``real``) overlaps ``other`` and gives way to it: the
    one reached through a link gives way (a folder swapped for a link to another source's),
    else the one declared later."""
    theirs = Path(os.path.realpath(other.path))
    if not (real == theirs or real.is_relative_to(theirs) or theirs.is_relative_to(real)):
        return False
    mine_linked = real != Path(os.path.abspath(source.path))
    theirs_linked = theirs != Path(os.path.abspath(other.path))
    if mine_linked != theirs_linked:
        return mine_linked
    order = [s.name for s in sources]
    return source.name not in order or order.index(source.name) > order.index(other.name)


def is_mount_point(folder: Path) -> bool:
    """Whether ``folder`` is on another file system than its parent (a mounted disk)."""
    try:
        return os.stat(folder).st_dev != os.stat(Path(folder).parent).st_dev
    except OSError:
        return False


def _only_dot_entries(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return not any(not e.name.startswith(".") for e in entries)
    except PermissionError:
        return False  # unlistable: the walk says so, nothing is taken for gone


class IgnoreRules:
    """What a walk of a source skips: dot-folders and dot-files, the top ``.gitignore``'s
    patterns and the source's ``ignore`` list (both gitignore syntax, via ``pathspec``).

    A line that is no valid pattern is skipped and named in ``problems`` by file and line
    number, never by its text (a ``.gitignore`` can be anything, even a link to a secret);
    a ``.gitignore`` that is a link leading out of the folder is not read at all."""

    def __init__(self, folder: Path, ignore: tuple[str, ...]):
        import pathspec

        # (path inside the source, what was skipped): "" for the source's own ignore list
        self.problems: list[tuple[str, str]] = []
        patterns = self._patterns(_gitignore_lines(Path(folder), self.problems), GITIGNORE,
                                  "line")
        patterns += self._patterns(list(ignore), "", "memlens.toml: ignore entry")
        self.spec = pathspec.GitIgnoreSpec(patterns)

    def _patterns(self, lines: list[str], where: str, what: str) -> list:
        out = []
        for number, line in enumerate(lines, start=1):
            pattern = ignore_pattern(line)
            if pattern is None:
                self.problems.append((where, f"{what} {number} is not a valid ignore pattern; "
                                      "skipped (the other lines apply)"))
            elif pattern.include is not None:  # None: a blank line or a comment
                out.append(pattern)
        return out

    def __call__(self, rel: str, folder: bool) -> bool:
        """Whether the source-relative ``rel`` (a folder when ``folder``) is skipped."""
        if rel.rsplit("/", 1)[-1].startswith("."):
            return True
        return self.spec.match_file(rel + "/" if folder else rel)


def ignore_pattern(line: str):
    """``line`` as a gitignore pattern (``pathspec``), or None when it is not one."""
    from pathspec.patterns import GitWildMatchPattern
    from pathspec.patterns.gitwildmatch import GitWildMatchPatternError

    try:
        return GitWildMatchPattern(line)
    except (GitWildMatchPatternError, ValueError, TypeError, re.error):  # "[z-a]": a bad range
        return None


def _gitignore_lines(folder: Path, problems: list[tuple[str, str]]) -> list[str]:
    """The top ``.gitignore``'s lines; none when it is absent, unreadable, not a regular file
    or a link leading out of ``folder``."""
    path = folder / GITIGNORE
    try:
        if os.path.islink(path):
            real = Path(os.path.realpath(path))
            if not real.is_relative_to(os.path.realpath(folder)):
                problems.append((GITIGNORE, "a link leading out of the source; not read"))
                return []
            path = real
        if not stat.S_ISREG(os.stat(path).st_mode):
            return []
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []  # none, or unreadable: nothing more is skipped


def split(rel: str) -> tuple[str, str] | None:
    """(source name, path inside it) of a source file's path, or None for a root path."""
    if not rel.startswith(PREFIX):
        return None
    name, _, inner = rel[len(PREFIX):].partition("/")
    return name, inner


def find(sources: tuple[Source, ...], rel: str) -> tuple[Source, str] | None:
    """The declared source of ``@name/...`` and the path inside it, or None."""
    parts = split(rel)
    if parts is None:
        return None
    for source in sources:
        if source.name == parts[0]:
            return source, parts[1]
    return None


def location(root: Path, sources: tuple[Source, ...], rel: str) -> Path | None:
    """Where the file indexed as ``rel`` is on disk (unchecked: for a stat, never a read), or
    None for a source path whose source is not declared."""
    if split(rel) is None:
        return Path(root) / rel
    found = find(sources, rel)
    return None if found is None else found[0].path / found[1]


def overlap(a: Path, b: Path, resolve: bool = True) -> bool:
    """Whether one folder is, or lies inside, the other (links resolved unless not
    ``resolve``: then as written, made absolute and normalized)."""
    a, b = (Path(os.path.realpath(a)), Path(os.path.realpath(b))) if resolve else \
        (Path(os.path.abspath(a)), Path(os.path.abspath(b)))
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def check_name(name: object) -> str | None:
    """Why ``name`` cannot name a source, or None. A name is the person's spelling
    (``Zettelkästen``, ``Obsidian Vault``), NFC: it is ``@name/`` in every path shown, and no
    file is ever named after it."""
    if not (isinstance(name, str) and 0 < len(name) <= NAME_MAX and name[0].isalnum()
            and name == name.rstrip() and "  " not in name
            and all(c.isalnum() or c in NAME_PUNCTUATION for c in name)):
        return f"a source name must be {NAME_RULE} (got {name!r})"
    if name != unicodedata.normalize("NFC", name):
        return f"a source name must be in Unicode's composed form (NFC) (got {name!r})"
    return None


def as_name(typed: str) -> str:
    """A name as typed (a terminal may send ``ä`` decomposed) in the form names are kept."""
    return unicodedata.normalize("NFC", typed.strip())


def check_type(source_type: object) -> str | None:
    if source_type not in SOURCE_TYPES:
        return (f"unknown source type {source_type!r}: one of {', '.join(SOURCE_TYPES)}")
    return None


def default_name(path: Path, taken: set[str]) -> str:
    """A source name from the folder's name as it is spelled, made valid and unique: only
    what a name cannot hold becomes '-' (``My Notes (old)`` -> ``My Notes -old``)."""
    folder = unicodedata.normalize("NFC", Path(path).name)
    base = "".join(c if c.isalnum() or c in NAME_PUNCTUATION else "-" for c in folder)
    base = re.sub(r"\s+", " ", re.sub(r"-{2,}", "-", base))
    base = base.strip(NAME_PUNCTUATION)[:NAME_MAX - 4].rstrip() or "source"
    if not base[0].isalnum():
        base = "s" + base
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
