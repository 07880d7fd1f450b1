"""A new user's report, problem by problem: each misuse is a `WarpforgeError` subclass with a message
that says what is taken (and where), never a plain traceback or an internal class name."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile
from warpforge.driver import cli


@pytest.fixture
def sim():
    dev = wf.Device.simulator()
    return dev, dev.create_stream()


@simt.kernel
def double(a: simt.Slice[wf.f32], x: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    x[idx] = a[idx.get()] * 2.0


@tile.kernel
def add_one(z: tile.Tensor[wf.f32, (16,)], x: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.load(x, (tile.bid(0),), (16,)) + 1.0)


# ---------------------------------------------------------------- 4: keyword arguments of launches


def test_simt_launch_takes_keyword_arguments(sim) -> None:
    dev, st = sim
    rng = np.random.default_rng(4)
    host = rng.standard_normal(64).astype(np.float32)
    a = wf.DeviceBuffer.from_host(st, host)
    o = wf.DeviceBuffer.from_host(st, np.full(64, np.nan, np.float32))
    double[1, 64, st](a, x=o)
    np.testing.assert_array_equal(o.to_host(st), host * np.float32(2.0))
    o2 = wf.DeviceBuffer.from_host(st, np.full(64, np.nan, np.float32))
    double[1, 64, st](x=o2, a=a)  # any order
    np.testing.assert_array_equal(o2.to_host(st), host * np.float32(2.0))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"y": 0}, r"double\(a, x\) has no parameter named 'y'"), ({"a": 0}, r"double\(a, x\): multiple values for argument 'a'")],
)
def test_simt_launch_bad_keyword_is_a_usage_error(sim, kwargs, message) -> None:
    dev, st = sim
    a = wf.DeviceBuffer.zeroed(st, 64, wf.f32)
    with pytest.raises(wf.UsageError, match=message):
        double[1, 64, st](a, **kwargs)


def test_simt_launch_missing_keyword_names_the_parameters(sim) -> None:
    dev, st = sim
    with pytest.raises(wf.UsageError, match=r"double\(a, x\): missing a required argument: 'a'"):
        double[1, 64, st](x=wf.DeviceBuffer.zeroed(st, 64, wf.f32))


def test_tile_launch_takes_keyword_arguments(sim) -> None:
    dev, st = sim
    host = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    out = add_one(wf.full((64,), np.nan, wf.f32).partition((16,)), x=wf.from_host(host)).first().unpartition().to_host().sync_on(st)
    np.testing.assert_array_equal(out, host + np.float32(1.0))
    with pytest.raises(wf.UsageError, match=r"add_one\(z, x\) has no parameter named 'y'"):
        add_one(wf.zeros((64,)).partition((16,)), y=wf.from_host(host))
