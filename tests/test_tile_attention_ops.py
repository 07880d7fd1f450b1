"""The tile ops attention and its neighbours need, against NumPy on fresh seeded random inputs — on
the GPU (marked `gpu`) and on the CPU simulator: `tile.argmax/argmin` (first index on ties, the first
NaN), `tile.cumsum` along each axis (the in-thread, warp and cross-warp phases of the scan), causal
masks built from `tile.arange` with `[:, None]` / `[None, :]` and `tile.where`, and online softmax
(running max and sum as loop-carried rank-1 tiles over a `for` loop)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f16, f32, i32, i64, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import attention as attention_example  # noqa: E402 (its float64 NumPy reference)

rng = np.random.default_rng(2026)


def _stream(backend: Backend):
    return backend.device.create_stream()


# --------------------------------------------------------------------------- kernels


@tile.kernel
def arg_rows(imax: tile.Tensor[i64, ("R", 1)], imin: tile.Tensor[i64, (1, "C")], x: tile.Tensor[f32, (-1, -1)]):
    t = tile.load(x, (tile.bid(0), 0), (imax.shape[0], imin.shape[1]))  # this block's rows
    imax.store(tile.argmax(t, axis=1, keepdims=True))
    imin.store(t.argmin(axis=0)[None, :])


@tile.kernel
def arg_ints(out: tile.Tensor[i64, (2,)], x: tile.Tensor[i32, (-1,)]):
    t = tile.load(x, (0,), (256,))
    out.store(tile.where(tile.arange(2) == 0, tile.argmax(t), tile.argmin(t)))


@tile.kernel
def cumsums(last: tile.Tensor[f32, ("R", "C")], first: tile.Tensor[f32, ("R", "C")], x: tile.Tensor[f32, (-1, -1)]):
    t = tile.load_tile_like(x, last)
    last.store(tile.cumsum(t, axis=1))
    first.store(t.cumsum(axis=0))


@tile.kernel
def cumsum_int(out: tile.Tensor[i64, ("N",)], x: tile.Tensor[i32, (-1,)]):
    out.store(tile.cumsum(tile.load_tile_like(x, out)))


@tile.kernel
def causal(out: tile.Tensor[f32, (32, 64)], x: tile.Tensor[f32, (-1, -1)]):
    q_idx = tile.arange(32) + tile.bid(0) * 32
    k_idx = tile.arange(64)
    mask = q_idx[:, None] >= k_idx[None, :]
    out.store(tile.where(mask, tile.load_tile_like(x, out), -math.inf))


@tile.kernel
def online_softmax(out: tile.Tensor[f32, (16, "C")], x: tile.Tensor[f32, (-1, -1)], blocks: i64):
    # running max m and sum l (rank-1 tiles of 16 rows) carried across the column blocks, FlashAttention's
    # rescaling; then a second pass writes exp(x - m) / l
    m = tile.full((16,), -math.inf, f32)
    l = tile.zeros((16,), f32)
    for j in range(blocks):
        s = tile.load(x, (tile.bid(0), j), (16, 64), padding=-math.inf)
        m_new = tile.maximum(m, tile.max(s, axis=1))
        l = l * tile.exp(m - m_new) + tile.sum(tile.exp(s - m_new[:, None]), axis=1)
        m = m_new
    s = tile.load_tile_like(x, out, padding=-math.inf)
    out.store(tile.exp(s - m[:, None]) / l[:, None])


FA_BM, FA_BN, FA_D = 16, 16, 32


@tile.kernel
def flash_forward(
    o: tile.Tensor[f32, (1, 1, FA_BM, FA_D)], q: tile.Tensor[f16, (-1, -1, -1, FA_D)], k: tile.Tensor[f16, (-1, -1, -1, FA_D)],
    v: tile.Tensor[f16, (-1, -1, -1, FA_D)], qk_scale: f32, causal: wf.Constant[int],
):
    # a reference flash-attention forward without tensor cores: one tile block per (batch, head, query
    # tile); K/V tiles streamed through a loop with the running max m and sum l (rank-1 tiles) and the
    # output accumulator carried; the softmax scale folded into exp2 (qk_scale = log2(e) / sqrt(D));
    # QK^T and PV as broadcast products summed over an axis of a rank-3 tile
    b, h, i = tile.bid(0), tile.bid(1), tile.bid(2)
    n = q.shape[2]
    qt = tile.load(q, (b, h, i, 0), (1, 1, FA_BM, FA_D)).reshape((FA_BM, FA_D)).astype(f32)
    q_idx = tile.arange(FA_BM) + i * FA_BM
    m = tile.full((FA_BM,), -math.inf, f32)
    l = tile.zeros((FA_BM,), f32)
    acc = tile.zeros((FA_BM, FA_D), f32)
    for j in range((n + FA_BN - 1) // FA_BN):
        kt = tile.load(k, (b, h, j, 0), (1, 1, FA_BN, FA_D)).reshape((FA_BN, FA_D)).astype(f32)
        vt = tile.load(v, (b, h, j, 0), (1, 1, FA_BN, FA_D)).reshape((FA_BN, FA_D)).astype(f32)
        s = tile.sum(qt[:, None, :] * kt[None, :, :], axis=2) * qk_scale
        k_idx = tile.arange(FA_BN) + j * FA_BN
        ok = k_idx[None, :] < n  # keys past the sequence's end (zero padding) are masked
        if causal:
            ok = ok & (q_idx[:, None] >= k_idx[None, :])
        s = tile.where(ok, s, -math.inf)
        m_new = tile.maximum(m, tile.max(s, axis=1))
        alpha = tile.exp2(m - m_new)
        p = tile.exp2(s - m_new[:, None])
        l = l * alpha + tile.sum(p, axis=1)
        acc = acc * alpha[:, None] + tile.sum(p[:, :, None] * vt[None, :, :], axis=1)
        m = m_new
    o.store((acc / l[:, None]).reshape((1, 1, FA_BM, FA_D)))


# --------------------------------------------------------------------------- argmax / argmin


@pytest.mark.parametrize("shape", [(4, 64), (16, 256), (1, 1024), (64, 8)])
def test_argmax_argmin_first_index_on_ties_and_first_nan(backend: Backend, shape: tuple[int, int]) -> None:
    r, c = shape
    x = rng.integers(-3, 4, (2 * r, c)).astype(np.float32)  # many ties
    x[0, c // 3] = np.nan
    x[r - 1, c - 1] = np.nan
    x[1 % r, 0] = x[1 % r, c // 2] = np.nan  # two NaNs in one row: the first counts
    res = arg_rows(wf.full((2 * r, 1), -1, i64).partition((r, 1)), wf.full((2, c), -1, i64).partition((1, c)), wf.from_host(x))
    stream = _stream(backend)
    imax = res[0].unpartition().to_host().sync_on(stream)
    imin = res[1].unpartition().to_host().sync_on(stream)
    np.testing.assert_array_equal(imax[:, 0], np.argmax(x, axis=1))
    for b in range(2):  # each tile block's argmin over its own rows
        np.testing.assert_array_equal(imin[b], np.argmin(x[b * r : (b + 1) * r], axis=0))


def test_argmax_argmin_of_integers_over_the_whole_tile(backend: Backend) -> None:
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    x[[7, 100]] = 5000  # a tie for the maximum: the first
    x[[3, 200]] = -5000
    got = arg_ints(wf.full((2,), -1, i64).partition((2,)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, [7, 3])


# --------------------------------------------------------------------------- cumsum


@pytest.mark.parametrize("shape", [(4, 64), (2, 8), (16, 256), (1, 2048), (64, 64), (8, 4096), (128, 1)])
def test_cumsum_along_each_axis(backend: Backend, shape: tuple[int, int]) -> None:
    x = rng.integers(-8, 9, shape).astype(np.float32)  # small integers: float sums are exact in any order
    res = cumsums(wf.full(shape, np.nan, f32).partition(shape), wf.full(shape, np.nan, f32).partition(shape), wf.from_host(x))
    stream = _stream(backend)
    np.testing.assert_array_equal(res[0].unpartition().to_host().sync_on(stream), np.cumsum(x, axis=1))
    np.testing.assert_array_equal(res[1].unpartition().to_host().sync_on(stream), np.cumsum(x, axis=0))


def test_cumsum_of_random_floats_within_rounding(backend: Backend) -> None:
    shape = (8, 512)
    x = rng.standard_normal(shape).astype(np.float32)
    res = cumsums(wf.empty(shape, f32).partition(shape), wf.empty(shape, f32).partition(shape), wf.from_host(x))
    got = res[0].unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_allclose(got, np.cumsum(x.astype(np.float64), axis=1), rtol=1e-4, atol=1e-4)


def test_cumsum_of_int32_sums_in_int64_like_numpy(backend: Backend) -> None:
    x = rng.integers(2**30, 2**31 - 1, 300).astype(np.int32)  # overflows int32 after two elements
    got = cumsum_int(wf.full((300,), -1, i64).partition((512,)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, np.cumsum(x))
    assert np.cumsum(x).dtype == np.int64


# --------------------------------------------------------------------------- masks and online softmax


def test_causal_mask_from_arange_broadcasts(backend: Backend) -> None:
    x = rng.standard_normal((96, 64)).astype(np.float32)
    got = causal(wf.full((96, 64), np.nan, f32).partition((32, 64)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    q, k = np.arange(96)[:, None], np.arange(64)[None, :]
    np.testing.assert_array_equal(got, np.where(q >= k, x, -np.inf))


def test_online_softmax_with_loop_carried_rank1_tiles(backend: Backend) -> None:
    rows, cols = 40, 200  # 3 row blocks (the last partial), 4 column blocks of 64 (the last partial)
    x = (2 * rng.standard_normal((rows, cols))).astype(np.float32)
    out = wf.full((rows, cols), np.nan, f32).partition((16, 256))
    got = online_softmax(out, wf.from_host(x), -(-cols // 64)).first().unpartition().to_host().sync_on(_stream(backend))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("causal", [0, 1])
def test_reference_flash_attention_forward_rank4_against_numpy(backend: Backend, causal: int) -> None:
    b, h, n = 1, 2, 40  # 40 is not a multiple of the 16-row tiles: query and key tails
    q, k, v = (rng.standard_normal((b, h, n, FA_D)).astype(np.float16) for _ in range(3))
    out = wf.full((b, h, n, FA_D), np.nan, f32).partition((1, 1, FA_BM, FA_D))
    scale = np.float32(math.log2(math.e) / math.sqrt(FA_D))
    got = flash_forward(out, wf.from_host(q), wf.from_host(k), wf.from_host(v), scale, causal).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_allclose(got, attention_example.reference(q, k, v, bool(causal)), rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------- diagnostics and PTX


def test_bad_axis_and_new_axis_on_a_tensor_are_located_errors() -> None:
    @tile.kernel
    def bad_axis(z: tile.Tensor[i64, (4,)], x: tile.Tensor[f32, (-1,)]):
        z.store(tile.argmax(tile.load(x, (0,), (4,)), axis=2)[None])

    with pytest.raises(wf.CompileError, match=r"test_tile_attention_ops.py:\d+:\d+: error: axis 2 is out of range for a tile of rank 1"):
        bad_axis(wf.zeros((4,), i64).partition((4,)), wf.zeros((4,), f32))

    @tile.kernel
    def new_axis_tensor(z: tile.Tensor[f32, (4,)], x: tile.Tensor[f32, (-1,)]):
        z.store(x[:, None])

    with pytest.raises(wf.CompileError, match=r"adds axes to tiles only"):
        new_axis_tensor(wf.zeros((4,), f32).partition((4,)), wf.zeros((4,), f32))


def test_scan_and_argmax_ptx_assembles() -> None:
    import shutil
    import subprocess
    import tempfile

    shape = (16, 256)
    ck = cumsums.compile(tile.spec(f32, shape, partition=shape), tile.spec(f32, shape, partition=shape), tile.spec(f32, shape))
    ck2 = arg_rows.compile(tile.spec(i64, (32, 1), partition=(16, 1)), tile.spec(i64, (2, 64), partition=(1, 64)), tile.spec(f32, (32, 64)))
    qkv = tile.spec(f16, (1, 2, 40, FA_D))
    ck3 = flash_forward.compile(tile.spec(f32, (1, 2, 40, FA_D), partition=(1, 1, FA_BM, FA_D)), qkv, qkv, qkv, tile.spec(f32), 1)
    for ptx in (ck.kernel.ptx, ck2.kernel.ptx, ck3.kernel.ptx):
        assert ".extern .func" not in ptx
        if shutil.which("ptxas"):
            with tempfile.TemporaryDirectory() as d:
                open(f"{d}/k.ptx", "w").write(ptx)
                subprocess.run(["ptxas", "-arch=sm_90", f"{d}/k.ptx", "-o", f"{d}/k.cubin"], check=True)
    assert "shfl.sync.up" in ck.kernel.ptx
