"""File discovery over the routes (``engine/routes.py``) and mtime-level change detection."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# SOURCE_TYPES is re-exported: front doors import it from here
from .routes import FILE_ROUTES, SOURCE_TYPES  # noqa: F401
from .textsafe import one_line, plain
from .walk import Walker, WalkProblem


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
    ``engine/walk.py`` for the rules: no link leads out, secrets and the index never count)."""
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
    from .db import connect

    mtimes: dict[str, float] = {}
    if Path(db_path).exists():
        conn = connect(db_path, readonly=True)
        try:
            mtimes = indexed_mtimes(conn)
        finally:
            conn.close()
    return needs_indexing(files, mtimes), vanished(files, mtimes)


def print_pending(files: list[SourceFile], db_path: Path, summary_file=None) -> None:
    pending, gone = pending_files(files, db_path)
    for f in pending:
        print(f"{f.source_type:15} {plain(f.rel)}")
    for rel in gone:
        print(f"{'(removed)':15} {plain(rel)}")
    print(f"{len(pending)} of {len(files)} files need indexing", file=summary_file)


def main(argv: list[str] | None = None) -> int:
    from .config import DB_HELP, ROOT_HELP, ConfigError, load_config, resolve_root

    parser = argparse.ArgumentParser(
        prog="python -m engine.scanner",
        description="List the files the router would index (--discover) or those pending.")
    parser.add_argument("--root", help=ROOT_HELP)
    parser.add_argument("--db", help=DB_HELP)
    parser.add_argument("--discover", action="store_true", help="list every routed file")
    args = parser.parse_args(argv)
    root, _ = resolve_root(args.root)
    try:
        config = load_config(root, args.db)
    except ConfigError as exc:
        print(f"memlens: {one_line(exc)}", file=sys.stderr)
        return 2
    problems: list[WalkProblem] = []
    files = list(discover(config.root, config.routes, db_path=config.db_path,
                          problems=problems))
    for p in problems:
        print(f"skipped: {plain(p.path)}: {one_line(p.message)}", file=sys.stderr)
    if args.discover:
        for f in files:
            print(f"{f.source_type:15} {plain(f.rel)}")
        print(f"{len(files)} files", file=sys.stderr)
        return 0
    print_pending(files, config.db_path, summary_file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
