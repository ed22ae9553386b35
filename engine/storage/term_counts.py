"""Each word's document frequency, kept by the index as it changes.

The keyword arm needs the exact number of chunks holding each query word (its idf, and
whether the word is common: engine/retrieval/keyword_arm.py). FTS5 keeps no such count:
fts5vocab walks the word's whole posting list, 1-3 ms for a common word at 500k chunks, paid
by every query that brings a word not seen before (docs/benchmarks.md). So the index keeps
them:

- ``term_counts(term, df)``: the counts, for every token chunks_fts holds (its three columns,
  the same tokenizer);
- ``term_changes_removed`` / ``term_changes_added``: FTS5 tables without positions that take
  the text of the rows deleted or updated since the counts were last folded, through
  triggers, so no path that changes chunks_fts can miss them. Inserts are counted at once, in
  the same statement batch as the FTS5 mirror (:func:`count_new_rows`, engine/schema.py).

A word's count is ``term_counts.df + added - removed``: exact inside any transaction, folded
or not. :func:`fold` moves the changes into ``term_counts`` (the indexer does it after each
file and each run), so the change tables stay small.
"""

from __future__ import annotations

from engine.storage.db import Connection

COLUMNS = "content, source_file, source_type"  # chunks_fts's indexed columns, in order


def ddl(tokenizer: str) -> list[str]:
    """The tables and triggers (engine/schema.py passes chunks_fts's tokenizer)."""
    changes = [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS term_changes_{kind} USING fts5({COLUMNS}, "
        f"detail=none, columnsize=0, tokenize='{tokenizer}')" for kind in ("added", "removed")]
    vocab = [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS term_changes_{kind}_vocab USING "
        f"fts5vocab(term_changes_{kind}, 'row')" for kind in ("added", "removed")]
    return [
        "CREATE TABLE IF NOT EXISTS term_counts (term TEXT PRIMARY KEY, df INTEGER NOT NULL) "
        "WITHOUT ROWID",
        *changes, *vocab,
        "CREATE TRIGGER IF NOT EXISTS chunks_terms_ad AFTER DELETE ON chunks BEGIN "
        f"INSERT INTO term_changes_removed({COLUMNS}) "
        "VALUES (old.content, old.source_file, old.source_type); END",
        "CREATE TRIGGER IF NOT EXISTS chunks_terms_au AFTER UPDATE OF content, source_file, "
        f"source_type ON chunks BEGIN INSERT INTO term_changes_removed({COLUMNS}) "
        "VALUES (old.content, old.source_file, old.source_type); "
        f"INSERT INTO term_changes_added({COLUMNS}) "
        "VALUES (new.content, new.source_file, new.source_type); END",
    ]


def backfill(conn: Connection) -> int:
    """Count every word of an index built before the counts were kept: one walk of the
    whole text index (~2 s at 500k chunks)."""
    conn.execute("DELETE FROM term_counts")
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_fts'").fetchone() is None:
        return 0  # nothing indexed to count
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms "
                 "USING fts5vocab(main, chunks_fts, 'row')")
    return conn.execute("INSERT INTO term_counts(term, df) "
                        "SELECT term, doc FROM temp.chunks_fts_terms").rowcount


def count_new_rows(conn: Connection, after_rowid: int, tokenizer: str) -> None:
    """Count the words of the chunks inserted with rowid > ``after_rowid``: their text goes
    through a scratch FTS5 table (temp, without content or positions) whose term list is
    added to term_counts, then emptied."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.new_terms USING fts5({COLUMNS}, "
                 f"content='', detail=none, columnsize=0, tokenize='{tokenizer}')")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.new_terms_vocab "
                 "USING fts5vocab(temp, new_terms, 'row')")
    if not conn.execute(f"INSERT INTO temp.new_terms(rowid, {COLUMNS}) "
                        f"SELECT rowid, {COLUMNS} FROM chunks WHERE rowid > ?",
                        (after_rowid,)).rowcount:
        return
    _add(conn, "temp.new_terms_vocab", "")
    conn.execute("INSERT INTO temp.new_terms(new_terms) VALUES ('delete-all')")


def _add(conn: Connection, vocab: str, sign: str) -> None:
    conn.execute(f"INSERT INTO term_counts(term, df) SELECT term, {sign}doc FROM {vocab} "
                 "WHERE true ON CONFLICT(term) DO UPDATE SET df = df + excluded.df")


def fold(conn: Connection) -> None:
    """Move the deleted and updated rows' words into term_counts (inside the caller's
    transaction)."""
    for kind, sign in (("added", ""), ("removed", "-")):
        if conn.execute(f"SELECT 1 FROM term_changes_{kind} LIMIT 1").fetchone() is None:
            continue
        _add(conn, f"term_changes_{kind}_vocab", sign)
        if sign:  # words no chunk holds any more
            conn.execute("DELETE FROM term_counts WHERE df <= 0 AND term IN "
                         f"(SELECT term FROM term_changes_{kind}_vocab)")
        conn.execute(f"DELETE FROM term_changes_{kind}")  # 'delete-all' needs no content


def document_frequencies(conn: Connection, terms: list[str]) -> dict[str, int]:
    """The number of chunks holding each token (0 for one no chunk holds)."""
    if not terms:
        return {}
    marks = ",".join("?" * len(terms))
    found = dict(conn.execute(
        "SELECT term, sum(n) FROM ("
        f"SELECT term, df AS n FROM term_counts WHERE term IN ({marks}) UNION ALL "
        f"SELECT term, doc FROM term_changes_added_vocab WHERE term IN ({marks}) UNION ALL "
        f"SELECT term, -doc FROM term_changes_removed_vocab WHERE term IN ({marks})"
        ") GROUP BY term", [*terms, *terms, *terms]).fetchall())
    return {t: found.get(t, 0) for t in terms}
