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
