"""The Tile model's lazy host chain end to end on test_runtime_fake_driver.py's simulated driver (device
memory is host memory, kernels are Python functions), so its glue runs without a GPU: allocation and
initialization at sync, argument packing per the kernel ABI, the launch geometry (one CTA per tile,
linear on grid.x, the compiled block size), launches in record order on one stream and exactly one
synchronization per chain, copies back, device arrays used in place, and `bind()`."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i64, tile
from warpforge.runtime import _driver

from fake_memory_view import FakeStridedMemoryView
from test_runtime_fake_driver import FakeDriver, host_array, sim  # noqa: F401 (sim is the fixture)


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


@tile.kernel
def partial_sums(out: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)], tiles: i64):
    acc = tile.zeros((256,), f32)
    for i in range(tiles):
        acc += tile.load(x, (tile.bid(0) * tiles + i,), (256,))
    out.store(tile.sum(acc))


def add_fn(config, z, nz, x, nx, y, ny):
    assert all(type(p) is int for p in (z, x, y)) and all(type(n) is np.int64 for n in (nz, nx, ny))
    assert config.grid == (-(-int(nz) // 128), 1, 1) and config.block[1:] == (1, 1)
    n = int(nz)
    host_array(z, n)[:] = host_array(x, n) + host_array(y, n)


def sums_fn(config, out, nout, x, nx, tiles):
    assert type(tiles) is np.int64
    per = 256 * int(tiles)
    xs = host_array(x, int(nx)).astype(np.float64)
    host_array(out, int(nout))[:] = [xs[b * per : (b + 1) * per].sum() for b in range(config.grid[0])]


class AnyEntry(dict):
    """Every PTX entry the test compiles is the Python function registered under its kernel's name."""

    def __init__(self, table: dict[str, tuple[int, object]]):
        super().__init__()
        self.table = table

    def __contains__(self, entry: object) -> bool:
        return any(str(entry).startswith(name + "__") for name in self.table)

    def __getitem__(self, entry: str) -> tuple[int, object]:
        return next(v for name, v in self.table.items() if entry.startswith(name + "__"))


@pytest.fixture
def tile_sim(sim, monkeypatch):  # noqa: F811 - the fixture from test_runtime_fake_driver
    class Driver(FakeDriver):
        def _fill(self, ptr, value, n, ctype):
            host_array(ptr, n, ctype)[:] = value
            self.sim.calls.append(("fill", ptr, n))
            return (0,)

        def cuMemsetD32Async(self, ptr, value, n, stream):
            return self._fill(ptr, value, n, ctypes.c_uint32)

        def cuMemsetD16Async(self, ptr, value, n, stream):
            return self._fill(ptr, value, n, ctypes.c_uint16)

    monkeypatch.setattr(_driver, "driver", lambda: Driver(sim))
    sim.kernels = AnyEntry({"add": (6, add_fn), "partial_sums": (5, sums_fn)})
    return sim


def test_chain_allocates_fills_launches_copies_and_syncs_once(tile_sim) -> None:
    rng = np.random.default_rng(1620)
    y_host = rng.standard_normal(1000, dtype=np.float32)
    x = wf.ones((1000,), f32)
    y = wf.from_host(y_host)
    z = wf.zeros((1000,), f32).partition((128,))
    pending = add(z, x, y).first().unpartition().to_host()
    assert not tile_sim.launches and not tile_sim.calls  # recorded, not run
    stream = wf.Device(0).create_stream()
    out = pending.sync_on(stream)
    np.testing.assert_array_equal(out, y_host + 1)
    (entry, config, _), = tile_sim.launches
    assert entry.startswith("add__") and config.grid == (8, 1, 1)
    assert stream.raw.syncs == 1
    kinds = [c[0] for c in tile_sim.calls]
    assert kinds.count("fill") == 1 and kinds.count("htod") == 1 and kinds.count("dtoh") == 1  # ones, from_host, to_host


