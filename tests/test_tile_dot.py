"""`tile.dot` / `a @ b` on the tensor cores: f16 and bf16 with an f32 accumulator, tf32 (asked for),
int8 with i32, a loop-carried accumulator over K, epilogues, tails — on the GPU (marked `gpu`) and
on the simulator, against NumPy on fresh seeded random inputs with poisoned outputs; misuse is a
`CompileError` naming shapes, dtypes and the line; the PTX has mma.sync and ldmatrix and passes ptxas."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, i8, i32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1201


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


BM, BN, BK = 32, 32, 16


@tile.kernel
def matmul_f16(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        x = tile.load(a, (tile.bid(0), kt), (BM, BK))
        y = tile.load(b, (kt, tile.bid(1)), (BK, BN))
        acc = tile.dot(x, y, acc)
    c.store(acc)


@tile.kernel
def matmul_bf16_bias_relu(c: tile.Tensor[bf16, (BM, BN)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], bias: tile.Tensor[bf16, (1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = acc + tile.load(a, (tile.bid(0), kt), (BM, BK)) @ tile.load(b, (kt, tile.bid(1)), (BK, BN))
    out = acc.astype(bf16) + tile.load(bias, (0, tile.bid(1)), (1, BN))
    c.store(tile.maximum(out, 0.0))


@tile.kernel
def matmul_tf32(c: tile.Tensor[f32, (16, 16)], a: tile.Tensor[f32, (16, 16)], b: tile.Tensor[f32, (16, 16)]):
    c.store(tile.dot(tile.load(a, (0, 0), (16, 16)), tile.load(b, (0, 0), (16, 16)), allow_tf32=True))


@tile.kernel
def matmul_i8(c: tile.Tensor[i32, (16, 32)], a: tile.Tensor[i8, (16, 32)], b: tile.Tensor[i8, (32, 32)]):
    c.store(tile.dot(tile.load(a, (0, 0), (16, 32)), tile.load(b, (0, 0), (32, 32))))


def _run_f16(backend: Backend, m: int, n: int, k: int, salt: int) -> None:
    rng = _rng(salt)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = wf.full((m, n), np.nan, f32).partition((BM, BN))
    got = matmul_f16(c, wf.from_host(a), wf.from_host(b), -(-k // BK)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    want = a.astype(np.float64) @ b.astype(np.float64)
    tol = 2.0**-20 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-6
    assert np.all(np.abs(got - want) <= tol), np.abs(got - want).max()


def test_f16_matmul_exact_tiles(backend: Backend) -> None:
    _run_f16(backend, 64, 64, 48, 0)


def test_f16_matmul_with_tails(backend: Backend) -> None:
    _run_f16(backend, 50, 40, 37, 1)  # none a multiple of the tile: padding (0) fills A and B's tails (rows of 37: registers)


def test_f16_matmul_with_tails_through_cp_async(backend: Backend) -> None:
    _run_f16(backend, 50, 40, 40, 5)  # rows a multiple of 8: cp.async, zero-filled past the edges


def test_bf16_matmul_fused_bias_relu(backend: Backend) -> None:
    rng = _rng(2)
    m, n, k = 40, 64, 48
    a = rng.standard_normal((m, k)).astype(bf16.np)
    b = rng.standard_normal((k, n)).astype(bf16.np)
    bias = rng.standard_normal((1, n)).astype(bf16.np)
    c = wf.full((m, n), np.nan, bf16).partition((BM, BN))
    got = matmul_bf16_bias_relu(c, wf.from_host(a), wf.from_host(b), wf.from_host(bias), k // BK).first().unpartition().to_host().sync_on(backend.device.create_stream())
    acc = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32).astype(bf16.np)
    want = np.maximum((acc.astype(np.float32) + bias.astype(np.float32)).astype(bf16.np).astype(np.float32), 0)
    got32 = got.astype(np.float32)
    # bf16 roundings (of the accumulator, of the sum) may differ by one ulp where the f32 sums differ
    np.testing.assert_allclose(got32, want, rtol=2.0**-6, atol=2.0**-6 * (1 + np.abs(want).max() * 0))


def test_tf32_matmul(backend: Backend) -> None:
    rng = _rng(3)
    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = rng.standard_normal((16, 16)).astype(np.float32)
    c = wf.full((16, 16), np.nan, f32).partition((16, 16))
    got = matmul_tf32(c, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=0, atol=16 * 2.0**-10 * (np.abs(a) @ np.abs(b)).max())


def test_int8_matmul(backend: Backend) -> None:
    rng = _rng(4)
    a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 32)).astype(np.int8)
    c = wf.full((16, 32), -1, i32).partition((16, 32))
    got = matmul_i8(c, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_array_equal(got, a.astype(np.int64) @ b.astype(np.int64))


F16_SPECS = (tile.spec(f32, (256, 256), partition=(BM, BN)), tile.spec(f16, (256, 256)), tile.spec(f16, (256, 256)), tile.spec(wf.i64))


def test_ptx_has_mma_and_ldmatrix() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = matmul_f16.ir("ptx", *F16_SPECS)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx and "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "cp.async.cg.shared.global" in ptx  # aligned f16 operands are fetched with cp.async
    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- misuse


def _error(kernel, message: str, *specs) -> None:
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        kernel.ir("gpu", *specs)
    assert "test_tile_dot.py:" in str(info.value)


def test_mismatched_k() -> None:
    @tile.kernel
    def k(c: tile.Tensor[f32, (16, 16)], a: tile.Tensor[f16, (16, 32)], b: tile.Tensor[f16, (16, 16)]):
        c.store(tile.load(a, (0, 0), (16, 32)) @ tile.load(b, (0, 0), (16, 16)))

    _error(k, "tile.dot of 16x32 f16 and 16x16 f16: the inner dimensions differ (K = 32 and 16)", tile.spec(f32, (16, 16), partition=(16, 16)), tile.spec(f16, (16, 32)), tile.spec(f16, (16, 16)))


def test_f64_has_no_mma() -> None:
    @tile.kernel
    def k(c: tile.Tensor[wf.f64, (16, 16)], a: tile.Tensor[wf.f64, (16, 16)]):
        x = tile.load(a, (0, 0), (16, 16))
        c.store(tile.dot(x, x))

    _error(k, "tile.dot of 16x16 f64 and 16x16 f64: no tensor-core multiply for f64", tile.spec(wf.f64, (16, 16), partition=(16, 16)), tile.spec(wf.f64, (16, 16)))


def test_mixed_f16_bf16() -> None:
    @tile.kernel
    def k(c: tile.Tensor[f32, (16, 16)], a: tile.Tensor[f16, (16, 16)], b: tile.Tensor[bf16, (16, 16)]):
        c.store(tile.dot(tile.load(a, (0, 0), (16, 16)), tile.load(b, (0, 0), (16, 16))))

    _error(k, "tile.dot of 16x16 f16 and 16x16 bf16: the operands have different dtypes", tile.spec(f32, (16, 16), partition=(16, 16)), tile.spec(f16, (16, 16)), tile.spec(bf16, (16, 16)))


def test_rank_1_and_small_tiles() -> None:
    @tile.kernel
    def k1(c: tile.Tensor[f32, (16,)], a: tile.Tensor[f16, (16,)]):
        x = tile.load(a, (0,), (16,))
        c.store(tile.dot(x, x))

    _error(k1, "tile.dot of 16 f16 and 16 f16: both operands must be 2-D tiles", tile.spec(f32, (16,), partition=(16,)), tile.spec(f16, (16,)))

    @tile.kernel
    def k2(c: tile.Tensor[f32, (8, 16)], a: tile.Tensor[f16, (8, 16)], b: tile.Tensor[f16, (16, 16)]):
        c.store(tile.dot(tile.load(a, (0, 0), (8, 16)), tile.load(b, (0, 0), (16, 16))))

    _error(k2, "M and N must be at least 16 and K at least 16 (the mma.sync tile), got M=8, N=16, K=16", tile.spec(f32, (8, 16), partition=(8, 16)), tile.spec(f16, (8, 16)), tile.spec(f16, (16, 16)))


def test_f32_needs_allow_tf32() -> None:
    @tile.kernel
    def k(c: tile.Tensor[f32, (16, 16)], a: tile.Tensor[f32, (16, 16)]):
        x = tile.load(a, (0, 0), (16, 16))
        c.store(x @ x)

    _error(k, "f32 inputs multiply as tf32 (10 mantissa bits); pass allow_tf32=True", tile.spec(f32, (16, 16), partition=(16, 16)), tile.spec(f32, (16, 16)))


def test_sm_70_is_refused_by_the_target_check() -> None:
    with pytest.raises(wf.CompileError, match=r"'nvvm\.(ldmatrix|mma\.sync|cp\.async)[a-z0-9.]*' op needs sm_(75|80) and PTX .*, but .* targets sm_70"):
        matmul_f16.ir("ptx", *F16_SPECS, chip="sm_70", features="+ptx70")
