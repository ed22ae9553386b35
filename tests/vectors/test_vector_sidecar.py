"""The vector sidecar never serves a vector the index no longer holds, and is never trusted
when torn or mismatched; the mapped, projected search finds the exact neighbours."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from engine.config import load_config
from engine.index import re_embed as re_embedding
from engine.indexer import reindex
from engine.schema import (
    EmbedderInfo,
    ensure_schema,
    open_reader,
    record_embedder,
    stored_embedder,
)
from engine.searcher import Searcher
from engine.storage.db import connect, transaction
from engine.vectors.sidecar_build import in_memory_sidecar, update_sidecar
from engine.vectors.sidecar_file import FORMAT, sidecar_dir
from engine.vectors.sidecar_scan import SidecarIndex, best_rows, open_vector_index, refreshed
from tests.vectors.conftest import DIM, add, clustered, rowid_of, unit  # the same clustered vectors

INFO = EmbedderInfo("test", "clusters", DIM)







@pytest.fixture
def db(tmp_path):
    path = tmp_path / "v.db"
    conn = connect(path, mmap=False)
    ensure_schema(conn)
    with transaction(conn):
        record_embedder(conn, INFO)
    add(conn, [f"c{i}" for i in range(3000)], clustered(3000, seed=1))
    yield path, conn
    conn.close()


def fresh(path):
    """What a new process's Searcher does: open, check and follow the sidecar."""
    reader = open_reader(path)
    index = refreshed(open_vector_index(path, reader), path, reader)
    return reader, index


def top(index, query, k=1):
    return index.search(query, k)


def test_sidecar_never_serves_a_deleted_changed_or_reused_rowids_old_vector(db):
    path, conn = db
    assert update_sidecar(conn, path)["sidecar"] == "rebuilt"
    vectors = clustered(3000, seed=1)
    reader, index = fresh(path)
    assert not index.in_memory and len(index) == 3000
    # the writer changes things after the sidecar was written (no sidecar update yet)
    gone, changed = rowid_of(conn, "c10"), rowid_of(conn, "c20")
    last = rowid_of(conn, "c2999")
    new_vec, reused_vec = clustered(2, seed=9)
    with transaction(conn):
        conn.execute("DELETE FROM chunks WHERE rowid = ?", (gone,))
        conn.execute("UPDATE chunks SET embedding = ? WHERE rowid = ?",
                     (new_vec.tobytes(), changed))
        conn.execute("DELETE FROM chunks WHERE rowid = ?", (last,))
    add(conn, ["reused"], reused_vec[None, :])
    assert rowid_of(conn, "reused") == last  # SQLite hands the freed top rowid out again
    for r, idx in ((reader, index), fresh(path)):  # the open reader follows; a new one too
        refreshed(idx, path, r)
        assert gone not in {x for x, _ in idx.search(vectors[10], 50)}
        assert top(idx, new_vec)[0] == (changed, pytest.approx(1.0, abs=1e-3))
        assert dict(idx.search(vectors[20], 3000))[changed] == pytest.approx(
            float(new_vec @ vectors[20]), abs=1e-3)
        assert top(idx, reused_vec)[0] == (last, pytest.approx(1.0, abs=1e-3))
        assert dict(idx.search(vectors[2999], 3000))[last] == pytest.approx(
            float(reused_vec @ vectors[2999]), abs=1e-3)
        assert len(idx) == 2999
    # the writer publishes the change as a new segment and prunes the log; readers reload
    result = update_sidecar(conn, path)
    assert result["sidecar"] == "appended" and result["rows"] == 2
    assert conn.execute("SELECT count(*) FROM vector_changes").fetchone()[0] == 0
    index = refreshed(index, path, reader)
    for idx in (index, fresh(path)[1]):
        assert isinstance(idx, SidecarIndex) and len(idx) == 2999
        assert gone not in {x for x, _ in idx.search(vectors[10], 50)}
        assert top(idx, reused_vec)[0] == (last, pytest.approx(1.0, abs=1e-3))
        assert dict(idx.search(vectors[20], 3000))[changed] == pytest.approx(
            float(new_vec @ vectors[20]), abs=1e-3)


def test_a_re_embed_swap_replaces_every_old_vector(db):
    path, conn = db
    update_sidecar(conn, path)
    other = clustered(3000, seed=5)
    new_info = EmbedderInfo("test", "other-clusters", DIM)
    re_embedding.begin(conn, new_info)
    with transaction(conn):  # what the staging pass writes (engine/index/re_embed.py)
        conn.executemany(
            "INSERT INTO staged_vectors(chunk_rowid, embedding) VALUES (?, ?)",
            [(rowid_of(conn, f"c{i}"), v.tobytes()) for i, v in enumerate(other)])
    reader, index = fresh(path)  # staged: the old vectors still serve
    assert top(index, clustered(3000, seed=1)[7])[0][0] == rowid_of(conn, "c7")
    assert re_embedding.swap(conn, new_info, per_message=False)
    update_sidecar(conn, path)
    reader, index = fresh(path)
    assert len(index) == 3000
    assert top(index, other[7])[0] == (rowid_of(conn, "c7"), pytest.approx(1.0, abs=1e-3))
    assert stored_embedder(conn) == new_info and re_embedding.staged(conn) is None


