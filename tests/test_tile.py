"""The Tile model: its semantics against NumPy on fresh random inputs — on the GPU (marked `gpu`) and
on the CPU simulator (always, so CI checks the lowering) through the same lazy host chain — and the
host API's rules (laziness, ownership, aliasing, shapes that must line up, tile shapes), which need
no device at all."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, f64, i32, i64, tile, u8

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(1640)


# --------------------------------------------------------------------------- kernels


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


@tile.kernel
def softmax_rows(out: tile.Tensor[f32, (1, "C")], x: tile.Tensor[f32, (-1, -1)]):
    row = tile.load_tile_like(x, out, padding=-math.inf)
    e = tile.exp(row - tile.max(row, axis=1, keepdims=True))
    out.store(e / tile.sum(e, axis=1, keepdims=True))


@tile.kernel
def block_sum(out: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)], tiles: i64):
    acc = tile.zeros((512,), f32)
    for i in range(tiles):
        acc += tile.load(x, (tile.bid(0) * tiles + i,), (512,))
    out.store(tile.sum(acc))


@tile.kernel
def row_max(out: tile.Tensor[f32, (4, 1)], x: tile.Tensor[f32, (-1, 64)]):
    out.store(tile.max(tile.load(x, (tile.bid(0), 0), (4, 64)), axis=1, keepdims=True))


@tile.kernel
def sum_size1(out: tile.Tensor[f32, (8, 1)], x: tile.Tensor[f32, (-1, 1)]):
    t = tile.load_tile_like(x, out)
    out.store(tile.sum(t, axis=1, keepdims=True) + tile.prod(t, axis=1).reshape((8, 1)))


@tile.kernel
def floor_mod(q: tile.Tensor[i32, ("B",)], r: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    x = tile.load_tile_like(a, q)
    y = tile.load_tile_like(b, q, padding=1)
    q.store(x // y)
    r.store(x % y)


@tile.kernel
def row_sums_f16(z: tile.Tensor[f16, ("R",)], x: tile.Tensor[f16, (-1, -1)], C: wf.Constant[int]):
    z.store(tile.sum(tile.load(x, (tile.bid(0), 0), (z.shape[0], C)), 1))


@tile.kernel
def row_sums_bf16(z: tile.Tensor[bf16, ("R",)], x: tile.Tensor[bf16, (-1, -1)], C: wf.Constant[int]):
    z.store(tile.sum(tile.load(x, (tile.bid(0), 0), (z.shape[0], C)), 1))


@tile.kernel
def histogram_16(counts: tile.AtomicTensor[i32, (-1,)], x: tile.Tensor[i64, ("B",)]):
    t = x.load()
    tile.atomic_add(counts, t % 16, tile.full(t.shape, 1, i32))


@tile.kernel
def histogram_2d(counts: tile.AtomicTensor[i32, (-1,)], x: tile.Tensor[i32, (4, 32)]):
    tile.atomic_add(counts, (x.load() + 1) % 8, tile.full((4, 32), 1, i32))


@tile.kernel
def atomic_tile_sums(total: tile.AtomicTensor[f32, (-1,)], x: tile.Tensor[f32, ("B",)]):
    tile.atomic_add(total, tile.zeros((1,), i64), tile.sum(x.load()).reshape((1,)))


@tile.kernel
def col_sums(out: tile.Tensor[f32, (1, 32)], x: tile.Tensor[f32, (16, -1)]):
    t = tile.load(x, (0, tile.bid(1)), (16, 32))
    out.store(tile.sum(t, axis=0, keepdims=True))


@tile.kernel
def shapes(out: tile.Tensor[f32, (8, 16)], x: tile.Tensor[f32, (-1, -1)]):
    t = tile.load_tile_like(x, out)  # (8, 16)
    col = tile.arange(8, i32).astype(f32).reshape((8, 1))  # broadcast along rows
    tt = tile.transpose(tile.load(x, (tile.bid(1), tile.bid(0)), (16, 8)))  # x's (16, 8) tile, transposed
    out.store(t * 2.0 + col + tt * 0.0 + tile.where(t > 0, 1.0, -1.0))


@tile.kernel
def gather_scatter(out: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], counts: tile.AtomicTensor[i32, (-1,)], shift: i64):
    idx = tile.arange(256, i64) + tile.bid(0) * 256
    g = tile.gather(x, idx + shift, mask=idx % 2 == 0, padding=-1.0)
    out.store(g)
    tile.atomic_add(counts, idx % 4, 1)


@tile.kernel
def divide(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    z.store(tile.load_tile_like(a, z) // tile.load_tile_like(b, z, padding=1))


@tile.kernel
def casts(z: tile.Tensor[u8, ("B",)], x: tile.Tensor[f64, (-1,)]):
    z.store(tile.load_tile_like(x, z).astype(u8))


@tile.kernel
def copy_2d(z: tile.Tensor[f32, ("R", "C")], x: tile.Tensor[f32, (-1, -1)]):
    z.store(tile.load_tile_like(x, z) + 1.0)


# --------------------------------------------------------------------------- semantics, on both backends


def _stream(backend: Backend):
    return backend.device.create_stream()


def test_vecadd_with_a_tail(backend: Backend) -> None:
    for n in (1024, 1000, 129, 1):
        x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
        z = wf.full((n,), np.nan, f32).partition((128,))
        out = add(z, wf.from_host(x), wf.from_host(y)).first().unpartition().to_host().sync_on(_stream(backend))
        np.testing.assert_array_equal(out, x + y)


def test_same_input_twice_is_borrowed_twice(backend: Backend) -> None:
    x = rng.standard_normal(512, dtype=np.float32)
    xt = wf.from_host(x)
    out = add(wf.empty((512,), f32).partition((256,)), xt, xt).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(out, x + x)


def test_softmax_rows_with_ragged_columns(backend: Backend) -> None:
    rows, cols = 5, 1000  # tiles of (1, 1024): the last 24 columns are padding (-inf, so exp gives 0)
    x = (3 * rng.standard_normal((rows, cols))).astype(np.float32)
    got = softmax_rows(wf.empty((rows, cols), f32).partition((1, 1024)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-8)


def test_chain_of_two_launches_one_sync(backend: Backend) -> None:
    n = 512 * 4 * 7 + 300
    x = rng.random(n, dtype=np.float32)
    p = -(-n // (512 * 4))
    partials = block_sum(wf.empty((p,), f32).partition((1,)), wf.from_host(x), 4).first().unpartition()
    total = block_sum(wf.empty((1,), f32).partition((1,)), partials, 1).first().unpartition()
    got = total.to_host().sync_on(_stream(backend))
    assert got.shape == (1,)
    np.testing.assert_allclose(got[0], x.astype(np.float64).sum(), rtol=1e-5)


def test_nan_propagates_through_a_max_reduction(backend: Backend) -> None:
    x = rng.standard_normal((12, 64)).astype(np.float32)
    x[1, 7] = np.nan
    x[6, 63] = np.nan
    got = row_max(wf.empty((12, 1), f32).partition((4, 1)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, np.max(x, axis=1, keepdims=True))  # NumPy's max propagates NaN too
    assert np.isnan(got[1, 0]) and np.isnan(got[6, 0])


def test_reduction_over_a_size_1_dimension(backend: Backend) -> None:
    x = rng.standard_normal((20, 1)).astype(np.float32)
    got = sum_size1(wf.empty((20, 1), f32).partition((8, 1)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, x + x)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_16_bit_float_sums_accumulate_in_f32(backend: Backend, dtype: str) -> None:
    # A sum of f16/bf16 is combined in f32 and rounded once: within one ulp of the exact sum for every
    # shape. (Combining in f16 summed 8 rows of 1024 copies of 0.1 to 108.2 instead of 102.4: the
    # per-thread partials and the shared-memory round were all rounded to f16.)
    import ml_dtypes

    np_type = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    kernel = row_sums_f16 if dtype == "f16" else row_sums_bf16
    for rows, cols in ((8, 1024), (16, 512), (32, 256), (8, 128), (2, 4096)):
        x = rng.random((rows, cols)).astype(np_type)
        z = wf.from_host(np.full((rows,), np.nan, np_type)).partition((rows,))
        got = kernel(z, wf.from_host(x), cols).first().unpartition().to_host().sync_on(_stream(backend))
        exact = x.astype(np.float64).sum(axis=1)
        ulp = np.spacing(np.abs(exact).astype(np_type)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - exact) / ulp
        assert err.max() <= 1.0, f"{dtype} {rows}x{cols}: {err.max():.1f} ulps from the exact sum"


def test_atomics_skip_the_padding_of_a_loaded_tail(backend: Backend) -> None:
    # elements past a loaded tensor's end are padding: an atomic computed from them elementwise does
    # not happen (as a store of them is not written). 300 values in tiles of 128 counted 384.
    stream = _stream(backend)
    for n in (128, 300, 1000):
        x = rng.integers(0, 1000, n).astype(np.int64)
        got = histogram_16(wf.from_host(np.zeros(16, np.int32)), wf.from_host(x).partition((128,))).first().to_host().sync_on(stream)
        np.testing.assert_array_equal(got, np.bincount(x % 16, minlength=16))
    for n in (3000, 3001):  # several registers per thread, in vectors of 2 (3000) or one by one (3001)
        x = rng.integers(0, 1000, n).astype(np.int64)
        got = histogram_16(wf.from_host(np.zeros(16, np.int32)), wf.from_host(x).partition((1024,))).first().to_host().sync_on(stream)
        np.testing.assert_array_equal(got, np.bincount(x % 16, minlength=16))
    x2 = rng.integers(-50, 50, (10, 50)).astype(np.int32)
    got = histogram_2d(wf.from_host(np.zeros(8, np.int32)), wf.from_host(x2).partition((4, 32))).first().to_host().sync_on(stream)
    np.testing.assert_array_equal(got, np.bincount(((x2 + 1) % 8).ravel(), minlength=8))
    # a reduction's padding is the load's padding= (0 for a sum): its atomic is not masked
    y = rng.standard_normal(1000).astype(np.float32)
    got = atomic_tile_sums(wf.from_host(np.zeros(1, np.float32)), wf.from_host(y).partition((256,))).first().to_host().sync_on(stream)
    np.testing.assert_allclose(got, [y.astype(np.float64).sum()], rtol=1e-4, atol=1e-3)


def test_floor_division_and_modulo_on_negative_tiles(backend: Backend) -> None:
    n = 700
    a = rng.integers(-1000, 1000, n, dtype=np.int32)
    b = rng.integers(-17, 17, n, dtype=np.int32)
    b[b == 0] = 3
    a[:4], b[:4] = [np.iinfo(np.int32).min, -7, 7, -7], [-1, 2, -2, -2]
    q = wf.empty((n,), i32).partition((256,))
    r = wf.empty((n,), i32).partition((256,))
    res = floor_mod(q, r, wf.from_host(a), wf.from_host(b))
    stream = _stream(backend)
    qh = res[0].unpartition().to_host()
    rh = res[1].unpartition().to_host().sync_on(stream)
    qh = qh.sync_on(stream)
    expected_q = np.array([int(x) // int(y) for x, y in zip(a, b)], dtype=np.int64)
    expected_q[0] = np.iinfo(np.int32).min  # INT_MIN // -1 wraps
    np.testing.assert_array_equal(qh, expected_q.astype(np.int32))
    np.testing.assert_array_equal(rh, np.array([int(x) % int(y) for x, y in zip(a, b)], dtype=np.int32))


def test_column_reduction_broadcast_reshape_transpose(backend: Backend) -> None:
    x = rng.standard_normal((16, 64)).astype(np.float32)
    got = col_sums(wf.empty((1, 64), f32).partition((1, 32)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_allclose(got, x.sum(axis=0, keepdims=True), rtol=1e-5, atol=1e-5)

    y = rng.standard_normal((16, 32)).astype(np.float32)
    out = shapes(wf.empty((16, 32), f32).partition((8, 16)), wf.from_host(y)).first().unpartition().to_host().sync_on(_stream(backend))
    col = np.tile(np.arange(8, dtype=np.float32), 2).reshape(16, 1)
    np.testing.assert_array_equal(out, y * 2 + col + np.where(y > 0, 1.0, -1.0).astype(np.float32))


def test_gather_with_mask_and_padding_and_atomics(backend: Backend) -> None:
    n = 1000
    x = rng.standard_normal(n, dtype=np.float32)
    counts = wf.zeros((4,), i32)
    res = gather_scatter(wf.empty((768,), f32).partition((256,)), wf.from_host(x), counts, 5)
    stream = _stream(backend)
    out = res.first().unpartition().to_host().sync_on(stream)
    idx = np.arange(768)
    src = idx + 5
    expected = np.where((idx % 2 == 0) & (src < n), x[np.minimum(src, n - 1)], np.float32(-1.0))
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(res[2].to_host().sync_on(stream), [192, 192, 192, 192])


def test_float_to_int_conversion_saturates(backend: Backend) -> None:
    x = np.array([-5.0, 0.4, 254.6, 300.0, np.nan, np.inf, 17.0, 1e10] * 8, dtype=np.float64)
    got = casts(wf.empty((64,), u8).partition((64,)), wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got[:8], [0, 0, 254, 255, 0, 255, 17, 255])


def test_integer_division_by_zero_is_a_kernel_error(backend: Backend) -> None:
    a = np.arange(256, dtype=np.int32)
    b = np.ones(256, dtype=np.int32)
    b[77] = 0
    with pytest.raises(wf.KernelError, match="division by zero"):
        divide(wf.empty((256,), i32).partition((128,)), wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend))


def test_2d_partition_with_more_than_65535_tiles_along_one_axis(backend: Backend) -> None:
    rows = 70_000  # tiles (1, 32): 70000 tile blocks along axis 0, linear on grid.x
    x = rng.standard_normal((rows, 32)).astype(np.float32)
    out = wf.full((rows, 32), np.nan, f32).partition((1, 32))
    assert out.grid == (rows, 1)
    sample = [0, 1, 65534, 65535, 65536, rows - 1]
    with backend.only_blocks(sample):
        got = copy_2d(out, wf.from_host(x)).first().unpartition().to_host().sync_on(_stream(backend))
    rows_checked = sample if backend.name == "simulator" else list(range(rows))
    np.testing.assert_array_equal(got[rows_checked], x[rows_checked] + 1)


# --------------------------------------------------------------------------- the host API (no device)


def test_nothing_runs_before_sync_and_errors_come_first() -> None:
    # recording a whole chain needs no GPU and no driver: it only checks and compiles
    x = wf.ones((1024,), f32)
    z = wf.zeros((1024,), f32).partition((128,))
    assert z.grid == (8,)
    host = add(z, x, x).first().unpartition().to_host()
    assert hasattr(host, "sync_on")


def test_aliasing_is_a_moved_value() -> None:
    z = wf.zeros((1024,), f32)
    y = wf.ones((1024,), f32)
    with pytest.raises(wf.MovedValueError) as info:
        add(z.partition((128,)), z, y)
    message = str(info.value)
    assert "created at" in message and "test_tile.py" in message
    assert "consumed by .partition()" in message


def test_a_partition_is_taken_by_the_call_and_given_back() -> None:
    x = wf.ones((256,), f32)
    z = wf.zeros((256,), f32).partition((128,))
    result = add(z, x, x)
    with pytest.raises(wf.MovedValueError, match=f"consumed by the call to {add.__qualname__}"):
        add(z, x, x)
    again = add(result.first(), x, x)  # the returned handle is the live one
    whole = again.first().unpartition()
    with pytest.raises(wf.MovedValueError, match=r"consumed by \.unpartition\(\)"):
        again.first().unpartition()
    assert whole.shape == (256,)


def test_bad_partitions_and_shapes_are_refused_before_anything_runs() -> None:
    with pytest.raises(wf.CompileError, match="powers of two"):
        wf.zeros((1000,), f32).partition((100,))
    with pytest.raises(wf.LaunchError, match="does not fit the 1-D tensor"):
        wf.zeros((1000,), f32).partition((8, 8))
    with pytest.raises(wf.LaunchError, match="shapes do not line up"):
        add(wf.zeros((1024,), f32).partition((128,)), wf.ones((1000,), f32), wf.ones((1024,), f32))
    with pytest.raises(wf.LaunchError, match="holds f64 elements"):
        add(wf.zeros((1024,), f32).partition((128,)), wf.ones((1024,), f64), wf.ones((1024,), f32))
    with pytest.raises(wf.LaunchError, match="needs a partitioned tensor argument"):
        add(wf.zeros((1024,), f32), wf.ones((1024,), f32), wf.ones((1024,), f32))


@tile.kernel
def bad_tile(z: tile.Tensor[f32, ("B",)]):
    z.store(tile.zeros((96,), f32).sum() + tile.zeros(z.shape, f32))


def test_non_power_of_two_tile_in_a_kernel_is_a_compile_error_at_the_call() -> None:
    with pytest.raises(wf.CompileError, match=r"test_tile.py:\d+:\d+: error: tile shape \(96,\): tile dimensions must be powers of two"):
        bad_tile(wf.zeros((256,), f32).partition((128,)))


def test_grid_is_linear_on_x_and_passes_the_launch_checks() -> None:
    from warpforge.runtime import DeviceLimits, LaunchConfig, check_launch

    out = wf.zeros((70_000, 32), f32).partition((1, 32))
    compiled = copy_2d.compile(out, wf.ones((70_000, 32), f32))
    assert compiled.block == compiled.kernel.exact_block[0]
    check_launch(compiled.kernel, LaunchConfig(grid=(70_000, 1, 1), block=compiled.kernel.exact_block), DeviceLimits.H200)


def test_specialization_on_alignment_and_divisibility() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    aligned = add.compile(tile.spec(f32, (4096,), partition=(1024,)), tile.spec(f32, (4096,)), tile.spec(f32, (4096,)))
    unaligned = add.compile(tile.spec(f32, (4096,), partition=(1024,)), tile.spec(f32, (4096,), aligned=False), tile.spec(f32, (4096,)))
    assert aligned.kernel.cache_key != unaligned.kernel.cache_key
    assert "ld.global.nc.v4" in aligned.kernel.ptx and "st.global.v4" in aligned.kernel.ptx
    # x (not known to be 16-byte aligned) is read with scalar loads; y keeps its vector loads
    assert unaligned.kernel.ptx.count("ld.global.nc.v4") < aligned.kernel.ptx.count("ld.global.nc.v4")
    assert "ld.global.nc.b32" in unaligned.kernel.ptx or "ld.global.nc.f32" in unaligned.kernel.ptx
    for k in (aligned, unaligned):
        assert ".extern .func" not in k.kernel.ptx
        if find_ptxas() is not None:
            run_ptxas(k.kernel.ptx, "sm_90", verbose=False)


def test_every_kernel_here_compiles_and_ptxas_accepts_it() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    signatures = {
        softmax_rows: (tile.spec(f32, (64, 8192), partition=(1, 8192)), tile.spec(f32, (64, 8192))),
        block_sum: (tile.spec(f32, (64,), partition=(1,)), tile.spec(f32, (1 << 20,)), tile.spec(i64)),
        row_max: (tile.spec(f32, (64, 1), partition=(4, 1)), tile.spec(f32, (64, 64))),
        col_sums: (tile.spec(f32, (1, 64), partition=(1, 32)), tile.spec(f32, (16, 64))),
        shapes: (tile.spec(f32, (16, 32), partition=(8, 16)), tile.spec(f32, (16, 32))),
        gather_scatter: (tile.spec(f32, (768,), partition=(256,)), tile.spec(f32, (1000,)), tile.spec(i32, (4,)), tile.spec(i64)),
        floor_mod: (tile.spec(i32, (700,), partition=(256,)), tile.spec(i32, (700,), partition=(256,)), tile.spec(i32, (700,)), tile.spec(i32, (700,))),
    }
    for kernel, args in signatures.items():
        ptx = kernel.ir("ptx", *args)
        assert ".visible .entry" in ptx and ".extern .func" not in ptx
        if find_ptxas() is not None:
            run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- every reduction and layout path


def _reduce_kernel(shape: tuple[int, ...], axis: int, fn, keep: bool, num_warps: int, outn: int):
    n = math.prod(shape)

    @tile.kernel(num_warps=num_warps)
    def reduce_any(out: tile.Tensor[f32, ("A",)], x: tile.Tensor[f32, (-1,)]):
        t = tile.load(x, (0,), (n,)).reshape(shape)
        out.store(fn(t, axis=axis, keepdims=keep).reshape((outn,)))

    return reduce_any


REDUCE_CASES = [
    # (shape, axis, num_warps): rows spanning the CTA, short rows in shuffle groups, columns and
    # rows through shared memory, tiles smaller than the CTA (replicated threads), size-1 axes
    ((1,), 0, 1), ((128,), 0, 4), ((1024,), 0, 4), ((2, 64), 1, 1), ((2, 64), 0, 4), ((8, 4), 1, 4),
    ((4, 256), 1, 1), ((64, 2), 1, 1), ((64, 2), 0, 4), ((8, 1), 1, 4), ((1, 8), 0, 1), ((256, 4), 1, 4),
]  # fmt: skip


@pytest.mark.parametrize("shape,axis,num_warps", REDUCE_CASES, ids=lambda v: str(v).replace(" ", ""))
def test_reductions_on_every_path(backend: Backend, shape: tuple[int, ...], axis: int, num_warps: int) -> None:
    stream = _stream(backend)
    for kind, keep in (("sum", axis % 2 == 0), ("max", axis % 2 == 1), ("min", True)):
        out_shape = [1 if (keep and a == axis) else d for a, d in enumerate(shape) if keep or a != axis]
        outn = math.prod(out_shape)
        kernel = _reduce_kernel(shape, axis, getattr(tile, kind), keep, num_warps, outn)
        x = rng.standard_normal(math.prod(shape)).astype(np.float32)
        got = kernel(wf.empty((outn,), f32).partition((outn,)), wf.from_host(x)).first().unpartition().to_host().sync_on(stream)
        expected = getattr(np, kind)(x.reshape(shape), axis=axis, keepdims=keep).reshape(-1)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5, err_msg=f"{kind} over axis {axis} of {shape}")


def _relayout_kernel(src: tuple[int, ...], dst: tuple[int, ...], transpose: bool, num_warps: int):
    n, m = math.prod(src), math.prod(dst)

    @tile.kernel(num_warps=num_warps)
    def relayout(out: tile.Tensor[f32, ("A",)], x: tile.Tensor[f32, (-1,)]):
        t = tile.load(x, (0,), (n,)).reshape(src)
        if transpose:
            out.store(t.T.reshape((m,)))
        else:
            out.store(tile.broadcast_to(t, dst).reshape((m,)))

    return relayout


@pytest.mark.parametrize(
    "src,dst,transpose",
    [((4, 1), (4, 64), False), ((1, 64), (8, 64), False), ((64,), (4, 64), False), ((2,), (16, 2), False), ((16, 16), (16, 16), True), ((4, 64), (64, 4), True)],
    ids=lambda v: str(v).replace(" ", ""),
)
def test_broadcast_and_transpose_through_shared_memory(backend: Backend, src: tuple[int, ...], dst: tuple[int, ...], transpose: bool) -> None:
    stream = _stream(backend)
    for num_warps in (1, 4):
        kernel = _relayout_kernel(src, dst, transpose, num_warps)
        x = rng.standard_normal(math.prod(src)).astype(np.float32)
        m = math.prod(dst)
        got = kernel(wf.empty((m,), f32).partition((m,)), wf.from_host(x)).first().unpartition().to_host().sync_on(stream)
        expected = x.reshape(src).T if transpose else np.broadcast_to(x.reshape(src), dst)
        np.testing.assert_array_equal(got, np.ascontiguousarray(expected).reshape(-1))
