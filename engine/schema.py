"""The index schema: chunks (each vector in its row), FTS5 (derived), index_state, meta.

Self-migrating and idempotent: ``ensure_schema`` is a fast no-op once ``PRAGMA user_version``
is current (the steps from each older version, and the tables kept beside ``chunks``:
engine/schema_migrations.py). Each vector is stored once, in ``chunks.embedding``; the embedder
that made them is recorded in ``meta``, and opening the index with another embedder never
mixes vectors (:func:`ensure_embedder`). The vector search structure is derived from the rows,
outside the file (engine/vectors/sidecar_file.py).

Inserts reach chunks_fts set-based, one ``INSERT ... SELECT`` per sub-batch in the indexer's
transaction (``mirror_new_rows``): per-row FTS5 insert triggers were measured several times
slower. Deletes and updates are mirrored by triggers, so no code path can leave a stale FTS5
row behind.

``term_counts`` (v10) keeps each word's document frequency as the index changes, for the
keyword arm's plans and idf (engine/storage/term_counts.py): inserts are counted with the FTS5
mirror, deletes and updates by triggers.

``chunks_cjk`` (v3) is a trigram FTS5 table holding only the chunks with text in a script written
without spaces (engine/retrieval/cjk.py): unicode61 cannot find a word inside such text. It keeps its own
copy of those chunks' text (padded, so a 1-2 character string starts a trigram), so a delete is a
plain rowid delete whatever the row held; chunks_cjk_vocab lists its trigrams.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.dates.message_days import MESSAGE_DAYS_DDL
from engine.dates.spans import FIRST_DAY_INDEX, SPAN_INDEX
from engine.schema_migrations import (
    CJK_DDL,
    CJK_PAD,
    GENERATION_DDL,
    MESSAGE_DDL,
    MIGRATIONS,
    SCHEMA_VERSION,
    TERM_COUNTS_DDL,
    TOKENIZER,
    MigrationProgress,
    register_unsegmented,
)
from engine.storage import term_counts
from engine.storage.db import Connection, IndexUnavailable, connect, transaction

CORE_DDL = f"""
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY,
    source_file TEXT NOT NULL,
    source_type TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT,
    embedding BLOB,
    indexed_at TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    content_date TEXT,
    embedding_truncated INTEGER NOT NULL DEFAULT 0,
    first_date TEXT      -- a span's first day, when before content_date (engine/dates/spans.py)
);
-- covering: a file's chunk ids and hashes come from the index alone (the level-two diff)
CREATE INDEX IF NOT EXISTS chunks_file_hash ON chunks(source_file, id, content_hash);
CREATE INDEX IF NOT EXISTS chunks_source_type_date ON chunks(source_type, content_date);
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(content_hash) WHERE embedding IS NULL;
CREATE INDEX IF NOT EXISTS chunks_date ON chunks(content_date);
{SPAN_INDEX};
{FIRST_DAY_INDEX};

CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    content, source_file, source_type,
    content='chunks', content_rowid='rowid',
    tokenize='{TOKENIZER}'
);

CREATE TABLE IF NOT EXISTS index_state (
    source_file TEXT PRIMARY KEY,
    mtime REAL NOT NULL,
    indexed_at TEXT NOT NULL,
    source_type TEXT,
    error TEXT,
    size INTEGER,
    resume TEXT,         -- append-only logs: where the last window starts (JSON)
    prefix_hash TEXT,    -- sha1 of the bytes before that point
    notice TEXT          -- what a bound cut or split (engine/extractors/bounds.py)
);

CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, source_file, source_type)
    VALUES ('delete', old.rowid, old.content, old.source_file, old.source_type);
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF content, source_file, source_type
ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, source_file, source_type)
    VALUES ('delete', old.rowid, old.content, old.source_file, old.source_type);
    INSERT INTO chunks_fts(rowid, content, source_file, source_type)
    VALUES (new.rowid, new.content, new.source_file, new.source_type);
