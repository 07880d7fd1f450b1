"""The CPU simulator behind the runtime's API (`wf.Device.simulator()`, `WARPFORGE_SIMULATE=1`):
devices, streams, buffers, `prepare`/`launch`/`kernel[grid, block]`, the GPU path's argument checks,
and `KernelError` at every sync point. Runs without a GPU."""

from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest

import warpforge as wf
from warpforge import simt
from warpforge.runtime import DeviceLimits, PreparedLaunch, as_device_view, prepare
from warpforge.runtime.simulated import SimulatorDevice
from warpforge.simulator import SimulatorError

rng = np.random.default_rng(1660)


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def vecadd(a: simt.Slice[wf.f32], b: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i]


@simt.kernel
def read_next(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get() + 1]


@simt.kernel
def scale(x: simt.Slice[wf.bf16], s: wf.bf16, flag: bool, out: simt.DisjointSlice[wf.bf16]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):
        out[idx] = x[i] * s if flag else x[i]


@simt.kernel(checks=False)
def unchecked_read(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get() + 1]


@pytest.fixture
def sim():
    dev = wf.Device.simulator()
    yield dev
    try:
        dev.synchronize()  # nothing left pending for the next test
    except wf.KernelError:
        pass


def test_the_simulator_device_has_the_gpu_api(sim) -> None:
    assert sim is wf.Device.simulator() and wf.Device(sim) is sim
    assert isinstance(sim, wf.Device) and sim.simulated and not wf.Device.simulated
    assert sim.limits is DeviceLimits.H200
    assert (sim.chip, sim.compute_capability) == ("sm_90", (9, 0))
    assert "CPU simulator" in sim.name and "H200" in sim.name
    assert "simulator" in repr(sim)
    s = sim.create_stream()
    assert isinstance(s, wf.Stream) and s.device is sim and s != sim.create_stream()
    assert sim.default_stream is sim.default_stream
    assert not hasattr(s, "__cuda_stream__")  # no CUDA library may take it for a stream
    assert pickle.loads(pickle.dumps(sim)) is sim
    assert wf.simulating()  # a simulator device exists in this process
    other = wf.Device.simulator(DeviceLimits.for_testing(max_threads_per_block=512))
    assert other is not sim and other.limits.max_threads_per_block == 512


def test_environment_variable_makes_device_0_the_simulator(monkeypatch) -> None:
    monkeypatch.setenv("WARPFORGE_SIMULATE", "1")
    assert wf.simulating()
    dev = wf.Device(0)
    assert dev is wf.Device.simulator()
    with pytest.raises(wf.DeviceError, match="only device"):
        wf.Device(1)
    buf = wf.DeviceBuffer.from_host(None, np.arange(4, dtype=np.float32))  # None: Device(0)'s default stream
    assert buf.device is dev and buf.stream is dev.default_stream
    a = wf.DeviceBuffer.from_host(None, np.arange(256, dtype=np.float32))
    c = wf.DeviceBuffer.zeroed(None, 256, wf.f32)
    vecadd[1, 256](a, a, c)  # the shorthand: Device(0), its default stream
    np.testing.assert_array_equal(c.to_host(), 2 * np.arange(256, dtype=np.float32))
    prepared = vecadd.prepare(wf.LaunchConfig(grid=1, block=256))  # device=None: Device(0)
    assert prepared.device is dev


def test_buffers_live_in_host_memory_and_copy(sim) -> None:
    s = sim.create_stream()
    host = rng.standard_normal(100).astype(np.float32)
    buf = wf.DeviceBuffer.from_host(s, host)
    host[:] = 0  # from_host copied
    assert isinstance(buf, wf.DeviceBuffer) and buf.device is sim and buf.stream is s
    assert (buf.shape, buf.dtype, buf.size, buf.nbytes, len(buf)) == ((100,), np.float32, 100, 400, 100)
    out = buf.to_host()
    assert out.dtype == np.float32 and not np.array_equal(out, host)
    out[:] = 7  # to_host copied too
    assert not np.array_equal(buf.to_host(s), out)
    assert not hasattr(buf, "__cuda_array_interface__")
    assert "CPU simulator" in repr(buf)
    z = wf.DeviceBuffer.zeroed(s, (3, 4), np.int16)
    assert z.shape == (3, 4) and not z.to_host().any()
    e = wf.DeviceBuffer.empty(s, 5, wf.bf16)
    assert e.dtype == ml_dtypes.bfloat16
    z.copy_from_host(np.ones((3, 4), np.int16))
    np.testing.assert_array_equal(z.to_host(), np.ones((3, 4), np.int16))
    with pytest.raises(wf.LaunchError, match="holds int16"):
        z.copy_from_host(np.ones((3, 4), np.int32))
    with pytest.raises(wf.LaunchError, match="shape"):
        z.copy_from_host(np.ones(12, np.int16))
    with pytest.raises(wf.LaunchError, match="not supported"):
        wf.DeviceBuffer.zeroed(s, 4, np.complex64)
    with pytest.raises(wf.LaunchError, match="shape"):
        wf.DeviceBuffer.zeroed(s, -1, np.float32)


