"""warpforge.runtime end to end on a simulated driver, so the glue runs without a GPU.

cuda.core and cuda.bindings are replaced by fakes whose "device memory" is host memory, whose
kernels are Python functions, and whose events complete only when their stream is synchronized.
This checks what a GPU run would otherwise be the first to check: argument packing per the kernel
ABI, the error-record pool (zeroing, recycling, growth), `KernelError` at every sync point, stream
tracking of buffers, and the shared-memory opt-in call. tests/test_runtime_gpu.py checks the real
thing on a GPU.
"""

from __future__ import annotations

import ctypes
import itertools
import threading

import numpy as np
import pytest

import cuda.core
import cuda.core.utils
from warpforge.errors import DeviceError, KernelError, LaunchError
from warpforge.runtime import (
    CompiledKernel,
    Device,
    DeviceBuffer,
    DeviceLimits,
    ErrorSite,
    LaunchConfig,
    ParamSpec,
    gpu_available,
    launch,
    prepare,
    synchronize,
)
from warpforge.runtime import _driver
from warpforge.runtime import device as rt_device
from warpforge.runtime import errors as rt_errors
from warpforge.runtime import module as rt_module

from fake_memory_view import FakeStridedMemoryView

F32 = np.dtype(np.float32)


def host_array(ptr: int, n: int, ctype=ctypes.c_float) -> np.ndarray:
    return np.ctypeslib.as_array((ctype * n).from_address(ptr)) if n else np.zeros(0)


class Sim:
    """The simulated GPU: memory, driver calls, streams and kernels."""

    def __init__(self):
        self.blocks: list = []
        self.calls: list[tuple] = []
        self.kernels: dict[str, tuple[int, object]] = {}  # entry -> (PTX param count, python fn)
        self.launches: list[tuple] = []

    def alloc(self, n: int) -> int:
        buf = ctypes.create_string_buffer(max(n, 1))
        self.blocks.append(buf)
        return ctypes.addressof(buf)


class FakeCuEvent:
    """A `CUevent` of the fake driver: remembers the stream it was last recorded on."""

    def __init__(self):
        self.stream = None


class FakeDriver:
    class CUresult:
        CUDA_SUCCESS = 0

    class CUfunction_attribute:
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

    class CUevent_flags:
        CU_EVENT_DISABLE_TIMING = 2

    def __init__(self, sim: Sim):
        self.sim = sim

    def CUdevice(self, n):
        return n

    def cuInit(self, flags):
        return (0,)

    def cuDeviceGetCount(self):
        return (0, 1)

    def cuMemAlloc(self, n):
        return (0, self.sim.alloc(n))

    def cuMemsetD8Async(self, ptr, value, n, stream):
        self.sim.calls.append(("memset", ptr, n, stream))
        ctypes.memset(ptr, value, n)
        return (0,)

    def cuMemcpyHtoDAsync(self, dst, src, n, stream):
        self.sim.calls.append(("htod", dst, n, stream))
        ctypes.memmove(dst, src, n)
        return (0,)

    def cuMemcpyDtoHAsync(self, dst, src, n, stream):
        self.sim.calls.append(("dtoh", src, n, stream))
        ctypes.memmove(dst, src, n)
        return (0,)

    def cuKernelSetAttribute(self, attr, value, kernel, dev):
        self.sim.calls.append(("attr", attr, value, kernel, dev))
        return (0,)

    def cuKernelGetFunction(self, kernel):
        return (0, kernel)

    # stream order: ("event", flags), ("record", stream), ("wait", consumer stream, recorded stream)
    def cuEventCreate(self, flags):
        self.sim.calls.append(("event", flags))
        return (0, FakeCuEvent())

    def cuEventRecord(self, event, stream):
        self.sim.calls.append(("record", int(stream)))
        event.stream = int(stream)
        return (0,)

    def cuStreamWaitEvent(self, stream, event, flags):
        assert flags == 0 and event.stream is not None
        self.sim.calls.append(("wait", int(stream), event.stream))
        return (0,)

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_FAKE")

    def cuGetErrorString(self, err):
        return (0, b"fake failure")


