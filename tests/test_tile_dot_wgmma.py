"""`tile.dot` on wgmma (sm_90a, passes/lowerings/tile_dot_wgmma.py): which dots take it (target, warps,
tile shape, ring operands), the PTX (wgmma.mma_async m64nNk16 with the accumulator in place, descriptors,
`fence.proxy.async` after the ring's wait, through `ptxas -arch=sm_90a` without spills or wgmma
serialization), that sm_90 / sm_80 and the simulator keep `mma.sync`; on an H100/H200 (marked `gpu`)
GEMMs of several tile configs against NumPy on seeded random inputs with poisoned outputs, for sizes
that are not multiples of the tile."""


import re
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from gemm_kernels import tile_gemm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

SEED = 9011


def _gemm(bm: int, bn: int, bk: int, warps: int, stages: int = 3, dtype=f16):
    return tile_gemm(bm, bn, bk, warps, stages, dtype)


CONFIGS = {
    # (BM, BN, BK, warps, stages, dtype): one m64 per warpgroup; B panels of 64 columns when BN > 64
    "64x64x64_w4": (64, 64, 64, 4, 3, f16),
    "128x128x64_w8": (128, 128, 64, 8, 3, f16),
    "128x256x32_w8": (128, 256, 32, 8, 3, f16),
    "128x128x32_w8_bf16": (128, 128, 32, 8, 4, bf16),
    "64x32x16_w4": (64, 32, 16, 4, 2, f16),
    "64x16x32_w4_bf16": (64, 16, 32, 4, 3, bf16),
}
KERNELS = {name: _gemm(*cfg) for name, cfg in CONFIGS.items()}


def _ptx(kernel, bm: int, bn: int, dtype, chip: str, size: int = 512) -> str:
    sig = (tile.spec(f32, (size, size), partition=(bm, bn)), tile.spec(dtype, (size, size)), tile.spec(dtype, (size, size)), tile.spec(wf.i64))
    return kernel.compile(*sig, chip=chip).kernel.ptx


def _ptxas(ptx: str) -> str:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    return run_ptxas(ptx, "sm_90a", verbose=True).log


@pytest.mark.parametrize("name", list(CONFIGS))
def test_sm_90a_ptx_has_wgmma_and_passes_ptxas(name: str) -> None:
    bm, bn, bk, warps, _, dtype = CONFIGS[name]
    ptx = _ptx(KERNELS[name], bm, bn, dtype, "sm_90a")
    assert ".target sm_90a" in ptx and ".extern .func" not in ptx
    kind = "bf16" if dtype is bf16 else "f16"
    mmas = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.{kind}\.{kind} \{{([^}}]*)\}}, %rd\d+, %rd\d+, p, 1, 1, 0, 1;", ptx)
    assert len(mmas) == bk // 16, f"{len(mmas)} wgmma in the loop, expected K/16 = {bk // 16}"
    assert len(set(mmas)) == 1, "every wgmma of a step accumulates into the same registers (in place)"
    assert "mma.sync" not in ptx and "ldmatrix" not in ptx
    fence, commit = (ptx.index(s) for s in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned"))
    wait = re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx).start()  # pyright: ignore[reportOptionalMemberAccess]
    assert fence < ptx.index("wgmma.mma_async") < commit < wait
    # 3+ stages: one group stays in flight across the back edge (tile-pipeline's in-flight schedule)
    stages = CONFIGS[name][4]
    assert bool(re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)) == (stages >= 3)
    if stages >= 3:  # tile-tma-ring: the operands arrive by TMA on mbarriers, no cp.async, no barrier per step
        assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx and "mbarrier.try_wait.parity" in ptx
        assert "cp.async.cg" not in ptx and "cp.async.wait_group" not in ptx
    else:
        assert re.search(r"cp\.async\.wait_group \t\d+;\n\tfence\.proxy\.async\.shared::cta;\n\tbar\.sync \t0;", ptx), "cp.async wait, proxy fence, barrier"
    info = _ptxas(ptx)
    assert "0 bytes spill stores" in info, info
    assert "C7515" not in info and "C7510" not in info and "serialized" not in info, info


def test_descriptors_of_the_128x128x64_tile() -> None:
    # A: 128-byte swizzle (mode 1 << 62), LBO 1, SBO 1024 B; B (N-major panels of 64): LBO = 64·64·2 B, SBO 1024 B
    ptx = _ptx(KERNELS["128x128x64_w8"], 128, 128, f16, "sm_90a")
    a_fields = 1 << 62 | (1024 >> 4) << 32 | 1 << 16
    b_fields = 1 << 62 | (1024 >> 4) << 32 | (64 * 64 * 2 >> 4) << 16
    assert re.search(rf"or\.b64 \t%rd\d+, %rd\d+, {a_fields};", ptx), "A descriptor fields"
    assert re.search(rf"or\.b64 \t%rd\d+, %rd\d+, {b_fields};", ptx), "B descriptor fields"
    # k-step i: A starts 32·i bytes further (+2 in address >> 4), B 16 rows of 128 B (+128)
    assert re.search(rf"add\.s64 \t%rd\d+, %rd\d+, {a_fields + 2};", ptx)
    assert re.search(rf"add\.s64 \t%rd\d+, %rd\d+, {b_fields + 128};", ptx)


