"""File discovery over the routes (``engine/index/routes.py``) and change detection: by mtime for
a reindex, and which indexed files a page of results should show as stale."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# SOURCE_TYPES is public: ``engine.SOURCE_TYPES`` is this one
from engine.index.routes import FILE_ROUTES, SOURCE_TYPES  # noqa: F401
from engine.index.walk import Walker, WalkProblem
from engine.storage.db import Connection


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # POSIX path relative to the root: what chunks store as source_file
    source_type: str
    mtime: float
    size: int


def discover(root: Path, routes: Iterable[tuple[str, str]] = FILE_ROUTES, *,
             db_path: Path | None = None,
             problems: list[WalkProblem] | None = None) -> Iterator[SourceFile]:
    """Every regular file the routes claim inside the root, each once (first route wins), in
    a stable order. What the walk refuses or cannot list goes to ``problems`` (see
    ``engine/index/walk.py`` for the rules: no link leads out, secrets and the index never count)."""
    walker = Walker(Path(root), routes, db_path)
    try:
        for found, source_type in walker.walk():
            yield SourceFile(found.path, found.rel, source_type, found.st.st_mtime,
                             found.st.st_size)
    finally:
        if problems is not None:
            problems.extend(walker.problems)


def indexed_mtimes(conn) -> dict[str, float]:
    return {row[0]: row[1] for row in conn.execute("SELECT source_file, mtime FROM index_state")}


def needs_indexing(files: Iterable[SourceFile], mtimes: dict[str, float]) -> list[SourceFile]:
    """Level one of change detection: a file is a candidate if it is new or its mtime moved."""
    return [f for f in files if mtimes.get(f.rel) != f.mtime]


def vanished(files: Iterable[SourceFile], mtimes: dict[str, float]) -> list[str]:
    """Indexed files that no route claims on disk any more."""
    present = {f.rel for f in files}
    return sorted(rel for rel in mtimes if rel not in present)


def pending_files(files: list[SourceFile], db_path: Path) -> tuple[list[SourceFile], list[str]]:
    """Files that need (re)indexing and indexed files gone from disk, read-only on the index."""
    from engine.storage.db import connect

    mtimes: dict[str, float] = {}
    if Path(db_path).exists():
        conn = connect(db_path, readonly=True)
        try:
            mtimes = indexed_mtimes(conn)
        finally:
            conn.close()
    return needs_indexing(files, mtimes), vanished(files, mtimes)


# -- staleness: which indexed files changed since --------------------------------------------

# Which source files changed (or vanished) on disk since they were indexed.
#
# One query for a whole page of results: the file list goes in as one JSON parameter, so the
# statement is the same whatever the page size (no per-row lookups, no variable limit).

def indexed_mtimes_of(conn: Connection, source_files: Iterable[str]) -> dict[str, float]:
    """The recorded mtime of each of ``source_files`` that is in index_state."""
    wanted = sorted(set(source_files))
    if not wanted:
        return {}
    return {r[0]: r[1] for r in conn.execute(
        "SELECT source_file, mtime FROM index_state "
        "WHERE source_file IN (SELECT value FROM json_each(?))", (json.dumps(wanted),))}


def stale_files(conn: Connection, root: Path, source_files: Iterable[str]) -> set[str]:
    """The files among ``source_files`` whose file on disk is not the one indexed: its mtime
    moved, it is gone or unreadable, or it was never indexed."""
    wanted = set(source_files)
    mtimes = indexed_mtimes_of(conn, wanted)
    stale = set()
    for rel in wanted:
        try:
            if rel not in mtimes or os.stat(Path(root) / rel).st_mtime != mtimes[rel]:
                stale.add(rel)
        except (OSError, ValueError):  # gone, unreadable, or a name the OS refuses
            stale.add(rel)
    return stale


if __name__ == "__main__":  # ``python -m engine.scanner [--discover]``: ``memlens discover``
    from cli.main import main  # one implementation of each command, one exit-code rule

    argv = sys.argv[1:]
    which = "--files" if "--discover" in argv else "--pending"
    sys.exit(main(["discover", which, *(a for a in argv if a != "--discover")]))