class FakeEvent:
    def __init__(self):
        self.stream, self.seq = None, 0

    @property
    def is_done(self):
        return self.stream.synced >= self.seq

    def sync(self):
        self.stream.synced = max(self.stream.synced, self.seq)


_handles = itertools.count(0x7000)


class FakeStream:
    def __init__(self, device):
        self.handle, self.device = next(_handles), device
        self.seq = self.synced = 0
        self.syncs = 0

    @staticmethod
    def from_handle(handle):
        s = FakeStream(FAKE_DEVICES[0])
        s.handle = handle
        return s

    def __cuda_stream__(self):
        return (0, self.handle)

    def sync(self):
        self.syncs += 1
        self.synced = self.seq

    def record(self, event=None):
        event = event or FakeEvent()
        self.seq += 1
        event.stream, event.seq = self, self.seq
        return event


class FakeBuffer:
    def __init__(self, ptr, stream=None):
        self.handle = ptr
        self.free_stream = stream  # the stream cuda.core would free it on

    def set_deallocation_stream(self, stream):
        self.free_stream = stream


class FakeProps:
    def __init__(self):
        h = DeviceLimits.H200
        self.compute_capability_major, self.compute_capability_minor = h.compute_capability
        self.max_threads_per_block = h.max_threads_per_block
        self.max_block_dim_x, self.max_block_dim_y, self.max_block_dim_z = h.max_block_dim
        self.max_grid_dim_x, self.max_grid_dim_y, self.max_grid_dim_z = h.max_grid_dim
        self.max_shared_memory_per_block = h.max_shared_per_block
        self.max_shared_memory_per_block_optin = h.max_shared_per_block_optin
        self.warp_size, self.multiprocessor_count = h.warp_size, h.multiprocessor_count


class FakeCoreDevice:
    def __init__(self, sim, ordinal):
        self.sim, self.device_id, self.name, self.properties = sim, ordinal, "Fake H200", FakeProps()
        self.streams: list[FakeStream] = []

    def set_current(self):
        pass

    def create_stream(self):
        self.streams.append(FakeStream(self))
        return self.streams[-1]

    def allocate(self, n, *, stream):
        assert isinstance(stream, FakeStream)
        return FakeBuffer(self.sim.alloc(n), stream)

    def sync(self):
        for s in self.streams:
            s.sync()


class FakeKernel:
    def __init__(self, entry, argc):
        self.entry, self.argc, self.handle = entry, argc, id(self)

    @property
    def num_arguments(self):
        # cuda.core probes cuKernelGetParamInfo until it fails: compute-sanitizer reports every probe
        raise AssertionError("the runtime must not probe the loaded kernel's parameters (cuKernelGetParamInfo)")


class FakeObjectCode:
    def __init__(self, ptx: bytes, sim):
        self.ptx, self.sim = ptx, sim

    def get_kernel(self, entry):
        if b"bogus" in self.ptx:
            raise RuntimeError("CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed")
        if entry not in self.sim.kernels:
            raise RuntimeError("CUDA_ERROR_NOT_FOUND: named symbol not found")
        return FakeKernel(entry, self.sim.kernels[entry][0])


FAKE_DEVICES: dict[int, FakeCoreDevice] = {}


