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


# --------------------------------------------------------------------------- strided views (last axis contiguous)


@tile.kernel(checks=False)
def scale_strided(z: tile.Tensor[f32, (1, 2, 16, 32)], x: tile.Tensor[f32, (-1, -1, -1, -1)], g: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    offs = tile.arange(4) + 46  # a gather at row-major offsets 46..49 of the strided view: across its first two rows
    z.store(t * 2.0 + tile.sum(tile.gather(x, offs)) + tile.load(g, (0,), (32,)))


_B, _S, _H, _D = 2, 40, 3, 48
_SHAPE = (_B, _H, _S, _D)  # x = base.transpose(1, 2), base (B, S, H, D): torch's q.transpose(1, 2)
_STRIDES = (_S * _H * _D, _D, _H * _D, 1)


def _strided_specs(out_strides: tuple[int, ...] | None = None):
    return (
        tile.spec(f32, _SHAPE, partition=(1, 2, 16, 32), strides=out_strides),
        tile.spec(f32, _SHAPE, strides=_STRIDES),
        tile.spec(f32, (32,)),
    )


@pytest.mark.parametrize("strided_output", [False, True])
def test_strided_views_on_the_simulator_read_and_write_in_place(strided_output: bool) -> None:
    from warpforge.simulator import simulate
    from warpforge.tile_compile import grid_of, simulation_program

    specs = _strided_specs(_STRIDES if strided_output else None)
    program = simulation_program(scale_strided, scale_strided.specialize(specs))
    base = rng.standard_normal((_B, _S, _H, _D)).astype(np.float32)
    x = base.transpose(0, 2, 1, 3)
    assert x.strides == tuple(st * 4 for st in _STRIDES)
    g = rng.standard_normal(32).astype(np.float32)
    # columns 32..47 lie in the second column tile, which loads g's tile 0 again; the gather reads the
    # elements 46..49 of the view in row-major order (the end of its first row, the start of the
    # second), not of its memory
    want = 2 * x + x.reshape(-1)[46:50].sum() + np.concatenate([g, g[: _D - 32]])[None, None, None, :]
    grid = int(np.prod(grid_of(_SHAPE, (1, 2, 16, 32))))
    x_args = [base.reshape(-1), *_SHAPE, *_STRIDES[:-1]]
    if strided_output:
        out_base = np.full((_B, _S, _H, _D), np.nan, np.float32)
        simulate(program.module, program.symbol, (grid, 1, 1), (program.block, 1, 1), [out_base.reshape(-1), *_SHAPE, *_STRIDES[:-1], *x_args, g])
        got = out_base.transpose(0, 2, 1, 3)
    else:
        got = np.full(_SHAPE, np.nan, np.float32)
        simulate(program.module, program.symbol, (grid, 1, 1), (program.block, 1, 1), [got, *x_args, g])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def test_strided_view_ptx_passes_strides_and_keeps_vector_accesses() -> None:
    import re
    import shutil
    import subprocess
    import tempfile

    ck = scale_strided.compile(*_strided_specs())
    params = {p.name: p for p in ck.kernel.params}
    assert params["x"].strided and params["x"].abi_count == 2 + 4 + 3 and not params["z"].strided
    ptx = ck.kernel.ptx
    assert re.search(r"ld\.global\.nc\.v4\.(f32|b32)", ptx)  # the strides are multiples of 4: 128-bit loads
    if shutil.which("ptxas"):
        with tempfile.TemporaryDirectory() as d:
            open(f"{d}/k.ptx", "w").write(ptx)
            subprocess.run(["ptxas", "-arch=sm_90", f"{d}/k.ptx", "-o", f"{d}/k.cubin"], check=True)


class _FakeCAI:
    """A device array described only by its `__cuda_array_interface__` (no driver needed)."""

    def __init__(self, shape: tuple[int, ...], strides_bytes: tuple[int, ...] | None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "strides": strides_bytes, "data": (1 << 20, False), "version": 3}


def test_wf_tensor_accepts_a_view_with_a_contiguous_last_axis_and_refuses_others() -> None:
    ok = wf.tensor(_FakeCAI(_SHAPE, tuple(4 * st for st in _STRIDES)))
    spec = scale_strided.specialize((wf.zeros(_SHAPE, f32).partition((1, 2, 16, 32)), ok, wf.zeros((32,), f32)))
    assert [p.strided for p in spec.params] == [False, True, False]
    with pytest.raises(wf.LaunchError, match=r"only when the last axis is contiguous \(stride 1\)"):
        wf.tensor(_FakeCAI((4, 8), (4, 16)))  # a transposed matrix: the last axis has stride 4
    with pytest.raises(wf.LaunchError, match="no two elements share memory"):
        wf.tensor(_FakeCAI((4, 8), (4, 4)))  # rows overlap


@pytest.mark.gpu
def test_torch_transposed_view_is_used_without_a_copy() -> None:
    torch = pytest.importorskip("torch")
    gen = torch.Generator(device="cuda").manual_seed(1212)
    base = torch.randn((_B, _S, _H, _D), device="cuda", generator=gen)
    q = base.transpose(1, 2)  # (B, H, S, D), strides (S·H·D, D, H·D, 1)
    assert not q.is_contiguous()
    g = torch.randn(32, device="cuda", generator=gen)
    out = torch.full(_SHAPE, float("nan"), device="cuda")
    res = scale_strided(wf.tensor(out).partition((1, 2, 16, 32)), wf.tensor(q), wf.tensor(g))
    res.first().unpartition().to_host().sync()
    x = q.cpu().numpy()
    gn = g.cpu().numpy()
    want = 2 * x + x.reshape(-1)[46:50].sum() + np.concatenate([gn, gn[: _D - 32]])[None, None, None, :]
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-6, atol=1e-5)
