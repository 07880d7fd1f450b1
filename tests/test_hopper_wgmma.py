"""`nvvm.wgmma.mma_async` end to end: a one-warpgroup m64n8k16 f16 -> f32 kernel written with nvvm ops
(tests/hopper_wgmma_kernel.mlir) lowers to inline PTX that ptxas accepts for sm_90a (CPU), and on an
H100/H200 computes A @ B like NumPy (GPU)."""

from __future__ import annotations


import numpy as np
import pytest

from hopper_setup import nvvm_file_ptx, sm90a_device  # noqa: F401 (sm90a_device is a fixture)


def _wgmma_kernel_ptx() -> str:
    return nvvm_file_ptx("hopper_wgmma_kernel.mlir")


def test_wgmma_kernel_ptx() -> None:
    ptx = _wgmma_kernel_ptx()
    assert ".target sm_90a" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16" in ptx
    assert ptx.index("wgmma.fence.sync.aligned") < ptx.index("wgmma.mma_async") < ptx.index("wgmma.commit_group.sync.aligned")
    assert ptx.index("wgmma.commit_group.sync.aligned") < ptx.index("wgmma.wait_group.sync.aligned")


@pytest.mark.gpu
def test_wgmma_m64n8k16_matches_numpy(sm90a_device) -> None:
    import cuda.core as core

    import warpforge as wf

    stream = sm90a_device.create_stream()
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