@pytest.fixture
def sim(monkeypatch):
    sim = Sim()
    FAKE_DEVICES.clear()
    FAKE_DEVICES[0] = FakeCoreDevice(sim, 0)
    monkeypatch.setattr(_driver, "driver", lambda: FakeDriver(sim))
    monkeypatch.setattr(cuda.core, "Device", lambda ordinal: FAKE_DEVICES[ordinal])
    monkeypatch.setattr(cuda.core, "Stream", FakeStream)
    monkeypatch.setattr(cuda.core, "LegacyPinnedMemoryResource", lambda: type("MR", (), {"allocate": lambda self, n: FakeBuffer(sim.alloc(n))})())
    monkeypatch.setattr(cuda.core, "ObjectCode", type("OC", (), {"from_ptx": staticmethod(lambda ptx, name="": FakeObjectCode(ptx, sim))}))

    def fake_launch(stream, config, kernel, *args):
        assert isinstance(stream, FakeStream) and isinstance(config, cuda.core.LaunchConfig)
        sim.launches.append((kernel.entry, config, args))
        sim.kernels[kernel.entry][1](config, *args)

    monkeypatch.setattr(cuda.core, "launch", fake_launch)
    monkeypatch.setattr(rt_device, "_devices", {})
    monkeypatch.setattr(rt_device, "_current", threading.local())
    monkeypatch.setattr(rt_errors, "_pools", {})
    monkeypatch.setattr(rt_module, "_cache", {})
    gpu_available.cache_clear()
    yield sim
    gpu_available.cache_clear()


# --- the simulated kernels (Python, one "thread" per index) ---------------------------------------


def threads(config) -> int:
    return config.grid[0] * config.block[0]


def vecadd_fn(config, a, na, b, nb, c, nc, record):
    assert type(a) is int and type(na) is np.int64 and type(record) is int
    assert not host_array(record, 8, ctypes.c_int64).any(), "the error record must be zero at launch"
    n = min(int(nc), threads(config))
    host_array(c, n)[:] = host_array(a, n) + host_array(b, n)


def saxpy_fn(config, alpha, x, nx, y, ny, out, nout, flag):
    assert type(alpha) is np.float32 and type(flag) is np.bool_
    n = min(int(nout), threads(config))
    host_array(out, n)[:] = alpha * host_array(x, n) + (host_array(y, n) if flag else 0)


def oob_fn(config, a, na, out, nout, record):
    rec = host_array(record, 8, ctypes.c_int64)
    assert not rec.any(), "the error record must be zero at launch"
    src, dst = host_array(a, int(na)), host_array(out, int(nout))
    for i in range(min(int(nout), threads(config))):
        if i < na:
            dst[i] = src[i]
            continue
        rec[0] += 1
        if rec[0] == 1:
            bx, tx = divmod(i, config.block[0])
            rec[1:] = [1, i, int(na), bx, 0, tx, 0]
        dst[i] = 0


_PTX_PARAM = {1: ".u8 {}", 2: ".align 2 .b8 {}[2]", 4: ".u32 {}", 8: ".u64 {}"}


def fake_ptx(entry: str, sizes: list[int]) -> str:
    """A PTX `.entry` declaration with parameters of `sizes` bytes, spelled as LLVM's NVPTX does."""
    params = ",\n".join(f"\t.param {_PTX_PARAM[n].format(f'{entry}_param_{i}')}" for i, n in enumerate(sizes))
    return f"//\n// fake PTX\n.version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry {entry}(\n{params}\n)\n{{\n\tret;\n}}\n"


def make(name, params, fn, argc=None, **kw):
    params = tuple(params)
    checked = kw.pop("checked", True)
    sizes = [s for p in params for s in ([8] * p.abi_count if p.is_slice else [p.dtype.itemsize])] + ([8] if checked else [])
    k = CompiledKernel(
        name=name, entry=name, ptx=kw.pop("ptx", fake_ptx(name, sizes)), chip="sm_90", params=params,
        checked=checked, error_sites=tuple(kw.pop("error_sites", ())),
        exact_block=kw.pop("exact_block", None), max_threads=None, index_domain=kw.pop("index_domain", None),
        cache_key=f"fake-{name}", **kw,
    )
    return k, (argc if argc is not None else k.abi_param_count, fn)


