"""wgmma with a K-major B operand (passes/lowerings/tile_dot_wgmma.py): `tile.dot(a, b.T)` where `b` is
an N×K ring slot (attention's Q·Kᵀ reads K so) multiplies by the slot as it is — the descriptor
describes rows n of K contiguous elements, as A's, and `imm-trans-b` is 0 — instead of falling back
to `mma.sync`. The PTX (sm_90a) has the wgmma with trans-b 0 and A's descriptor form for B, goes
through `ptxas -arch=sm_90a` without spills; other chips keep `mma.sync`; the simulator (mma.sync
semantics) and (marked `gpu`) an H100/H200 match NumPy on seeded random inputs with poisoned outputs,
for sizes that are not multiples of the tile."""

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1290


def _gemm_nt(bm: int, bn: int, bk: int, warps: int, stages: int, dtype):  # noqa: ANN001, ANN202
    @tile.kernel(num_warps=warps, num_stages=stages)
    def gemm_nt(c: tile.Tensor[f32, (bm, bn)], a: tile.Tensor[dtype, (-1, -1)], b: tile.Tensor[dtype, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((bm, bn), f32)
        for kt in range(k_tiles):
            acc = tile.dot(tile.load(a, (tile.bid(0), kt), (bm, bk)), tile.load(b, (tile.bid(1), kt), (bn, bk)).T, acc)
        c.store(acc)

    return gemm_nt


CONFIGS = {
    # (BM, BN, BK, warps, stages, dtype): one m64 per warpgroup, B as N rows of BK (one 128/64/32-byte swizzled panel)
    "64x64x64_w4": (64, 64, 64, 4, 2, f16),
    "128x128x64_w8": (128, 128, 64, 8, 2, f16),
    "128x64x32_w8_bf16": (128, 64, 32, 8, 3, bf16),
    "64x32x16_w4": (64, 32, 16, 4, 2, f16),
}
KERNELS = {name: _gemm_nt(*cfg) for name, cfg in CONFIGS.items()}


def _specs(name: str, m: int, n: int, k: int) -> tuple[object, ...]:
    bm, bn, _, _, _, dt = CONFIGS[name]
    return (tile.spec(f32, (m, n), partition=(bm, bn)), tile.spec(dt, (m, k)), tile.spec(dt, (n, k)), tile.spec(wf.i64))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_k_major_b_is_wgmma_without_transpose_and_passes_ptxas(name: str) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    bm, bn, bk, _, _, dt = CONFIGS[name]
    ptx = KERNELS[name].ir("ptx", *_specs(name, 2 * bm, 2 * bn, 4 * bk), chip="sm_90a")
    kind = "bf16" if dt is bf16 else "f16"
    mmas = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.{kind}\.{kind} \{{[^}}]*\}}, %rd\d+, %rd\d+, p, 1, 1, (\d), (\d);", ptx)
    assert len(mmas) == bk // 16, mmas  # one per k16 step of the K loop's body
    assert all(t == ("0", "0") for t in mmas)  # A and B both K-major: no transpose immediates
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    # B's descriptor has A's form (stride byte offset 8 rows of BK elements, leading 16 bytes (unused),
    # the row's swizzle): one descriptor constant for both, not the N-major panel form
    swizzle = {128: 1, 64: 2, 32: 3}[2 * bk]
    fields = {int(c) % 2**64 for c in re.findall(r"arith\.constant (-?\d{15,}) : i64", KERNELS[name].ir("nvvm", *_specs(name, 2 * bm, 2 * bn, 4 * bk), chip="sm_90a"))}
    assert fields == {(16 >> 4) << 16 | (8 * 2 * bk >> 4) << 32 | swizzle << 62}, [hex(f) for f in fields]
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90a", verbose=True)
        assert re.search(r"\b0 bytes spill stores", report.log), report.log
        assert "C75" not in report.log, report.log  # no wgmma serialization warnings


@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
def test_other_chips_read_the_k_major_slot_with_mma_sync(chip: str) -> None:
    ptx = KERNELS["64x64x64_w4"].ir("ptx", *_specs("64x64x64_w4", 128, 128, 256), chip=chip)
    assert "wgmma.mma_async" not in ptx and "mma.sync.aligned.m16n8k16" in ptx


@pytest.mark.parametrize(
    "name, m, n, k",
    [
        ("64x32x16_w4", 100, 40, 72),  # tails in M, N and K (zero-filled slot rows and columns, masked stores)
        ("64x64x64_w4", 256, 192, 512),
        ("128x128x64_w8", 300, 200, 256),
        ("128x64x32_w8_bf16", 256, 130, 96),
    ],
)
def test_k_major_b_matches_numpy(backend: Backend, name: str, m: int, n: int, k: int) -> None:
    """On the simulator (mma.sync semantics; the smallest case) and the GPU (wgmma on an H100/H200)."""
    if backend.name == "simulator" and name != "64x32x16_w4":
        pytest.skip("the simulator runs the smallest case")
    bm, bn, bk, _, _, dt = CONFIGS[name]
    rng = np.random.default_rng(SEED + m + 3 * n + 7 * k)
    a = rng.standard_normal((m, k)).astype(dt.np)
    b = rng.standard_normal((n, k)).astype(dt.np)
    c = wf.full((m, n), np.nan, f32).partition((bm, bn))  # poisoned: every element must be written
    got = KERNELS[name](c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = a64 @ b64.T
    bound = 2.0**-20 * k * (np.abs(a64) @ np.abs(b64).T) + 1e-6  # f32 accumulation of exact 16-bit products
    assert np.isfinite(got).all()
    assert np.all(np.abs(got - want) <= bound), float(np.max(np.abs(got - want) - bound))
