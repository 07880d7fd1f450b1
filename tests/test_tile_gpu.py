"""Tile-model behaviour that needs a real GPU: device arrays of other libraries used in place
(`wf.tensor(torch_tensor)`), aliasing between them refused before anything runs, `bind()` launches
(what the benchmarks time), and big grids. (The semantics tests of test_tile.py also run here.)"""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, tile

pytestmark = pytest.mark.gpu
rng = np.random.default_rng(1670)


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


@tile.kernel
def scale(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], k: f32):
    z.store(tile.load_tile_like(x, z) * k)


def test_torch_tensors_are_used_in_place() -> None:
    torch = pytest.importorskip("torch")
    n = 100_000
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    z = torch.full((n,), float("nan"), device="cuda")
    stream = wf.Device(0).create_stream()
    add(wf.tensor(z).partition((1024,)), wf.tensor(x), wf.tensor(y)).sync_on(stream)
    torch.cuda.synchronize()
    assert torch.equal(z, x + y)


def test_aliased_device_arrays_are_refused_at_the_call() -> None:
    torch = pytest.importorskip("torch")
    t = torch.zeros(8192, device="cuda")
    y = torch.ones(4096, device="cuda")
    out = t[:4096]
    with pytest.raises(wf.AliasError, match="shares memory"):
        add(wf.tensor(out).partition((1024,)), wf.tensor(out), wf.tensor(y))
    with pytest.raises(wf.AliasError):
        # an overlapping view of the same length (same shape, so only the aliasing is wrong)
        add(wf.tensor(out).partition((1024,)), wf.tensor(t[1024:5120]), wf.tensor(y))


def test_bound_launches_run_back_to_back() -> None:
    dev = wf.Device(0)
    stream = dev.create_stream()
    n = (1 << 24) + 3
    x_host = rng.standard_normal(n, dtype=np.float32)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    z = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))
    bound = scale.bind(wf.tensor(z).partition((2048,)), wf.tensor(x), 3.0, device=dev)
    assert bound.grid == -(-n // 2048)
    for _ in range(3):
        bound.launch(stream)
    np.testing.assert_array_equal(z.to_host(stream), x_host * np.float32(3.0))


def test_unaligned_device_array_gets_its_own_specialization() -> None:
    torch = pytest.importorskip("torch")
    base = torch.randn(4097, device="cuda")
    x = base[1:]  # 4 bytes past a 16-byte boundary: no 128-bit loads for it
    y = torch.randn(4096, device="cuda")
    z = torch.empty(4096, device="cuda")
    stream = wf.Device(0).create_stream()
    add(wf.tensor(z).partition((512,)), wf.tensor(x), wf.tensor(y)).sync_on(stream)
    torch.cuda.synchronize()
    assert torch.equal(z, x + y)


def test_one_chain_runs_in_order_with_one_synchronization() -> None:
    n = 1 << 20
    x_host = rng.integers(-100, 100, n).astype(np.float32)
    x = wf.from_host(x_host)
    acc = wf.zeros((n,), f32)
    for _ in range(5):  # acc = x + acc, five launches, each reading the previous one's output
        acc = add(wf.empty((n,), f32).partition((1024,)), x, acc).first().unpartition()
    out = acc.to_host().sync_on(wf.Device(0).create_stream())
    np.testing.assert_array_equal(out, 5 * x_host)
