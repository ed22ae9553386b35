"""Shared fixtures: real data roots in tmp dirs, real SQLite, the real local embedder."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from engine.config import Config, load_config
from engine.embedder import EmbeddingError, LocalEmbedder
from engine.storage.db import connect

# The suite's clock (engine/dates/clock.py): every "now" in this process and in the command
# line, MCP server and watcher processes the tests start is this moment, whatever the calendar
# says, so a root dated to it answers "last week" the same on any day. A test that needs another
# moment passes ``now=`` or sets MEMLENS_NOW itself.
SUITE_NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def pytest_configure(config):
    os.environ["MEMLENS_NOW"] = SUITE_NOW.isoformat()
    # Nor is the terminal an input: pytest-xdist's workers get COLUMNS=80, a shell may export
    # it; a test that wants a width sets it.
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)


def clock_env() -> dict[str, str]:
    """The clock's variable, for a subprocess started with an environment of its own."""
    return {"MEMLENS_NOW": os.environ["MEMLENS_NOW"]}


REPO = Path(__file__).resolve().parents[1]  # the repository, wherever a test module sits under tests/
SHARED = REPO.parent / "shared"
BENCH_DATA = SHARED / "bench-data"


def slack_lines(n: int, start: int = 0, channel_people=("Maya Chen", "Sam Rivera")) -> str:
    t0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=-8)))
    lines = []
    for i in range(start, start + n):
        ts = (t0 + timedelta(minutes=7 * i)).isoformat()
        who = channel_people[i % len(channel_people)]
        lines.append(json.dumps({"ts": ts, "user": who,
                                 "text": f"message {i} about the harbor bridge project"}))
    return "\n".join(lines) + "\n"


NOTE = """---
title: Garden plan
date: 2026-04-02
tags: [garden, home]
---
Intro paragraph about the allotment.

# Vegetables

Tomatoes go along the south fence.

## Watering

Drip irrigation on a timer, twice a day in July.

# Flowers

Dahlias near the shed.
"""


def make_root(root: Path) -> Path:
    (root / "data/slack").mkdir(parents=True)
    (root / "data/slack/general.jsonl").write_text(slack_lines(95))
    (root / "data/slack/random.jsonl").write_text(slack_lines(12, channel_people=("Ola",)))
    (root / "notes/home").mkdir(parents=True)
    (root / "notes/home/garden.md").write_text(NOTE)
    return root


@pytest.fixture(autouse=True)
def app_state(tmp_path, monkeypatch) -> Path:
    """Every test's app keeps its state in its own folder (never the user's), and does not
    watch the data root unless the test turns watching on (MEMLENS_WATCH=on)."""
    folder = tmp_path / "app-state"
    monkeypatch.setenv("MEMLENS_STATE_DIR", str(folder))
    monkeypatch.setenv("MEMLENS_WATCH", "off")
    return folder


@pytest.fixture
def data_root(tmp_path) -> Path:
    return make_root(tmp_path / "root")


@pytest.fixture
def config(data_root) -> Config:
    return load_config(data_root)


class CountingEmbedder(LocalEmbedder):
    """The real local embedder, counting what it embeds; can be told to fail like a provider."""

    def __init__(self, fail_with: str | None = None):
        self.texts: list[str] = []
        self.fail_with = fail_with

    def embed(self, texts):
        if self.fail_with:
            raise EmbeddingError(self.fail_with, "provider unreachable (test)")
        self.texts.extend(texts)
        return super().embed(texts)


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder()


def assert_consistent(db_path: Path) -> None:
    """The derived indexes match chunks exactly: FTS5 integrity-check, the kept word counts,
    and the vector index a search opens (the sidecar, or built from the rows) holds every
    chunk with a vector, and its vector."""
    from engine.schema import has_vectors
    from engine.vectors.sidecar_scan import open_vector_index

    conn = connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
        assert_term_counts(conn)
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name LIKE 'chunks_vec%'"
                            ).fetchone() is None  # each vector stored once
        if not has_vectors(conn):
            return
        with_vec = [r[0] for r in conn.execute(
            "SELECT rowid FROM chunks WHERE embedding IS NOT NULL ORDER BY rowid")]
        index = open_vector_index(db_path, conn)
        assert index.rowids().tolist() == with_vec
        for rowid, blob in conn.execute(
                "SELECT rowid, embedding FROM chunks WHERE embedding IS NOT NULL "
                "ORDER BY random() LIMIT 20"):
            vector = np.frombuffer(blob, np.float32)
            (found, sim), *_ = index.search(vector, 1, index.rowid_mask(np.array([rowid])))
            assert found == rowid  # its stored vector's, in float16:
            assert sim == pytest.approx(float(np.linalg.norm(vector)), rel=2e-3, abs=1e-3)
    finally:
        conn.close()


def assert_term_counts(conn) -> None:
    """Every word's kept document frequency (engine/storage/term_counts.py) is the one
    fts5vocab counts by walking the text index, for every word it holds."""
    from engine.storage.term_counts import document_frequencies

    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.check_terms "
                 "USING fts5vocab(main, chunks_fts, 'row')")
    walked = dict(conn.execute("SELECT term, doc FROM temp.check_terms").fetchall())
    kept = dict(conn.execute("SELECT term, df FROM term_counts").fetchall())
    extra = sorted(kept.keys() - walked.keys())
    assert document_frequencies(conn, sorted(walked) + extra) == {**walked, **{t: 0 for t in extra}}


