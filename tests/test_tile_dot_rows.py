"""Row reductions of a `tile.dot` accumulator in registers (passes/lowerings/tile_dot_rows.py): where
the MMA layout's warps own whole rows, `tile.max(s, axis=1)` / `tile.sum(s, axis=1)` reduce within the
thread and across the 4 lanes of a quad (`shfl.sync.bfly` xor 1, 2), and the broadcast back
(`s - m[:, None]`) copies registers. On the GPU (marked `gpu`) and the simulator against NumPy on fresh
seeded random inputs with poisoned outputs: a softmax between two chained dots (warps split M only,
as attention's), keepdims, a row maximum reduced again, a tall product whose warp grid is M only by
shape (128 x 16 over 4 warps), a row value stored (converted through shared memory from the rows
layout), tails, the wgmma accumulator of a K loop (sm_90a); the gpu IR has the quad shuffles and no
shared scratch for the reductions; the PTX passes ptxas."""

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1215
M, K1, N1, N2 = 64, 32, 64, 32


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


def _softmax_kernel(dt):
    @tile.kernel(num_warps=4)
    def softmax_pv(o: tile.Tensor[f32, (M, N2)], rowmax: tile.Tensor[f32, (M, 1)], a: tile.Tensor[dt, (-1, -1)], b: tile.Tensor[dt, (-1, -1)], v: tile.Tensor[dt, (-1, -1)]):
        s = tile.dot(tile.load(a, (tile.bid(0), 0), (M, K1)), tile.load(b, (0, 0), (K1, N1)))
        m = tile.max(s, axis=1)
        p = tile.exp2(s - m[:, None])
        l = tile.sum(p, axis=1, keepdims=True)
        o.store(tile.dot(p.astype(dt), tile.load(v, (0, 0), (N1, N2))) / l)
        rowmax.store(m[:, None])  # a use that is not free: the rows go to the canonical layout

    return softmax_pv


SOFTMAX = {"f16": _softmax_kernel(f16), "bf16": _softmax_kernel(bf16)}


@tile.kernel(num_warps=4)
def tall(c: tile.Tensor[f32, (128, 16)], sums: tile.Tensor[f32, (128, 1)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)]):
    """128 x 16 over 4 warps: warp_grid splits M only (wm = 4, wn = 1), no chained dot."""
    s = tile.dot(tile.load(a, (tile.bid(0), 0), (128, 16)), tile.load(b, (0, 0), (16, 16)))
    c.store(s - tile.max(s, axis=1, keepdims=True))
    sums.store(tile.sum(s, axis=1)[:, None])


@tile.kernel(num_warps=2)
def reduced_again(c: tile.Tensor[f32, (32, 16)], top: tile.Tensor[f32, (1, 1)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)]):
    """32 x 16 over 2 warps (wm = 2, wn = 1); the row maxima reduced again to one value (a use that
    converts the rows layout through shared memory)."""
    s = tile.dot(tile.load(a, (0, 0), (32, 16)), tile.load(b, (0, 0), (16, 16)))
    m = tile.max(s, axis=1)
    c.store(s - m[:, None])
    top.store(tile.max(m).reshape((1, 1)))


