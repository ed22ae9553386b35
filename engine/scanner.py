"""File discovery over the routes (``engine/index/routes.py``) and change detection: by mtime for
a reindex, and which indexed files a page of results should show as stale."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from engine.config import CONFIG_FILENAME
from engine.index import sources as source_paths
from engine.index.protected import Protected, source_folder

# SOURCE_TYPES is public: ``engine.SOURCE_TYPES`` is this one
from engine.index.routes import FILE_ROUTES, SOURCE_TYPES  # noqa: F401
from engine.index.sources import Folder
from engine.index.walk import Walker, WalkProblem, classify_missing
from engine.storage.db import Connection


@dataclass(frozen=True)
class SourceFile:
    path: Path  # absolute
    rel: str  # relative to the root, or ``@name/...`` in a source: chunks' source_file
    source_type: str
    mtime: float
    size: int


def discover(root: Path, routes: Iterable[tuple[str, str]] = FILE_ROUTES, *,
             db_path: Path | None = None,
             problems: list[WalkProblem] | None = None) -> Iterator[SourceFile]:
    """Every regular file the routes claim inside the root, each once (first route wins), in
    a stable order. What the walk refuses or cannot list goes to ``problems`` (see
    ``engine/index/walk.py`` for the rules: no link leads out, secrets and the index never count)."""
    yield from _walked(Walker(Path(root), routes, db_path), problems)


def _walked(walker: Walker, problems: list[WalkProblem] | None) -> Iterator[SourceFile]:
    """The walker's files as SourceFiles; its problems go to ``problems`` once it is done."""
    try:
        for found, source_type in walker.walk():
            yield SourceFile(found.path, found.rel, source_type, found.st.st_mtime,
                             found.st.st_size)
    finally:
        if problems is not None:
            problems.extend(walker.problems)


def source_folders(config, mounted: dict[str, str] | None = None) -> dict[str, Folder]:
    """Each declared source's folder as it is now, checked (engine/index/sources.py,
    ``folder_now``); ``mounted``: {name: path} of sources whose folder was a mounted disk
    when last indexed (the index's record, engine/indexer.py)."""
    mounted = mounted or {}
    return {s.name: source_folder(config, s, mounted.get(s.name) == str(s.path))
            for s in config.sources}


def absent_source(source, folder: Folder) -> WalkProblem:
    """A source folder not read now, said once; its indexed files are kept (a folder that
    leads where no source may is an error, an absent one a state)."""
    kept = f"its indexed files are kept until `memlens source remove {shlex.quote(source.name)}`"
    if folder.refused:
        return WalkProblem(source.prefix, f"source {source.name!r}: {folder.why}; not read, "
                           f"{kept}", unlisted=True)
    return WalkProblem(source.prefix, f"source {source.name!r}: {folder.why}; {kept}",
                       unlisted=True, absent=True)


def discover_files(config, problems: list[WalkProblem] | None = None,
                   folders: dict[str, Folder] | None = None) -> Iterator[SourceFile]:
    """Every file the configuration takes: the routes' under the root, then each source's
    (``@name/...``) in its folder as checked now (``folders``, default :func:`source_folders`);
    a source folder not read is one problem, its files kept."""
    yield from discover(config.root, config.routes, db_path=config.db_path, problems=problems)
    folders = source_folders(config) if folders is None else folders
    for source in config.sources:
        real = folders[source.name].real
        if real is None:
            if problems is not None:
                problems.append(absent_source(source, folders[source.name]))
            continue
        yield from source_files_now(config, source, real, problems)


def source_files_now(config, source, real: Path,
                     problems: list[WalkProblem] | None = None) -> Iterator[SourceFile]:
    """The files of ``source``, its folder read now at ``real`` (:func:`source_folders`): what
    its routes take there, its ignore rules, dot-files and links refused left out. The one
    walk behind `memlens discover` and every count of a source's files
    (engine/index/source_config.py, ``source_states``)."""
    skip = source.ignore_rules(real)
    if problems is not None:
        problems += [WalkProblem(source.prefix + inner, message)
                     for inner, message in skip.problems]
    yield from _walked(Walker(real, source.routes, prefix=source.prefix, skip=skip,
                              protected=Protected(config.root, config.db_path, inside=real)),
                       problems)


