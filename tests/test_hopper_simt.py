"""SIMT Hopper warpgroup control: `simt.setmaxnreg_inc/dec`, `simt.wgmma_fence/commit_group/
wait_group`, `simt.fence_proxy_async`. A kernel using an sm_90a-only one compiles for sm_90a when
asked for sm_90 (a cc 9.0 device), is refused for other chips, and runs on the simulator; misuse is a
`CompileError` at its line."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt
from warpforge.backend.toolkit import find_ptxas, run_ptxas

from hopper_setup import sm90a_device  # noqa: F401 (a fixture)


@simt.kernel
def producer_consumer(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    if simt.thread_idx.x < 128:
        simt.setmaxnreg_dec(40)
    else:
        simt.setmaxnreg_inc(232)
    simt.wgmma_fence()
    simt.wgmma_commit_group()
    simt.wgmma_wait_group(0)
    simt.fence_proxy_async()
    out[idx] = x[i] * 2.0


@simt.kernel
def proxy_fence_only(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    simt.fence_proxy_async()
    out[idx] = x[idx.get()] + 1.0


def test_sm90a_op_compiles_for_sm90a_on_a_cc90_device() -> None:
    compiled = producer_consumer.compile("sm_90")
    assert compiled.chip == "sm_90a"
    assert ".target sm_90a" in compiled.ptx
    for mnemonic in ("setmaxnreg.dec.sync.aligned.u32", "setmaxnreg.inc.sync.aligned.u32", "wgmma.fence.sync.aligned",
                     "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned", "fence.proxy.async.shared::cta"):  # fmt: skip
        assert mnemonic in compiled.ptx
    assert ".extern .func" not in compiled.ptx
    if find_ptxas() is not None:
        run_ptxas(compiled.ptx, "sm_90a", verbose=False)


def test_kernel_without_sm90a_ops_stays_sm90() -> None:
    compiled = proxy_fence_only.compile("sm_90")
    assert compiled.chip == "sm_90" and ".target sm_90\n" in compiled.ptx
    assert "fence.proxy.async.shared::cta" in compiled.ptx


def test_sm90a_op_refused_on_sm80() -> None:
    with pytest.raises(wf.CompileError, match=r"test_hopper_simt.py:\d+:\d+: error: 'nvvm.setmaxnreg.dec' op needs sm_90a and PTX 8.0, but gpu.module @\S+ targets sm_80"):
        producer_consumer.compile("sm_80", "+ptx70")


def test_runs_on_the_simulator() -> None:
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    x = np.random.default_rng(3).standard_normal(256).astype(np.float32)
    xb = wf.DeviceBuffer.from_host(stream, x)
    ob = wf.DeviceBuffer.from_host(stream, np.full(256, np.nan, np.float32))
    producer_consumer.launch(stream, producer_consumer.prepare(wf.LaunchConfig(grid=1, block=256), device=dev), xb, ob)
    np.testing.assert_array_equal(ob.to_host(stream), x * 2.0)


def _compile_error(fn, message: str) -> None:
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        fn.ir("gpu")
    assert "test_hopper_simt.py:" in str(info.value)


def test_setmaxnreg_out_of_range_is_a_compile_error() -> None:
    @simt.kernel
    def k(out: simt.DisjointSlice[wf.f32]):
        simt.setmaxnreg_inc(300)
        out[simt.index_1d()] = 1.0

    _compile_error(k, "simt.setmaxnreg_inc(regs): regs must be a multiple of 8 in [24, 256] (PTX ISA §9.7.19.5), got 300")


def test_setmaxnreg_needs_a_constant() -> None:
    @simt.kernel
    def k(n: wf.i32, out: simt.DisjointSlice[wf.f32]):
        simt.setmaxnreg_dec(n)
        out[simt.index_1d()] = 1.0

    _compile_error(k, "simt.setmaxnreg_dec regs must be a compile-time int, got a value of type i32")


def test_wgmma_wait_group_negative_is_a_compile_error() -> None:
    @simt.kernel
    def k(out: simt.DisjointSlice[wf.f32]):
        simt.wgmma_wait_group(-1)
        out[simt.index_1d()] = 1.0

    _compile_error(k, "simt.wgmma_wait_group(n) needs n >= 0, got -1")


# --------------------------------------------------------------------------- simulator: elect.sync, refusals

_ELECT = """builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @k(%lane_out: memref<?xi32, 1 : i32>, %pred_out: memref<?xi32, 1 : i32>) kernel {
      %tid = gpu.thread_id x
      %c5 = arith.constant 5 : index
      %ge = arith.cmpi uge, %tid, %c5 : index
      cf.cond_br %ge, ^go, ^done
    ^go:
      %all = arith.constant -1 : i32
      %lane, %leader = nvvm.elect.sync %all : (i32) -> (i32, i1)
      %p = arith.extui %leader : i1 to i32
      memref.store %lane, %lane_out[%tid] : memref<?xi32, 1 : i32>
      memref.store %p, %pred_out[%tid] : memref<?xi32, 1 : i32>
      cf.br ^done
    ^done:
      gpu.return
    }
  }
}"""


def test_elect_sync_elects_the_lowest_active_lane_per_warp_on_the_simulator() -> None:
    from warpforge import simulator
    from warpforge.context import parse_module

    lanes = np.full(64, -1, np.int32)
    preds = np.full(64, -1, np.int32)
    simulator.simulate(parse_module(_ELECT), "k", 1, 64, [lanes, preds])
    # threads 0..4 skip it: warp 0's leader is lane 5, warp 1's lane 0 (thread 32)
    np.testing.assert_array_equal(lanes, np.r_[np.full(5, -1), np.full(27, 5), np.full(32, 0)])
    expected = np.full(64, 0)
    expected[:5] = -1
    expected[[5, 32]] = 1
    np.testing.assert_array_equal(preds, expected)


def test_mbarrier_is_refused_by_the_simulator() -> None:
    from warpforge import simulator
    from warpforge.context import parse_module
    from warpforge.simulator import SimulatorError

    text = _ELECT.replace(
        "%lane, %leader = nvvm.elect.sync %all : (i32) -> (i32, i1)",
        '%id = arith.constant 1 : i32\n      nvvm.barrier %id, %all : i32, i32 loc("k.py":3:4)\n'
        "      %lane, %leader = nvvm.elect.sync %all : (i32) -> (i32, i1)",
    ).replace("%all = arith.constant -1 : i32", "%all = arith.constant 64 : i32")
    with pytest.raises(SimulatorError, match=r"'nvvm.barrier' at k.py:3:4: is not interpreted by the simulator"):
        simulator.simulate(parse_module(text), "k", 1, 64, [np.zeros(64, np.int32), np.zeros(64, np.int32)])


@pytest.mark.gpu
def test_sm90a_kernel_runs_on_the_gpu(sm90a_device) -> None:
    """On an H100/H200 the kernel is compiled for sm_90a, loaded and run; the result matches NumPy."""
    dev = sm90a_device
    stream = dev.create_stream()
    x = np.random.default_rng(5).standard_normal(1024).astype(np.float32)
    xb = wf.DeviceBuffer.from_host(stream, x)
    ob = wf.DeviceBuffer.from_host(stream, np.full(1024, np.nan, np.float32))
    prepared = producer_consumer.prepare(wf.LaunchConfig(grid=4, block=256), device=dev)
    producer_consumer.launch(stream, prepared, xb, ob)
    np.testing.assert_array_equal(ob.to_host(stream), x * 2.0)
    assert producer_consumer.compile(dev.chip).chip == "sm_90a"
