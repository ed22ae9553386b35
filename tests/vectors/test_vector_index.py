"""The vector index built in memory from the rows (no sidecar file yet) stays in step with them
and finds the true neighbours; sqlite-vec's exact search, through its public SQL, agrees."""

from __future__ import annotations

import numpy as np
import pytest

from engine.schema import EmbedderInfo, ensure_schema, record_embedder
from engine.storage.db import connect, load_sqlite_vec, transaction
from engine.vectors.sidecar_scan import EXACT_BELOW, open_vector_index
from tests.vectors.conftest import DIM, add, clustered


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "v.db"
    c = connect(path)
    ensure_schema(c)
    with transaction(c):
        record_embedder(c, EmbedderInfo("test", "clusters", DIM))
    yield path, c
    c.close()


def insert(conn, vectors: np.ndarray, prefix: str) -> None:
    """Rows of two source types: every tenth is a "cgm" row."""
    ids = [f"{prefix}{i}" for i in range(len(vectors))]
    add(conn, [i for n, i in enumerate(ids) if n % 10], vectors[[n % 10 != 0 for n in
                                                                 range(len(vectors))]])
    add(conn, ids[::10], vectors[::10], source_type="cgm")


def exact(conn, query, k, source_type=None):
    """The true top ``k`` rowids by cosine similarity, from the rows."""
    where = "" if source_type is None else f" AND source_type = '{source_type}'"
    rows = conn.execute(f"SELECT rowid, embedding FROM chunks WHERE embedding IS NOT NULL{where}"
                        ).fetchall()
    vectors = np.vstack([np.frombuffer(b, np.float32) for _, b in rows])
    sims = vectors @ query / np.linalg.norm(vectors, axis=1) / np.linalg.norm(query)
    return [rows[i][0] for i in np.argsort(-sims, kind="stable")[:k]]


def test_projected_search_matches_exact_knn_and_follows_changes(db):
    path, conn = db
    n = EXACT_BELOW + 10_000
    insert(conn, clustered(n, seed=1), "c")
    index = open_vector_index(path, conn)
    assert index.in_memory and len(index) == n
    index.exact_below = 0  # the two-pass search, as at 500k
    queries = clustered(30, seed=2)
    recalls = [len({r for r, _ in index.search(q, 50, rescore=400)} & set(exact(conn, q, 50)))
               / 50 for q in queries]
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
    writer = connect(path)
    with transaction(writer):
        writer.execute("DELETE FROM chunks WHERE rowid = ?", (best,))
    add(writer, ["new"], q[None, :].copy())
    writer.close()
    assert index.refresh(conn) and len(index) == n
    top_rowid, top_sim = index.search(q, 1)[0]
    assert top_rowid == n + 1 and top_sim == pytest.approx(1.0, abs=1e-3)
    assert best not in {r for r, _ in index.search(q, 50)}


def test_small_index_is_searched_exactly_and_agrees_with_sqlite_vec(db):
    path, conn = db
    vectors = clustered(500, seed=3)
    insert(conn, vectors, "s")
    index = open_vector_index(path, conn)
    load_sqlite_vec(conn)  # its exact distance, through its public SQL
    for q in clustered(5, seed=4):
        got = index.search(q, 20)
        truth = conn.execute(
            "SELECT rowid, 1 - vec_distance_cosine(embedding, ?) AS sim FROM chunks "
            "WHERE embedding IS NOT NULL ORDER BY sim DESC LIMIT 20", (q.tobytes(),)).fetchall()
        # same ranking up to float16 storage precision
        assert np.allclose([s for _, s in got], [t[1] for t in truth], atol=2e-3)
        assert len({r for r, _ in got} & {t[0] for t in truth}) >= 18
    assert index.search(vectors[0], 0) == []
