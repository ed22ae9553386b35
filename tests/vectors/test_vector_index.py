"""The in-memory vector index stays in step with vec0 and finds the true neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from engine.schema import EmbedderInfo, create_vec_index, ensure_schema
from engine.storage.db import connect, transaction
from engine.vectors.vec0_table import EXACT_BELOW, VectorIndex
from tests.vectors.conftest import DIM, clustered


def insert(conn, start: int, vectors: np.ndarray, source_type: str = "slack") -> None:
    with transaction(conn):
        conn.executemany(
            "INSERT INTO chunks_vec(rowid, source_type, content_date, embedding) "
            "VALUES (?, ?, '2026-01-01', ?)",
            [(start + i, source_type if i % 10 else "cgm", v.tobytes())
             for i, v in enumerate(vectors)])


@pytest.fixture
def conn(tmp_path):
    c = connect(tmp_path / "v.db")
    ensure_schema(c)
    with transaction(c):
        create_vec_index(c, EmbedderInfo("test", "clusters", DIM))
    yield c
    c.close()


def conn_path(conn) -> str:
    return conn.execute("PRAGMA database_list").fetchone()[2]


def exact(conn, query, k, source_type=None):
    where = "" if source_type is None else f" AND source_type = '{source_type}'"
    rows = conn.execute(
        f"SELECT rowid FROM chunks_vec WHERE embedding MATCH ? AND k = ?{where}",
        (query.tobytes(), k)).fetchall()
    return [r[0] for r in rows]


def test_projected_search_matches_exact_knn_and_follows_changes(conn):
    n = EXACT_BELOW + 10_000
    vectors = clustered(n, seed=1)
    insert(conn, 1, vectors)
    index = VectorIndex(DIM)
    assert index.refresh(conn) and len(index) == n and index.basis is not None
    queries = clustered(30, seed=2)
    recalls = [len({r for r, _ in index.search(q, 50)} & set(exact(conn, q, 50))) / 50
               for q in queries]
    assert np.mean(recalls) >= 0.95

    # a filtered search is exact over the allowed rows
    q = queries[0]
    got = {r for r, _ in index.search(q, 10, index.type_mask(["cgm"]))}
    assert len(got & set(exact(conn, q, 10, "cgm"))) >= 9

    # unchanged index: refresh is a no-op
    assert not index.refresh(conn)
    # another connection's deletes and inserts are picked up (data_version moves only for
    # commits by other connections: the indexer's, in real use); similarities are cosine
    best = index.search(q, 1)[0][0]
    writer = connect(conn_path(conn))
    with transaction(writer):
        writer.execute("DELETE FROM chunks_vec WHERE rowid = ?", (best,))
    insert(writer, n + 1, q[None, :].copy())
    writer.close()
    assert index.refresh(conn) and len(index) == n
    top_rowid, top_sim = index.search(q, 1)[0]
    assert top_rowid == n + 1 and top_sim == pytest.approx(1.0, abs=1e-3)
    assert best not in {r for r, _ in index.search(q, 50)}


def test_small_index_is_searched_exactly(conn):
    vectors = clustered(500, seed=3)
    insert(conn, 1, vectors)
    index = VectorIndex(DIM)
    index.refresh(conn)
    assert index.basis is None
    for q in clustered(5, seed=4):
        got = index.search(q, 20)
        truth = conn.execute(
            "SELECT 1 - distance FROM chunks_vec WHERE embedding MATCH ? AND k = 20",
            (q.tobytes(),)).fetchall()
        # same ranking up to float16 storage precision
        assert np.allclose([s for _, s in got], [t[0] for t in truth], atol=2e-3)
        assert len({r for r, _ in got} & set(exact(conn, q, 20))) >= 18
    assert index.search(vectors[0], 0) == []
