"""The compiled sidecar scans (engine/csrc/kernels.c) give numpy's sums, in both bodies, and
refuse to read outside the buffers they are given."""

from __future__ import annotations

import numpy as np
import pytest

from engine.vectors import kernels

pytestmark = pytest.mark.skipif(kernels._kernels is None,
                                reason="engine/csrc/kernels.c was not built (no C compiler)")


@pytest.fixture(params=["avx2", "portable"])
def body(request):
    on = kernels.use_simd(request.param == "avx2")
    if request.param == "avx2" and not on:
        pytest.skip("this CPU has no AVX2/FMA/F16C")
    yield request.param
    kernels.use_simd(True)


@pytest.mark.parametrize("dim", [256, 13])  # a multiple of 8, and a tail the vector loop leaves
def test_rescore_is_the_float32_product_of_the_float16_rows(body, dim):
    rng = np.random.default_rng(1)
    full = rng.normal(size=(500, dim)).astype(np.float16)
    full[0, 0] = np.float16(6e-6)  # a subnormal half
    full[1, :3] = [np.float16(0), np.float16(-0.0), np.float16(65504)]
    query = rng.normal(size=dim).astype(np.float32)
    idx = np.array([100, 103, 150, 101, 499, 100, 101], np.int64)  # any order, repeats
    out = np.empty(len(idx), np.float32)
    kernels.rescore(full[100:], idx, 100, query, out)  # a segment starting at row 100
    want = full[idx].astype(np.float32) @ query
    assert np.allclose(out, want, rtol=1e-5, atol=1e-4)
    both = np.array([0, 1], np.int64)
    kernels.rescore(full, both, 0, query, out[:2])
    assert np.allclose(out[:2], full[:2].astype(np.float32) @ query, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("head", [48, 5])
def test_first_pass_is_the_product_plus_the_weighted_sign_agreement(body, head):
    rng = np.random.default_rng(2)
    n = 300
    lead = rng.integers(-127, 128, size=(n, head), dtype=np.int8)
    words = rng.integers(0, 2**63, size=(n, 2), dtype=np.uint64)
    scale = rng.random(n).astype(np.float32)
    q = rng.normal(size=head).astype(np.float32)
    sign, p0, p1 = (tuple(int(w) for w in rng.integers(0, 2**63, 2, dtype=np.uint64))
                    for _ in range(3))
    out = np.empty(n, np.float32)
    kernels.first_pass(lead, head, words, scale, q, sign, (p0, p1), 40.0, 0.25, out)

    def pc(x):
        return np.array([bin(int(v)).count("1") for v in x])
    x0, x1 = words[:, 0] ^ np.uint64(sign[0]), words[:, 1] ^ np.uint64(sign[1])
    c = (pc(x0 & np.uint64(p0[0])) + pc(x1 & np.uint64(p0[1]))
         + 2 * (pc(x0 & np.uint64(p1[0])) + pc(x1 & np.uint64(p1[1]))))
    want = lead.astype(np.float32) @ q + scale * (40.0 - 2 * 0.25 * c)
    assert np.allclose(out, want, rtol=1e-5, atol=1e-4)


def test_a_row_outside_the_segment_or_a_short_buffer_is_refused():
    full = np.zeros((10, 8), np.float16)
    q = np.ones(8, np.float32)
    out = np.empty(1, np.float32)
    for bad in (10, -1):
        with pytest.raises(IndexError, match="outside"):
            kernels.rescore(full, np.array([bad], np.int64), 0, q, out)
    with pytest.raises(IndexError):
        kernels.rescore(full, np.array([4], np.int64), 5, q, out)  # below the segment's start
    with pytest.raises(ValueError, match="needed"):
        kernels.first_pass(np.zeros((3, 3), np.int8), 4, np.zeros((2, 2), np.uint64),
                           np.zeros(3, np.float32), np.zeros(4, np.float32), (0, 0),
                           ((0, 0), (0, 0)), 0.0, 0.0, np.empty(3, np.float32))
    with pytest.raises(ValueError, match="read-only"):
        ro = np.empty(1, np.float32)
        ro.flags.writeable = False
        kernels.rescore(full, np.array([0], np.int64), 0, q, ro)
