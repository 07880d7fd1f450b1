"""The TMA + mbarrier ring of a wgmma K loop (`tile-tma-ring`, passes/lowerings/tile_tma.py): which loops
take it (sm_90a, 3+ stages, tensors a descriptor can describe), the PTX (TMA copies, expect_tx, parity
waits, wgmma, no cp.async and no barrier per step) through `ptxas -arch=sm_90a`, the kernel ABI
(descriptor parameters after the kernel's own, `ParamSpec.tma`, kept by the disk cache), the fallback
to the cp.async ring or mma.sync, the launch's refusal of a tensor a descriptor cannot describe; on an
H100/H200 (marked `gpu`) GEMMs against NumPy on seeded random inputs with poisoned outputs, for sizes
that are not multiples of the tile (K too), f16 and bf16, and the fallback's results."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile
from warpforge.errors import CompileError, LaunchError

from gemm_kernels import tile_gemm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

SEED = 9311


def _gemm(bm: int, bn: int, bk: int, warps: int, stages: int, dtype=f16, min_blocks: int = 1):
    return tile_gemm(bm, bn, bk, warps, stages, dtype, min_blocks)


CONFIGS = {
    # (BM, BN, BK, warps, stages, dtype, min blocks per SM)
    "128x128x64_w8_s3": (128, 128, 64, 8, 3, f16, 2),
    "128x128x64_w8_s4_bf16": (128, 128, 64, 8, 4, bf16, 1),
    "128x256x64_w8_s3": (128, 256, 64, 8, 3, f16, 1),
    "128x256x32_w8_s4_bf16": (128, 256, 32, 8, 4, bf16, 1),
    "64x64x64_w4_s3": (64, 64, 64, 4, 3, f16, 1),
    "64x32x16_w4_s5": (64, 32, 16, 4, 5, f16, 1),
    # deep rings (bench/matmul.py's skinny-shape configs): 6 steps in flight, 17 mbarriers
    "64x128x64_w4_s8": (64, 128, 64, 4, 8, f16, 1),
    "64x64x64_w4_s6_bf16_mb2": (64, 64, 64, 4, 6, bf16, 2),
    "128x256x32_w8_s8": (128, 256, 32, 8, 8, f16, 1),
}
KERNELS = {name: _gemm(*cfg) for name, cfg in CONFIGS.items()}


def _sig(bm: int, bn: int, dtype, m: int, n: int, k: int):
    return (tile.spec(f32, (m, n), partition=(bm, bn)), tile.spec(dtype, (m, k)), tile.spec(dtype, (k, n)), tile.spec(wf.i64))


def _compiled(name: str, chip: str = "sm_90a", m: int = 512, n: int = 512, k: int = 512):
    bm, bn, _, _, _, dtype, _ = CONFIGS[name]
    return KERNELS[name].compile(*_sig(bm, bn, dtype, m, n, k), chip=chip).kernel


def _ptxas(ptx: str) -> str:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    return run_ptxas(ptx, "sm_90a", verbose=True).log


TMA_LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"


@pytest.mark.parametrize("name", list(CONFIGS))
def test_sm_90a_ptx_is_a_tma_ring_feeding_wgmma(name: str) -> None:
    bm, bn, bk, warps, stages, dtype, _ = CONFIGS[name]
    ck = _compiled(name)
    ptx = ck.ptx
    assert ".target sm_90a" in ptx and ".extern .func" not in ptx
    # copies per stage: A one box, B one per 64-column panel; prologue S - 2 stages, one refill per step
    per_stage = 1 + max(1, bn // 64)
    assert ptx.count(TMA_LOAD) == per_stage * (stages - 1), ptx.count(TMA_LOAD)
    assert ptx.count("mbarrier.arrive.expect_tx.shared.b64") == stages - 1
    assert ptx.count("mbarrier.init.shared.b64") == 2 * stages + 1
    assert ptx.count("mbarrier.try_wait.parity.shared.b64") == 2 and "bra.uni wait" in ptx
    assert "mbarrier.arrive.shared.b64" in ptx  # the per-warp release
    assert "cp.async.cg" not in ptx and "cp.async.wait_group" not in ptx and "mma.sync" not in ptx
    kind = "bf16" if dtype is bf16 else "f16"
    mmas = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.{kind}\.{kind} ", ptx)
    assert len(mmas) == bk // 16, "one wgmma per k-step, the loop not peeled"
    assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", ptx) and re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx)
    # two CTA barriers at the start (the barriers' init, the prologue's announcements), none per step
    # a ring at least as large as C's tile is reused to stage the epilogue (three more barriers), else none
    staged = 4 * bm * bn <= max(stages * bm * bk, stages * bk * bn) * 2
    assert ptx.count("bar.sync") == (5 if staged else 2) and ("ld.shared.v4.b32" in ptx) == staged
    info = _ptxas(ptx)
    assert "0 bytes spill stores" in info, info
    assert not re.search(r"C75(1[059]|20)|serialized", info), info  # no wgmma serialization, no injected warpgroup.arrive


ROUNDED = {"128x256x64_w8_s3": f16, "128x128x64_w8_s4_bf16": bf16, "64x128x64_w4_s8": f16}
"""Configs also compiled with C in the inputs' dtype (the accumulator rounded in the epilogue)."""
ROUNDED_KERNELS = {name: tile_gemm(*CONFIGS[name][:6], CONFIGS[name][6], out=out) for name, out in ROUNDED.items()}


