"""Each vector is stored once, in its chunk's row; the search file beside the index is derived
from the rows. An index written with a vec0 copy (schema v10) sheds it on the next reindex,
with a progress phase, losing nothing; one it cannot convert says so in one line."""

from __future__ import annotations

import re

import pytest

from engine.config import load_config
from engine.index.contents import db_size
from engine.indexer import reindex
from engine.schema import SCHEMA_VERSION, SchemaMismatch, open_reader
from engine.schema_migrations import COMPACT_KEY
from engine.searcher import Searcher
from engine.storage.db import IndexUnavailable, connect
from engine.vectors.sidecar_scan import open_vector_index
from tests.conftest import as_vec0_index, assert_consistent, run_cli, slack_lines


def objects(db) -> set[str]:
    conn = connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def holdings(db) -> list[tuple]:
    conn = connect(db)
    try:
        return conn.execute("SELECT id, content_hash, embedding FROM chunks ORDER BY id"
                            ).fetchall()
    finally:
        conn.close()


@pytest.fixture
def older(config):
    """A root indexed by the memlens that kept a vec0 copy of every vector."""
    (config.root / "data/slack/big.jsonl").write_text(slack_lines(3000))
    reindex(config=config)
    before = holdings(config.db_path)
    as_vec0_index(config.db_path)
    return config, before


def test_no_vector_is_stored_twice_and_the_index_costs_what_it_holds(config):
    (config.root / "data/slack/big.jsonl").write_text(slack_lines(3000))
    reindex(config=config)
    assert not {n for n in objects(config.db_path) if n.startswith("chunks_vec")}
    conn = connect(config.db_path)
    chunks, vectors, content = conn.execute(
        "SELECT count(*), sum(length(embedding)), sum(length(content) + length(metadata)) "
        "FROM chunks").fetchone()
    conn.close()
    assert chunks > 300
    # the file is its rows, text indexes and B-tree overhead: no pre-allocated vector blocks
    assert db_size(config.db_path) < 3 * (vectors + content)


def test_an_older_index_sheds_its_vec0_copy_on_the_next_reindex(older):
    config, before = older
    size_before = db_size(config.db_path)
    with pytest.raises(SchemaMismatch, match="older than this memlens"):
        open_reader(config.db_path)  # a reader never converts: it says what to run
    phases = []
    stats = reindex(config=config, progress=lambda p: phases.append(p.phase))
    assert phases[:2] == ["migrate", "compact"] and stats.files == 0  # nothing read again
    assert stats.upgraded.startswith("schema v10 -> v11; the file ")
    assert not {n for n in objects(config.db_path) if n.startswith("chunks_vec")}
    assert holdings(config.db_path) == before  # every chunk and vector as it was
    assert db_size(config.db_path) < 0.7 * size_before
    conn = connect(config.db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT 1 FROM meta WHERE key = ?", (COMPACT_KEY,)).fetchone() is None
    assert not open_vector_index(config.db_path, conn).in_memory  # the sidecar was rewritten
    conn.close()
    assert_consistent(config.db_path)
    searcher = Searcher(config)
    assert searcher.search("harbor bridge", mode="semantic").results
    searcher.close()
    phases.clear()
    stats = reindex(config=config, progress=lambda p: phases.append(p.phase))
    assert "migrate" not in phases and "compact" not in phases  # once
    assert stats.upgraded is None


def test_the_run_that_converts_says_so(older, capsys):
    config, _ = older
    code, out, _ = run_cli(capsys, "reindex", "--root", str(config.root))
    assert code == 0
    assert re.search(r"^upgraded the index: schema v10 -> v11; the file [\d.]+ MB -> [\d.]+ MB$",
                     out, re.M), out


def test_an_index_that_cannot_be_converted_says_so_in_one_line_and_stays_as_it_was(
        older, monkeypatch, capsys):
    from engine import schema_migrations
    from engine.storage.db import ExtensionUnavailable

    config, before = older

    def unavailable(conn):
        raise ExtensionUnavailable("sqlite-vec is not installed: pip install sqlite-vec")

    monkeypatch.setattr(schema_migrations, "load_sqlite_vec", unavailable)
    with pytest.raises(IndexUnavailable, match="cannot convert this index's older vector "
                                               "table: sqlite-vec is not installed"):
        reindex(config=config)
    code, _, err = run_cli(capsys, "reindex", "--root", str(config.root))
    err = err.strip()
    assert code != 0
    assert len(err.splitlines()) == 1 and "pip install sqlite-vec" in err, err
    assert "chunks_vec" in objects(config.db_path)  # untouched, still v10
    conn = connect(config.db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 10
    conn.close()
    monkeypatch.undo()
    reindex(config=load_config(config.root))
    assert holdings(config.db_path) == before


def test_maintenance_converts_an_older_index_once(older):
    from engine.maintenance import maintain_index

    config, before = older
    stats = maintain_index(config.db_path, vacuum=False)  # converts: its VACUUM is run anyway
    assert stats["vacuumed"] and stats["size_after"] < 0.7 * stats["size_before"]
    assert holdings(config.db_path) == before
    phases = []
    reindex(config=config, progress=lambda p: phases.append(p.phase))
    assert "compact" not in phases and "migrate" not in phases


def test_a_vector_of_another_size_is_left_out_of_the_search_not_fatal(config):
    from engine.vectors.sidecar_build import update_sidecar
    from engine.vectors.sidecar_file import sidecar_dir

    (config.root / "data/slack/big.jsonl").write_text(slack_lines(3000))
    reindex(config=config)
    conn = connect(config.db_path)
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    conn.execute("UPDATE chunks SET embedding = zeroblob(12) WHERE rowid = 5")  # tampered with
    index = open_vector_index(config.db_path, conn)
    assert 5 not in index.rowids() and len(index) == total - 1  # the sidecar follows the log
    for path in sidecar_dir(config.db_path).iterdir():
        path.unlink()
    index = open_vector_index(config.db_path, conn)  # built in memory from the rows
    assert index.in_memory and 5 not in index.rowids() and len(index) == total - 1
    assert update_sidecar(conn, config.db_path)["rows"] == total - 1  # and written so
    assert not open_vector_index(config.db_path, conn).in_memory
    # a writer makes it pending, so every count agrees with what is searched
    assert conn.execute("SELECT embedding FROM chunks WHERE rowid = 5").fetchone()[0] is None
    conn.close()
    searcher = Searcher(config)
    assert searcher.search("harbor bridge", mode="semantic").results
    searcher.close()
    reindex(config=config)  # and the next reindex embeds it again
    assert_consistent(config.db_path)
    conn = connect(config.db_path)
    assert len(open_vector_index(config.db_path, conn)) == total
    conn.close()