def _buffers(stream, n: int = 1024):
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return a, b, wf.DeviceBuffer.from_host(stream, a), wf.DeviceBuffer.from_host(stream, b), wf.DeviceBuffer.zeroed(stream, n, wf.f32)


def test_prepare_launch_and_shorthand(sim) -> None:
    s = sim.create_stream()
    a, b, da, db, dc = _buffers(s)
    prepared = vecadd.prepare(wf.LaunchConfig(grid=4, block=256), device=sim)
    assert isinstance(prepared, PreparedLaunch) and prepared.device is sim and not prepared.shared_optin
    vecadd.launch(s, prepared, da, db, dc)
    np.testing.assert_array_equal(dc.to_host(s), a + b)
    assert sim.last_stats.blocks == 4 and sim.last_stats.threads == 1024
    dc2 = wf.DeviceBuffer.zeroed(s, 1024, wf.f32)
    vecadd[4, 256, s](da, db, dc2)
    np.testing.assert_array_equal(dc2.to_host(), a + b)
    big = read_next.prepare(wf.LaunchConfig(grid=1, block=32, shmem_size=64 * 1024), device=sim)
    assert big.shared_optin  # above 48 KiB, as on the GPU


def test_launch_refusals_are_the_gpu_paths(sim) -> None:
    s = sim.create_stream()
    _, _, da, db, dc = _buffers(s)
    with pytest.raises(wf.LaunchError, match=r"requires block \(256, 1, 1\)"):
        vecadd.prepare(wf.LaunchConfig(grid=8, block=128), device=sim)
    small = wf.Device.simulator(DeviceLimits.for_testing(max_threads_per_block=128, name="small GPU"))
    with pytest.raises(wf.LaunchError, match="small GPU allows at most 128 threads per block"):
        read_next.prepare(wf.LaunchConfig(grid=1, block=256), device=small)
    prepared = vecadd.prepare(wf.LaunchConfig(grid=4, block=256), device=sim)
    with pytest.raises(wf.LaunchError, match="expects float32 elements, got int32"):
        vecadd.launch(s, prepared, da, wf.DeviceBuffer.zeroed(s, 1024, wf.i32), dc)
    with pytest.raises(wf.LaunchError, match="is 1-D, got a 2-D array"):
        vecadd.launch(s, prepared, da, wf.DeviceBuffer.zeroed(s, (2, 512), wf.f32), dc)
    with pytest.raises(wf.LaunchError, match="takes 3 arguments"):
        vecadd.launch(s, prepared, da, db)
    with pytest.raises(wf.LaunchError, match="NumPy array lives in host memory"):
        vecadd.launch(s, prepared, da, db, np.zeros(1024, np.float32))
    with pytest.raises(wf.LaunchError, match="prepared for the CPU simulator, but the stream belongs to"):
        vecadd.launch(small.create_stream(), prepared, da, db, dc)
    with pytest.raises(wf.LaunchError, match="lives on CPU simulator"):
        read_next.launch(small.create_stream(), read_next.prepare(wf.LaunchConfig(grid=1, block=32), device=small), da, dc)
    with pytest.raises(wf.AliasError, match="output 'c' of vecadd is the same memory as input 'b'"):
        vecadd.launch(s, prepared, da, db, db)
    with pytest.raises(wf.LaunchError, match="not PTX"):
        prepare(vecadd.compile("sm_90"), wf.LaunchConfig(grid=4, block=256), sim)


def test_scalars_are_checked_and_passed_at_their_width(sim) -> None:
    s = sim.create_stream()
    x = rng.standard_normal(40).astype(ml_dtypes.bfloat16)
    dx, out = wf.DeviceBuffer.from_host(s, x), wf.DeviceBuffer.zeroed(s, 40, wf.bf16)
    prepared = scale.prepare(wf.LaunchConfig(grid=2, block=32), device=sim)
    scale.launch(s, prepared, dx, 1.5, True, out)
    np.testing.assert_array_equal(out.to_host(), (x * ml_dtypes.bfloat16(1.5)).astype(ml_dtypes.bfloat16))
    with pytest.raises(wf.LaunchError, match="does not fit bfloat16"):
        scale.launch(s, prepared, dx, 1e39, True, out)
    with pytest.raises(wf.LaunchError, match="is a bool"):
        scale.launch(s, prepared, dx, 1.5, 1, out)