V10_DROPS = ("DROP TRIGGER chunks_terms_ad", "DROP TRIGGER chunks_terms_au",
             *(f"DROP TABLE {t}" for t in ("term_changes_added_vocab", "term_changes_removed_vocab",
                                           "term_changes_added", "term_changes_removed",
                                           "term_counts")))
V7_DROPS = (*(f"DROP TRIGGER {t}" for t in (
    "chunks_days_md_ad", "chunks_days_md_au", "chunks_days_ai", "chunks_days_ad",
    "chunks_days_au")), "DROP TABLE message_days", "DROP TABLE day_counts")
V6_DROPS = ("DROP INDEX chunks_span", "DROP INDEX chunks_first_day", "ALTER TABLE chunks DROP COLUMN first_date")


def migrate_from(db_path: Path, version: int, drops: tuple[str, ...]) -> None:
    """Make the index one of schema ``version`` (``drops`` remove what it did not have), check
    that a reader refuses it with the one-line advice, and let a writer migrate it back."""
    from engine.schema import SCHEMA_VERSION, SchemaMismatch, ensure_schema, open_reader

    if version < 10:  # v10 added the kept word counts, which its migration builds again
        drops = (*drops, *V10_DROPS)
    if version < 8:  # v8 added a column, which its migration adds again
        drops = (*drops, "ALTER TABLE index_state DROP COLUMN notice")
    if version < 7:  # v7 added the message tables, which its migration creates again
        drops = (*drops, *V7_DROPS)
    if version < 6:  # v6 added a column, which its migration adds again
        drops = (*drops, *V6_DROPS)
    conn = connect(db_path)
    for statement in (*drops, f"PRAGMA user_version = {version}"):
        conn.execute(statement)
    conn.commit()
    conn.close()
    with pytest.raises(SchemaMismatch, match=rf"v{version} is older .*run `memlens reindex`"):
        open_reader(db_path)
    conn = connect(db_path)
    ensure_schema(conn)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def run_cli(capsys, *argv):
    """``memlens ARGV`` in this process: (exit code, stdout, stderr) of this call alone."""
    from cli.main import main

    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def chunk_db(path: Path, rows: list[tuple[str, str, str, str]]):
    """An index holding only ``rows`` (id, source_file, source_type, content) in chunks and
    FTS5, without files or vectors: for tests of the keyword machinery alone."""
    from engine.schema import ensure_schema, mirror_new_rows
    from engine.storage.db import transaction

    conn = connect(path)
    ensure_schema(conn)
    with transaction(conn):
        conn.executemany(
            "INSERT INTO chunks(id, source_file, source_type, content, indexed_at, "
            "content_hash, content_date) VALUES (?, ?, ?, ?, '', '', '2026-01-01')", rows)
        mirror_new_rows(conn, 0)
    return conn


CHAT_START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def write_chat(path: Path, texts: list[str], who=("Ana", "Ben"), start=CHAT_START) -> None:
    """A telegram-style JSONL log: one message a minute from ``start``, senders taking turns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        json.dumps({"date": (start + timedelta(minutes=i)).isoformat(), "from": who[i % 2],
                    "text": t}) + "\n" for i, t in enumerate(texts)))


def indexed_searcher(root: Path):
    """Reindex ``root`` and yield a Searcher over it (for module-scoped fixtures)."""
    from engine.indexer import reindex
    from engine.searcher import Searcher

    config = load_config(root)
    reindex(config=config)
    searcher = Searcher(config)
    yield searcher
    searcher.close()


def as_vec0_index(db_path: Path) -> None:
    """Turn a current index into what memlens wrote until schema v10: the same rows, plus a
    vec0 table holding a second copy of every vector, kept by triggers (as it was created)."""
    from engine.schema import stored_embedder
    from engine.storage.db import load_sqlite_vec, transaction

    conn = connect(db_path)
    try:
        load_sqlite_vec(conn)
        dim = stored_embedder(conn).dim
        with transaction(conn):
            conn.execute(f"""CREATE VIRTUAL TABLE chunks_vec USING vec0(
                source_type TEXT PARTITION KEY, content_date TEXT,
                embedding float[{dim}] distance_metric=cosine)""")
            conn.execute("""CREATE TRIGGER chunks_vec_ad AFTER DELETE ON chunks
                WHEN old.embedding IS NOT NULL BEGIN
                DELETE FROM chunks_vec WHERE rowid = old.rowid; END""")
            conn.execute("""CREATE TRIGGER chunks_vec_au AFTER UPDATE OF embedding, source_type,
                content_date ON chunks BEGIN
                DELETE FROM chunks_vec WHERE rowid = old.rowid AND old.embedding IS NOT NULL;
                INSERT INTO chunks_vec(rowid, source_type, content_date, embedding)
                SELECT new.rowid, new.source_type, coalesce(new.content_date, ''), new.embedding
                WHERE new.embedding IS NOT NULL; END""")
            conn.execute("INSERT INTO chunks_vec(rowid, source_type, content_date, embedding) "
                         "SELECT rowid, source_type, coalesce(content_date, ''), embedding "
                         "FROM chunks WHERE embedding IS NOT NULL")
            conn.execute("PRAGMA user_version = 10")
    finally:
        conn.close()
