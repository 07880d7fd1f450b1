"""Stream order (warpforge.runtime.stream_order) on test_runtime_fake_driver.py's simulated driver: a
wait (`cuEventRecord` on the old stream + `cuStreamWaitEvent` on the new one) is enqueued exactly
when a buffer is used on a stream other than its last one — by a launch (`launch`, the numba-style
shorthand `kernel[grid, block](...)`, a tile chain), `to_host`, `copy_from_host`, `wf.tensor(buf)` —
and never otherwise; one event per device is reused; a foreign array's own stream (torch's current
stream, a `__cuda_array_interface__` `stream`) waits for the launch; the simulator needs no driver.
tests/test_stream_order_gpu.py checks the effect on a GPU (stale reads without it)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import cuda.core.utils
import warpforge as wf
from warpforge import f32, simt, tile
from warpforge.runtime import DeviceBuffer, LaunchConfig, _driver, launch, prepare, stream_order

from test_runtime_fake_driver import VECADD, dev, host_array, rand, sim  # noqa: F401 (fixtures)
from fake_memory_view import FakeView
from test_tile_fake_driver import tile_sim  # noqa: F401 (fixture)

def order_calls(sim) -> list[tuple]:
    """The stream-order driver calls so far, and forget them."""
    calls = [c for c in sim.calls if c[0] in ("event", "record", "wait")]
    sim.calls[:] = [c for c in sim.calls if c[0] not in ("event", "record", "wait")]
    return calls


def waits(sim) -> list[tuple[int, int]]:
    """(consumer, producer) stream handles of the waits enqueued so far, and forget all order calls."""
    return [(c[1], c[2]) for c in order_calls(sim) if c[0] == "wait"]


def test_launch_waits_only_when_the_streams_differ(sim, dev):
    s1, s2 = dev.create_stream(), dev.create_stream()
    a_h, b_h = rand(256), rand(256)
    a, b = DeviceBuffer.from_host(s1, a_h), DeviceBuffer.from_host(s1, b_h)
    c = DeviceBuffer.from_host(s1, np.full(256, np.nan, np.float32))
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    launch(s1, prepared, (a, b, c))
    assert waits(sim) == []  # same stream: nothing recorded
    launch(s2, prepared, (a, b, c))
    # three buffers last used on s1: one wait, s2 after s1
    assert waits(sim) == [(s2.handle, s1.handle)]
    assert a.stream is s2 and b.stream is s2 and c.stream is s2
    launch(s2, prepared, (a, b, c))
    assert waits(sim) == []
    np.testing.assert_array_equal(c.to_host(), a_h + b_h)  # on its last stream, s2
    assert waits(sim) == []


def test_buffers_from_two_streams_wait_for_both(sim, dev):
    s1, s2, s3 = dev.create_stream(), dev.create_stream(), dev.create_stream()
    a, b, c = DeviceBuffer.zeroed(s1, 256, f32), DeviceBuffer.zeroed(s2, 256, f32), DeviceBuffer.zeroed(s3, 256, f32)
    launch(s3, prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    assert sorted(waits(sim)) == sorted([(s3.handle, s1.handle), (s3.handle, s2.handle)])
    # the same buffer twice is ordered once
    d = DeviceBuffer.zeroed(s1, 256, f32)
    launch(s3, prepare(VECADD, LaunchConfig(1, 256), dev), (d, d, c))
    assert waits(sim) == [(s3.handle, s1.handle)]


def test_copies_wait_for_the_last_stream(sim, dev):
    s1, s2 = dev.create_stream(), dev.create_stream()
    x_h = rand(64)
    x = DeviceBuffer.from_host(s1, x_h)
    np.testing.assert_array_equal(x.to_host(s1), x_h)
    assert waits(sim) == []
    np.testing.assert_array_equal(x.to_host(s2), x_h)
    assert waits(sim) == [(s2.handle, s1.handle)] and x.stream is s2
    y_h = rand(64)
    x.copy_from_host(y_h, s1)  # must not overtake the copy on s2
    assert waits(sim) == [(s1.handle, s2.handle)] and x.stream is s1
    x.copy_from_host(y_h)
    np.testing.assert_array_equal(x.to_host(), y_h)
    assert waits(sim) == []


def test_one_event_per_device_is_reused(sim, dev):
    s1, s2 = dev.create_stream(), dev.create_stream()
    x = DeviceBuffer.zeroed(s1, 16, f32)
    for _ in range(5):
        x.to_host(s2)
        x.to_host(s1)
    calls = order_calls(sim)
    assert [c for c in calls if c[0] == "event"] == [("event", 2)]  # CU_EVENT_DISABLE_TIMING, created once
    assert [c for c in calls if c[0] == "record"] == [("record", h) for h in [s1.handle, s2.handle] * 5]


def test_deallocation_follows_the_last_stream(sim, dev):
    """cuda.core frees a buffer on its deallocation stream: were it left on the stream that made it,
    a buffer dropped while a kernel on another stream still reads it could be reallocated and
    overwritten under that kernel."""
    s1, s2 = dev.create_stream(), dev.create_stream()
    a, b, c = (DeviceBuffer.zeroed(s1, 256, f32) for _ in range(3))
    assert a._buffer.free_stream is s1.raw
    launch(s2, prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    assert all(x._buffer.free_stream is s2.raw for x in (a, b, c))


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        c[idx] = 2.0 * a[i]


def scale_fn(config, a, na, c, nc, record):
    n = min(int(nc), config.grid[0] * config.block[0])
    host_array(c, n)[:] = np.float32(2) * host_array(a, n)


def test_shorthand_orders_the_issue_scenario(sim, dev):
    """The issue's scenario at the level of driver calls: `a` written on a user stream `s`, then the
    shorthand `scale[g, 256](a, c)` (on the device's default stream), then `c.to_host(s)`."""
    sim.kernels[scale.compile("sm_90").entry] = (5, scale_fn)
    s = dev.create_stream()
    a_h = rand(1000)
    a = DeviceBuffer.from_host(s, a_h)
    c = DeviceBuffer.from_host(s, np.full(1000, np.nan, np.float32))
    scale[4, 256](a, c)
    d = dev.default_stream
    assert waits(sim) == [(d.handle, s.handle)]  # the launch waits for a's (and c's) writes on s
    out = c.to_host(s)
    assert waits(sim) == [(s.handle, d.handle)]  # the copy waits for the launch
    np.testing.assert_array_equal(out, np.float32(2) * a_h)
    scale[4, 256, s](a, c)  # an explicit stream: ordered after the default stream's launch
    assert waits(sim) == [(s.handle, d.handle)]


class SMV:
    """cuda.core's StridedMemoryView, reduced to what the runtime reads; remembers the consumer streams."""

    consumers: list[int] = []

    @staticmethod
    def from_cuda_array_interface(obj, stream_ptr):
        SMV.consumers.append(stream_ptr)
        return FakeView(obj.__cuda_array_interface__)

    @staticmethod
    def from_any_interface(obj, stream_ptr):
        SMV.consumers.append(stream_ptr)
        return FakeView(obj.cai)


class CaiArray:
    """A numba/cupy-style array: only `__cuda_array_interface__`, with the given `stream`."""

    def __init__(self, buf, stream):
        cai = dict(buf.__cuda_array_interface__)
        if stream is None:
            del cai["stream"]
        else:
            cai["stream"] = stream
        self.__cuda_array_interface__ = cai


def test_foreign_streams_wait_for_the_launch(sim, dev, monkeypatch):
    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", SMV)
    s = dev.create_stream()
    a, b, c = (DeviceBuffer.from_host(s, rand(256)) for _ in range(3))
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    SMV.consumers.clear()
    launch(s, prepared, (CaiArray(a, 0x5151), CaiArray(b, 0x5151), CaiArray(c, 0x6262)))
    # before: cuda.core's view orders s after each array's stream; after: each array's stream waits for s
    assert SMV.consumers == [s.handle] * 3
    assert waits(sim) == [(0x5151, s.handle), (0x6262, s.handle)]
    # the legacy default stream (CAI spells it 1) is a stream like the others
    launch(s, prepared, (CaiArray(a, 1), CaiArray(b, s.handle), CaiArray(c, None)))
    assert waits(sim) == [(1, s.handle)]
    # the launch's own stream, or no stream named: nothing to join
    launch(s, prepared, (CaiArray(a, s.handle), CaiArray(b, None), CaiArray(c, s.handle)))
    assert waits(sim) == []


class FakeTorchTensor:
    """A stand-in torch CUDA tensor over a DeviceBuffer (the order logic reads only `device` and
    `torch.cuda.current_stream`; the fake view reads `.cai`)."""

    def __init__(self, buf):
        self.cai = buf.__cuda_array_interface__
        self.shape, self.dtype = buf.shape, buf.dtype
        self.device = types.SimpleNamespace(type="cuda", index=0)

    def __dlpack__(self, stream=None):
        raise AssertionError("the fake view reads .cai")

    def __dlpack_device__(self):
        return (2, 0)


@pytest.fixture
def fake_torch(monkeypatch):
    """`torch` is a stand-in module whose current stream is `current["stream"]` (0: torch's
    default, the legacy NULL stream); cuda.core's view is the fake `SMV`."""
    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", SMV)
    current = {"stream": 0}
    fake = types.ModuleType("torch")
    fake.Tensor = FakeTorchTensor
    fake.cuda = types.SimpleNamespace(current_stream=lambda device=None: types.SimpleNamespace(cuda_stream=current["stream"]))
    monkeypatch.setitem(sys.modules, "torch", fake)
    return current


def test_torch_tensors_join_torch_current_stream(sim, dev, fake_torch):
    """A torch tensor belongs to torch's current stream (as torch's own kernels do)."""
    s = dev.create_stream()
    a, b, c = (DeviceBuffer.from_host(s, rand(256)) for _ in range(3))
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    T = FakeTorchTensor
    launch(s, prepared, (T(a), T(b), T(c)))
    assert waits(sim) == [(0, s.handle)]  # torch's stream after the launch, once for all three
    fake_torch["stream"] = s.handle  # under `with torch.cuda.stream(s)`: the same stream, nothing to do
    launch(s, prepared, (T(a), T(b), T(c)))
    assert waits(sim) == []
    fake_torch["stream"] = 0x7A7A
    assert stream_order.home_stream(T(a)) == 0x7A7A
    cpu = T(a)
    cpu.device = types.SimpleNamespace(type="cpu", index=None)
    assert stream_order.home_stream(cpu) is None


@pytest.fixture
def chain_sim(tile_sim, monkeypatch):
    """test_tile_fake_driver's simulated driver, with the lazy chain's prepared launches forgotten
    (they are cached per device ordinal, and each test has a new fake GPU 0)."""
    from warpforge.runtime import lazy

    monkeypatch.setattr(lazy, "_prepared", {})
    return tile_sim


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


def test_tile_chain_waits_for_wrapped_buffers(chain_sim, dev):
    sim = chain_sim
    s1, s2 = dev.create_stream(), dev.create_stream()
    x_h, y_h = rand(1024), rand(1024)
    x, y = DeviceBuffer.from_host(s1, x_h), DeviceBuffer.from_host(s1, y_h)
    z = wf.zeros((1024,), f32).partition((128,))
    out = add(z, wf.tensor(x), wf.tensor(y)).first().unpartition().to_host().sync_on(s2)
    np.testing.assert_array_equal(out, x_h + y_h)
    # each wrapped buffer is ordered when the chain first uses it (then the launch needs nothing more)
    assert waits(sim) == [(s2.handle, s1.handle)] * 2 and x.stream is s2 and y.stream is s2
    # a copy alone (no launch) waits too, and so does a later chain on a tensor wrapped earlier
    tx = wf.tensor(x)
    x.copy_from_host(y_h, s1)
    np.testing.assert_array_equal(tx.to_host().sync_on(s2), y_h)
    assert waits(sim) == [(s1.handle, s2.handle), (s2.handle, s1.handle)]
    x.copy_from_host(x_h, s1)
    np.testing.assert_array_equal(tx.to_host().sync_on(s2), x_h)
    assert waits(sim) == [(s1.handle, s2.handle), (s2.handle, s1.handle)]
    # the chain's own tensors: one stream, one sync, nothing to wait for
    out = add(wf.zeros((1024,), f32).partition((128,)), wf.ones((1024,), f32), wf.ones((1024,), f32)).first().unpartition().to_host().sync_on(s1)
    np.testing.assert_array_equal(out, np.full(1024, 2, np.float32))
    assert waits(sim) == []


def test_simulator_orders_nothing_and_needs_no_driver(monkeypatch):
    def no_driver():
        raise AssertionError("the simulator must not call the CUDA driver")

    monkeypatch.setattr(_driver, "driver", no_driver)
    sim_dev = wf.Device.simulator()
    s1, s2 = sim_dev.create_stream(), sim_dev.create_stream()
    a_h = rand(1000)
    a = DeviceBuffer.from_host(s1, a_h)
    c = DeviceBuffer.empty(s1, 1000, f32)
    scale[4, 256, s2](a, c)
    assert a.stream is s2 and c.stream is s2
    np.testing.assert_array_equal(c.to_host(s1), np.float32(2) * a_h)
    assert c.stream is s1
    c.copy_from_host(a_h, s2)
    np.testing.assert_array_equal(c.to_host(), a_h)


def test_tile_chain_waits_for_foreign_arrays_streams_at_wrap_time(chain_sim, dev, fake_torch):
    """`wf.tensor(x)` of a foreign array remembers the stream it belonged to then: a tensor wrapped
    inside `with torch.cuda.stream(ts)` is waited for on `ts` although the chain runs later, outside
    (cuda.core's view then orders the chain after torch's current stream at that time as well)."""
    sim = chain_sim
    s = dev.create_stream()
    x_h, y_h = rand(1024), rand(1024)
    x, y = DeviceBuffer.from_host(s, x_h), DeviceBuffer.from_host(s, y_h)
    fake_torch["stream"] = 0x7A7A
    tx = wf.tensor(FakeTorchTensor(x))
    fake_torch["stream"] = 0  # the `with` block has ended
    ty = wf.tensor(CaiArray(y, 0x5151))
    order_calls(sim)
    SMV.consumers.clear()
    out = add(wf.zeros((1024,), f32).partition((128,)), tx, ty).first().unpartition().to_host().sync_on(s)
    np.testing.assert_array_equal(out, x_h + y_h)
    got = waits(sim)
    # before the chain: the wrap-time streams; after the launch: torch's current and the CAI stream
    assert got[:2] == [(s.handle, 0x7A7A), (s.handle, 0x5151)] and sorted(got[2:]) == sorted([(0, s.handle), (0x5151, s.handle)])
    assert set(SMV.consumers) == {s.handle}


def test_kernels_assemble():
    """The PTX of the kernels these tests launch on the fake driver is accepted by ptxas."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = [scale.compile("sm_90").ptx, add.ir("ptx", wf.zeros((1024,), f32).partition((128,)), wf.zeros((1024,), f32), wf.zeros((1024,), f32))]
    if find_ptxas() is None:
        pytest.skip("ptxas not installed")
    for text in ptx:
        run_ptxas(text, "sm_90", verbose=False)