def test_a_reduction_of_the_rows(backend: Backend) -> None:
    rng = _rng(4)
    a = rng.standard_normal((32, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    stream = backend.device.create_stream()
    res = reduced_again(wf.full((32, 16), np.nan, f32).partition((32, 16)), wf.full((1, 1), np.nan, f32).partition((1, 1)), wf.from_host(a), wf.from_host(b))
    got, top = res[0].unpartition().to_host().sync_on(stream), res[1].unpartition().to_host().sync_on(stream)
    s = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2.0**-20 * 16 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-6
    assert np.all(np.abs(got - (s - s.max(axis=1, keepdims=True))) <= 2 * bound)
    assert abs(top[0, 0] - s.max()) <= bound


@pytest.mark.parametrize("name", ["f16", "bf16"])
@pytest.mark.parametrize("m", [128, 100])  # two tile blocks; a tail of 36 rows
def test_softmax_between_dots(backend: Backend, name: str, m: int) -> None:
    dt = np.float16 if name == "f16" else bf16.np
    rng = _rng(m + len(name))
    a = rng.standard_normal((m, K1)).astype(dt)
    b = (0.5 * rng.standard_normal((K1, N1))).astype(dt)
    v = rng.standard_normal((N1, N2)).astype(dt)
    o = wf.full((m, N2), np.nan, f32).partition((M, N2))
    mx = wf.full((m, 1), np.nan, f32).partition((M, 1))
    res = SOFTMAX[name](o, mx, wf.from_host(a), wf.from_host(b), wf.from_host(v))
    stream = backend.device.create_stream()
    got_o, got_m = res[0].unpartition().to_host().sync_on(stream), res[1].unpartition().to_host().sync_on(stream)
    s = a.astype(np.float64) @ b.astype(np.float64)
    want_m = s.max(axis=1, keepdims=True)
    assert np.all(np.abs(got_m - want_m) <= 2.0**-20 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max(axis=1, keepdims=True) + 1e-6)
    p = np.exp2(s - want_m)
    want_o = (p.astype(dt).astype(np.float64) @ v.astype(np.float64)) / p.sum(axis=1, keepdims=True)
    ulp = 2.0**-10 if name == "f16" else 2.0**-7
    tol = 3 * ulp * (np.abs(p) @ np.abs(v.astype(np.float64))) / p.sum(axis=1, keepdims=True) + 1e-4
    err = np.abs(got_o - want_o)
    assert np.all(err <= tol), f"max error {err.max()} at {np.unravel_index(np.argmax(err - tol), err.shape)}"


def test_tall_product_rows(backend: Backend) -> None:
    rng = _rng(3)
    a = rng.standard_normal((200, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    c = wf.full((200, 16), np.nan, f32).partition((128, 16))
    sums = wf.full((200, 1), np.nan, f32).partition((128, 1))
    stream = backend.device.create_stream()
    res = tall(c, sums, wf.from_host(a), wf.from_host(b))
    got, got_sums = res[0].unpartition().to_host().sync_on(stream), res[1].unpartition().to_host().sync_on(stream)
    s = a.astype(np.float64) @ b.astype(np.float64)
    bound = 2.0**-20 * 16 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
    assert np.all(np.abs(got - (s - s.max(axis=1, keepdims=True))) <= 2 * bound.max(axis=1, keepdims=True) + 1e-6)
    assert np.all(np.abs(got_sums - s.sum(axis=1, keepdims=True)) <= bound.sum(axis=1, keepdims=True) + 1e-5)


def test_reductions_are_quad_shuffles_and_ptx_passes_ptxas() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    specs = (tile.spec(f32, (128, N2), partition=(M, N2)), tile.spec(f32, (128, 1), partition=(M, 1)), tile.spec(f16, (128, K1)), tile.spec(f16, (K1, N1)), tile.spec(f16, (N1, N2)))
    gpu = SOFTMAX["f16"].ir("gpu", *specs)
    # each warp owns 16 rows (64 / 4 warps): 2 row registers per thread, 2 shuffles each, 2 reductions
    assert gpu.count("gpu.shuffle xor") == 2 * 2 * 2, gpu
    # shared arrays: A, B of the first dot, B of the second, and the f32 scratch of the stored row maxima only
    assert gpu.count('"memref.global"()') == 4, gpu
    ptx = SOFTMAX["f16"].ir("ptx", *specs)
    assert ptx.count("shfl.sync.bfly.b32") == 8 and ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
        run_ptxas(tall.ir("ptx", tile.spec(f32, (128, 16), partition=(128, 16)), tile.spec(f32, (128, 1), partition=(128, 1)), tile.spec(f16, (128, 16)), tile.spec(f16, (16, 16))), "sm_90", verbose=False)


@tile.kernel(num_warps=4, num_stages=3)
def gemm_rowmax(c: tile.Tensor[f32, (64, 128)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)]):
    """A K loop on the cp.async ring (wgmma m64n128k16 on sm_90a, whose accumulator holds whole rows per
    warp), then the row maxima of the accumulator subtracted: the reduction reads the accumulator after
    the loop's final wait."""
    acc = tile.zeros((64, 128), f32)
    for kt in range(a.shape[1] // 64):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (64, 64)), tile.load(b, (kt, tile.bid(1)), (64, 128)), acc)
    c.store(acc - tile.max(acc, axis=1, keepdims=True))


GEMM_SPECS = (tile.spec(f32, (128, 256), partition=(64, 128)), tile.spec(f16, (128, 256)), tile.spec(f16, (256, 256)))


def test_rows_of_a_wgmma_accumulator(backend: Backend) -> None:
    rng = _rng(5)
    a = rng.standard_normal((128, 256)).astype(np.float16)
    b = rng.standard_normal((256, 256)).astype(np.float16)
    got = gemm_rowmax(wf.full((128, 256), np.nan, f32).partition((64, 128)), wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    s = a.astype(np.float64) @ b.astype(np.float64)
    want = np.concatenate([s[:, :128] - s[:, :128].max(axis=1, keepdims=True), s[:, 128:] - s[:, 128:].max(axis=1, keepdims=True)], axis=1)
    bound = 2.0**-20 * 256 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-6
    assert np.all(np.abs(got - want) <= 2 * bound)


def test_wgmma_rows_are_quad_shuffles_and_ptx_passes_ptxas() -> None:
    import re

    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = gemm_rowmax.ir("ptx", *GEMM_SPECS, chip="sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx
    assert ptx.count("shfl.sync.bfly.b32") == 4  # each warp 16 rows: 2 row registers per thread, xor 1 and 2
    assert not re.search(r"^\s*\.shared \.align \d+ \.b8 \w+\[\d+\]", ptx, re.M)  # no static shared: no scratch (the ring is dynamic)
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90a", verbose=True)
        assert re.search(r"\b0 bytes spill stores", report.log), report.log
