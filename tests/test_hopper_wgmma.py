"""`nvvm.wgmma.mma_async` end to end: a one-warpgroup m64n8k16 f16 -> f32 kernel written with nvvm ops
(tests/hopper_wgmma_kernel.mlir) lowers to inline PTX that ptxas accepts for sm_90a (CPU), and on an
H100/H200 computes A @ B like NumPy (GPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


def _wgmma_kernel_ptx() -> str:
    from warpforge.backend.export import export_llvm_ir
    from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
    from warpforge.backend.toolkit import find_ptxas, run_ptxas
    from warpforge.context import parse_module
    from warpforge.pipelines import run_pipeline

    module = parse_module((Path(__file__).parent / "hopper_wgmma_kernel.mlir").read_text())
    run_pipeline(module, "check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts")
    ptx = compile_ptx(str(export_llvm_ir(module)), NVPTXOptions(chip="sm_90a", features="+ptx80"))
    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90a", verbose=False)
    return ptx


def test_wgmma_kernel_ptx() -> None:
    ptx = _wgmma_kernel_ptx()
    assert ".target sm_90a" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16" in ptx
    assert ptx.index("wgmma.fence.sync.aligned") < ptx.index("wgmma.mma_async") < ptx.index("wgmma.commit_group.sync.aligned")
    assert ptx.index("wgmma.commit_group.sync.aligned") < ptx.index("wgmma.wait_group.sync.aligned")


@pytest.mark.gpu
def test_wgmma_m64n8k16_matches_numpy() -> None:
    import cuda.core as core

    import warpforge as wf

    dev = wf.Device(0)
    if dev.compute_capability != (9, 0):
        pytest.skip("sm_90a code needs a compute capability 9.0 device")
    stream = dev.create_stream()
    rng = np.random.default_rng(7)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    b = rng.standard_normal((16, 8)).astype(np.float16)
    da = wf.DeviceBuffer.from_host(stream, a)
    dbt = wf.DeviceBuffer.from_host(stream, np.ascontiguousarray(b.T))  # B column-major = K-major
    dd = wf.DeviceBuffer.from_host(stream, np.full((64, 8), np.nan, np.float32))  # poisoned
    kernel = core.ObjectCode.from_ptx(_wgmma_kernel_ptx().encode()).get_kernel("wgmma_m64n8k16")
    core.launch(stream.raw, core.LaunchConfig(grid=1, block=128), kernel, da.ptr, dbt.ptr, dd.ptr)
    got = dd.to_host(stream)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
