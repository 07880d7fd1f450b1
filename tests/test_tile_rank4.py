"""Tensors and tiles of rank 3 and 4 (batch, heads, sequence, head dim) in the Tile model: loads and
stores by tile coordinate with masked tails on every axis, reductions over each axis,
reshape/permute/broadcast — on the GPU (marked `gpu`) and on the CPU simulator, against NumPy on
fresh seeded random inputs; and the host's refusals of partitions whose rank does not match."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(1212)


def _stream(backend: Backend):
    return backend.device.create_stream()


def _tiles(x: np.ndarray, tile_shape: tuple[int, ...], fn, pad: float = 0.0) -> np.ndarray:
    """NumPy reference of a kernel applying `fn` to each (padded) tile of `x` and storing the result's
    in-range part back: what a partitioned kernel computes."""
    out = None
    grid = [-(-n // t) for n, t in zip(x.shape, tile_shape)]
    for coord in np.ndindex(*grid):
        sl = tuple(slice(c * t, min((c + 1) * t, n)) for c, t, n in zip(coord, tile_shape, x.shape))
        t = np.full(tile_shape, pad, x.dtype)
        t[tuple(slice(0, s.stop - s.start) for s in sl)] = x[sl]
        r = np.broadcast_to(fn(t), tile_shape)
        if out is None:
            out = np.empty(x.shape, r.dtype)
        out[sl] = r[tuple(slice(0, s.stop - s.start) for s in sl)]
    assert out is not None
    return out


# --------------------------------------------------------------------------- kernels


@tile.kernel
def reduce_each_axis(z: tile.Tensor[f32, ("B", "H", "S", "D")], x: tile.Tensor[f32, (-1, -1, -1, -1)]):
    t = tile.load_tile_like(x, z, padding=1.0)
    z.store(t.sum(axis=0, keepdims=True) + tile.max(t, axis=1, keepdims=True) - t.min(axis=2, keepdims=True) + t.sum(axis=3, keepdims=True))


@tile.kernel
def by_coordinate(z: tile.Tensor[f16, (1, 2, 16, 32)], x: tile.Tensor[f16, (-1, -1, -1, -1)]):
    b, h, s, d = tile.bid(0), tile.bid(1), tile.bid(2), tile.bid(3)
    t = tile.load(x, (b, h, s, d), (1, 2, 16, 32), padding=-1.0)
    z.store(t * 2.0)


@tile.kernel
def shapes4(z: tile.Tensor[f32, (2, 4, 8, 16)], x: tile.Tensor[f32, (-1, -1, -1, -1)], r: tile.Tensor[f32, (-1, -1, -1)]):
    t = tile.load(x, (tile.bid(0), tile.bid(1), tile.bid(2), tile.bid(3)), (2, 4, 8, 16))
    p = tile.permute(t, (0, 2, 1, 3))                          # (2, 8, 4, 16)
    q = tile.reshape(p, (2, 8, 64)).reshape((2, 8, 4, 16))     # a round trip through rank 3
    back = tile.permute(q, (0, 2, 1, 3))                       # (2, 4, 8, 16) again
    row = tile.load(r, (0, 0, 0), (1, 8, 16))                  # broadcast over batch and heads
    z.store(back + tile.broadcast_to(row, (2, 4, 8, 16)))


@tile.kernel
def rank3_rows(z: tile.Tensor[f32, (1, 4, "C")], x: tile.Tensor[f32, (-1, -1, -1)]):
    t = tile.load_tile_like(x, z)
    z.store(t - tile.max(t, axis=2, keepdims=True))


# --------------------------------------------------------------------------- semantics, on both backends


def test_reductions_over_each_axis_of_a_rank4_tile_with_tails_on_every_axis(backend: Backend) -> None:
    shape, tshape = (3, 3, 20, 40), (2, 2, 16, 32)  # every axis has a partial tile
    x = rng.standard_normal(shape).astype(np.float32)
    z = wf.full(shape, np.nan, f32).partition(tshape)
    got = reduce_each_axis(z, wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))

    def ref(t: np.ndarray) -> np.ndarray:
        return t.sum(0, keepdims=True) + t.max(1, keepdims=True) - t.min(2, keepdims=True) + t.sum(3, keepdims=True)

    np.testing.assert_allclose(got, _tiles(x, tshape, ref, pad=1.0), rtol=1e-5, atol=1e-5)


def test_load_by_tile_coordinate_of_rank4_pads_and_masks_the_tails(backend: Backend) -> None:
    shape = (2, 3, 24, 40)  # grid (2, 2, 2, 2); heads, sequence and head dim end in partial tiles
    x = rng.standard_normal(shape).astype(np.float16)
    z = wf.full(shape, np.nan, f16).partition((1, 2, 16, 32))
    got = by_coordinate(z, wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, x * np.float16(2))


def test_permute_reshape_broadcast_of_rank3_and_rank4_tiles(backend: Backend) -> None:
    shape = (2, 4, 8, 16)
    x = rng.standard_normal(shape).astype(np.float32)
    r = rng.standard_normal((1, 8, 16)).astype(np.float32)
    z = wf.full(shape, np.nan, f32).partition(shape)
    got = shapes4(z, wf.from_host(x), wf.from_host(r)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, x + r[None])


def test_rank3_rows_with_ragged_last_axis(backend: Backend) -> None:
    shape = (3, 6, 50)  # tiles (1, 4, 64): the last axis and the second end in partial tiles
    x = rng.standard_normal(shape).astype(np.float32)
    z = wf.full(shape, np.nan, f32).partition((1, 4, 64))
    got = rank3_rows(z, wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_allclose(got, _tiles(x, (1, 4, 64), lambda t: t - t.max(2, keepdims=True), pad=0.0), rtol=0, atol=0)


# --------------------------------------------------------------------------- refusals (no device)


def test_a_partition_of_another_rank_is_refused_naming_both() -> None:
    with pytest.raises(wf.LaunchError, match=r"the partition \(1, 128, 64\) does not fit the 4-D tensor of shape \(2, 4, 128, 64\)"):
        wf.zeros((2, 4, 128, 64), f32).partition((1, 128, 64))


def test_a_tensor_of_another_rank_than_the_parameter_is_refused() -> None:
    z = wf.zeros((2, 4, 16, 32), f16).partition((1, 2, 16, 32))
    with pytest.raises(wf.LaunchError, match=r"argument 'x' is 3-D \(4, 16, 32\) but the parameter is .*4-D"):
        by_coordinate(z, wf.zeros((4, 16, 32), f16))


def test_rank5_is_refused() -> None:
    with pytest.raises(wf.LaunchError, match="tile tensors have 1 to 4 dimensions"):
        wf.zeros((1, 1, 1, 1, 1), f32)
    with pytest.raises(wf.UsageError, match="1 to 4 dimensions"):
        tile.Tensor[f32, (-1, -1, -1, -1, -1)]


def test_rank4_ptx_assembles_with_vector_accesses() -> None:
    import re
    import shutil
    import subprocess

    ck = reduce_each_axis.compile(tile.spec(f32, (4, 4, 64, 64), partition=(1, 2, 16, 32)), tile.spec(f32, (4, 4, 64, 64)))
    ptx = ck.kernel.ptx
    assert re.search(r"ld\.global\.nc\.v4\.(f32|b32)", ptx) and re.search(r"st\.global\.v4\.(f32|b32)", ptx)
    if shutil.which("ptxas"):
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            path = f"{d}/k.ptx"
            open(path, "w").write(ptx)
            subprocess.run(["ptxas", "-arch=sm_90", path, "-o", f"{d}/k.cubin"], check=True)
