"""Bound launches (`runtime.launch.bind_arguments` / `launch_bound`, `TileKernel.bind`) on
test_runtime_fake_driver.py's simulated driver: what bind computes once is what the general
`launch` packs at every launch (pointers, extents, strides, scalars, TMA descriptors), bind refuses
what `launch` refuses, and what can change between launches is still checked at every launch —
the stream's device, a pending kernel error, stream order (buffers' last streams, torch's current
stream, a CAI `stream`, a DLPack export), the error-record slot, and memory that moved since the bind."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import f16, f32, tile
from warpforge.errors import AliasError, KernelError, LaunchError
from warpforge.runtime import DeviceBuffer, LaunchConfig, ParamSpec, launch, prepare
from warpforge.runtime import errors as rt_errors
from warpforge.runtime import tma as rt_tma
from warpforge.runtime.launch import BoundLaunch, bind_arguments, launch_bound

from fake_memory_view import FakeStridedMemoryView
from test_runtime_fake_driver import F32, OOB, SAXPY, VECADD, dev, host_array, make, rand, sim  # noqa: F401 (fixtures)
from test_stream_order import SMV, CaiArray, FakeTorchTensor, fake_torch, waits  # noqa: F401 (fixture)
from test_tile_fake_driver import add, tile_sim  # noqa: F401 (fixture)


def last_args(sim) -> tuple:
    return sim.launches[-1][2]


def poisoned(s, n, dtype=F32):
    return DeviceBuffer.from_host(s, np.full(n, np.nan, dtype))


def test_bound_launch_packs_what_the_general_launch_packs(sim, dev):
    s = dev.create_stream()
    a_h, b_h = rand(1000), np.random.default_rng(1651).standard_normal(1000).astype(np.float32)
    a, b, c = DeviceBuffer.from_host(s, a_h), DeviceBuffer.from_host(s, b_h), poisoned(s, 1000)
    prepared = prepare(VECADD, LaunchConfig(4, 256), dev)
    launch(s, prepared, (a, b, c))
    general = last_args(sim)
    bound = bind_arguments(prepared, [a, b, c], kernel=VECADD)
    assert isinstance(bound, BoundLaunch) and len(sim.launches) == 1  # bind enqueues nothing
    c.copy_from_host(np.full(1000, np.nan, np.float32))
    launch_bound(s, bound)
    got = last_args(sim)
    # the same parameters, with the same types; only the error-record slot is the launch's own
    assert got[:-1] == general[:-1] and [type(x) for x in got] == [type(x) for x in general]
    assert bound.packed == general[:-1]
    np.testing.assert_array_equal(c.to_host(), a_h + b_h)
    # scalars (exact width) and an unchecked kernel (no record)
    x, y, out = DeviceBuffer.from_host(s, a_h[:300]), DeviceBuffer.from_host(s, b_h[:300]), poisoned(s, 300)
    p2 = prepare(SAXPY, LaunchConfig(2, 256), dev)
    launch(s, p2, (2.5, x, y, out, True))
    general = last_args(sim)
    bind_arguments(p2, (2.5, x, y, out, True)).launch(s)
    assert last_args(sim) == general and [type(v) for v in last_args(sim)] == [type(v) for v in general]
    np.testing.assert_array_equal(out.to_host(), np.float32(2.5) * a_h[:300] + b_h[:300])


def test_bound_strided_and_tma_arguments_match_the_general_launch(sim, dev, monkeypatch):
    monkeypatch.setattr("cuda.core.utils.StridedMemoryView", SMV)
    made = []
    monkeypatch.setattr(rt_tma, "_core_descriptor", lambda req: rt_tma.check_tma_rules(req) or made.append(req) or ("tensor map", req.address, req.shape, req.box))
    monkeypatch.setattr(rt_tma, "_LAUNCH_CACHE", {})
    params = [
        ParamSpec("out", "disjoint_slice", F32, ndim=2),
        ParamSpec("x", "slice", F32, ndim=3, strided=True),
        ParamSpec("w", "slice", np.dtype(np.float16), ndim=2, tma=(((64, 64), "128B"), ((32, 64), "128B"))),
    ]
    sizes = [8] * 3 + [8] * 7 + [8] * 3 + [128, 128]
    decl = ",\n".join(f"\t.param .u64 p{i}" if n == 8 else f"\t.param .align 64 .b8 p{i}[128]" for i, n in enumerate(sizes))
    ptx = f".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry mixed(\n{decl}\n)\n{{\n\tret;\n}}\n"
    k, impl = make("mixed", params, lambda config, *args: None, checked=False, ptx=ptx)
    sim.kernels["mixed"] = impl
    s = dev.create_stream()
    out = DeviceBuffer.zeroed(s, (4, 8), F32)
    base = DeviceBuffer.from_host(s, rand(2 * 5 * 8))
    w = DeviceBuffer.zeroed(s, (128, 64), np.float16)

    class Transposed:  # (2, 5, 8) seen as (5, 2, 8)
        def __init__(self):
            cai = dict(base.__cuda_array_interface__)
            cai.update(shape=(5, 2, 8), strides=(4 * 8, 4 * 40, 4))
            self.__cuda_array_interface__ = cai

    x = Transposed()
    prepared = prepare(k, LaunchConfig(1, 32), dev)
    launch(s, prepared, (out, x, w))
    general = last_args(sim)
    assert general[3:10] == (base.ptr, 2 * 5 * 8, 5, 2, 8, 8, 40)  # ptr, span, extents, strides but the last
    bound = bind_arguments(prepared, (out, x, w))
    launch_bound(s, bound)
    assert last_args(sim) == general and bound.packed == general
    assert general[-2:] == (("tensor map", w.ptr, (128, 64), (64, 64)), ("tensor map", w.ptr, (128, 64), (32, 64)))
    # the descriptors are made once (the general launch's cache); the bound launches make none
    for _ in range(5):
        launch_bound(s, bound)
    assert len(made) == 2
    # a TMA rule the memory breaks is refused at bind, as by the general launch
    odd = DeviceBuffer.zeroed(s, (128, 66), np.float16)  # rows of 132 bytes: not a multiple of 16
    with pytest.raises(LaunchError, match="argument 'w' feeds a TMA ring") as general_error:
        launch(s, prepared, (out, x, odd))
    with pytest.raises(LaunchError) as bind_error:
        bind_arguments(prepared, (out, x, odd))
    assert str(bind_error.value) == str(general_error.value)


def test_bind_refuses_what_launch_refuses(sim, dev, monkeypatch):
    monkeypatch.setattr("cuda.core.utils.StridedMemoryView", FakeStridedMemoryView)
    s = dev.create_stream()
    a, c = DeviceBuffer.from_host(s, rand(256)), DeviceBuffer.zeroed(s, 256, F32)
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    cases = [
        (a, a, a),  # the output is an input: AliasError
        (a, np.zeros(256, np.float32), c),  # host memory
        (a, DeviceBuffer.zeroed(s, 256, np.float64), c),  # dtype
        (a, DeviceBuffer.zeroed(s, (16, 16), F32), c),  # rank
        (a, c),  # count
    ]
    for args in cases:
        with pytest.raises((LaunchError, AliasError)) as general:
            launch(s, prepared, args)
        with pytest.raises(type(general.value)) as bound:
            bind_arguments(prepared, args)
        assert str(bound.value) == str(general.value)
    with pytest.raises(AliasError, match="output 'c' of vecadd is the same memory as input 'a'"):
        bind_arguments(prepared, (a, a, a))
    with pytest.raises(LaunchError, match="made for vecadd, not saxpy"):
        bind_arguments(prepared, (a, a, c), kernel=SAXPY)
    with pytest.raises(LaunchError, match="needs the PreparedLaunch"):
        bind_arguments("vecadd", (a, a, c))
    with pytest.raises(LaunchError, match="needs the BoundLaunch"):
        launch_bound(s, prepared)
    # alignment the compiled code relies on (vectorize-global-access)
    k, impl = make("vec4", [ParamSpec("x", "slice", F32, align=16), ParamSpec("y", "disjoint_slice", F32)], lambda *a: None, checked=False)
    sim.kernels["vec4"] = impl
    p4 = prepare(k, LaunchConfig(1, 32), dev)
    whole = DeviceBuffer.zeroed(s, 64, F32)
    shifted = type("Shifted", (), {"__cuda_array_interface__": dict(whole.__cuda_array_interface__, data=(whole.ptr + 4, False), shape=(60,))})()
    with pytest.raises(LaunchError, match="is not 16-byte aligned") as general_error:
        launch(s, p4, (shifted, c))
    with pytest.raises(LaunchError) as bind_error:
        bind_arguments(p4, (shifted, c))
    assert str(bind_error.value) == str(general_error.value)
    assert not sim.launches


def test_bound_launch_refuses_a_stream_of_another_device(sim, dev):
    s = dev.create_stream()
    a, b, c = (DeviceBuffer.zeroed(s, 256, F32) for _ in range(3))
    bound = bind_arguments(prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    other = wf.Device.simulator().create_stream()
    with pytest.raises(LaunchError, match=r"vecadd was prepared for GPU 0.*but the stream belongs to"):
        launch_bound(other, bound)
    with pytest.raises(LaunchError, match="expected a stream"):
        launch_bound("stream", bound)
    assert not sim.launches
    launch_bound(None, bound)  # the device's default stream
    assert c.stream is dev.default_stream and len(sim.launches) == 1


def test_bound_launch_reports_a_pending_kernel_error_and_takes_a_slot_per_launch(sim, dev):
    s = dev.create_stream()
    short, good, out = DeviceBuffer.from_host(s, rand(10)), DeviceBuffer.from_host(s, rand(64)), DeviceBuffer.zeroed(s, 64, F32)
    prepared = prepare(OOB, LaunchConfig(1, 64), dev)
    bad, fine = bind_arguments(prepared, (short, out)), bind_arguments(prepared, (good, out))
    launch_bound(s, bad)  # records an error (oob_fn), complete but unchecked after the raw sync
    s.raw.sync()
    with pytest.raises(KernelError, match=r"oob: a\[i\] read out of range at oob.py:3:14: index 10 not in \[0, 10\)"):
        launch_bound(s, fine)
    assert len(sim.launches) == 1  # the launch that raised was not enqueued
    launch_bound(s, fine)
    s.sync()  # reported once
    # each launch its own slot (zero at launch: oob_fn asserts it), recycled after the sync
    pool = rt_errors._pools[0]
    for _ in range(600):
        launch_bound(s, fine)
    assert pool.pending_count == 600 and len(pool._chunks) == 3
    assert len({args[-1] for _, _, args in sim.launches[-600:]}) == 600
    s.sync()
    for _ in range(600):
        launch_bound(s, fine)
    s.sync()
    assert len(pool._chunks) == 3
    # an error in the k-th of many bound launches is found at the sync, as for the general launch
    for k in range(50):
        launch_bound(s, bad if k == 17 else fine)
    with pytest.raises(KernelError, match="index 10 not in"):
        s.sync()


def test_bound_launch_orders_device_buffers_at_every_launch(sim, dev):
    s1, s2 = dev.create_stream(), dev.create_stream()
    a_h, b_h = rand(256), np.random.default_rng(1652).standard_normal(256).astype(np.float32)
    a, b, c = DeviceBuffer.from_host(s1, a_h), DeviceBuffer.from_host(s1, b_h), poisoned(s1, 256)
    bound = bind_arguments(prepare(VECADD, LaunchConfig(1, 256), dev), (a, b, c))
    waits(sim)
    launch_bound(s2, bound)
    assert waits(sim) == [(s2.handle, s1.handle)] and a.stream is s2 and c.stream is s2
    assert all(x._buffer.free_stream is s2.raw for x in (a, b, c))
    launch_bound(s2, bound)
    assert waits(sim) == []
    a.copy_from_host(b_h, s1)  # a moves to s1: the next launch on s2 waits for it
    assert waits(sim) == [(s1.handle, s2.handle)]
    launch_bound(s2, bound)
    assert waits(sim) == [(s2.handle, s1.handle)]
    np.testing.assert_array_equal(c.to_host(s1), b_h + b_h)
    assert waits(sim) == [(s1.handle, s2.handle)]
    # the same buffer bound twice is ordered once
    d = DeviceBuffer.zeroed(s1, 256, F32)
    twice = bind_arguments(prepare(VECADD, LaunchConfig(1, 256), dev), (d, d, c))
    waits(sim)
    launch_bound(s2, twice)
    assert waits(sim) == [(s2.handle, s1.handle)]


def test_bound_launch_orders_foreign_arrays_at_every_launch(sim, dev, monkeypatch):
    monkeypatch.setattr("cuda.core.utils.StridedMemoryView", SMV)
    s = dev.create_stream()
    a_h, b_h = rand(256), np.random.default_rng(1653).standard_normal(256).astype(np.float32)
    a, b, c = DeviceBuffer.from_host(s, a_h), DeviceBuffer.from_host(s, b_h), poisoned(s, 256)
    ca, cb, cc = CaiArray(a, 0x5151), CaiArray(b, 0x5151), CaiArray(c, 0x6262)
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    launch(s, prepared, (ca, cb, cc))
    general = waits(sim)
    bound = bind_arguments(prepared, (ca, cb, cc))
    SMV.consumers.clear()
    assert waits(sim) == []
    launch_bound(s, bound)
    got = waits(sim)
    # before the launch, s waits for each home stream (cuda.core's view does it in the general launch);
    # after it, each home stream waits for s, as in the general launch
    assert got == [(s.handle, 0x5151), (s.handle, 0x6262)] + general and general == [(0x5151, s.handle), (0x6262, s.handle)]
    assert SMV.consumers == []  # no view is made per launch
    np.testing.assert_array_equal(c.to_host(s), a_h + b_h)
    # a CAI stream that changes between launches is followed
    cc.__cuda_array_interface__["stream"] = s.handle
    ca.__cuda_array_interface__["stream"] = cb.__cuda_array_interface__["stream"] = None
    waits(sim)
    launch_bound(s, bound)
    assert waits(sim) == []


class TorchTensor(FakeTorchTensor):
    """The stand-in torch tensor with a `data_ptr()`."""

    def data_ptr(self):
        return self.cai["data"][0]


def test_bound_launch_follows_torch_current_stream(sim, dev, fake_torch):
    s = dev.create_stream()
    a_h, b_h = rand(256), np.random.default_rng(1654).standard_normal(256).astype(np.float32)
    a, b, c = DeviceBuffer.from_host(s, a_h), DeviceBuffer.from_host(s, b_h), poisoned(s, 256)
    ta, tb, tc = TorchTensor(a), TorchTensor(b), TorchTensor(c)
    bound = bind_arguments(prepare(VECADD, LaunchConfig(1, 256), dev), (ta, tb, tc))
    waits(sim)
    launch_bound(s, bound)  # torch's current stream is the NULL stream (0)
    assert waits(sim) == [(s.handle, 0), (0, s.handle)]  # once for all three tensors, before and after
    fake_torch["stream"] = s.handle  # under `with torch.cuda.stream(s)`
    launch_bound(s, bound)
    assert waits(sim) == []
    fake_torch["stream"] = 0x7A7A
    launch_bound(s, bound)
    assert waits(sim) == [(s.handle, 0x7A7A), (0x7A7A, s.handle)]
    np.testing.assert_array_equal(c.to_host(s), a_h + b_h)
    # torch's raw current-stream query is used where torch has it
    import sys
    import types

    queried = []
    sys.modules["torch"]._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: queried.append(index) or 0x7B7B)
    launch_bound(s, bound)
    assert queried == [0] and waits(sim) == [(s.handle, 0x7B7B), (0x7B7B, s.handle)]


def test_bound_launch_refuses_memory_that_moved(sim, dev, fake_torch):
    s = dev.create_stream()
    a, b, c, d = (DeviceBuffer.zeroed(s, 256, F32) for _ in range(4))
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    ta, tb, tc = TorchTensor(a), TorchTensor(b), TorchTensor(c)
    bound = bind_arguments(prepared, (ta, tb, tc))
    launch_bound(s, bound)
    tb.cai = d.__cuda_array_interface__  # torch's `b.set_(...)`: another storage
    with pytest.raises(LaunchError, match=r"vecadd: argument 'b' is not the memory it was bound to any more \(data pointer 0x.*bind the kernel again"):
        launch_bound(s, bound)
    cai = CaiArray(c, None)
    bound = bind_arguments(prepared, (a, b, cai))
    launch_bound(s, bound)
    cai.__cuda_array_interface__["shape"] = (128,)
    with pytest.raises(LaunchError, match="argument 'c' is not the memory it was bound to"):
        launch_bound(s, bound)
    assert len(sim.launches) == 2


class DLPackOnly:
    """A DLPack-only device array (no stream warpforge can name); the fake view reads `.cai`."""

    def __init__(self, buf):
        self.cai = buf.__cuda_array_interface__
        self.exports: list[int] = []

    def __dlpack__(self, stream=None):
        self.exports.append(stream)
        return object()

    def __dlpack_device__(self):
        return (2, 0)


def test_bound_launch_exports_dlpack_arrays_for_each_launch_stream(sim, dev, fake_torch):
    s = dev.create_stream()
    a_h = rand(256)
    a, c = DeviceBuffer.from_host(s, a_h), poisoned(s, 256)
    x = DLPackOnly(a)
    bound = bind_arguments(prepare(VECADD, LaunchConfig(1, 256), dev), (x, x, c))
    launch_bound(s, bound)
    null = type("NullStream", (), {"__cuda_stream__": lambda self: (0, 0)})()
    launch_bound(null, bound)  # the NULL stream is passed as 1 (DLPack's legacy default stream)
    # once per launch (not per parameter), for the launch's stream: the producer orders its work before it
    assert x.exports == [s.handle, 1]
    np.testing.assert_array_equal(c.to_host(s), a_h + a_h)


@tile.kernel
def scaled(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], alpha: f32):
    z.store(tile.load_tile_like(x, z) * alpha)


def test_tile_bind_precomputes_the_general_launch(tile_sim):
    def scaled_fn(config, z, nz, x, nx, alpha):
        assert type(alpha) is np.float32
        host_array(z, int(nz))[:] = host_array(x, int(nz)) * alpha

    tile_sim.kernels.table["scaled"] = (5, scaled_fn)
    dev = wf.Device(0)
    s = dev.create_stream()
    x_h = rand(1000)
    x, z = DeviceBuffer.from_host(s, x_h), poisoned(s, 1000)
    bound = scaled.bind(wf.tensor(z).partition((128,)), wf.tensor(x), 1.5, device=dev)
    assert bound.grid == 8 and isinstance(bound.bound, BoundLaunch) and bound.arrays == (z, x, 1.5)
    launch(s, bound.prepared, bound.arrays, kernel=bound.compiled.kernel)
    general = last_args(tile_sim)
    bound.launch(s)
    assert last_args(tile_sim) == general == bound.bound.packed
    np.testing.assert_array_equal(z.to_host(s), x_h * np.float32(1.5))
    with pytest.raises(AliasError):  # refused at bind now, not at the first launch
        scaled.bind(wf.tensor(z).partition((128,)), wf.tensor(z), 1.5, device=dev)
    # an empty output: nothing to launch, nothing bound
    e = DeviceBuffer.zeroed(s, 0, F32)
    empty = scaled.bind(wf.tensor(e).partition((128,)), wf.tensor(e), 1.0, device=dev)
    assert empty.grid == 0 and empty.bound is None
    empty.launch(s)
    assert len(tile_sim.launches) == 2


def test_tensor_of_a_bfloat16_device_buffer(sim, dev):
    """`wf.tensor(buf)` reads a DeviceBuffer's own dtype: its `__cuda_array_interface__` spells
    bfloat16 '<V2' (CAI has no bfloat16), which wf.tensor refused ("dtype |V2 is not supported")."""
    s = dev.create_stream()
    buf = DeviceBuffer.from_host(s, np.random.default_rng(1655).standard_normal((4, 8)).astype(wf.bf16.np))
    t = wf.tensor(buf)
    assert t.dtype == wf.bf16 and t.shape == (4, 8)


def test_tile_bind_on_the_simulator_launches_through_the_general_path():
    dev = wf.Device.simulator()
    s = dev.create_stream()
    x_h = rand(300)
    x, z = DeviceBuffer.from_host(s, x_h), DeviceBuffer.from_host(s, np.full(300, np.nan, np.float32))
    bound = scaled.bind(wf.tensor(z).partition((128,)), wf.tensor(x), 2.0)
    assert bound.bound is None
    bound.launch(s)
    np.testing.assert_array_equal(z.to_host(s), x_h * np.float32(2))
    with pytest.raises(LaunchError, match="simulator"):
        bind_arguments(bound.prepared, bound.arrays)


def test_kernels_assemble():
    """The PTX of the tile kernel these tests bind is accepted by ptxas."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = scaled.ir("ptx", wf.zeros((1000,), f32).partition((128,)), wf.zeros((1000,), f32), 1.5)
    if find_ptxas() is None:
        pytest.skip("ptxas not installed")
    run_ptxas(ptx, "sm_90", verbose=False)