VECADD, VECADD_IMPL = make(
    "vecadd", [ParamSpec("a", "slice", F32), ParamSpec("b", "slice", F32), ParamSpec("c", "disjoint_slice", F32)],
    vecadd_fn, exact_block=(256, 1, 1), index_domain=1,
)
SAXPY, SAXPY_IMPL = make(
    "saxpy", [ParamSpec("alpha", "scalar", F32), ParamSpec("x", "slice", F32), ParamSpec("y", "slice", F32),
              ParamSpec("out", "disjoint_slice", F32), ParamSpec("flag", "scalar", np.dtype(np.bool_))],
    saxpy_fn, checked=False,
)
OOB, OOB_IMPL = make(
    "oob", [ParamSpec("a", "slice", F32), ParamSpec("out", "disjoint_slice", F32)], oob_fn,
    error_sites=[ErrorSite(1, "out-of-range read", "a[i] read out of range", "oob.py", 3, 14)],
)


@pytest.fixture
def dev(sim):
    sim.kernels.update(vecadd=VECADD_IMPL, saxpy=SAXPY_IMPL, oob=OOB_IMPL)
    return Device(0)


def rand(n):
    return np.random.default_rng(1650).standard_normal(n).astype(np.float32)


# --- tests --------------------------------------------------------------------------------------


def test_device_and_streams(dev):
    assert gpu_available()
    assert Device(0) is dev and dev.chip == "sm_90" and dev.limits == DeviceLimits.for_testing(name="Fake H200")
    s = dev.create_stream()
    assert s.device is dev and s.handle == s.raw.handle and s.__cuda_stream__() == (0, s.handle)
    assert dev.default_stream is dev.default_stream and dev.default_stream != s


def test_vecadd_end_to_end(sim, dev):
    s = dev.create_stream()
    a_h, b_h = rand(1000), rand(1000)
    a, b = DeviceBuffer.from_host(s, a_h), DeviceBuffer.from_host(s, b_h)
    c = DeviceBuffer.from_host(s, np.full(1000, np.nan, np.float32))
    prepared = prepare(VECADD, LaunchConfig(4, 256), dev)
    launch(s, prepared, (a, b, c), kernel=VECADD)
    entry, config, args = sim.launches[-1]
    assert config.grid == (4, 1, 1) and config.block == (256, 1, 1) and config.shmem_size == 0
    assert args[:6] == (a.ptr, 1000, b.ptr, 1000, c.ptr, 1000) and len(args) == 7
    # nothing but the event follows the launch in its stream: no copy of the record slot there
    assert not [c for c in sim.calls if c[0] == "dtoh" and c[3] == s.handle]
    np.testing.assert_array_equal(c.to_host(), a_h + b_h)
    # the sync that checks copied the completed slot back, on the pool's own stream
    copies = [c for c in sim.calls if c[0] == "dtoh" and c[1] == args[6]]
    assert copies == [("dtoh", args[6], 64, rt_errors._pools[0]._copy_stream.handle)] and copies[0][3] != s.handle


def test_scalars_packed_at_exact_width(sim, dev):
    s = dev.create_stream()
    x_h, y_h = rand(300), rand(300)
    x, y, out = DeviceBuffer.from_host(s, x_h), DeviceBuffer.from_host(s, y_h), DeviceBuffer.zeroed(s, 300, F32)
    prepared = prepare(SAXPY, LaunchConfig(2, 256), dev)
    launch(s, prepared, (2, x, y, out, True))
    np.testing.assert_array_equal(out.to_host(), np.float32(2) * x_h + y_h)
    assert len(sim.launches[-1][2]) == 8  # unchecked: no record pointer
    with pytest.raises(LaunchError, match="saxpy: scalar flag is a bool; got int 1"):
        launch(s, prepared, (2.0, x, y, out, 1))


