"""The warnings a run has already said: a reindex says a warning when it is new, not at every run.

A walk repeats its warnings at every run (a link leading out of a source, a ``.gitignore`` line
no pattern parser takes, a source not mounted), so `memlens reindex`, `memlens source add`
and the app would say them all again each time. The index keeps the warnings that hold now in
the meta key ``known_warnings``, each keyed by its file and message; a run marks each of its
warnings ``new`` or not, and the front doors print only the new ones (and one line for those
said before). `memlens stats` and the app's statistics list them all.

A warning that no longer occurs is forgotten, with one exception: a warning said while a file
was read (a skipped record) holds as long as the file stays indexed and is not read again, as
an unchanged file is not. A warning about the run itself (``(index)``: the sidecar or text
index not updated) is always new and never kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.index.run_report import FileError, IndexStats
from engine.schema import get_meta, set_meta
from engine.storage.db import Connection

KNOWN_WARNINGS = "known_warnings"  # meta: JSON list of {"source_file", "message", "read"}
RUN_ITSELF = "(index)"  # a warning about this run, not about a file: said each time


@dataclass
class RunWarning(FileError):
    new: bool = True  # no run before this one said it (while it held since)


def known_warnings(conn: Connection) -> list[dict] | None:
    """The warnings that held at the last run, each ``{"source_file", "message", "read"}``;
    None for an index no run has recorded them in yet."""
    raw = get_meta(conn, KNOWN_WARNINGS)
    if raw is None:
        return None
    try:
        items = json.loads(raw)
    except ValueError:
        return []
    return [w for w in items if isinstance(w, dict) and isinstance(w.get("source_file"), str)
            and isinstance(w.get("message"), str)] if isinstance(items, list) else []


def mark_new(conn: Connection, stats: IndexStats, read_warnings: range,
             read_files: set[str]) -> list[dict]:
    """Mark each of the run's warnings new or said before (in place) and return what the
    index keeps for the next run (:func:`remember` writes it). ``read_warnings`` are the
    positions in ``stats.warnings`` of those said while reading a file, ``read_files`` the
    files this run read."""
    before = known_warnings(conn) or []
    said = {(w["source_file"], w["message"]) for w in before}
    stats.warnings = [RunWarning(w.source_file, w.message, w.source_file == RUN_ITSELF
                                 or (w.source_file, w.message) not in said)
                      for w in stats.warnings]
    keep: dict[tuple[str, str], dict] = {}
    for i, w in enumerate(stats.warnings):
        if w.source_file != RUN_ITSELF:
            keep.setdefault((w.source_file, w.message), {
                "source_file": w.source_file, "message": w.message, "read": i in read_warnings})
    held = [w for w in before if w.get("read") and w["source_file"] not in read_files]
    if held:  # a file's own warning holds while the file is indexed and not read again
        indexed = {r[0] for r in conn.execute("SELECT source_file FROM index_state")}
        for w in held:
            if w["source_file"] in indexed:
                keep.setdefault((w["source_file"], w["message"]), w)
    return list(keep.values())


def remember(conn: Connection, kept: list[dict]) -> None:
    """Store what :func:`mark_new` returned (inside the caller's transaction)."""
    set_meta(conn, KNOWN_WARNINGS, json.dumps(kept))
