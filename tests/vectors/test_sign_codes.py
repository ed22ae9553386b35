"""The sidecar's first pass (engine/vectors/sign_codes.py): its popcount scores are the estimate they
stand for, they keep the exact neighbours of short queries that a head-only pass loses, and the
mapped sidecar scores and searches as the codes computed in memory."""

from __future__ import annotations

import numpy as np
import pytest

from engine.schema import EmbedderInfo, ensure_schema, open_reader, record_embedder
from engine.storage.db import connect, transaction
from engine.vectors import kernels, sign_codes
from engine.vectors.sidecar_build import update_sidecar
from engine.vectors.sidecar_scan import best_rows, open_vector_index
from engine.vectors.sign_codes import FirstPass, components, encode, fit_basis, head_of
from tests.vectors.conftest import add, rowid_of, unit

DIM = 256  # WordLlama's width: 48 float components and 128 sign bits


def texts(rng, counts: dict[int, int]) -> list[np.ndarray]:
    """Vectors shaped like a word-averaging embedder's, ``n`` of them the mean of ``words`` word
    vectors of one topic for each ``words: n``. Chunks (many words) keep most energy in a few
    directions; short queries (a few words) spread theirs, as WordLlama's do
    (docs/benchmarks.md)."""
    spectrum = 1.0 / np.sqrt(1 + np.arange(DIM))
    vocab = rng.normal(size=(3000, DIM)) * spectrum @ np.linalg.qr(rng.normal(size=(DIM, DIM)))[0]
    topics = [rng.choice(3000, 80, replace=False) for _ in range(60)]
    return [unit(np.stack([vocab[rng.choice(topics[t], words)].mean(0)
                           for t in rng.integers(0, 60, n)]) + vocab.mean(0))
            for words, n in counts.items()]


@pytest.fixture(scope="module")
def corpus():
    return texts(np.random.default_rng(3), {40: 20_000, 4: 30})  # chunks, queries


def plain_estimate(basis, head, lead, words, scale, query) -> np.ndarray:
    """What FirstPass.scores stands for, computed without bit tricks."""
    qy = query @ basis.rotation
    w = qy[head:] * basis.spread[head:]
    unit_w = np.abs(w).max() / 3
    levels = np.rint(np.abs(w) / unit_w)
    signs = np.unpackbits(words.view(np.uint8), axis=1)[:, :len(w)].astype(np.float64) * 2 - 1
    agree = signs * np.sign(w)  # +1 where the row's sign agrees with the weight's
    return (lead * basis.step[:head]) @ qy[:head] + scale * unit_w * (agree @ levels)


SCANS = ["numpy", "compiled-avx2", "compiled-portable"]


@pytest.fixture(params=SCANS)
def scan(request, monkeypatch):
    """Each way the first pass can run: numpy's passes, and the compiled loop's two bodies."""
    if request.param == "numpy":
        monkeypatch.setattr(kernels, "COMPILED", False)
        yield request.param
        return
    if kernels._kernels is None:
        pytest.skip("engine/csrc/kernels.c was not built (no C compiler at install)")
    monkeypatch.setattr(kernels, "COMPILED", True)
    on = kernels.use_simd(request.param == "compiled-avx2")
    if request.param == "compiled-avx2" and not on:
        pytest.skip("this CPU has no AVX2/FMA/F16C")
    yield request.param
    kernels.use_simd(True)