def test_kernel_error_at_to_host_then_clean_relaunch(sim, dev):
    s = dev.create_stream()
    a_h = rand(1000)
    a, out = DeviceBuffer.from_host(s, a_h), DeviceBuffer.zeroed(s, 1024, F32)
    prepared = prepare(OOB, LaunchConfig(4, 256), dev)
    launch(s, prepared, (a, out))
    with pytest.raises(KernelError) as info:
        out.to_host()
    assert str(info.value) == (
        "oob: a[i] read out of range at oob.py:3:14: index 1000 not in [0, 1000) (block (3, 0), thread (232, 0)); 23 more errors"
    )
    assert info.value.details["count"] == 24
    np.testing.assert_array_equal(out.to_host()[:1000], a_h)  # reported once
    # the written slot is zeroed (in the stream) before its next use; oob_fn asserts it
    memsets = sum(1 for c in sim.calls if c[0] == "memset" and c[2] == 64)
    a2 = DeviceBuffer.from_host(s, rand(1024))
    launch(s, prepared, (a2, out))
    assert sum(1 for c in sim.calls if c[0] == "memset" and c[2] == 64) == memsets + 1
    out.to_host()


def test_kernel_error_at_next_launch_and_synchronize(sim, dev):
    s = dev.create_stream()
    a, out = DeviceBuffer.zeroed(s, 10, F32), DeviceBuffer.zeroed(s, 20, F32)
    good = DeviceBuffer.zeroed(s, 20, F32)
    prepared = prepare(OOB, LaunchConfig(1, 256), dev)
    launch(s, prepared, (a, out))
    s.raw.sync()  # completes without checking
    with pytest.raises(KernelError, match="index 10 not in"):
        launch(s, prepared, (good, out))
    launch(s, prepared, (a, out))
    with pytest.raises(KernelError):
        synchronize()
    launch(s, prepared, (a, out))
    with pytest.raises(KernelError):
        dev.synchronize()
    launch(s, prepared, (a, out))
    with pytest.raises(KernelError):
        s.sync()
    launch(s, prepared, (good, out))
    s.sync()


def test_error_records_grow_and_recycle(sim, dev):
    s = dev.create_stream()
    x, out = DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    for _ in range(600):  # nothing completes before the sync: the pool grows to 3 chunks
        launch(s, prepared, (x, out))
    pool = rt_errors._pools[0]
    assert pool.pending_count == 600 and len(pool._chunks) == 3
    first_use = sum(1 for c in sim.calls if c[0] == "memset" and c[2] == 64)
    assert first_use == 600  # each new slot is zeroed once, on first use
    s.sync()
    assert pool.pending_count == 0 and len(pool._free) == 3 * rt_errors.SLOTS_PER_CHUNK
    for _ in range(600):  # clean slots are reused without zeroing again
        launch(s, prepared, (x, out))
    s.sync()
    assert sum(1 for c in sim.calls if c[0] == "memset" and c[2] == 64) == first_use
    assert len(pool._chunks) == 3


def record_copies(sim, s):
    """The batch copies of error records: device → host copies on a stream other than `s`."""
    return [c for c in sim.calls if c[0] == "dtoh" and c[3] != s.handle]


def test_many_launches_between_syncs_error_in_the_kth(sim, dev):
    s = dev.create_stream()
    good, short = DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.from_host(s, rand(10))
    out = DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    for k in range(100):  # only the 38th launch reads out of range; nothing completes before the sync
        launch(s, prepared, (short if k == 37 else good, out))
    assert record_copies(sim, s) == []  # nothing copied per launch
    pool = rt_errors._pools[0]
    assert pool.pending_count == 100
    with pytest.raises(KernelError) as info:
        s.sync()
    assert str(info.value) == (
        "oob: a[i] read out of range at oob.py:3:14: index 10 not in [0, 10) (block (0, 0), thread (10, 0)); 53 more errors"
    )
    assert info.value.details["count"] == 54 and info.value.details["thread"] == (10, 0)
    # one batched copy of the 100 slots (one chunk, consecutive), not one per launch
    copies = record_copies(sim, s)
    assert len(copies) == 1 and copies[0][2] == 100 * 64
    assert pool.pending_count == 0
    s.sync()  # reported once
    # the written slot is zeroed before its reuse (oob_fn asserts a zero record at every launch)
    for _ in range(300):
        launch(s, prepared, (good, out))
    s.sync()


