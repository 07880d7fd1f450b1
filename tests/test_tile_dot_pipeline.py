"""The fast `tile.dot`: accumulator in mma.sync registers (the MMA layout) across a K loop, operands
through a `num_stages`-deep cp.async ring (`tile-pipeline`), 128x128 tiles over 8 warps — on the GPU
(marked `gpu`) and on the simulator, against NumPy on fresh seeded random inputs with poisoned
outputs; sizes not multiples of the tile, loops shorter than the ring, epilogues, an accumulator read
by a reduction or seeded from memory; the PTX of the examples has mma.sync.m16n8k16, ldmatrix and
cp.async, passes ptxas and does not spill."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import UsageError, bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1202
BM, BN, BK = 128, 128, 32
SM, SN, SK = 64, 64, 32

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


@tile.kernel(num_warps=8, num_stages=3)
def mm128(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (BM, BK)), tile.load(b, (kt, tile.bid(1)), (BK, BN)), acc)
    c.store(acc)


def _stages_kernel(stages: int):
    @tile.kernel(num_warps=4, num_stages=stages)
    def mm(c: tile.Tensor[f32, (SM, SN)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((SM, SN), f32)
        for kt in range(k_tiles):
            acc = tile.dot(tile.load(a, (tile.bid(0), kt), (SM, SK)), tile.load(b, (kt, tile.bid(1)), (SK, SN)), acc)
        c.store(acc)

    return mm


MM_STAGES = {s: _stages_kernel(s) for s in (1, 2, 3, 4)}


@tile.kernel(num_warps=8)
def mm128_bias_relu_bf16(c: tile.Tensor[bf16, (BM, BN)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], bias: tile.Tensor[bf16, (1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = acc + tile.load(a, (tile.bid(0), kt), (BM, BK)) @ tile.load(b, (kt, tile.bid(1)), (BK, BN))
    out = (acc * 0.5).astype(bf16) + tile.load(bias, (0, tile.bid(1)), (1, BN))
    c.store(tile.maximum(out, 0.0))


@tile.kernel(num_warps=4)
def mm_row_sums(s: tile.Tensor[f32, (SM, 1)], c0: tile.Tensor[f32, (-1, -1)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    """C0 + A @ B, seeded from memory (canonical → MMA layout), then summed along rows (MMA → canonical)."""
    acc = tile.load(c0, (tile.bid(0), 0), (SM, SN))
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (SM, SK)), tile.load(b, (kt, 0), (SK, SN)), acc)
    s.store(tile.sum(acc, axis=1, keepdims=True))


def _f16_inputs(rng: np.random.Generator, m: int, n: int, k: int, dt=np.float16) -> tuple[np.ndarray, np.ndarray]:
    return rng.standard_normal((m, k)).astype(dt), rng.standard_normal((k, n)).astype(dt)


def _check(got: np.ndarray, a: np.ndarray, b: np.ndarray, extra: np.ndarray | float = 0.0) -> None:
    want = a.astype(np.float64) @ b.astype(np.float64) + extra
    tol = 2.0**-20 * a.shape[1] * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-5
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= tol), f"max error {err.max()} at {np.unravel_index(np.argmax(err - tol), err.shape)}"


@pytest.mark.parametrize("m,n,k", [(130, 136, 72), (128, 128, 32)])
def test_128x128_tiles_8_warps(backend: Backend, m: int, n: int, k: int) -> None:
    rng = _rng(m + n + k)
    a, b = _f16_inputs(rng, m, n, k)
    c = wf.full((m, n), np.nan, f32).partition((BM, BN))
    got = mm128(c, wf.from_host(a), wf.from_host(b), -(-k // BK)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    _check(got, a, b)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("k", [16, 64, 200])
def test_num_stages_and_short_loops(backend: Backend, stages: int, k: int) -> None:
    # k = 16: one K step (shorter than every ring), 64: two, 200: seven with a tail of 8 (zero-filled)
    rng = _rng(10 * stages + k)
    m, n = 72, 80
    a, b = _f16_inputs(rng, m, n, k, bf16.np)
    c = wf.full((m, n), np.nan, f32).partition((SM, SN))
    got = MM_STAGES[stages](c, wf.from_host(a), wf.from_host(b), -(-k // SK)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    _check(got, a, b)


def test_zero_trip_loop_keeps_the_zero_accumulator(backend: Backend) -> None:
    rng = _rng(7)
    a, b = _f16_inputs(rng, 64, 64, 32, bf16.np)
    c = wf.full((64, 64), np.nan, f32).partition((SM, SN))
    got = MM_STAGES[3](c, wf.from_host(a), wf.from_host(b), 0).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_array_equal(got, np.zeros((64, 64), np.float32))


def test_bf16_bias_relu_epilogue_in_the_mma_layout(backend: Backend) -> None:
    rng = _rng(3)
    m, n, k = 136, 144, 96
    a, b = _f16_inputs(rng, m, n, k, bf16.np)
    bias = rng.standard_normal((1, n)).astype(bf16.np)
    c = wf.full((m, n), np.nan, bf16).partition((BM, BN))
    got = mm128_bias_relu_bf16(c, wf.from_host(a), wf.from_host(b), wf.from_host(bias), k // BK).first().unpartition().to_host().sync_on(backend.device.create_stream())
    exact = 0.5 * (a.astype(np.float64) @ b.astype(np.float64))
    want = np.maximum(exact + bias.astype(np.float64), 0)
    # two bf16 roundings (the scaled accumulator, the sum with the bias) plus the f32 accumulation
    tol = 2.0**-7 * (np.abs(exact) + np.abs(bias.astype(np.float64))) + 2.0**-20 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-6
    assert np.all(np.abs(got.astype(np.float64) - want) <= tol)


def test_accumulator_from_memory_and_reduced(backend: Backend) -> None:
    rng = _rng(4)
    m, n, k = 100, 64, 96
    a, b = _f16_inputs(rng, m, n, k)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    s = wf.full((m, 1), np.nan, f32).partition((SM, 1))
    got = mm_row_sums(s, wf.from_host(c0), wf.from_host(a), wf.from_host(b), k // SK).first().unpartition().to_host().sync_on(backend.device.create_stream())
    want = (c0.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)).sum(axis=1, keepdims=True)
    tol = 2.0**-18 * (np.abs(c0) + np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).sum(axis=1, keepdims=True) * 4 + 1e-4
    assert np.all(np.abs(got - want) <= tol)


# --------------------------------------------------------------------------- the compiled code


def _example_ptx() -> list[str]:
    import matmul

    return [matmul.matmul_f16.ir("ptx"), matmul.matmul_bf16_bias_relu.ir("ptx")]


def test_example_ptx_has_mma_ldmatrix_cp_async_and_passes_ptxas_without_spills() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    for ptx in _example_ptx():
        assert "mma.sync.aligned.m16n8k16.row.col.f32" in ptx
        assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
        assert re.search(r"cp\.async\.cg\.shared\.global(\.L2::\d+B)? \[[^]]+\], \[[^]]+\], 16, ", ptx)
        assert re.search(r"cp\.async\.wait_group\s+1;", ptx)  # three stages: S - 2 groups stay in flight
        assert ".extern .shared" in ptx  # the ring is in dynamic shared memory
        assert ".extern .func" not in ptx
        if find_ptxas() is None:
            continue
        report = run_ptxas(ptx, "sm_90", verbose=True)
        text = report.log
        spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
        assert spills and all(s == ("0", "0") for s in spills), text
        regs = [int(r) for r in re.findall(r"Used (\d+) registers", text)]
        assert regs and max(regs) <= 128, text  # min_blocks_per_sm=2 with 256 threads: 65536 / 512


def test_ring_bytes_are_the_launch_dynamic_shared_memory() -> None:
    import matmul

    from warpforge.compile import compile_tile

    spec = matmul.matmul_f16.specialize(matmul.matmul_f16._aot[0])  # pyright: ignore[reportPrivateUsage]
    compiled = compile_tile(matmul.matmul_f16, spec)
    bm, bn, bk = matmul.BM, matmul.BN, matmul.BK
    assert compiled.dynamic_shared == matmul.NUM_STAGES * (bm * bk + bk * bn) * 2  # the stages of an A and a B f16 tile, unpadded (swizzled)


def test_num_stages_is_checked() -> None:
    for bad in (0, 9, 2.5, True):
        with pytest.raises(UsageError, match="num_stages is an int from 1 to 8"):
            tile.kernel(num_stages=bad)(lambda c: None)  # pyright: ignore[reportArgumentType]


def test_min_blocks_per_sm_becomes_minnctapersm() -> None:
    import matmul

    ptx = matmul.matmul_f16.ir("ptx")
    assert re.search(r"\.minnctapersm\s+2", ptx)
    for bad in (0, 33, 1.5):
        with pytest.raises(UsageError, match="min_blocks_per_sm is an int from 1 to 32"):
            tile.kernel(min_blocks_per_sm=bad)(lambda c: None)  # pyright: ignore[reportArgumentType]


def test_mma_layout_is_the_tile_mma_encoding() -> None:
    from xdsl.dialects.builtin import f32 as f32_attr

    from warpforge.dialects.tile import TileType
    from warpforge.passes.lowerings.tile_dot import mma_layout, warp_grid
    from warpforge.passes.tile_to_gpu.layouts import layout_of

    assert warp_grid(128, 128, 8) == (2, 4) and warp_grid(64, 64, 4) == (2, 2) and warp_grid(16, 16, 4) == (1, 2)
    lay = mma_layout((128, 128), 256)
    enc = lay.encoding()
    assert str(enc) == "#tile.mma<warps_per_cta = [2, 4], instr_shape = [16, 8]>"
    enc.verify_shape((128, 128))
    assert layout_of(TileType((128, 128), f32_attr, enc), 256) == lay  # tile-to-gpu reads #tile.mma as this layout
    assert (lay.tm, lay.tn, lay.slots, lay.replicas) == (4, 4, 64, 1)