def classify_missing_files(config, rels: Iterable[str], problems: list[WalkProblem],
                           folders: dict[str, Folder] | None = None
                           ) -> tuple[list[str], list[WalkProblem]]:
    """engine/index/walk.py's classify_missing over the root and every source; the files of a
    source no longer declared are removed, those of a source folder not read now kept."""
    by_source: dict[str, list[str]] = {}
    for rel in rels:
        parts = source_paths.split(rel)
        by_source.setdefault("" if parts is None else parts[0], []).append(rel)
    remove, kept = classify_missing(config.root, config.routes, config.db_path,
                                    by_source.pop("", []), problems)
    declared = {s.name: s for s in config.sources}
    folders = source_folders(config) if folders is None else folders
    # no memlens.toml at all (moved away for a moment): its sources were not removed on
    # purpose, so their files stay (said once each); an empty one is what removing the last
    # source writes
    gone = not (config.root / CONFIG_FILENAME).exists()
    for name, names in sorted(by_source.items()):
        source = declared.get(name)
        if source is None and gone:
            kept.append(WalkProblem(f"{source_paths.PREFIX}{name}/", f"source {name!r}: "
                                    f"{CONFIG_FILENAME} is gone from the data root, so its "
                                    f"{len(names):,} indexed files are kept; restore the file, "
                                    f"or `memlens source remove {shlex.quote(name)}` once it is back"))
            continue
        if source is None:  # removed from the configuration on purpose
            remove += names
            continue
        real = folders[name].real
        if real is None:
            continue  # reported by discover_files; nothing is deleted for a missing mount
        r, k = classify_missing(real, source.routes, None, names, problems,
                                prefix=source.prefix, skip=source.ignore_rules(real),
                                protected=Protected(config.root, config.db_path, inside=real))
        remove += r
        kept += k
    return remove, kept


def all_routes(config) -> tuple[tuple[str, str], ...]:
    """The root's routes, then each source's globs as ``@name/<glob>`` (what discover shows)."""
    return (*config.routes, *((source.prefix + pattern, source_type)
                              for source in config.sources
                              for pattern, source_type in source.routes))


class Indexed(NamedTuple):
    """What the index recorded of a file when it last read it."""

    mtime: float
    source_type: str


def indexed_files(conn) -> dict[str, Indexed]:
    return {row[0]: Indexed(row[1], row[2]) for row in conn.execute(
        "SELECT source_file, mtime, source_type FROM index_state")}


def needs_indexing(files: Iterable[SourceFile],
                   indexed: dict[str, Indexed]) -> list[SourceFile]:
    """Level one of change detection: a file is a candidate if it is new, its mtime moved, or
    a route now gives it another source type (its chunks carry the type they were read as)."""
    return [f for f in files if indexed.get(f.rel) != (f.mtime, f.source_type)]


def vanished(files: Iterable[SourceFile], mtimes: dict[str, Indexed],
             absent: tuple[str, ...] = ()) -> list[str]:
    """Indexed files that no route claims on disk any more; those under ``absent`` (the
    prefixes of sources whose folder is not there) are kept by a reindex, so not listed."""
    present = {f.rel for f in files}
    return sorted(rel for rel in mtimes if rel not in present and not rel.startswith(absent))


def absent_prefixes(config, folders: dict[str, Folder] | None = None) -> tuple[str, ...]:
    """``@name/`` of each source whose folder is not read now (an unmounted disk)."""
    folders = source_folders(config) if folders is None else folders
    return tuple(s.prefix for s in config.sources if folders[s.name].real is None)