def test_errors_of_several_launches_each_counted(sim, dev):
    s = dev.create_stream()
    good, short = DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.from_host(s, rand(10))
    out = DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    for k in range(50):
        launch(s, prepared, (short if k in (5, 20, 41) else good, out))
    with pytest.raises(KernelError, match=r"index 10 not in \[0, 10\).*\(2 later launches also recorded errors\)$"):
        synchronize()
    launch(s, prepared, (good, out))
    s.sync()


def test_launch_reports_a_completed_error_without_a_copy_per_launch(sim, dev):
    s = dev.create_stream()
    good, short = DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.from_host(s, rand(10))
    out = DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    for k in range(20):
        launch(s, prepared, (short if k == 12 else good, out))
    s.raw.sync()  # all 20 complete, unchecked
    with pytest.raises(KernelError, match="index 10 not in"):
        launch(s, prepared, (good, out))  # the launch's cheap check finds them (one batch copy)
    assert len(record_copies(sim, s)) == 1
    # the launch that raised was not enqueued; the launches still running are not copied
    launch(s, prepared, (good, out))
    launch(s, prepared, (good, out))
    assert len(record_copies(sim, s)) == 1 and rt_errors._pools[0].pending_count == 2
    s.sync()
    assert len(record_copies(sim, s)) == 2


def test_old_protocol_switch_copies_after_each_launch(sim, dev, monkeypatch):
    monkeypatch.setattr(rt_errors, "_COPY_AFTER_LAUNCH", True)
    s = dev.create_stream()
    good, short = DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.from_host(s, rand(10))
    out = DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    for k in range(10):
        launch(s, prepared, (short if k == 3 else good, out))
    assert sum(1 for c in sim.calls if c[0] == "dtoh" and c[2] == 64 and c[3] == s.handle) == 10
    with pytest.raises(KernelError, match="index 10 not in"):
        s.sync()
    assert record_copies(sim, s) == []


