"""`tile.dot` with a transposed operand: `tile.dot(a, b.T)` (B loaded N×K, as attention's K tile) and
`tile.dot(tile.transpose(a), b)` (A loaded K×M) without a transposed copy: the dot stages the loaded
tile as it is (padded array, cp.async ring, or from registers) and reads it the other way round —
`ldmatrix` without `.trans` for B^T (K-major is `mma.sync`'s native B layout), with `.trans` for A^T.
On the GPU (marked `gpu`) and the simulator against NumPy on fresh seeded random inputs with poisoned
outputs, sizes not multiples of the tile; the PTX passes ptxas and has no transposing scratch."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1212
BM, BN, BK = 32, 32, 16
PM, PN, PK = 64, 64, 32


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


@tile.kernel
def mm_bt(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    """C = A @ B^T, B stored N×K (the `.T` spelling)."""
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (BM, BK)), tile.load(b, (tile.bid(1), kt), (BN, BK)).T, acc)
    c.store(acc)


@tile.kernel
def mm_at(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    """C = A^T @ B, A stored K×M (`tile.transpose`)."""
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.transpose(tile.load(a, (kt, tile.bid(0)), (BK, BM))), tile.load(b, (kt, tile.bid(1)), (BK, BN)), acc)
    c.store(acc)


@tile.kernel(num_warps=4, num_stages=3)
def mm_bt_ring(c: tile.Tensor[f32, (PM, PN)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], k_tiles: wf.i64):
    """A @ B^T with both operands through tile-pipeline's cp.async ring (B's ring holds N×K tiles)."""
    acc = tile.zeros((PM, PN), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (PM, PK)), tile.permute(tile.load(b, (tile.bid(1), kt), (PN, PK)), (1, 0)), acc)
    c.store(acc)


@tile.kernel
def mm_at_bt_registers(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    """(2·A)^T @ (B + 1)^T: both transposed operands come from registers (an elementwise op of the load)."""
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        x = tile.load(a, (kt, tile.bid(0)), (BK, BM)) * 2.0
        y = tile.load(b, (tile.bid(1), kt), (BN, BK)) + 1.0
        acc = tile.dot(x.T, y.T, acc)
    c.store(acc)


def _run(backend: Backend, kernel, a: np.ndarray, b: np.ndarray, a_kxm: bool, b_nxk: bool, tile_mn: tuple[int, int], bk: int) -> tuple[np.ndarray, np.ndarray]:
    am = a.T if a_kxm else a
    bm = b.T if b_nxk else b
    m, k = am.shape
    n = bm.shape[1]
    c = wf.full((m, n), np.nan, f32).partition(tile_mn)
    got = kernel(c, wf.from_host(np.ascontiguousarray(a)), wf.from_host(np.ascontiguousarray(b)), -(-k // bk)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    return got, am.astype(np.float64) @ bm.astype(np.float64)


def _check(got: np.ndarray, want: np.ndarray, bound: np.ndarray, k: int) -> None:
    tol = 2.0**-20 * k * bound + 1e-5
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= tol), f"max error {err.max()} at {np.unravel_index(np.argmax(err - tol), err.shape)}"


@pytest.mark.parametrize("m,n,k", [(64, 64, 48), (50, 40, 40), (50, 40, 37)])  # exact; tails by cp.async; rows of 37: registers
def test_b_transposed(backend: Backend, m: int, n: int, k: int) -> None:
    rng = _rng(m + n + k)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)  # N×K
    got, want = _run(backend, mm_bt, a, b, False, True, (BM, BN), BK)
    _check(got, want, np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T, k)


@pytest.mark.parametrize("m,n,k", [(64, 64, 48), (56, 40, 40), (50, 44, 37)])
def test_a_transposed(backend: Backend, m: int, n: int, k: int) -> None:
    rng = _rng(100 + m + n + k)
    a = rng.standard_normal((k, m)).astype(np.float16)  # K×M
    b = rng.standard_normal((k, n)).astype(np.float16)
    got, want = _run(backend, mm_at, a, b, True, False, (BM, BN), BK)
    _check(got, want, np.abs(a.astype(np.float64)).T @ np.abs(b.astype(np.float64)), k)


@pytest.mark.parametrize("m,n,k", [(128, 128, 96), (72, 100, 40), (64, 64, 16)])  # a loop shorter than the ring too
def test_b_transposed_through_the_ring(backend: Backend, m: int, n: int, k: int) -> None:
    rng = _rng(200 + m + n + k)
    a = rng.standard_normal((m, k)).astype(bf16.np)
    b = rng.standard_normal((n, k)).astype(bf16.np)
    got, want = _run(backend, mm_bt_ring, a, b, False, True, (PM, PN), PK)
    _check(got, want, np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T, k)


def test_both_transposed_from_registers(backend: Backend) -> None:
    rng = _rng(300)
    m, n, k = 40, 50, 24
    a = rng.standard_normal((k, m)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = wf.full((m, n), np.nan, f32).partition((BM, BN))
    got = mm_at_bt_registers(c, wf.from_host(a), wf.from_host(b), -(-k // BK)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    # the kernel's loads pad with 0 past the edges, so B + 1 adds 1 only inside the tensor
    x, y = 2.0 * a.astype(np.float64), b.astype(np.float64) + 1.0
    x16, y16 = x.astype(np.float16).astype(np.float64), y.astype(np.float16).astype(np.float64)  # the f16 elementwise results
    _check(got, x16.T @ y16.T, np.abs(x16).T @ np.abs(y16).T, k)


def test_ptx_reads_b_transposed_without_trans_and_passes_ptxas() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    specs = (tile.spec(f32, (256, 256), partition=(PM, PN)), tile.spec(bf16, (256, 256)), tile.spec(bf16, (256, 256)), tile.spec(wf.i64))
    ptx = mm_bt_ring.ir("ptx", *specs)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert ".trans" not in ptx  # A row-major and B^T (N×K) are both read as stored
    assert re.search(r"cp\.async\.cg\.shared\.global", ptx) and ".extern .func" not in ptx
    gpu = mm_bt_ring.ir("gpu", *specs)
    assert "tile.shared_bytes = 0" in gpu, "the transpose needs no scratch (both operands in the ring)"
    at = mm_at.ir("ptx", tile.spec(f32, (64, 64), partition=(BM, BN)), tile.spec(f16, (64, 64)), tile.spec(f16, (64, 64)), tile.spec(wf.i64))
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in at  # A^T and B: both read with .trans
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
        run_ptxas(at, "sm_90", verbose=False)