def test_popcount_scores_are_the_estimate_over_blocks_and_segments(corpus, monkeypatch, scan):
    chunks, queries = corpus
    monkeypatch.setattr(sign_codes, "BLOCK", 1_000)  # blocks, a short last block, segments
    pdim = components(DIM)
    head = head_of(pdim)
    assert (pdim, head) == (176, 48)
    basis = fit_basis(chunks[:5_000], pdim)
    parts = [encode(chunks[:2_345], basis, head), encode(chunks[2_345:2_352], basis, head)]
    out = np.empty(2_352, np.float32)
    for q in queries[:5]:
        got = FirstPass().scores(basis, head, parts, q, out)
        want = np.concatenate([plain_estimate(basis, head, *p, q) for p in parts])
        assert np.allclose(got, want, rtol=1e-4, atol=1e-5)
    # nothing beyond the head (a narrow embedder): the exact centred product alone
    narrow = fit_basis(chunks[:5_000, :40], components(40))
    assert head_of(components(40)) == 40
    lead, words, scale = encode(chunks[:100, :40], narrow, 40)
    assert not words.any()
    got = FirstPass().scores(narrow, 40, [(lead, words, scale)], queries[0][:40], out[:100])
    y = (chunks[:100, :40] - narrow.mean) @ narrow.rotation
    assert np.allclose(got, (lead * narrow.step) @ (queries[0][:40] @ narrow.rotation),
                       atol=1e-5)
    # the int8 codes stand for the centred product within half a unit a component
    err = 0.5 * narrow.step @ np.abs(queries[0][:40] @ narrow.rotation)
    assert np.abs(got - y @ (queries[0][:40] @ narrow.rotation)).max() <= err + 1e-6


def test_first_pass_keeps_the_exact_neighbours_a_head_only_pass_loses(corpus):
    chunks, queries = corpus
    pdim = components(DIM)
    head = head_of(pdim)
    basis = fit_basis(chunks[:5_000], pdim)
    lead, words, scale = encode(chunks, basis, head)
    out = np.empty(len(chunks), np.float32)
    first, head_only = [], []
    for q in queries:
        truth = set(np.argsort(-(chunks @ q))[:50].tolist())
        scores = FirstPass().scores(basis, head, [(lead, words, scale)], q, out)
        first.append(len(set(best_rows(scores, 200).tolist()) & truth) / 50)
        alone = (lead * basis.step[:head]) @ (q @ basis.rotation)[:head]
        head_only.append(len(set(best_rows(alone, 200).tolist()) & truth) / 50)
    # 1% of the rows kept (8,000 of 500k is 1.6%)
    assert np.mean(first) >= 0.99 and min(first) >= 0.9
    assert np.mean(head_only) <= np.mean(first) - 0.02


def test_the_mapped_sidecar_scores_as_encoded_and_finds_the_exact_top_k(tmp_path, corpus, scan):
    chunks, queries = corpus
    chunks = chunks[:4_000]
    path = tmp_path / "s.db"
    conn = connect(path, mmap=False)
    ensure_schema(conn)
    with transaction(conn):
        record_embedder(conn, EmbedderInfo("test", "texts", DIM))
    add(conn, [f"c{i}" for i in range(3_900)], chunks[:3_900])
    assert update_sidecar(conn, path)["sidecar"] == "rebuilt"
    add(conn, [f"c{i}" for i in range(3_900, 4_000)], chunks[3_900:], source_type="cgm")
    assert update_sidecar(conn, path)["sidecar"] == "appended"
    index = open_vector_index(path, open_reader(path))
    assert not index.in_memory and len(index.sidecar.segments) == 2
    sidecar = index.sidecar
    parts = [encode(chunks[:3_900], sidecar.basis, sidecar.head),
             encode(chunks[3_900:], sidecar.basis, sidecar.head)]
    out = np.empty(4_000, np.float32)
    index.exact_below = 0  # the first pass, not an exact scan, on this small set
    rowids = np.array([rowid_of(conn, f"c{i}") for i in range(4_000)])
    recall = []
    for q in queries:
        assert np.allclose(index.first_pass(q), FirstPass().scores(
            sidecar.basis, sidecar.head, parts, q, out), rtol=1e-4, atol=1e-5)
        sims = chunks @ q
        got = index.search(q, 50, rescore=120)
        recall.append(len({r for r, _ in got} & set(rowids[np.argsort(-sims)[:50]])) / 50)
        exact = dict(zip(rowids.tolist(), sims.tolist(), strict=True))
        assert np.allclose([s for _, s in got], [exact[r] for r, _ in got], atol=2e-3)
        # a filter keeps only its rows, exact
        got = index.search(q, 20, index.type_mask(["cgm"]), rescore=120)
        cgm = np.argsort(-sims[3_900:])[:20] + 3_900
        assert {r for r, _ in got} <= set(rowids[3_900:])
        assert np.allclose([s for _, s in got], sims[cgm], atol=2e-3)
    assert np.mean(recall) >= 0.98  # 120 of 4,000 rescored: 3%
    conn.close()
