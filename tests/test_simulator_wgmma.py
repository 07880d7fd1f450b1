"""wgmma in the CPU simulator (warpforge/simulator/wgmma.py) and the sm_90a tile.dot path run on it.

1. The model: descriptor decoding, the canonical layouts against the layouts GPU-verified kernels
   write (tests/hopper_wgmma_kernel.mlir's no-swizzle K-major copy; the TMA model's 128-byte swizzle,
   which the H200-verified TMA ring writes and wgmma reads), the accumulator fragment; a hand-written
   gpu-level kernel (one warpgroup, m64n8k16, scale-d on and off) against NumPy; the misuse the
   simulator refuses (part of a warpgroup, descriptors that differ within it, a matrix outside the
   shared allocation, a blocking mbarrier wait nothing completes).
2. The GEMMs of tests/test_tile_dot_tma.py (every TMA-ring config, the deep rings included), the
   2-stage cp.async ring feeding wgmma and the unaligned fallback (mma.sync), compiled for sm_90a and
   run on `wf.Device.simulator(chip="sm_90a")`: seeded random inputs, NaN-poisoned outputs, sizes that
   are not multiples of the tile (K too), f16 and bf16, against NumPy; examples/matmul.py under
   `WARPFORGE_SIM_CHIP=sm_90a`.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f16, f32
from warpforge.context import parse_module
from warpforge.errors import DeviceError, EnvironmentVariableError
from warpforge.simulator import SimulatorError, simulate
from warpforge.simulator import wgmma as model
from warpforge.simulator.hopper import DYNAMIC_SHARED_ADDRESS, _swizzled_offsets  # pyright: ignore[reportPrivateUsage]

from gemm_kernels import tile_gemm
from test_tile_dot_tma import CONFIGS, _sig

ROOT = Path(__file__).resolve().parent.parent
SEED = 4127


def _desc(start: int, lbo: int, sbo: int, swizzle: int) -> int:
    """A matrix descriptor as PTX ISA §9.7.15.5.1 lays it out (written here independently of the
    lowering's `descriptor`)."""
    mode = {0: 0, 128: 1, 64: 2, 32: 3}[swizzle]
    return (start >> 4) & 0x3FFF | ((lbo >> 4) & 0x3FFF) << 16 | ((sbo >> 4) & 0x3FFF) << 32 | mode << 62


# --------------------------------------------------------------------------- the model


def test_descriptor_fields_decode() -> None:
    d = _desc(0x1230, 2048, 1024, 128)
    assert model.decode_descriptor(d) == (0x1230, 2048, 1024, 0, 128)
    assert model.decode_descriptor(_desc(0x40, 16, 256, 32))[4] == 32
    assert model.decode_descriptor(d | 5 << 49)[3] == 5
    with pytest.raises(ValueError, match="base offset is 5"):
        model.operand_addresses(d | 5 << 49, 64, 16, 2, True)


def test_no_swizzle_k_major_is_the_core_matrix_layout_of_the_gpu_kernel() -> None:
    # tests/hopper_wgmma_kernel.mlir copies A[m, k] (f16) to element ((m/8*2 + k/8)*8 + m%8)*8 + k%8
    # of shared memory and describes it with LBO = 128, SBO = 256, no swizzle
    addr = model.operand_addresses(_desc(0, 128, 256, 0), 64, 16, 2, True)
    m, k = np.meshgrid(np.arange(64), np.arange(16), indexing="ij")
    want = 2 * ((((m // 8) * 2 + k // 8) * 8 + m % 8) * 8 + k % 8)
    assert (addr == want).all()


@pytest.mark.parametrize("swizzle", [128, 64, 32])
def test_k_major_swizzled_rows_read_back_what_the_tma_model_wrote(swizzle: int) -> None:
    # a 64-row box of `swizzle`-byte rows, written at a 1024-byte aligned address by the TMA model
    # (the H200-verified ring's layout); wgmma's k-step i reads its columns 16i..16i+15
    cols = swizzle // 2
    box = np.arange(64 * cols, dtype=np.int64).reshape(64, cols)
    smem = np.full(64 * cols, -1, np.int64)
    smem[_swizzled_offsets(64 * cols * 2, 2, {128: "128B", 64: "64B", 32: "32B"}[swizzle])] = box.reshape(-1)
    for i in range(cols // 16):
        addr = model.operand_addresses(_desc(2048 + 32 * i, 16, 8 * swizzle, swizzle), 64, 16, 2, True)
        assert (smem[(addr - 2048) // 2] == box[:, 16 * i : 16 * i + 16]).all()


def test_mn_major_panels_read_back_what_the_tma_model_wrote() -> None:
    # B (64 x 128, N-major) as two 64-column panels of 64 rows x 128 bytes, each one TMA box: LBO =
    # the panel stride, SBO = 8 rows; k-step i starts 16 rows in
    b = np.arange(64 * 128, dtype=np.int64).reshape(64, 128)
    smem = np.full(64 * 128, -1, np.int64)
    order = _swizzled_offsets(64 * 64 * 2, 2, "128B")
    for p in range(2):
        smem[p * 4096 + order] = b[:, 64 * p : 64 * p + 64].reshape(-1)
    for i in range(4):
        addr = model.operand_addresses(_desc(16 * 128 * i, 8192, 1024, 128), 128, 16, 2, False)
        assert (smem[addr // 2] == b[16 * i : 16 * i + 16, :].T).all()


@pytest.mark.parametrize("n", [8, 64, 256])
def test_accumulator_fragment_covers_the_tile_once(n: int) -> None:
    rows, cols = model.fragment_rows_cols(n)
    assert rows.shape == (128, n // 2)
    seen = np.zeros((64, n), np.int64)
    np.add.at(seen, (rows, cols), 1)
    assert (seen == 1).all()
    # the m64nNk16 D layout (PTX ISA §9.7.15.5.1.1), for thread 37 (warp 1, lane 5)
    assert rows[37, :4].tolist() == [17, 17, 25, 25] and cols[37, :4].tolist() == [2, 3, 2, 3]
    if n > 8:
        assert rows[37, 4:6].tolist() == [17, 17] and cols[37, 4:6].tolist() == [10, 11]


ONE_WARPGROUP = """
builtin.module {
  gpu.module @m {
    gpu.func @mma(%src: memref<?xf16, 1 : i32>, %d: memref<?xf32, 1 : i32>, %da: i64, %db: i64, %skew: i64, %accumulate: i1) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %n = memref.dim %src, %c0 : memref<?xf16, 1 : i32>
      %raw = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
      %sh = memref.view %raw[%c0][%n] : memref<?xi8, 3 : i32> to memref<?xf16, 3 : i32>
      scf.for %e = %tid to %n step %c128 {
        %x = memref.load %src[%e] : memref<?xf16, 1 : i32>
        memref.store %x, %sh[%e] : memref<?xf16, 3 : i32>
      }
      gpu.barrier
      %base = "memref.extract_aligned_pointer_as_index"(%raw) : (memref<?xi8, 3 : i32>) -> index
      %b64 = arith.index_cast %base : index to i64
      %c4i = arith.constant 4 : i64
      %field = arith.shrui %b64, %c4i : i64
      %t64 = arith.index_cast %tid : index to i64
      %skewed = arith.muli %t64, %skew : i64
      %da0 = arith.addi %da, %field : i64
      %da1 = arith.addi %da0, %skewed : i64
      %db1 = arith.addi %db, %field : i64
      %r0 = arith.muli %tid, %c4 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %r1 = arith.addi %r0, %c1 : index
      %r2 = arith.addi %r0, %c2 : index
      %r3 = arith.addi %r0, %c3 : index
      %a0 = memref.load %d[%r0] : memref<?xf32, 1 : i32>
      %a1 = memref.load %d[%r1] : memref<?xf32, 1 : i32>
      %a2 = memref.load %d[%r2] : memref<?xf32, 1 : i32>
      %a3 = memref.load %d[%r3] : memref<?xf32, 1 : i32>
      nvvm.wgmma.fence.aligned
      %o0, %o1, %o2, %o3 = nvvm.wgmma.mma_async %da1, %db1, %accumulate, (%a0, %a1, %a2, %a3) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = -1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32 loc("mma.py":3:5)
      nvvm.wgmma.commit.group.sync.aligned
      %w0, %w1, %w2, %w3 = nvvm.wgmma.wait_accumulators %o0, %o1, %o2, %o3 {n = 0 : i64} : f32, f32, f32, f32 -> f32, f32, f32, f32
      memref.store %w0, %d[%r0] : memref<?xf32, 1 : i32>
      memref.store %w1, %d[%r1] : memref<?xf32, 1 : i32>
      memref.store %w2, %d[%r2] : memref<?xf32, 1 : i32>
      memref.store %w3, %d[%r3] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}
"""


def _fragment(n: int) -> tuple[np.ndarray, np.ndarray]:
    # tests/hopper_wgmma_kernel.mlir's statement of the D layout (GPU-verified), for n = 8
    t, i = np.meshgrid(np.arange(128), np.arange(n // 2), indexing="ij")
    w, lane = t // 32, t % 32
    return 16 * w + lane // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2


def _one_warpgroup(accumulate: bool, *, threads: int = 128, skew: int = 0, da_start: int = 0, seed: int = SEED):
    """A (64x16) and B^T (8x16) in the no-swizzle K-major layout of tests/hopper_wgmma_kernel.mlir, C
    in the fragment; returns (D as computed, D expected)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    bt = rng.standard_normal((8, 16)).astype(np.float16)
    c = rng.standard_normal((64, 8)).astype(np.float32)

    def core(x: np.ndarray) -> np.ndarray:
        m, k = np.meshgrid(np.arange(x.shape[0]), np.arange(16), indexing="ij")
        out = np.empty(x.size, x.dtype)
        out[(((m // 8) * 2 + k // 8) * 8 + m % 8) * 8 + k % 8] = x
        return out

    src = np.concatenate([core(a), core(bt)])
    rows, cols = _fragment(8)
    d = c[rows, cols].reshape(-1).copy()
    m = parse_module(ONE_WARPGROUP)
    da, db = _desc(da_start, 128, 256, 0), _desc(2048, 128, 256, 0)
    simulate(m, "mma", 1, threads, [src, d, np.int64(da), np.int64(db), np.int64(skew), np.bool_(accumulate)], dynamic_shared_bytes=4096)
    want = a.astype(np.float32) @ -bt.astype(np.float32).T + (c if accumulate else 0)
    got = np.empty((64, 8), np.float32)
    got[rows, cols] = d.reshape(128, 4)
    return got, want


@pytest.mark.parametrize("accumulate", [True, False])
def test_one_warpgroup_m64n8k16_matches_numpy(accumulate: bool) -> None:
    got, want = _one_warpgroup(accumulate)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


REGISTER_A = ONE_WARPGROUP.replace(
    "%da: i64, %db: i64", "%areg: memref<?xi32, 1 : i32>, %db: i64"
).replace(
    "      %da0 = arith.addi %da, %field : i64\n      %da1 = arith.addi %da0, %skewed : i64\n", ""
).replace(
    "      nvvm.wgmma.fence.aligned\n",
    "      %x0 = memref.load %areg[%r0] : memref<?xi32, 1 : i32>\n      %x1 = memref.load %areg[%r1] : memref<?xi32, 1 : i32>\n"
    "      %x2 = memref.load %areg[%r2] : memref<?xi32, 1 : i32>\n      %x3 = memref.load %areg[%r3] : memref<?xi32, 1 : i32>\n"
    "      nvvm.wgmma.fence.aligned\n",
).replace(
    "nvvm.wgmma.mma_async %da1, %db1, %accumulate, (%a0, %a1, %a2, %a3) {n = 8 : i32, type = \"f16\", layout_a = \"row\", layout_b = \"col\", scale_a = 1 : i32, scale_b = -1 : i32} : f32",
    "nvvm.wgmma.mma_async.reg_a(%x0, %x1, %x2, %x3), %db1, %accumulate, (%a0, %a1, %a2, %a3) {n = 8 : i32, type = \"f16\", layout_b = \"col\", scale_a = 1 : i32, scale_b = -1 : i32} : (i32, i32, i32, i32), f32",
)
"""`ONE_WARPGROUP` with A from registers: thread t's four b32 A registers loaded from `areg[4t …]`."""


def _a_fragment_words(a: np.ndarray) -> np.ndarray:
    """A (64x16 f16) as the register-A fragment of m64nNk16 (PTX ISA §9.7.15.5.1.1, "Register fragments",
    written here independently of the simulator): warp w, lane l, register j, half h holds
    A[16w + 8(j % 2) + l/4][8(j/2) + 2(l % 4) + h]; returns the 128 x 4 words (low half first)."""
    t, j, h = np.meshgrid(np.arange(128), np.arange(4), np.arange(2), indexing="ij")
    w, lane = t // 32, t % 32
    halves = a[16 * w + 8 * (j % 2) + lane // 4, 8 * (j // 2) + 2 * (lane % 4) + h]  # (128, 4, 2)
    bits = halves.view(np.uint16).astype(np.uint32)
    return (bits[..., 0] | bits[..., 1] << 16).view(np.int32).reshape(-1)


@pytest.mark.parametrize("accumulate", [True, False])
def test_register_a_m64n8k16_matches_numpy(accumulate: bool) -> None:
    rng = np.random.default_rng(SEED + 1)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    bt = rng.standard_normal((8, 16)).astype(np.float16)
    c = rng.standard_normal((64, 8)).astype(np.float32)
    m, k = np.meshgrid(np.arange(8), np.arange(16), indexing="ij")
    src = np.full(1024 + 128, np.nan, np.float16)  # B^T at byte 2048 of shared memory, the no-swizzle K-major core layout
    src[1024 + (((m // 8) * 2 + k // 8) * 8 + m % 8) * 8 + k % 8] = bt
    rows, cols = _fragment(8)
    d = c[rows, cols].reshape(-1).copy()
    simulate(parse_module(REGISTER_A), "mma", 1, 128, [src, d, _a_fragment_words(a), np.int64(_desc(2048, 128, 256, 0)), np.int64(0), np.bool_(accumulate)], dynamic_shared_bytes=4096)
    got = np.empty((64, 8), np.float32)
    got[rows, cols] = d.reshape(128, 4)
    np.testing.assert_allclose(got, a.astype(np.float32) @ -bt.astype(np.float32).T + (c if accumulate else 0), rtol=1e-5, atol=1e-5)


def test_part_of_a_warpgroup_is_refused() -> None:
    with pytest.raises(SimulatorError, match=r"mma\.py:3:5.*96 of the 128 threads of warpgroup 0.*\.sync\.aligned"):
        _one_warpgroup(True, threads=96)


def test_descriptors_differing_within_a_warpgroup_are_refused() -> None:
    with pytest.raises(SimulatorError, match="the A descriptor differs between the threads of warpgroup 0"):
        _one_warpgroup(True, skew=1)


def test_a_matrix_outside_its_shared_allocation_is_refused() -> None:
    # A would start 3,584 bytes into the 4,096: its 2,048 bytes run past the end
    with pytest.raises(SimulatorError, match=r"A \(64x16\) covers shared bytes .* outside the 4096-byte shared allocation"):
        _one_warpgroup(True, da_start=3584)
    with pytest.raises(SimulatorError, match="start address .* is in no shared allocation"):
        _one_warpgroup(True, da_start=0x8000)


WAIT_FOREVER = """
builtin.module {
  gpu.module @m {
    gpu.func @wait(%out: memref<?xi32, 1 : i32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %raw = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
      %bar = memref.view %raw[%c0][] : memref<?xi8, 3 : i32> to memref<1xi64, 3 : i32>
      nvgpu.mbarrier.init %bar, %one : memref<1xi64, 3 : i32>, i32
      %same = memref.view %raw[%c0][] : memref<?xi8, 3 : i32> to memref<1xi64, 3 : i32>
      %base = "memref.extract_aligned_pointer_as_index"(%raw) : (memref<?xi8, 3 : i32>) -> index
      %b64 = arith.index_cast %base : index to i64
      %addr = arith.trunci %b64 : i64 to i32
      nvvm.mbarrier.wait.parity %addr, %one : i32, i32
      nvgpu.mbarrier.arrive %same : memref<1xi64, 3 : i32>
      nvvm.mbarrier.wait.parity %addr, %zero : i32, i32
      nvvm.mbarrier.wait.parity %addr, %zero : i32, i32 loc("wait.py":9:3)
      gpu.return
    }
  }
}
"""


def test_blocking_mbarrier_wait_on_an_incomplete_phase_is_refused() -> None:
    # parity 1 on the fresh barrier passes (PTX ISA §9.7.13.15.16); one arrival (through another view
    # of the same bytes) completes phase 0, so parity 0 passes, twice; a parity-1 wait in phase 1
    # would block: nothing after it can arrive
    m = parse_module(WAIT_FOREVER.replace('%zero : i32, i32 loc("wait.py"', '%one : i32, i32 loc("wait.py"'))
    with pytest.raises(SimulatorError, match=r"wait\.py:9:3.*phase parity 1 of the mbarrier at 0x410, in phase 1"):
        simulate(m, "wait", 1, 1, [np.zeros(1, np.int32)], dynamic_shared_bytes=64)
    assert DYNAMIC_SHARED_ADDRESS == 0x410
    simulate(parse_module(WAIT_FOREVER), "wait", 1, 1, [np.zeros(1, np.int32)], dynamic_shared_bytes=64)


# --------------------------------------------------------------------------- the sm_90a path


def _gemm_on_the_simulator(kernel, bm: int, bn: int, bk: int, dtype, m: int, n: int, k: int, seed: int) -> None:
    got, exact, bound = _simulated_gemm(kernel, bm, bn, bk, dtype, m, n, k, seed)
    assert np.isfinite(got).all()
    err = np.abs(got - exact)
    assert err.max() <= bound, err.max()


def _simulated_gemm(kernel, bm: int, bn: int, bk: int, dtype, m: int, n: int, k: int, seed: int):
    """(C as the sm_90a kernel computed it on the simulator, A @ B in f64, the f32-accumulation error bound)."""
    dev = wf.Device.simulator(chip="sm_90a")
    assert dev.chip == "sm_90a"
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    c = wf.full((m, n), np.nan, f32).partition((bm, bn))  # poisoned: every element must be written
    got = kernel(c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(dev.create_stream())
    exact = a.astype(np.float64) @ b.astype(np.float64)
    return got, exact, 2.0**-20 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-6


def _tile_counts(name: str) -> tuple[int, int, int]:
    bm, bn, bk, _, stages, _, _ = CONFIGS[name]
    # tails in M, N (N a multiple of 8: TMA needs 16-byte rows) and K; K steps past the ring's depth, so it wraps
    return bm + 40, bn + 8, bk * (stages + 1) + 8


@pytest.mark.parametrize("name", list(CONFIGS))
def test_tma_ring_gemm_on_the_simulator_matches_numpy(name: str, wgmma_calls: list) -> None:
    bm, bn, bk, warps, stages, dtype, min_blocks = CONFIGS[name]
    m, n, k = _tile_counts(name)
    kernel = tile_gemm(bm, bn, bk, warps, stages, dtype, min_blocks)
    compiled = kernel.compile(*_sig(bm, bn, dtype, m, n, k), chip="sm_90a").kernel
    assert [p.name for p in compiled.params if p.tma] == ["a", "b"]  # the TMA ring, not the fallback
    _gemm_on_the_simulator(kernel, bm, bn, bk, dtype, m, n, k, SEED + len(name))
    k_steps, ctas, groups = -(-k // bk), 4, warps // 4
    assert len(wgmma_calls) == 2 * ctas * k_steps * (bk // 16) * groups
    assert set(wgmma_calls) == {(64, 16, 2, True), (bn, 16, 2, False)}  # A K-major, B N-major (imm-trans-b)


def test_tma_ring_gemm_rounded_to_f16_on_the_simulator_matches_numpy(wgmma_calls: list) -> None:
    # the epilogue reads the accumulator through nvvm.wgmma.wait_accumulators (the simulator passes it on)
    from warpforge import bf16

    bm, bn, bk, warps, stages, dtype, min_blocks = CONFIGS["128x128x64_w8_s4_bf16"]
    m, n, k = _tile_counts("128x128x64_w8_s4_bf16")
    kernel = tile_gemm(bm, bn, bk, warps, stages, dtype, min_blocks, out=bf16)
    dev = wf.Device.simulator(chip="sm_90a")
    rng = np.random.default_rng(SEED + 5)
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    c = wf.full((m, n), np.nan, bf16).partition((bm, bn))  # poisoned
    got = kernel(c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(dev.create_stream())
    exact = a.astype(np.float64) @ b.astype(np.float64)
    tol = 2.0**-8 * np.abs(exact) + 2.0**-20 * k * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-6
    assert np.all(np.abs(got.astype(np.float64) - exact) <= tol)
    assert wgmma_calls


def test_two_stage_cp_async_ring_feeding_wgmma_on_the_simulator(wgmma_calls: list) -> None:
    kernel = tile_gemm(64, 64, 64, 4, 2)
    assert "cp.async.bulk" not in kernel.compile(*_sig(64, 64, f16, 100, 72, 200), chip="sm_90a").kernel.ptx
    _gemm_on_the_simulator(kernel, 64, 64, 64, f16, 100, 72, 200, SEED)
    assert wgmma_calls


def _dot_from_zeros():
    from warpforge import tile

    @tile.kernel(num_warps=4, num_stages=3)
    def gemm_sum(c: tile.Tensor[f32, (64, 64)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((64, 64), f32)
        for kt in range(k_tiles):
            acc = acc + tile.dot(tile.load(a, (tile.bid(0), kt), (64, 64)), tile.load(b, (kt, tile.bid(1)), (64, 64)))
        c.store(acc)

    return gemm_sum


def test_a_dot_from_zeros_uses_scale_d_0_on_the_simulator(wgmma_calls: list) -> None:
    # tile.dot(x, y) without an accumulator: the first wgmma has scale-d = 0 and undefined accumulator
    # registers (llvm.mlir.undef, NaN on the simulator: a model that read them would give NaN)
    kernel = _dot_from_zeros()
    ptx = kernel.compile(*_sig(64, 64, f16, 100, 72, 200), chip="sm_90a").kernel.ptx
    assert "wgmma.mma_async" in ptx
    _gemm_on_the_simulator(kernel, 64, 64, 64, f16, 100, 72, 200, SEED + 1)
    assert wgmma_calls


def test_a_ring_left_unaligned_is_caught_on_the_simulator(monkeypatch) -> None:
    # the cp.async ring swizzles from the ring's start, wgmma by the shared address: they agree only
    # for a ring 1024-byte aligned (tile_dot_wgmma.aligned_shift). The simulator's dynamic shared
    # memory is not (DYNAMIC_SHARED_ADDRESS), so a lowering that drops the padding computes garbage
    from xdsl.dialects.builtin import i64

    from warpforge.passes.lowerings import tile_dot_wgmma

    assert DYNAMIC_SHARED_ADDRESS % 1024
    monkeypatch.setattr(tile_dot_wgmma, "_pad", lambda e, raw: e.const(0, i64))
    got, exact, bound = _simulated_gemm(tile_gemm(64, 64, 64, 4, 2), 64, 64, 64, f16, 64, 64, 128, SEED)
    assert np.abs(got - exact).max() > 100 * bound


def test_unaligned_rows_fall_back_to_mma_sync_on_the_simulator(wgmma_calls: list) -> None:
    # rows of 38 f16 (76 bytes): no TMA, no cp.async: the dot is mma.sync from plain loads
    kernel = tile_gemm(64, 64, 64, 4, 3)
    _gemm_on_the_simulator(kernel, 64, 64, 64, f16, 72, 38, 136, SEED)
    assert not wgmma_calls


def test_simulator_chip_option() -> None:
    assert wf.Device.simulator().chip == "sm_90"
    sim = wf.Device.simulator(chip="sm_90a")
    assert sim is wf.Device.simulator(chip="sm_90a") and sim is not wf.Device.simulator()
    assert "sm_90a" in sim.name and sim.compute_capability == (9, 0)
    with pytest.raises(DeviceError, match=r"compiles for sm_90 or sm_90a, got 'sm_80'"):
        wf.Device.simulator(chip="sm_80")
    a100 = wf.DeviceLimits.for_testing(compute_capability=(8, 0), name="A100")
    with pytest.raises(DeviceError, match=r"compiles for sm_80, got 'sm_80a'"):
        wf.Device.simulator(a100, chip="sm_80a")


def test_simulator_chip_environment_variable(monkeypatch) -> None:
    from warpforge.runtime.simulated import SimulatorDevice

    monkeypatch.setenv("WARPFORGE_SIM_CHIP", "sm_90a")
    assert SimulatorDevice().chip == "sm_90a"
    monkeypatch.setenv("WARPFORGE_SIM_CHIP", "sm_100")
    with pytest.raises(EnvironmentVariableError, match=r"WARPFORGE_SIM_CHIP='sm_100'"):
        SimulatorDevice()


def test_example_matmul_runs_the_sm_90a_path_on_the_simulator() -> None:
    env = dict(os.environ, WARPFORGE_SIMULATE="1", WARPFORGE_SIM_CHIP="sm_90a")
    probe = (
        "import runpy, sys; import warpforge.simulator.wgmma as w; n = [0]; real = w.operand_addresses\n"
        "def spy(*a): n[0] += 1; return real(*a)\n"
        "w.operand_addresses = spy; sys.argv = ['examples/matmul.py']; runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "print('wgmma operands read:', n[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASSED: matmul" in out.stdout
    assert int(out.stdout.rsplit("wgmma operands read:", 1)[1]) > 0, out.stdout


def test_the_sm_90a_gpu_level_ops_are_implemented() -> None:
    from warpforge import simulator

    needed = {"nvvm.wgmma.mma_async", "nvvm.wgmma.mma_async.reg_a", "nvvm.mbarrier.wait.parity", "memref.extract_aligned_pointer_as_index", "llvm.mlir.undef"}
    assert needed <= set(simulator.supported_ops())


def test_row_maxima_of_a_wgmma_accumulator_on_the_simulator(wgmma_calls: list) -> None:
    # tests/test_tile_dot_rows.py's K loop (m64n128k16 on sm_90a, GPU-verified), the rows reduced by
    # quad shuffles from the wgmma D fragment after the loop's final wait
    from test_tile_dot_rows import gemm_rowmax

    rng = np.random.default_rng(SEED + 5)
    a = rng.standard_normal((128, 256)).astype(np.float16)
    b = rng.standard_normal((256, 256)).astype(np.float16)
    dev = wf.Device.simulator(chip="sm_90a")
    c = wf.full((128, 256), np.nan, f32).partition((64, 128))
    got = gemm_rowmax(c, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(dev.create_stream())
    s = a.astype(np.float64) @ b.astype(np.float64)
    want = np.concatenate([h - h.max(axis=1, keepdims=True) for h in (s[:, :128], s[:, 128:])], axis=1)
    bound = 2.0**-20 * 256 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))).max() + 1e-6
    assert np.all(np.abs(got - want) <= 2 * bound)
    assert set(wgmma_calls) == {(64, 16, 2, True), (128, 16, 2, False)}


CVT_X2 = """
builtin.module {
  gpu.module @m {
    gpu.func @cvt(%src: memref<?xf32, 1 : i32>, %dst: memref<?xi32, 1 : i32>, %dstb: memref<?xi32, 1 : i32>) kernel {
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %i = arith.muli %tid, %c2 : index
      %j = arith.addi %i, %c1 : index
      %hi = memref.load %src[%i] : memref<?xf32, 1 : i32>
      %lo = memref.load %src[%j] : memref<?xf32, 1 : i32>
      %h = nvvm.cvt.rn.x2.f32 %hi, %lo {type = "f16"} : f32, f32 -> i32
      %b = nvvm.cvt.rn.x2.f32 %hi, %lo {type = "bf16"} : f32, f32 -> i32
      memref.store %h, %dst[%tid] : memref<?xi32, 1 : i32>
      memref.store %b, %dstb[%tid] : memref<?xi32, 1 : i32>
      gpu.return
    }
  }
}
"""


def test_cvt_rn_x2_packs_hi_over_lo_rounded_to_nearest_even() -> None:
    from warpforge.simulator.values import BF16

    rng = np.random.default_rng(SEED + 9)
    src = (rng.standard_normal(64) * 1000).astype(np.float32)
    src[:4] = [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, np.inf, -0.0]  # ties to even (f16), inf, signed zero
    dst, dstb = np.full(32, -1, np.int32), np.full(32, -1, np.int32)
    simulate(parse_module(CVT_X2), "cvt", 1, 32, [src, dst, dstb])
    for out, dt in ((dst, np.dtype(np.float16)), (dstb, BF16)):
        bits = src.astype(dt).view(np.uint16).astype(np.uint32)
        want = (bits[0::2] << 16 | bits[1::2]).view(np.int32)  # PTX: a (hi) in the upper half, b (lo) in the lower
        assert (out == want).all(), (out[:4], want[:4])
