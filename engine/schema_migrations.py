"""The tables kept beside ``chunks`` and how an older index reaches this schema's version.

engine/schema.py creates a new index from ``CORE_DDL`` (which holds the tables below) and runs
``MIGRATIONS`` on an older one, step by step up to ``SCHEMA_VERSION``; each step names what it
brings and where that is explained.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.dates.message_days import MESSAGE_DAYS_DDL
from engine.dates.message_days import backfill as backfill_message_days
from engine.dates.spans import FIRST_DAY_INDEX, SPAN_INDEX, backfill_first_dates
from engine.extractors.bounds import CHUNK_MAX_CHARS, METADATA_MAX_CHARS
from engine.retrieval.cjk import GLOB, has_unsegmented
from engine.storage import term_counts
from engine.storage.db import (
    Connection,
    ExtensionUnavailable,
    IndexUnavailable,
    OperationalError,
    load_sqlite_vec,
)

SCHEMA_VERSION = 11

# two characters after the text: every 1-2 character string in it starts a trigram
CJK_PAD = "char(10, 10)"
CJK_DDL = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_cjk USING fts5(content, tokenize='trigram');",
    "CREATE TRIGGER IF NOT EXISTS chunks_cjk_ad AFTER DELETE ON chunks BEGIN "
    "DELETE FROM chunks_cjk WHERE rowid = old.rowid; END;",
    # nothing updates content in place today; this keeps chunks_cjk right if something does
    "CREATE TRIGGER IF NOT EXISTS chunks_cjk_au AFTER UPDATE OF content ON chunks BEGIN "
    "DELETE FROM chunks_cjk WHERE rowid = old.rowid; "
    f"INSERT INTO chunks_cjk(rowid, content) SELECT new.rowid, new.content || {CJK_PAD} "
    f"WHERE new.content GLOB '{GLOB}'; END;",
    # the trigrams that start with a 1-2 character string (engine/retrieval/cjk.py); stores nothing
    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_cjk_vocab USING fts5vocab(chunks_cjk, 'row');",
]

# The vector generation log (engine/vectors/sidecar_file.py): every change to a chunk's vector or
# type logs its rowid in the same transaction; the log's AUTOINCREMENT counter is the
# generation a vector sidecar is checked against. Migration v4.
GENERATION_DDL = [
    "CREATE TABLE IF NOT EXISTS vector_changes "
    "(gen INTEGER PRIMARY KEY AUTOINCREMENT, chunk_rowid INTEGER NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS chunks_gen_ai AFTER INSERT ON chunks "
    "WHEN new.embedding IS NOT NULL BEGIN "
    "INSERT INTO vector_changes(chunk_rowid) VALUES (new.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS chunks_gen_ad AFTER DELETE ON chunks "
    "WHEN old.embedding IS NOT NULL BEGIN "
    "INSERT INTO vector_changes(chunk_rowid) VALUES (old.rowid); END",
    "CREATE TRIGGER IF NOT EXISTS chunks_gen_au AFTER UPDATE OF embedding, source_type "
    "ON chunks BEGIN INSERT INTO vector_changes(chunk_rowid) VALUES (new.rowid); END",
]

# Message vectors of chat windows (engine/vectors/message_vectors.py): a row per window the embedder
# gave them, removed with the window, its content or its vector. Their own table, not a column
# of chunks: ~8 KB a window would push chunks' rows into overflow pages and slow every read of
# them. Migration v5.
# meta key: the embedder ("provider:model") every chat window embedded by has message vectors
MESSAGES_DONE_KEY = "message_vectors"
MESSAGE_DDL = [
    "CREATE TABLE IF NOT EXISTS message_vectors "
    "(chunk_rowid INTEGER PRIMARY KEY, vectors BLOB NOT NULL)",
    "CREATE TRIGGER IF NOT EXISTS chunks_msg_ad AFTER DELETE ON chunks BEGIN "
    "DELETE FROM message_vectors WHERE chunk_rowid = old.rowid; END",
    "CREATE TRIGGER IF NOT EXISTS chunks_msg_au AFTER UPDATE OF embedding, content ON chunks "
    "WHEN new.embedding IS NULL OR new.content IS NOT old.content BEGIN "
    "DELETE FROM message_vectors WHERE chunk_rowid = old.rowid; END",
]

# the FTS5 tokenizer: the index and engine/retrieval/stemmer.py must read words alike
TOKENIZER = "porter unicode61 remove_diacritics 2"

TERM_COUNTS_DDL = term_counts.ddl(TOKENIZER)  # each word's document frequency, kept

def backfill_cjk(conn: Connection) -> int:
    """Put every chunk with unsegmented text into chunks_cjk (a v2 index's migration)."""
    register_unsegmented(conn)
    return conn.execute(
        f"INSERT INTO chunks_cjk(rowid, content) SELECT rowid, content || {CJK_PAD} FROM chunks "
        "WHERE memlens_unsegmented(content)").rowcount


def register_unsegmented(conn: Connection) -> None:
    """engine/retrieval/cjk.py's test as an SQL function: ~5 us a chunk, GLOB over the same ranges ~80.
    Once per connection: SQLite refuses to (re)define a function while a statement runs."""
    try:
        conn.execute("SELECT memlens_unsegmented('')").fetchone()
    except OperationalError:
        conn.create_function("memlens_unsegmented", 1,
                             lambda text: int(has_unsegmented(text)), deterministic=True)


MigrationProgress = Callable[[int, int], None]  # (done, total) of a long migration step


def _step(fn: Callable[[Connection], object]) -> Callable[[Connection, MigrationProgress | None],
                                                          object]:
    """A migration step that reports no progress."""
    return lambda conn, progress: fn(conn)


def _add_column(conn: Connection, table: str, column: str) -> None:
    """ALTER TABLE ADD COLUMN, unless it is there: the step may meet an index that has it."""
    if column.split()[0] not in {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column}")


# meta key: a migration left pages free that the next writer hands back (engine/maintenance.py)
COMPACT_KEY = "compact_pending"
VEC0_TRIGGERS = ("chunks_vec_ad", "chunks_vec_au")


def drop_vec0(conn: Connection) -> None:
    """Remove the vec0 table (and its triggers) an older memlens kept beside ``chunks``: a
    second copy of every vector in 1,024-slot blocks per source type, mostly empty on a small
    index. Dropping a virtual table needs its module, so sqlite-vec is loaded for this only; an
    index it cannot be loaded for stays as it is and says so in one line."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunks_vec'").fetchone() is None:
        return
    try:
        load_sqlite_vec(conn)
    except ExtensionUnavailable as exc:
        raise IndexUnavailable(f"cannot convert this index's older vector table: {exc}") from exc
    for trigger in VEC0_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP TABLE chunks_vec")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (COMPACT_KEY,))


# version -> statements that bring an index of the previous version up to it
MIGRATIONS: dict[int, list[str | Callable[[Connection, MigrationProgress | None], object]]] = {
    2: [
        "ALTER TABLE index_state ADD COLUMN size INTEGER",
        "ALTER TABLE index_state ADD COLUMN resume TEXT",
        "ALTER TABLE index_state ADD COLUMN prefix_hash TEXT",
        "DROP INDEX IF EXISTS chunks_source_file",
        "CREATE INDEX IF NOT EXISTS chunks_file_hash ON chunks(source_file, id, content_hash)",
    ],
    3: [
        *CJK_DDL,
        _step(backfill_cjk),
        "CREATE INDEX IF NOT EXISTS chunks_date ON chunks(content_date)",
    ],
    4: GENERATION_DDL,  # the vector generation log (engine/vectors/sidecar_file.py)
    5: MESSAGE_DDL,  # message vectors of chat windows (engine/vectors/message_vectors.py)
    # a chunk's first day when it spans days (engine/dates/spans.py)
    6: ["ALTER TABLE chunks ADD COLUMN first_date TEXT",
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        _step(backfill_first_dates), SPAN_INDEX, FIRST_DAY_INDEX],
    # every chat message's day and place, and the per-day counts (engine/dates/message_days.py)
    7: [*MESSAGE_DAYS_DDL, backfill_message_days],
    # what one file may cost (engine/extractors/bounds.py): a file holding a chunk past the
    # bounds is read whole again by the next reindex, which splits or cuts it and says so
    8: [lambda conn, progress: _add_column(conn, "index_state", "notice TEXT"),
        "UPDATE index_state SET mtime = -1, resume = NULL WHERE source_file IN (SELECT "
        f"source_file FROM chunks WHERE length(content) > {CHUNK_MAX_CHARS} "
        f"OR length(metadata) > {METADATA_MAX_CHARS})"],
    # a file that holds no chunk is read again: notes of only headings or only frontmatter
    # yield one now (engine/extractors/markdown.py), and so do files with a number out of
    # range (engine/extractors/reading.py); a vector of zeros (a broken provider's, refused
    # now: engine/embed/embedder_openai.py) is asked for again
    9: ["UPDATE index_state SET mtime = -1, resume = NULL WHERE NOT EXISTS (SELECT 1 FROM "
        "chunks c WHERE c.source_file = index_state.source_file)",
        "UPDATE chunks SET embedding = NULL "
        "WHERE embedding IS NOT NULL AND embedding = zeroblob(length(embedding))"],
    # each word's document frequency, kept as the index changes (engine/storage/term_counts.py)
    10: [*TERM_COUNTS_DDL, _step(term_counts.backfill)],
    # each vector stored once: the vec0 copy goes, the sidecar is derived from the rows
    # (engine/vectors/sidecar_file.py); the pages it held are handed back after the migration
    11: [_step(drop_vec0)],
}