class _CudaArray:
    """Looks like a torch/cupy CUDA array (the CUDA array interface)."""

    __cuda_array_interface__ = {"version": 3, "shape": (1024,), "typestr": "<f4", "data": (1 << 40, False), "strides": None}


class _DLPackTensor:
    def __dlpack__(self, stream=None):
        raise AssertionError("never read")

    def __dlpack_device__(self):
        return (2, 0)


def test_torch_and_cupy_arrays_are_refused_on_the_simulator(sim) -> None:
    s = sim.create_stream()
    _, _, da, db, dc = _buffers(s)
    prepared = vecadd.prepare(wf.LaunchConfig(grid=4, block=256), device=sim)
    for foreign in (_CudaArray(), _DLPackTensor()):
        with pytest.raises(wf.LaunchError, match="the CPU simulator runs kernels on wf.DeviceBuffers made on its streams"):
            vecadd.launch(s, prepared, da, foreign, dc)
    with pytest.raises(wf.LaunchError, match="already in device memory"):
        wf.DeviceBuffer.from_host(s, _CudaArray())
    # and a simulator buffer is never taken for GPU memory
    with pytest.raises(wf.LaunchError, match="CPU simulator's \\(host\\) memory"):
        as_device_view(da)


def test_kernel_error_is_raised_at_every_sync_point(sim) -> None:
    s = sim.create_stream()
    x = wf.DeviceBuffer.from_host(s, rng.standard_normal(256, dtype=np.float32))
    out = wf.DeviceBuffer.zeroed(s, 256, wf.f32)
    prepared = read_next.prepare(wf.LaunchConfig(grid=1, block=256), device=sim)
    line = read_next.fn.__code__.co_firstlineno + 3
    sync_points = {
        "to_host": lambda: out.to_host(s),
        "Stream.sync": s.sync,
        "other stream": sim.create_stream().sync,  # as on the GPU: every completed launch of the device
        "Device.synchronize": sim.synchronize,
        "wf.synchronize": lambda: wf.runtime.synchronize(),
    }
    for name, sync in sync_points.items():
        read_next.launch(s, prepared, x, out)  # returns: the error surfaces at the sync point
        with pytest.raises(wf.KernelError) as info:
            sync()
        err = info.value
        assert err.line == line and "test_simulator_device.py" in str(err), name
        assert "read out of range" in str(err) and "index 256 not in [0, 256)" in str(err), name
        assert err.kernel == "read_next" and err.details["thread"] == (255, 0)
        s.sync()  # raised once: nothing left
    # the next launch raises it, and does not run
    read_next.launch(s, prepared, x, out)
    fresh = wf.DeviceBuffer.from_host(s, np.full(1024, 5.0, np.float32))
    untouched = wf.DeviceBuffer.zeroed(s, 1024, wf.f32)
    with pytest.raises(wf.KernelError, match="read_next"):
        vecadd[4, 256, s](fresh, fresh, untouched)
    assert not untouched.to_host(s).any()
    # a launch completes before launch() returns, so a second launch always meets the first's error
    read_next.launch(s, prepared, x, out)
    with pytest.raises(wf.KernelError):
        read_next.launch(s, prepared, x, out)
    s.sync()


def test_simulator_errors_are_raised_by_launch(sim) -> None:
    s = sim.create_stream()
    x = wf.DeviceBuffer.from_host(s, rng.standard_normal(64, dtype=np.float32))
    out = wf.DeviceBuffer.zeroed(s, 64, wf.f32)
    with pytest.raises(SimulatorError, match="out of bounds"):
        unchecked_read[1, 64, s](x, out)


def test_run_only_blocks_samples_a_grid(sim) -> None:
    s = sim.create_stream()
    a, b, da, db, dc = _buffers(s, 4096)
    prepared = vecadd.prepare(wf.LaunchConfig(grid=16, block=256), device=sim)
    with sim.run_only_blocks([15, 3]):
        vecadd.launch(s, prepared, da, db, dc)
    assert sim.last_stats.blocks == 2
    got = dc.to_host()
    ran = np.zeros(4096, bool)
    ran[15 * 256 :] = ran[3 * 256 : 4 * 256] = True
    np.testing.assert_array_equal(got[ran], (a + b)[ran])
    assert not got[~ran].any()
    vecadd.launch(s, prepared, da, db, dc)  # outside the with: every block
    assert sim.last_stats.blocks == 16
    with pytest.raises(wf.LaunchError, match="not in the grid"), sim.run_only_blocks([16]):
        vecadd.launch(s, prepared, da, db, dc)


def test_a_simulator_device_made_directly_is_the_same_object() -> None:
    assert SimulatorDevice(None) is wf.Device.simulator()
    with pytest.raises(wf.DeviceError, match="DeviceLimits"):
        wf.Device.simulator("H200")  # type: ignore[arg-type]
