"""A tile kernel's `KernelError` counts distinct failing elements: a thread holding a replica of an
element (a tile smaller than the CTA, a reduction's broadcast rows) does not record it again, and a
scalar op of a tile kernel is recorded once per CTA (every thread computes it). The count is
`details["count"]` (the message's "N more errors" is count - 1). On both backends (the simulator in
CI, the GPU marked `gpu`); the kernels' PTX goes through ptxas."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import i32, i64, simt, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(20261201)


@tile.kernel
def div_and_cdiv(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    x = tile.load_tile_like(a, z)
    d = tile.load_tile_like(b, z, padding=1)
    z.store(x // d + tile.cdiv(x, d))


@tile.kernel
def div_2d(z: tile.Tensor[i32, ("R", "C")], a: tile.Tensor[i32, (-1, -1)], b: tile.Tensor[i32, (-1, -1)]):
    z.store(tile.load_tile_like(a, z) % tile.load_tile_like(b, z, padding=1))


@tile.kernel
def row_sums_over(z: tile.Tensor[i32, ("R", 1)], a: tile.Tensor[i32, (-1, -1)], b: tile.Tensor[i32, (-1, 1)], C: wf.Constant[int]):
    rows = tile.load(a, (tile.bid(0), 0), (z.shape[0], C))
    z.store(rows.sum(axis=1, keepdims=True) // tile.load_tile_like(b, z, padding=1))


@simt.device
def halve_by(x: i32, d: i32) -> i32:
    if x > 0:
        return x // d
    return -(x // d)


@tile.kernel
def map_div(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    z.store(halve_by(tile.load_tile_like(a, z), tile.load_tile_like(b, z, padding=1)))


@tile.kernel
def scalar_div(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], k: i32):
    z.store(tile.load_tile_like(a, z) + 100 // k)


def _count(run) -> tuple[int, wf.KernelError]:
    with pytest.raises(wf.KernelError, match="division by zero") as info:
        run()
    return info.value.details["count"], info.value


def _divisors(shape: tuple[int, ...], bad: int) -> tuple[np.ndarray, np.ndarray]:
    """Random dividends and nonzero divisors of `shape`, `bad` of the divisors (distinct, random
    places) set to 0."""
    a = rng.integers(-1000, 1000, size=shape, dtype=np.int32)
    b = rng.integers(1, 50, size=shape, dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32), size=shape)
    flat = b.reshape(-1)
    flat[rng.choice(flat.size, size=bad, replace=False)] = 0
    return a, b


def _stream(backend: Backend):
    return backend.device.create_stream()


@pytest.mark.parametrize(
    ("n", "tile_n", "bad"),
    [
        (8, 8, 2),  # 8 elements, 32 threads: each element in 4 threads (the new-user report: 15 more errors for 4)
        (8, 8, 1),
        (32, 8, 5),  # four CTAs of a replicated tile
        (64, 64, 3),  # 64 elements, 64 threads: no replicas
        (2048, 1024, 7),  # several registers per thread
        (16, 2, 3),  # 2 elements in 32 threads: 16 replicas each
    ],
)
def test_elementwise_division_counts_each_failing_element_once(backend: Backend, n: int, tile_n: int, bad: int) -> None:
    a, b = _divisors((n,), bad)
    out = wf.full((n,), -7, i32).partition((tile_n,))
    count, err = _count(lambda: div_and_cdiv(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == 2 * bad  # `//` and tile.cdiv each fail at every zero divisor
    assert f"{2 * bad - 1} more error" in str(err)


def test_one_zero_divisor_is_two_errors_not_eight(backend: Backend) -> None:
    a, b = _divisors((8,), 0)
    b[5] = 0
    out = wf.full((8,), -7, i32).partition((8,))
    count, err = _count(lambda: div_and_cdiv(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == 2
    assert str(err).endswith("; 1 more error")


@pytest.mark.parametrize(("shape", "tile_shape", "bad"), [((4, 8), (4, 8), 3), ((8, 4), (2, 4), 6), ((64, 32), (16, 32), 9)])
def test_2d_modulo_counts_each_failing_element_once(backend: Backend, shape: tuple[int, int], tile_shape: tuple[int, int], bad: int) -> None:
    a, b = _divisors(shape, bad)
    out = wf.full(shape, -7, i32).partition(tile_shape)
    count, _ = _count(lambda: div_2d(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == bad


def test_division_of_row_sums_counts_each_row_once(backend: Backend) -> None:
    # the (R, 1) sums are held by every thread of their row (a reduction's slice layout)
    rows, cols, bad = 16, 64, 5
    a = rng.integers(-100, 100, size=(rows, cols), dtype=np.int32)
    _, b = _divisors((rows, 1), bad)
    out = wf.full((rows, 1), -7, i32).partition((4, 1))
    count, _ = _count(lambda: row_sums_over(out, wf.from_host(a), wf.from_host(b), cols).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == bad


@pytest.mark.parametrize(("n", "tile_n", "bad"), [(8, 8, 3), (256, 128, 4)])
def test_device_function_division_counts_each_failing_element_once(backend: Backend, n: int, tile_n: int, bad: int) -> None:
    # a @simt.device function applied elementwise (tile.map, its body per register, with branches)
    a, b = _divisors((n,), bad)
    out = wf.full((n,), -7, i32).partition((tile_n,))
    count, _ = _count(lambda: map_div(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == bad


@pytest.mark.parametrize(("n", "tile_n"), [(8, 8), (1024, 256), (96, 32)])
def test_scalar_division_counts_once_per_cta(backend: Backend, n: int, tile_n: int) -> None:
    a = rng.integers(-1000, 1000, size=n, dtype=np.int32)
    out = wf.full((n,), -7, i32).partition((tile_n,))
    count, _ = _count(lambda: scalar_div(out, wf.from_host(a), 0).first().unpartition().to_host().sync_on(_stream(backend)))
    assert count == n // tile_n


def test_results_stay_correct_where_the_divisor_is_nonzero(backend: Backend) -> None:
    # only the recording is per element: every thread still computes (and the writer stores) its result
    a, b = _divisors((8,), 0)
    out = wf.full((8,), -7, i32).partition((8,))
    got = div_and_cdiv(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend))
    expected = a // b + -(-a // b)
    np.testing.assert_array_equal(got, expected)


def test_the_kernels_ptx_assembles_and_records_under_one_thread() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    signatures = [
        (div_and_cdiv, (tile.spec(i32, (32,), partition=(8,)), tile.spec(i32, (32,)), tile.spec(i32, (32,)))),
        (div_and_cdiv, (tile.spec(i32, (2048,), partition=(1024,)), tile.spec(i32, (2048,)), tile.spec(i32, (2048,)))),
        (div_2d, (tile.spec(i32, (8, 4), partition=(2, 4)), tile.spec(i32, (8, 4)), tile.spec(i32, (8, 4)))),
        (row_sums_over, (tile.spec(i32, (16, 1), partition=(4, 1)), tile.spec(i32, (16, 64)), tile.spec(i32, (16, 1)), 64)),
        (map_div, (tile.spec(i32, (8,), partition=(8,)), tile.spec(i32, (8,)), tile.spec(i32, (8,)))),
        (scalar_div, (tile.spec(i32, (96,), partition=(32,)), tile.spec(i32, (96,)), tile.spec(i32))),
    ]
    for kernel, args in signatures:
        ptx = kernel.ir("ptx", *args)
        assert "__wf_report_error" in ptx
        if find_ptxas() is not None:
            run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- when the error is raised (the README's account)


@simt.kernel
def shifted_copy(a: simt.Slice[i32], c: simt.DisjointSlice[i32], off: i64):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(c):
        c[idx] = a[i + off]


def _shifted_copies(dev):
    """A stream of `dev`, random `a` (32 i32), its device copy, a poisoned output `c`, and a launch of
    `shifted_copy` over them with one block of 32 threads."""
    s = dev.create_stream()
    a = rng.integers(-1000, 1000, size=32, dtype=np.int32)
    src = wf.DeviceBuffer.from_host(s, a)
    c = wf.DeviceBuffer.from_host(s, np.full(32, -7, np.int32))
    prepared = shifted_copy.prepare(wf.LaunchConfig(grid=1, block=32), device=dev)

    def launch(*args) -> None:
        shifted_copy.launch(s, prepared, *args)

    return s, a, src, c, launch


def test_on_the_simulator_the_next_launch_raises_an_earlier_launchs_error_and_does_not_run() -> None:
    s, a, src, c, launch = _shifted_copies(wf.Device.simulator())

    launch(src, c, 5)  # reads a[32..36]: 5 out-of-range reads
    with pytest.raises(wf.KernelError, match=r"read out of range.*; 4 more errors$"):
        launch(src, c, 0)  # a correct launch: raises the first one's error, is not enqueued
    expected = np.concatenate([a[5:], np.zeros(5, np.int32)])  # what the first launch wrote
    np.testing.assert_array_equal(c.to_host(s), expected)  # raised once: this sync point has nothing left
    launch(src, c, 0)  # launched again, it runs
    np.testing.assert_array_equal(c.to_host(s), a)


@pytest.mark.gpu
def test_on_the_gpu_a_sync_point_raises_the_error_once_and_a_relaunch_runs() -> None:
    s, a, src, c, launch = _shifted_copies(wf.Device(0))

    launch(src, c, 5)
    try:  # the launch's non-blocking check raises the error only when the first launch has completed
        launch(src, c, 0)
        raised_at_launch = False
    except wf.KernelError as err:
        assert "read out of range" in str(err) and str(err).endswith("; 4 more errors"), str(err)
        raised_at_launch = True
    if raised_at_launch:
        np.testing.assert_array_equal(c.to_host(s), np.concatenate([a[5:], np.zeros(5, np.int32)]))
        launch(src, c, 0)
    else:
        with pytest.raises(wf.KernelError, match=r"read out of range.*; 4 more errors$"):
            s.sync()
    np.testing.assert_array_equal(c.to_host(s), a)  # raised once; the correct launch ran


@tile.kernel
def div_tail(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    z.store(tile.load_tile_like(a, z) // tile.load_tile_like(b, z) + tile.cdiv(tile.load_tile_like(a, z), tile.load_tile_like(b, z)))


@tile.kernel
def mod_tail_2d(z: tile.Tensor[i32, ("R", "C")], a: tile.Tensor[i32, (-1, -1)], b: tile.Tensor[i32, (-1, -1)]):
    z.store(tile.load_tile_like(a, z) % tile.load_tile_like(b, z))


@pytest.mark.parametrize(("n", "tile_n", "bad"), [(6, 8, 0), (300, 128, 0), (300, 128, 2), (1000, 256, 1)])
def test_padding_past_a_tensors_end_is_not_a_division_by_zero(backend: Backend, n: int, tile_n: int, bad: int) -> None:
    # the divisor's padding (0 by default) past the tensor's end divided nothing the kernel stores, yet
    # recorded "integer division by zero" for each padded element: a false KernelError on valid input
    a, b = _divisors((n,), bad)
    out = wf.full((n,), -7, i32).partition((tile_n,))
    run = lambda: div_tail(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend))  # noqa: E731
    if bad:
        count, _ = _count(run)
        assert count == 2 * bad  # only the zero divisors inside the tensor
        return
    got = run()
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(got, (a64 // b64) + -(-a64 // b64))


@pytest.mark.parametrize(("shape", "tile_shape"), [((5, 7), (4, 8)), ((33, 20), (16, 16))])
def test_padding_of_a_2d_tail_is_not_a_division_by_zero(backend: Backend, shape: tuple[int, int], tile_shape: tuple[int, int]) -> None:
    a, b = _divisors(shape, 0)
    out = wf.full(shape, -7, i32).partition(tile_shape)
    got = mod_tail_2d(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend))
    np.testing.assert_array_equal(got, np.mod(a, b))  # Python's floor modulo, as `%`


@simt.device
def floor_div(x: i32, d: i32) -> i32:
    return x // d


@tile.kernel
def map_div_tail(z: tile.Tensor[i32, ("B",)], a: tile.Tensor[i32, (-1,)], b: tile.Tensor[i32, (-1,)]):
    z.store(floor_div(tile.load_tile_like(a, z), tile.load_tile_like(b, z)))


@pytest.mark.parametrize(("n", "tile_n", "bad"), [(6, 8, 0), (300, 128, 0), (300, 128, 3)])
def test_padding_past_a_tensors_end_is_not_a_division_by_zero_in_a_device_function(backend: Backend, n: int, tile_n: int, bad: int) -> None:
    # a @simt.device function applied to tiles (tile.map) divided by the padding's zeros and reported
    # "integer division by zero" on valid input, as the elementwise `//` did before
    a, b = _divisors((n,), bad)
    out = wf.full((n,), -7, i32).partition((tile_n,))
    run = lambda: map_div_tail(out, wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(_stream(backend))  # noqa: E731
    if bad:
        count, _ = _count(run)
        assert count == bad  # only the zero divisors inside the tensor
        return
    np.testing.assert_array_equal(run(), a.astype(np.int64) // b.astype(np.int64))