@pytest.mark.parametrize("name", list(ROUNDED))
def test_an_epilogue_converting_the_accumulator_keeps_the_wgmmas_asynchronous(name: str) -> None:
    # The conversions read the accumulator: through nvvm.wgmma.wait_accumulators they stay after the last
    # wait_group 0. With the operand-less wait, LLVM hoisted them above it and ptxas serialized every
    # wgmma of the kernel (C7514: 554 TFLOP/s instead of 647+ at 4096^3 on the H200).
    bm, bn, _, _, _, dtype, _ = CONFIGS[name]
    sig = (tile.spec(ROUNDED[name], (512, 512), partition=(bm, bn)), *_sig(bm, bn, dtype, 512, 512, 512)[1:])
    ptx = ROUNDED_KERNELS[name].compile(*sig, chip="sm_90a").kernel.ptx
    last_wait = max(m.start() for m in re.finditer(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx))
    converts = [m.start() for m in re.finditer(r"cvt\.rn\.b?f16(x2)?\.f32", ptx)]
    assert converts and min(converts) > last_wait, "an accumulator conversion precedes the last wgmma.wait_group 0"
    # the epilogue stages the tile through the drained ring's space: whole-row 16-byte stores (_store_staged)
    threads = 32 * CONFIGS[name][3]
    assert ptx.count("st.global.v4.b32") == bm * bn * 2 // 16 // threads, ptx.count("st.global.v4.b32")
    assert ptx.count("ld.shared.v4.b32") == bm * bn * 2 // 16 // threads
    assert ptx.count("st.shared.b32") == bm * bn // 2 // threads  # each thread's f16 pairs, packed
    assert ptx.count("bar.sync") == 2 + 3  # the ring's two, and before/after the staged write, after the stores
    info = _ptxas(ptx)
    assert "0 bytes spill stores" in info, info
    assert not re.search(r"C75(1[0-9]|20)|serialized", info), info


def test_descriptor_parameters_follow_the_kernels_own() -> None:
    from warpforge.compile import kernel_from_json, kernel_to_json
    from warpforge.runtime.launch import _check_abi, abi_param_sizes, ptx_entry_param_sizes  # pyright: ignore[reportPrivateUsage]

    ck = _compiled("128x256x64_w8_s3")
    tma = {p.name: p.tma for p in ck.params}
    assert tma == {"c": (), "a": (((128, 64), "128B"),), "b": (((64, 64), "128B"),), "k_tiles": ()}
    assert abi_param_sizes(ck)[-2:] == [128, 128] and ptx_entry_param_sizes(ck.ptx, ck.entry) == abi_param_sizes(ck)
    _check_abi(ck)
    assert ".param .align 64 .b8" in ck.ptx
    back = kernel_from_json(kernel_to_json(ck), ck.ptx)  # the disk cache keeps them
    assert back.params == ck.params


def test_example_matmul_uses_the_tma_ring_on_sm_90a() -> None:
    import matmul

    hopper = matmul.matmul_f16.compile("sm_90a").ptx
    assert TMA_LOAD in hopper and "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in hopper and "mbarrier.try_wait.parity" in hopper
    info = _ptxas(hopper)
    assert "0 bytes spill stores" in info, info
    for chip in ("sm_90", "sm_80"):
        ptx = matmul.matmul_f16.compile(chip).ptx
        assert "mma.sync.aligned.m16n8k16" in ptx and "cp.async.bulk" not in ptx and "mbarrier" not in ptx


def test_two_stages_keep_the_cp_async_ring() -> None:
    # no group can stay in flight with 2 stages (tile-pipeline's d = 0): the TMA ring is not built
    k = _gemm(64, 64, 64, 4, 2)
    ptx = k.compile(*_sig(64, 64, f16, 512, 512, 512), chip="sm_90a").kernel.ptx
    assert "wgmma.mma_async" in ptx and "cp.async.cg.shared.global" in ptx and "cp.async.bulk" not in ptx


def test_rows_a_descriptor_cannot_describe_fall_back() -> None:
    # B's rows of 1030 f16 are 2060 bytes, not a multiple of 16: no TMA descriptor (nor cp.async) for
    # B, so the dot takes the mma.sync path with plain loads; with N = 1032 it is a TMA ring again
    k = KERNELS["128x128x64_w8_s3"]
    unaligned = k.compile(*_sig(128, 128, f16, 1000, 1030, 520), chip="sm_90a").kernel
    assert "cp.async.bulk" not in unaligned.ptx and "mbarrier" not in unaligned.ptx and all(not p.tma for p in unaligned.params)
    aligned = k.compile(*_sig(128, 128, f16, 1000, 1032, 520), chip="sm_90a").kernel
    assert TMA_LOAD in aligned.ptx