def test_torn_or_mismatched_sidecar_is_ignored(db):
    path, conn = db
    update_sidecar(conn, path)
    folder = sidecar_dir(path)
    manifest = json.loads((folder / "manifest.json").read_text())
    segment = folder / manifest["segments"][0]["file"]
    assert not fresh(path)[1].in_memory

    def broken_by(change) -> bool:
        saved = {p: p.read_bytes() for p in folder.iterdir()}
        change()
        try:
            return fresh(path)[1].in_memory
        finally:
            for p, data in saved.items():
                p.write_bytes(data)

    def edit_manifest(**fields):
        (folder / "manifest.json").write_text(json.dumps({**manifest, **fields}))

    size = segment.stat().st_size
    assert broken_by(lambda: segment.write_bytes(segment.read_bytes()[: size // 2]))
    assert broken_by(lambda: (folder / "manifest.json").write_text('{"format": 1, "dim"'))
    assert broken_by(lambda: edit_manifest(gen=manifest["gen"] + 5))  # from the future
    assert broken_by(lambda: edit_manifest(epoch="another index"))
    assert broken_by(lambda: edit_manifest(embedder="test:other (64-d)"))
    assert broken_by(lambda: edit_manifest(head=manifest["pdim"] + 1))
    assert broken_by(lambda: edit_manifest(head=None))
    data = bytearray(segment.read_bytes())
    data[40] ^= 0xFF  # a rowid changed under the manifest
    assert broken_by(lambda: segment.write_bytes(bytes(data)))
    # an older sidecar once the log it needs was pruned (a copy restored from a backup)
    old = {p: p.read_bytes() for p in folder.iterdir()}
    add(conn, ["later"], clustered(1, seed=3))
    update_sidecar(conn, path)
    for p in folder.iterdir():
        p.unlink()
    for p, data in old.items():
        p.write_bytes(data)
    reader, index = fresh(path)
    assert index.in_memory and len(index) == 3001
    assert fresh(path)[1].in_memory


@pytest.mark.parametrize("old_format", [1, 2, 3])
def test_a_sidecar_of_an_older_format_is_rebuilt_never_misread(db, old_format):
    path, conn = db
    update_sidecar(conn, path)
    folder = sidecar_dir(path)
    manifest = json.loads((folder / "manifest.json").read_text())
    # format 1 stored the uncentred projected rows whole, format 2 as 96 + 32 float32 columns
    # and no sign bits, format 3 its head as float32: the same bytes read in another layout
    # would be wrong scores
    old = {k: v for k, v in manifest.items() if k != "head" or old_format >= 2}
    (folder / "manifest.json").write_text(json.dumps({**old, "format": old_format}))
    assert fresh(path)[1].in_memory
    result = update_sidecar(conn, path)
    assert result["sidecar"] == "rebuilt" and result["reason"] == "another sidecar format"
    assert json.loads((folder / "manifest.json").read_text())["format"] == FORMAT
    reader, index = fresh(path)
    assert not index.in_memory
    q = clustered(1, seed=9)[0]
    assert top(index, q, 5) == top(SidecarIndex(in_memory_sidecar(reader, DIM)), q, 5)


def test_best_rows_holds_every_row_at_least_as_good_as_the_mth():
    rng = np.random.default_rng(4)
    for n, m, masked in ((500_000, 8_000, 0.0), (100_000, 3_000, 0.9), (50_000, 400, 0.5)):
        scores = rng.normal(size=n).astype(np.float32)
        scores[rng.integers(0, n, 2_000)] = 1.5  # ties at the floor's level
        scores[rng.random(n) < masked] = -np.inf
        got = best_rows(scores, m)
        mth = np.sort(scores)[-m]
        assert np.array_equal(got, np.sort(got)) and m <= len(got) <= 2 * m
        assert np.isfinite(scores[got]).all()
        assert set(np.flatnonzero(scores > mth)) <= set(got.tolist())
        assert (scores[got] >= mth).sum() >= m


def test_a_reader_without_a_sidecar_takes_the_one_a_writer_publishes(db):
    path, conn = db
    reader, index = fresh(path)
    assert index.in_memory and len(index) == 3000
    assert refreshed(index, path, reader) is index  # nothing published: kept
    update_sidecar(conn, path)
    index = refreshed(index, path, reader)
    assert not index.in_memory and len(index) == 3000


def test_projected_path_finds_the_exact_top_k(tmp_path):
    dim = 256  # 48 float components and 128 sign bits, as for WordLlama's vectors
    path = tmp_path / "p.db"
    conn = connect(path, mmap=False)
    ensure_schema(conn)
    with transaction(conn):
        record_embedder(conn, EmbedderInfo("test", "clusters", dim))
    rng = np.random.default_rng(1)
    everything = unit(rng.normal(size=(60, dim))[rng.integers(0, 60, 6000)]
                      + 0.5 * rng.normal(size=(6000, dim)))
    add(conn, [f"c{i}" for i in range(6000)], everything)
    add(conn, [f"e{i}" for i in range(50)], everything[:50], source_type="cgm")
    update_sidecar(conn, path)
    index = open_vector_index(path, open_reader(path))
    assert not index.in_memory and index.basis.shape == (dim, 176)
    index.exact_below = 0  # force the two-pass search on this small fixture
    rowids = np.array([rowid_of(conn, f"c{i}") for i in range(6000)])
    exact = dict(zip(rowids.tolist(), (everything @ everything[0]).tolist(), strict=True))
    queries = unit(everything[rng.integers(0, 6000, 20)] + 0.3 * rng.normal(size=(20, dim)))
    # the first pass keeps 200 or 600 of the 6,050 rows for exact rescoring
    for depth in (200, 600):
        for q in queries:
            sims = everything @ q
            truth = np.argsort(-sims)[:10]
            got = index.search(q, 10, index.type_mask(["slack"]), rescore=depth)
            # exact up to float16 storage: the same similarities, the same rows but for ties
            assert np.allclose([s for _, s in got], sims[truth], atol=2e-3)
            exact = dict(zip(rowids.tolist(), sims.tolist(), strict=True))
            assert all(exact[r] >= sims[truth[-1]] - 2e-3 for r, _ in got)
            assert len({r for r, _ in got} & set(rowids[truth].tolist())) >= 9
    # a filter keeps only the allowed rows
    got = {r for r, _ in index.search(everything[0], 50, index.type_mask(["cgm"]), rescore=200)}
    assert got == {rowid_of(conn, f"e{i}") for i in range(50)}
    conn.close()


READ_ONLY_SEARCH = """
import sys
from engine.config import load_config
from engine.searcher import Searcher
s = Searcher(load_config(sys.argv[1]))
hits = s.search("harbor bridge project", mode="semantic").results
print("memory" if s.vector_index().in_memory else "file", len(hits))
"""


def test_a_reader_never_writes_the_sidecar_and_falls_back_without_one(config, tmp_path):
    reindex(config=config)
    folder = sidecar_dir(config.db_path)
    assert (folder / "manifest.json").exists()
    searcher = Searcher(config)
    assert not searcher.vector_index().in_memory
    assert searcher.search("harbor bridge project", mode="semantic").results
    searcher.close()
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()
    db = config.db_path
    before = sorted(p.name for p in db.parent.iterdir())
    # (tests/index/test_readonly_root.py searches a root the process cannot write at all)
    out = subprocess.run([sys.executable, "-c", READ_ONLY_SEARCH, str(config.root)],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "memory" and int(out[1]) > 0
    assert sorted(p.name for p in db.parent.iterdir()) == before  # nothing written
    reindex(config=load_config(config.root))  # the next writer puts it back
    assert (folder / "manifest.json").exists()


def test_maintenance_rewrites_the_sidecar_and_no_older_copy_is_trusted(db):
    from engine.maintenance import maintain_index

    path, conn = db
    update_sidecar(conn, path)
    folder = sidecar_dir(path)
    old = {p.name: p.read_bytes() for p in folder.iterdir()}
    conn.close()
    assert maintain_index(path, vacuum=True)["sidecar_rows"] == 3000
    reader, index = fresh(path)
    assert not index.in_memory and len(index) == 3000
    for p in folder.iterdir():
        p.unlink()
    for name, data in old.items():  # the pre-maintenance sidecar, restored
        (folder / name).write_bytes(data)
    assert fresh(path)[1].in_memory


def test_a_sidecar_that_cannot_be_written_only_warns(config):
    folder = sidecar_dir(config.db_path)
    folder.parent.mkdir(parents=True)
    folder.write_text("not a folder")  # mkdir and every file write inside it fail
    stats = reindex(config=config)
    assert stats.chunks and any("vector sidecar was not updated" in w.message
                                and "is a file, not the folder" in w.message
                                and "move it away" in w.message for w in stats.warnings)
    searcher = Searcher(config)
    assert searcher.vector_index().in_memory
    assert searcher.search("harbor bridge project", mode="semantic").results
    searcher.close()