@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
def test_other_chips_keep_mma_sync(chip: str) -> None:
    ptx = _ptx(KERNELS["128x128x64_w8"], 128, 128, f16, chip)
    assert "mma.sync.aligned.m16n8k16" in ptx and "ldmatrix" in ptx
    assert "wgmma.mma_async" not in ptx and "fence.proxy.async" not in ptx


def test_dots_that_do_not_qualify_keep_mma_sync_on_sm_90a() -> None:
    # 128 rows over 4 warps (two m64 per warpgroup), and no ring (num_stages=1): mma.sync
    for kernel, bm, bn in ((_gemm(128, 128, 32, 4), 128, 128), (_gemm(64, 64, 32, 4, stages=1), 64, 64), (_gemm(64, 64, 32, 2), 64, 64)):
        ptx = _ptx(kernel, bm, bn, f16, "sm_90a")
        assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma.mma_async" not in ptx


def test_example_matmul_uses_wgmma_on_sm_90a_only() -> None:
    import matmul

    hopper = matmul.matmul_f16.compile("sm_90a").ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in hopper and "cp.async" in hopper
    info = _ptxas(hopper)
    assert "0 bytes spill stores" in info
    bias = matmul.matmul_bf16_bias_relu.compile("sm_90a").ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in bias
    _ptxas(bias)
    for chip in ("sm_90", "sm_80"):
        portable = matmul.matmul_f16.compile(chip).ptx
        assert "mma.sync.aligned.m16n8k16" in portable and "wgmma.mma_async" not in portable


def test_tile_kernels_compile_for_sm_90a_on_compute_capability_9_0() -> None:
    from types import SimpleNamespace

    from warpforge.runtime.lazy import tile_chip

    assert tile_chip(SimpleNamespace(compute_capability=(9, 0), chip="sm_90")) == "sm_90a"
    assert tile_chip(SimpleNamespace(compute_capability=(8, 0), chip="sm_80")) == "sm_80"
    assert tile_chip(SimpleNamespace(compute_capability=(9, 0), chip="sm_90", simulated=True)) == "sm_90"


def test_wgmma_layout_attribute_round_trip_and_verifier() -> None:
    from xdsl.utils.exceptions import VerifyException

    from warpforge.dialects.tile_layout import WgmmaEncodingAttr

    attr = WgmmaEncodingAttr((8, 1), (64, 128))
    attr.verify_shape((128, 128))
    with pytest.raises(VerifyException, match="covers a 128x128 tile"):
        attr.verify_shape((128, 64))
    with pytest.raises(VerifyException, match="instr_shape"):
        WgmmaEncodingAttr((8, 1), (64, 12))
    with pytest.raises(VerifyException, match="warps_per_cta"):
        WgmmaEncodingAttr((6, 1), (64, 128))


# --------------------------------------------------------------------------- on the GPU


def _hopper() -> None:
    dev = wf.Device(0)
    if getattr(dev, "simulated", False) or tuple(dev.compute_capability) != (9, 0):
        pytest.skip("wgmma needs a compute capability 9.0 GPU (H100/H200)")


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("m,n,k", [(200, 136, 72), (1000, 1000, 1000), (256, 512, 64)])
def test_wgmma_gemm_matches_numpy(name: str, m: int, n: int, k: int) -> None:
    _hopper()
    bm, bn, bk, _, _, dtype = CONFIGS[name]
    rng = np.random.default_rng(SEED + m + n + k + len(name))
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    c = wf.full((m, n), np.nan, f32).partition((bm, bn))  # poisoned: every element must be written
    stream = wf.Device(0).create_stream()
    got = KERNELS[name](c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(stream)
    want = a.astype(np.float32) @ b.astype(np.float32)
    rel = np.abs(got - want).max() / np.abs(want).max()
    assert np.isfinite(got).all() and rel <= 1e-2, f"relative error {rel}"
    err = np.abs(got.astype(np.float64) - a.astype(np.float64) @ b.astype(np.float64))
    assert err.max() <= 2.0**-18 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-4


@tile.kernel(num_warps=8, num_stages=3)
def _sum_of_dots(c: tile.Tensor[f32, (128, 128)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((128, 128), f32)
    for kt in range(k_tiles):
        acc = acc + tile.load(a, (tile.bid(0), kt), (128, 32)) @ tile.load(b, (kt, tile.bid(1)), (32, 128))
    c.store(acc * 0.5)


def test_a_zero_accumulator_is_scale_d_0_not_registers_written_after_the_fence() -> None:
    # a dot with a zero accumulator inside the loop (acc + a @ b): LLVM wrote the tied zeros between
    # wgmma.fence and the wgmma (PTX ISA §9.7.15.6 forbids it; the kernel faulted on the H200)
    ptx = _ptx(_sum_of_dots, 128, 128, bf16, "sm_90a")
    fence = ptx.index("wgmma.fence.sync.aligned;")
    between = ptx[fence : ptx.index("wgmma.mma_async", fence)]
    assert len(re.findall(r"\bmov\.b32", between)) <= 1, between  # only the scale-d predicate's register
    scales = re.findall(r"setp\.ne\.b32 p, (%r\d+), 0;", ptx)
    assert len(scales) == 2
    assert re.search(rf"mov\.b32 \t{re.escape(scales[0])}, 0;", ptx), "the first k-step ignores the accumulator"
    assert not re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx)  # the result is read in the step: no group in flight
    _ptxas(ptx)
