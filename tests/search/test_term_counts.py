"""Each word's document frequency kept by the index (engine/storage/term_counts.py): equal to
what fts5vocab counts by walking the text index, after a build, after edits, deletes and
in-place updates (folded or not), after a migration, and as the keyword arm reads it."""

from __future__ import annotations

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.retrieval.keyword_arm import term_dfs
from engine.schema import open_reader
from engine.schema_migrations import SCHEMA_VERSION
from engine.storage import term_counts
from engine.storage.db import connect
from tests.conftest import CountingEmbedder, assert_term_counts, migrate_from, write_chat


def pending(conn) -> int:
    return sum(conn.execute(f"SELECT count(*) FROM term_changes_{kind}").fetchone()[0]
               for kind in ("added", "removed"))


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes/pottery.md").write_text("# Pottery\n\nWheel throwing class on Tuesday.\n")
    (root / "notes/garden.md").write_text("# Garden\n\nTomatoes and the pottery planters.\n")
    write_chat(root / "data/telegram/ana.jsonl",
               [f"message {i} about the pottery wheel" if i % 3 else f"lunch {i}"
                for i in range(25)])
    return root


def index(root):
    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    return config


def test_a_build_keeps_every_words_count(root):
    config = index(root)
    conn = connect(config.db_path)
    assert_term_counts(conn)
    assert pending(conn) == 0  # folded after each file
    assert conn.execute("SELECT df FROM term_counts WHERE term = 'potteri'").fetchone()[0] > 3


def test_edits_and_deletes_keep_them_exact(root):
    config = index(root)
    (root / "notes/pottery.md").write_text("# Kiln\n\nGlaze firing, no wheel this week.\n")
    (root / "notes/garden.md").unlink()
    write_chat(root / "data/telegram/ana.jsonl", [f"lunch {i}" for i in range(12)])
    (root / "notes/new.md").write_text("# New\n\nA glaze recipe from Ana.\n")
    index(root)
    conn = connect(config.db_path)
    assert_term_counts(conn)
    assert pending(conn) == 0
    assert term_counts.document_frequencies(conn, ["tomato", "glaze"]) == {"tomato": 0,
                                                                           "glaze": 2}
    # a word no chunk holds any more leaves the table
    assert conn.execute("SELECT 1 FROM term_counts WHERE term = 'tomato'").fetchone() is None


def test_changes_outside_the_indexer_count_before_and_after_a_fold(root):
    config = index(root)
    conn = connect(config.db_path)
    conn.execute("DELETE FROM chunks WHERE source_file = 'notes/garden.md'")
    conn.execute("UPDATE chunks SET content = content || ' kiln kiln' "
                 "WHERE source_file = 'notes/pottery.md'")
    assert pending(conn) > 0
    assert_term_counts(conn)  # exact while the changes wait
    term_counts.fold(conn)
    assert pending(conn) == 0
    assert_term_counts(conn)
    conn.rollback()
    assert_term_counts(conn)  # and rolled back with them


def test_a_v9_index_gets_its_counts_when_migrated(root):
    config = index(root)
    migrate_from(config.db_path, 9, ())
    conn = connect(config.db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert_term_counts(conn)


def test_the_keyword_arm_reads_the_kept_counts(root):
    config = index(root)
    conn = open_reader(config.db_path)
    walked = term_dfs(conn, ["pottery", "wheel", "lunch", "absent"])
    conn.execute("CREATE VIRTUAL TABLE temp.walk USING fts5vocab(main, chunks_fts, 'row')")
    by_walk = dict(conn.execute("SELECT term, doc FROM temp.walk WHERE term IN "
                                "('potteri', 'wheel', 'lunch', 'absent')").fetchall())
    assert walked == {"pottery": by_walk["potteri"], "wheel": by_walk["wheel"],
                      "lunch": by_walk["lunch"], "absent": 0}
    assert walked["absent"] == 0 and walked["pottery"] > 3
