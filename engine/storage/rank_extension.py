"""``memlens_bm25``: FTS5's bm25 with document frequencies the caller already knows.

FTS5's ``bm25()`` walks every phrase's whole posting list once per statement to count it (the
idf), ~19 ms for one common word at 2M chunks; the keyword arm knows those counts exactly from
the index's term list and passes them (engine/csrc/memlensrank.c, a SQLite loadable extension
built by setup.py). Scores equal ``bm25()``'s. ``memlens_topk`` answers a whole OR query's best
rows by those scores in one call, reading the words' postings from FTS5's pages
(engine/retrieval/keyword_arm.py, "walk"). Where the extension was not built (no C
compiler) or does not load, :func:`rank_sql` answers ``bm25()`` and nothing else changes;
``MEMLENS_RANK_EXTENSION=0`` turns it off (a benchmark's A/B).
"""

from __future__ import annotations

import importlib.machinery
import os
from pathlib import Path


def library_path() -> Path | None:
    """The built extension beside this module, if the install built it."""
    here = Path(__file__).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = here / f"_memlensrank{suffix}"
        if path.is_file():
            return path
    return None


LIBRARY = library_path()


def load(conn) -> bool:
    """Load the extension into ``conn`` (extension loading must be enabled); False when it is
    missing or refuses to load (FTS5's own bm25 serves then)."""
    if LIBRARY is None or os.environ.get("MEMLENS_RANK_EXTENSION", "1") == "0":
        return False
    try:  # SQLite derives the entry point from the file name: sqlite3_memlensrank_init
        conn.load_extension(str(LIBRARY))
    except Exception:  # noqa: BLE001 - any driver error: fall back, never fail a connection
        return False
    return True


def preload_lengths(conn, table: str = "chunks_fts") -> int:
    """Read every row's length of ``table`` into the extension's per-connection array in one
    pass (60-100 ms at 500k chunks), so later statements never look a length up row by row
    (memlensrank.c); the rows kept, 0 without the extension or on a connection that can write.
    For a long-running searcher, at start (the lengths would otherwise fill as rows are met)."""
    if not getattr(conn, "rank_extension", False):
        return 0
    try:
        return int(conn.execute("SELECT memlens_preload_lengths(?)", (table,)).fetchone()[0])
    except Exception:  # noqa: BLE001 - an optimisation: the lookups serve without it
        return 0


def rank_sql(conn, table: str, dfs: list[int] | None,
             weights: list[int] | None = None) -> str:
    """The SQL of a bm25 score for a MATCH over ``table``: ``memlens_bm25`` with ``dfs`` (one
    per phrase of the MATCH, in order; -1 where not known) and, if given, a weight per phrase,
    when the connection has it. Weights need the extension (``bm25()`` takes none): a caller
    without it repeats the phrase in the MATCH instead."""
    if dfs is None or not getattr(conn, "rank_extension", False):
        if weights and any(w != 1 for w in weights):
            raise ValueError("phrase weights need memlens_bm25; repeat the phrases instead")
        return f"bm25({table})"
    values = [str(int(d)) for d in dfs]
    if weights and any(w != 1 for w in weights):
        values += [str(int(w)) for w in weights]
    return f"memlens_bm25({table}, {', '.join(values)})"
