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
  source is removed on purpose.

This module imports nothing of the engine but the routes, so the configuration can use it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from engine.index.routes import FILE_ROUTES, SOURCE_TYPES

PREFIX = "@"
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}\Z")
NAME_RULE = "1-40 letters, digits, '.', '_' or '-', starting with a letter or digit"
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

    def real_path(self) -> Path | None:
        """The folder with links resolved, or None when it is not a folder now."""
        try:
            real = self.path.resolve()
            return real if real.is_dir() else None
        except (OSError, RuntimeError):
            return None

    def ignore_rules(self) -> IgnoreRules:
        """Read now: a walk sees the ``.gitignore`` as it is at that walk."""
        return IgnoreRules(self.path, self.ignore)


class IgnoreRules:
    """What a walk of a source skips: dot-folders and dot-files, the top ``.gitignore``'s
    patterns and the source's ``ignore`` list (both gitignore syntax, via ``pathspec``)."""

    def __init__(self, folder: Path, ignore: tuple[str, ...]):
        import pathspec

        lines = list(ignore)
        try:
            text = (Path(folder) / GITIGNORE).read_text(encoding="utf-8", errors="replace")
            lines = text.splitlines() + lines
        except OSError:
            pass  # none, or unreadable: nothing more is skipped
        self.spec = pathspec.GitIgnoreSpec.from_lines(lines)

    def __call__(self, rel: str, folder: bool) -> bool:
        """Whether the source-relative ``rel`` (a folder when ``folder``) is skipped."""
        if rel.rsplit("/", 1)[-1].startswith("."):
            return True
        return self.spec.match_file(rel + "/" if folder else rel)


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


def overlap(a: Path, b: Path) -> bool:
    """Whether one folder is, or lies inside, the other (links resolved)."""
    a, b = Path(os.path.realpath(a)), Path(os.path.realpath(b))
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def check_name(name: object) -> str | None:
    """Why ``name`` cannot name a source, or None."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        return f"a source name must be {NAME_RULE} (got {name!r})"
    return None


def check_type(source_type: object) -> str | None:
    if source_type not in SOURCE_TYPES:
        return (f"unknown source type {source_type!r}: one of {', '.join(SOURCE_TYPES)}")
    return None


def default_name(path: Path, taken: set[str]) -> str:
    """A source name from the folder's name, made valid and unique."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(path).name).strip("-._")[:36] or "source"
    if not base[0].isalnum():
        base = "s" + base
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