END;
""" + "\n".join([*CJK_DDL, *(f"{s};" for s in [*GENERATION_DDL, *MESSAGE_DDL,
                                                 *MESSAGE_DAYS_DDL, *TERM_COUNTS_DDL])]) + "\n"


@dataclass(frozen=True)
class EmbedderInfo:
    provider: str
    model: str
    dim: int

    def describe(self) -> str:
        return f"{self.provider}:{self.model} ({self.dim}-d)"


class EmbedderMismatch(RuntimeError):
    """The index holds vectors from another embedder than the configured one."""

    def __init__(self, stored: EmbedderInfo, configured: EmbedderInfo):
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"the index was embedded with {stored.describe()} but the configured embedder is "
            f"{configured.describe()}; vectors are never mixed: run `memlens reindex --re-embed` "
            f"to re-embed every chunk (searches use the current vectors until it is done), or "
            f"switch the embedder back")


class SchemaMismatch(IndexUnavailable):
    """The index was built by another memlens version (or is not built yet)."""


def _newer(version: int) -> SchemaMismatch:
    return SchemaMismatch(f"index schema v{version} is newer than this memlens "
                          f"(v{SCHEMA_VERSION}): upgrade memlens")


def needs_migration(conn: Connection) -> bool:
    """Whether :func:`ensure_schema` will migrate an existing index (a one-time upgrade the
    writer may say it is doing: at 2M chunks v6 reads every row)."""
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    return 0 < version < SCHEMA_VERSION


def ensure_schema(conn: Connection, progress: MigrationProgress | None = None) -> None:
    """Create or migrate the core tables; idempotent and cheap when current. Writers only,
    under the writer lock: readers use :func:`open_reader`, which never writes. ``progress``
    hears (done, total) from a migration step that reads every chat window."""
    register_unsegmented(conn)  # here, before the writer has a statement running
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise _newer(version)
    with transaction(conn):
        if version == 0:  # a new index: the current schema directly
            statements = _statements(CORE_DDL)
        else:
            statements = [s for v in range(version + 1, SCHEMA_VERSION + 1) for s in MIGRATIONS[v]]
        for statement in statements:
            if callable(statement):
                statement(conn, progress)
            else:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def check_readable(conn: Connection, db_path: Path) -> None:
    """Raise :class:`SchemaMismatch` (one line) unless a reader can use this index as is."""
    (version,) = conn.execute("PRAGMA user_version").fetchone()
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise _newer(version)
    if version == 0 and conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'chunks'").fetchone() is None:
        from engine.storage.lock import active_writer

        if active_writer(db_path):
            raise SchemaMismatch("the index is being built (a first reindex is running): "
                                 "try again shortly")
        raise SchemaMismatch("the index is empty: run `memlens reindex` to build it")
    raise SchemaMismatch(f"index schema v{version} is older than this memlens "
                         f"(v{SCHEMA_VERSION}): run `memlens reindex`")


def open_reader(db_path: str | Path, **kwargs) -> Connection:
    """A read-only connection to a usable index: never creates, migrates or writes anything,
    so a read-only root or index file can be searched (docs/reliability.md)."""
    conn = connect(db_path, readonly=True, **kwargs)
    try:
        check_readable(conn, Path(db_path))
    except BaseException:
        conn.close()
        raise
    return conn


def get_meta(conn: Connection, key: str, default: str | None = None) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else default


def set_meta(conn: Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def stored_embedder(conn: Connection) -> EmbedderInfo | None:
    provider = get_meta(conn, "embedder_provider")
    if provider is None:
        return None
    return EmbedderInfo(provider, get_meta(conn, "embedder_model", ""),
                        int(get_meta(conn, "embedding_dim", "0")))


def has_vectors(conn: Connection) -> bool:
    """Whether the index holds vectors (an embedder is recorded: the first writer records it)."""
    return stored_embedder(conn) is not None


def record_embedder(conn: Connection, info: EmbedderInfo) -> None:
    """The embedder every vector in ``chunks.embedding`` comes from (in the caller's
    transaction: a re-embed's swap records the new one with its vectors)."""
    set_meta(conn, "embedder_provider", info.provider)
    set_meta(conn, "embedder_model", info.model)
    set_meta(conn, "embedding_dim", str(info.dim))


def ensure_embedder(conn: Connection, info: EmbedderInfo) -> None:
    """Record ``info`` on an index without vectors; raise :class:`EmbedderMismatch` if the
    index holds another embedder's."""
    stored = stored_embedder(conn)
    if stored is not None and stored != info:
        raise EmbedderMismatch(stored, info)
    if stored is None:
        with transaction(conn):
            record_embedder(conn, info)


def mirror_new_rows(conn: Connection, after_rowid: int) -> None:
    """Index rows inserted into chunks with rowid > ``after_rowid`` in FTS5 (and in chunks_cjk
    those with unsegmented text), and count their words. Their vectors need nothing here: the
    generation log's trigger tells the vector sidecar (engine/vectors/sidecar_file.py)."""
    register_unsegmented(conn)
    conn.execute(
        "INSERT INTO chunks_fts(rowid, content, source_file, source_type) "
        "SELECT rowid, content, source_file, source_type FROM chunks WHERE rowid > ?",
        (after_rowid,))
    conn.execute(
        f"INSERT INTO chunks_cjk(rowid, content) SELECT rowid, content || {CJK_PAD} FROM chunks "
        "WHERE rowid > ? AND memlens_unsegmented(content)", (after_rowid,))
    term_counts.count_new_rows(conn, after_rowid, TOKENIZER)


def optimize_text_indexes(conn: Connection) -> None:
    """Merge the FTS5 and trigram indexes into one segment each. Each reindex commit adds a
    segment (17-20 at 500k-2M chunks) and every phrase lookup probes each one: merged, keyword
    queries take 1-4 ms less at 500k (docs/benchmarks.md); 3.6 s at 500k, 10 s at 2M."""
    with transaction(conn):
        term_counts.fold(conn)
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
        conn.execute("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('optimize')")


def vector_generation(conn: Connection) -> int:
    """The vector generation: how many vector changes were ever logged (never decreases)."""
    row = conn.execute(
        "SELECT seq FROM sqlite_sequence WHERE name = 'vector_changes'").fetchone()
    return int(row[0]) if row else 0


def max_rowid(conn: Connection) -> int:
    return conn.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]


def _statements(script: str) -> list[str]:
    """Split a DDL script into statements (executescript would COMMIT our transaction)."""
    import sqlean

    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlean.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    return statements