def test_two_launches_in_record_order_one_sync(tile_sim) -> None:
    n = 256 * 4 * 5 + 17
    x_host = np.random.default_rng(1621).random(n, dtype=np.float32)
    p = -(-n // (256 * 4))
    partials = partial_sums(wf.empty((p,), f32).partition((1,)), wf.from_host(x_host), 4).first().unpartition()
    total = partial_sums(wf.empty((1,), f32).partition((1,)), partials, 1).first().unpartition().to_host()
    stream = wf.Device(0).create_stream()
    got = total.sync_on(stream)
    assert [c.grid for _, c, _ in tile_sim.launches] == [(p, 1, 1), (1, 1, 1)]
    assert stream.raw.syncs == 1
    np.testing.assert_allclose(got[0], x_host.astype(np.float64).sum(), rtol=1e-6)


def test_work_already_run_is_not_run_again(tile_sim) -> None:
    x = wf.ones((256,), f32)
    result = add(wf.zeros((256,), f32).partition((128,)), x, x)
    stream = wf.Device(0).create_stream()
    result.sync_on(stream)
    whole = result.first().unpartition()
    np.testing.assert_array_equal(whole.to_host().sync_on(stream), np.full(256, 2, np.float32))
    assert len(tile_sim.launches) == 1


def test_device_buffers_used_in_place_and_bind(tile_sim) -> None:
    dev = wf.Device(0)
    stream = dev.create_stream()
    x = wf.DeviceBuffer.from_host(stream, np.arange(512, dtype=np.float32))
    z = wf.DeviceBuffer.zeroed(stream, 512, f32)
    add(wf.tensor(z).partition((128,)), wf.tensor(x), wf.tensor(x)).sync_on(stream)
    np.testing.assert_array_equal(z.to_host(stream), 2 * np.arange(512, dtype=np.float32))
    bound = add.bind(wf.tensor(z).partition((128,)), wf.tensor(x), wf.tensor(x), device=dev)
    assert bound.grid == 4
    bound.launch(stream)
    bound.launch(stream)
    assert len(tile_sim.launches) == 3
    with pytest.raises(wf.AliasError):
        add(wf.tensor(z).partition((128,)), wf.tensor(z), wf.tensor(x))


@tile.kernel(checks=False)
def copy_strided(z: tile.Tensor[f32, (1, 1, 4, 8)], x: tile.Tensor[f32, (-1, -1, -1, -1)]):
    z.store(tile.load_tile_like(x, z))


def test_strided_view_is_packed_as_pointer_span_extents_strides(tile_sim, monkeypatch) -> None:
    import cuda.core

    seen = {}

    def copy_strided_fn(config, z, z0, z1, z2, z3, x, span, x0, x1, x2, x3, s0, s1, s2):
        seen.update(span=int(span), dims=tuple(int(d) for d in (x0, x1, x2, x3)), strides=(int(s0), int(s1), int(s2)))
        mem = host_array(x, int(span))
        view = np.lib.stride_tricks.as_strided(mem, (int(x0), int(x1), int(x2), int(x3)), (4 * int(s0), 4 * int(s1), 4 * int(s2), 4))
        host_array(z, int(np.prod([int(z0), int(z1), int(z2), int(z3)])))[:] = view.reshape(-1)

    tile_sim.kernels.table["copy_strided"] = (14, copy_strided_fn)

    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", FakeStridedMemoryView)  # strides in elements
    dev = wf.Device(0)
    stream = dev.create_stream()
    b, s, h, d = 2, 4, 3, 8
    base_host = np.random.default_rng(1213).standard_normal((b, s, h, d)).astype(np.float32)
    base = wf.DeviceBuffer.from_host(stream, base_host.reshape(-1))

    class Transposed:  # base (B, S, H, D) seen as (B, H, S, D): torch's q.transpose(1, 2)
        def __init__(self):
            cai = dict(base.__cuda_array_interface__)
            cai.update(shape=(b, h, s, d), strides=tuple(4 * st for st in (s * h * d, d, h * d, 1)))
            self.__cuda_array_interface__ = cai

    got = copy_strided(wf.zeros((b, h, s, d), f32).partition((1, 1, 4, 8)), wf.tensor(Transposed())).first().unpartition().to_host().sync_on(stream)
    np.testing.assert_array_equal(got, base_host.transpose(0, 2, 1, 3))
    assert seen == {"span": b * s * h * d, "dims": (b, h, s, d), "strides": (s * h * d, d, h * d)}