def pending_files(files: list[SourceFile], db_path: Path) -> tuple[list[SourceFile], list[str]]:
    """Files that need (re)indexing and indexed files gone from disk, read-only on the index."""
    from engine.storage.db import connect

    mtimes: dict[str, Indexed] = {}
    if Path(db_path).exists():
        conn = connect(db_path, readonly=True)
        try:
            mtimes = indexed_files(conn)
        finally:
            conn.close()
    return needs_indexing(files, mtimes), vanished(files, mtimes)


# -- staleness: which indexed files changed since --------------------------------------------

# Which source files changed (or vanished) on disk since they were indexed, and which cannot be
# checked now because their source's folder is not read (an unmounted disk): those are neither
# changed nor gone, a reindex keeps them, and a page shows them as indexed, saying why.
#
# One query for a whole page of results: the file list goes in as one JSON parameter, so the
# statement is the same whatever the page size (no per-row lookups, no variable limit); a page
# with files of sources adds one read of the mount record and a check of each source's folder.

MOUNTED_SOURCES = "source_mounts"  # meta: {name: path} of sources read from a mounted disk


def indexed_mtimes_of(conn: Connection, source_files: Iterable[str]) -> dict[str, float]:
    """The recorded mtime of each of ``source_files`` that is in index_state."""
    wanted = sorted(set(source_files))
    if not wanted:
        return {}
    return {r[0]: r[1] for r in conn.execute(
        "SELECT source_file, mtime FROM index_state "
        "WHERE source_file IN (SELECT value FROM json_each(?))", (json.dumps(wanted),))}


def mounted_sources(conn: Connection | None) -> dict[str, str]:
    """{name: path} of the sources the last reindex read from a mounted disk (written by
    engine/indexer.py): such a folder found on its parent's file system is not read."""
    if conn is None:
        return {}
    from engine.schema import get_meta

    try:
        found = json.loads(get_meta(conn, MOUNTED_SOURCES) or "{}")
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def unread_files(conn: Connection | None, config, source_files: Iterable[str]) -> dict[str, str]:
    """The files among ``source_files`` of a declared source whose folder is not read now
    (missing, empty, no longer the mounted disk it was, or leading where no source may), each
    with one line saying so: ``source 'Vault' is not read now: its folder is empty (...)``.
    A reindex keeps them (:func:`classify_missing_files`); only their folders are checked,
    once per source, never the files."""
    names: dict[str, list[str]] = {}
    for rel in set(source_files):
        parts = source_paths.split(rel)
        if parts is not None:
            names.setdefault(parts[0], []).append(rel)
    declared = [s for s in config.sources if s.name in names]
    if not declared:
        return {}
    mounted = mounted_sources(conn)
    out: dict[str, str] = {}
    for source in declared:
        folder = source_folder(config, source, mounted.get(source.name) == str(source.path))
        if folder.real is None:
            note = f"source {source.name!r} is not read now: {folder.why}"
            out.update(dict.fromkeys(names[source.name], note))
    return out


def stale_files(conn: Connection, config, source_files: Iterable[str]) -> set[str]:
    """The files among ``source_files`` whose file on disk is not the one indexed: its mtime
    moved, it is gone or unreadable, or it was never indexed. A file of a source whose folder
    is not read now is not among them: it cannot be checked, and it is kept
    (:func:`unread_files` says which and why)."""
    given = set(source_files)
    wanted = given - unread_files(conn, config, given).keys()
    mtimes = indexed_mtimes_of(conn, wanted)
    stale = set()
    for rel in wanted:
        try:
            path = config.locate(rel)
            if rel not in mtimes or path is None or os.stat(path).st_mtime != mtimes[rel]:
                stale.add(rel)
        except (OSError, ValueError):  # gone, unreadable, or a name the OS refuses
            stale.add(rel)
    return stale


if __name__ == "__main__":  # ``python -m engine.scanner [--discover]``: ``memlens discover``
    from engine.command_line import run

    argv = sys.argv[1:]
    which = [] if {"--files", "--pending"} & set(argv) else [
        "--files" if "--discover" in argv else "--pending"]
    sys.exit(run(["discover", *which, *(a for a in argv if a != "--discover")]))