def test_buffers_follow_their_last_stream(sim, dev):
    s1, s2 = dev.create_stream(), dev.create_stream()
    a, b, c = (DeviceBuffer.zeroed(s1, 256, F32) for _ in range(3))
    launch(s2, prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    assert c.stream is s2
    syncs = s2.raw.syncs
    c.to_host()
    assert s2.raw.syncs == syncs + 1 and [x[3] for x in sim.calls if x[0] == "dtoh" and x[1] == c.ptr] == [s2.handle]
    # default stream when none is given
    d = DeviceBuffer.zeroed(None, 4, np.int32)
    assert d.stream is dev.default_stream
    # a foreign stream (any object with __cuda_stream__)
    foreign = type("TorchLikeStream", (), {"__cuda_stream__": lambda self: (0, 0xBEEF)})()
    launch(foreign, prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    assert c.stream.handle == 0xBEEF


def test_cuda_array_interface_arguments(sim, dev, monkeypatch):
    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", FakeStridedMemoryView)
    s = dev.create_stream()
    a_h, b_h = rand(256), rand(256)
    a, b, c = DeviceBuffer.from_host(s, a_h), DeviceBuffer.from_host(s, b_h), DeviceBuffer.zeroed(s, 256, F32)

    class CaiOnly:  # numba-style: only __cuda_array_interface__
        def __init__(self, buf):
            self.__cuda_array_interface__ = buf.__cuda_array_interface__

    launch(s, prepare(VECADD, LaunchConfig(1, 256), dev), (CaiOnly(a), CaiOnly(b), CaiOnly(c)))
    np.testing.assert_array_equal(c.to_host(), a_h + b_h)
    assert a.__cuda_array_interface__["stream"] == s.handle


def test_shared_memory_opt_in(sim, dev):
    k, impl = make("shm", [ParamSpec("x", "disjoint_slice", F32)], lambda *a: None, checked=False)
    sim.kernels["shm"] = impl
    big = prepare(k, LaunchConfig(1, 256, 64 * 1024), dev)
    assert big.shared_optin
    attrs = [c for c in sim.calls if c[0] == "attr"]
    assert [(c[1], c[2], c[4]) for c in attrs] == [(8, 64 * 1024, 0)]
    assert not prepare(k, LaunchConfig(1, 256, 1024), dev).shared_optin
    prepare(k, LaunchConfig(1, 256, 60 * 1024), dev)  # below what is set: nothing to do
    prepare(k, LaunchConfig(1, 256, 100 * 1024), dev)
    assert [c[2] for c in sim.calls if c[0] == "attr"] == [64 * 1024, 100 * 1024]


def test_load_failures(sim, dev):
    sim.kernels["bad"] = (7, vecadd_fn)
    k, _ = make("bad", VECADD.params, vecadd_fn, ptx="add.bogus.f32")
    with pytest.raises(DeviceError, match="rejected the PTX of bad"):
        prepare(k, LaunchConfig(1, 256), dev)
    k, _ = make("nowhere", VECADD.params, vecadd_fn)
    with pytest.raises(DeviceError, match="no .entry named 'nowhere'"):
        prepare(k, LaunchConfig(1, 256), dev)
    # the ABI check reads the PTX the compiler generated, never the loaded kernel (FakeKernel asserts it)
    sim.kernels["short"] = (5, vecadd_fn)
    k, _ = make("short", VECADD.params, vecadd_fn, ptx=fake_ptx("short", [8] * 5))
    with pytest.raises(LaunchError, match=r"takes 5 parameters, but its signature describes 7 \(a: 2, b: 2, c: 2, error record: 1\)"):
        prepare(k, LaunchConfig(1, 256), dev)
    sim.kernels["narrow"] = (8, saxpy_fn)
    k, _ = make("narrow", SAXPY.params, saxpy_fn, checked=False, ptx=fake_ptx("narrow", [8, 8, 8, 8, 8, 8, 8, 4]))
    with pytest.raises(LaunchError, match=r"takes parameters of \[8, 8, 8, 8, 8, 8, 8, 4\] bytes, but its signature describes \[4, 8, 8, 8, 8, 8, 8, 1\]"):
        prepare(k, LaunchConfig(1, 256), dev)
    sim.kernels["elsewhere"] = (7, vecadd_fn)
    k, _ = make("elsewhere", VECADD.params, vecadd_fn, ptx=fake_ptx("other", [8] * 7))
    with pytest.raises(LaunchError, match="declares no .entry elsewhere"):
        prepare(k, LaunchConfig(1, 256), dev)


def test_errors_found_while_recycling_slots_are_reported(sim, dev):
    # A launch still running on one stream stops each launch's cheap (front-only) check, so completed
    # launches of another stream stay pending until the pool runs out of slots; recycling them then
    # decoded their records and dropped the errors (the later sync reported nothing)
    s1, s2 = dev.create_stream(), dev.create_stream()
    good, short = DeviceBuffer.from_host(s2, rand(64)), DeviceBuffer.from_host(s2, rand(10))
    out1, out2 = DeviceBuffer.zeroed(s1, 64, F32), DeviceBuffer.zeroed(s2, 64, F32)
    s1.raw.sync(), s2.raw.sync()
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    launch(s1, prepared, (good, out1))  # at the front of the pending list, not complete until s1 syncs
    for k in range(10):
        launch(s2, prepared, (short if k == 3 else good, out2))
    s2.raw.sync()  # complete, unchecked
    pool = rt_errors._pools[0]
    reports = []
    for _ in range(rt_errors.SLOTS_PER_CHUNK):  # runs the pool's first chunk dry: acquire recycles s2's slots
        try:
            launch(s2, prepared, (good, out2))
        except KernelError as e:  # the next launch's check reports what recycling decoded (not enqueued)
            reports.append(e)
    try:
        synchronize()
    except KernelError as e:
        reports.append(e)
    assert len(pool._chunks) == 1  # recycled, not grown
    assert [str(e).split(";")[0] for e in reports] == ["oob: a[i] read out of range at oob.py:3:14: index 10 not in [0, 10) (block (0, 0), thread (10, 0))"]
    s1.sync(), s2.sync()  # reported once
