"""Which source files changed (or vanished) on disk since they were indexed.

One query for a whole page of results: the file list goes in as one JSON parameter, so the
statement is the same whatever the page size (no per-row lookups, no variable limit).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from .db import Connection


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