def test_too_many_stages_for_shared_memory_is_a_compile_error() -> None:
    # 5 stages of 128x64 + 64x256 f16 tiles: 5 x 48 KiB > the 227 KiB a CTA can have
    k = _gemm(128, 256, 64, 8, 5)
    with pytest.raises(CompileError, match="227|232448"):
        k.compile(*_sig(128, 256, f16, 512, 512, 512), chip="sm_90a")


def test_the_launch_refuses_a_tensor_a_descriptor_cannot_describe() -> None:
    from warpforge.runtime.tma import launch_descriptor

    with pytest.raises(LaunchError, match=r"gemm: argument 'a' feeds a TMA ring: .*not 16-byte aligned"):
        launch_descriptor(0x1002, (256, 256), np.float16, (128, 64), "128B", None, "gemm", "a")
    with pytest.raises(LaunchError, match="box extent 300"):
        launch_descriptor(0x1000, (512, 512), np.float16, (300, 64), "128B", None, "gemm", "a")


# --------------------------------------------------------------------------- GPU


def _hopper() -> None:
    dev = wf.Device(0)
    if getattr(dev, "simulated", False) or tuple(dev.compute_capability) != (9, 0):
        pytest.skip("the TMA ring needs a compute capability 9.0 GPU (H100/H200)")


def _run_gemm(kernel, bm: int, bn: int, bk: int, dtype, m: int, n: int, k: int, seed: int, out=f32) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    c = wf.full((m, n), np.nan, out).partition((bm, bn))  # poisoned: every element must be written
    stream = wf.Device(0).create_stream()
    got = kernel(c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(stream)
    got = got.astype(np.float32)
    want = a.astype(np.float32) @ b.astype(np.float32)
    rel = np.abs(got - want).max() / np.abs(want).max()
    assert np.isfinite(got).all() and rel <= 1e-2, f"relative error {rel}"
    exact = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(got.astype(np.float64) - exact)
    # f32: the accumulation's error; rounded to f16/bf16 (8 or 11 significant bits): plus half an ulp of each element
    rounding = 0.0 if out is f32 else 2.0 ** -(8 if out is bf16 else 11) * np.abs(exact)
    assert np.all(err <= 2.0**-18 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-4 + rounding)


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("m,n,k", [(200, 136, 72), (1000, 1000, 1000), (1500, 1032, 520), (4096, 4096, 4096), (128, 2048, 3000)])
def test_tma_ring_gemm_matches_numpy(name: str, m: int, n: int, k: int) -> None:
    # K = 72, 1000, 520, 3000: not multiples of BK (the TMA zero-fills the tail); 1500 rows: 12 row
    # tiles of 128, so the last group of the grouped order has 4 rows
    _hopper()
    bm, bn, bk, _, _, dtype, _ = CONFIGS[name]
    _run_gemm(KERNELS[name], bm, bn, bk, dtype, m, n, k, SEED + m + n + k + len(name))


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(ROUNDED))
@pytest.mark.parametrize("m,n,k", [(200, 136, 72), (1500, 1032, 520)])
def test_tma_ring_gemm_rounded_to_the_inputs_dtype_matches_numpy(name: str, m: int, n: int, k: int) -> None:
    _hopper()
    bm, bn, bk, _, _, dtype, _ = CONFIGS[name]
    _run_gemm(ROUNDED_KERNELS[name], bm, bn, bk, dtype, m, n, k, SEED + 7 * m + n + k + len(name), out=ROUNDED[name])


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["64x128x64_w4_s8", "64x64x64_w4_s6_bf16_mb2"])
def test_deep_ring_skinny_gemm_matches_numpy(name: str) -> None:
    # the skinny shape of bench/matmul.py (M = 128, a long K): 64 K steps with 6 in flight, the grid
    # 2 x 64 (or 2 x 128) tiles in the grouped order's one partial group of 2 tile rows
    _hopper()
    bm, bn, bk, _, _, dtype, _ = CONFIGS[name]
    _run_gemm(KERNELS[name], bm, bn, bk, dtype, 128, 8192, 4096, SEED + len(name))


@pytest.mark.gpu
def test_the_fallback_for_unaligned_rows_matches_numpy() -> None:
    _hopper()
    _run_gemm(KERNELS["128x128x64_w8_s3"], 128, 128, 64, f16, 1000, 1030, 520, SEED)


@pytest.mark.gpu
def test_example_matmul_passes_on_the_gpu() -> None:
    _hopper()
    import matmul

    matmul.run(1000, 1032, 520)
