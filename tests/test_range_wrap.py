"""`for j in range(start, stop, step)` in a kernel runs exactly Python's iterations, also where
`j + step` passes the end of the loop variable's type: a wrapped sum ends the loop
(`lower-kernel-control-flow`'s latch test). Before, `range(0, 2**63 - 1, 2**62)` wrapped to a
negative `j` and kept going (the kernels below stop themselves after 100 iterations). Both backends."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import i32, i64, simt, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

CAP = 100
"""The kernels stop after CAP + 1 iterations (a loop that wrapped would not end)."""
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)


@simt.kernel
def trips(out: simt.DisjointSlice[i64], last_out: simt.DisjointSlice[i64], start: i64, stop: i64, step: i64):
    idx = simt.index_1d()
    n = 0
    last = 0
    for j in range(start, stop, step):
        n += 1
        last = j
        if n > CAP:
            break
    out[idx] = n
    last_out[idx] = last


@simt.kernel
def trips_up_const(out: simt.DisjointSlice[i64], start: i64, stop: i64):
    idx = simt.index_1d()
    n = 0
    for j in range(start, stop, 2**62):
        n += 1
        if n > CAP:
            break
    out[idx] = n


@simt.kernel
def trips_down_const(out: simt.DisjointSlice[i64], start: i64, stop: i64):
    idx = simt.index_1d()
    n = 0
    for j in range(start, stop, -3):
        n += 1
        if n > CAP:
            break
    out[idx] = n


def _from_zero(step: int):
    @simt.kernel
    def trips_from(out: simt.DisjointSlice[i64], stop: i64):
        idx = simt.index_1d()
        n = 0
        for j in range(0, stop, step):  # a constant start and step: the header's `j >= 0` ends a wrapped loop
            n += 1
            if n > CAP:
                break
        out[idx] = n

    return trips_from


trips_from_zero = _from_zero(2**61 + 3)
trips_down_from_zero = _from_zero(-(2**61) - 5)


@simt.kernel
def trips_i32(out: simt.DisjointSlice[i32], start: i32, stop: i32, step: i32):
    idx = simt.index_1d()
    n = 0
    for j in range(start, stop, step):
        n += 1
        if n > CAP:
            break
    out[idx] = n


@tile.kernel
def tile_trips(z: tile.Tensor[i64, (1,)], start: i64, stop: i64, step: i64):
    n = 0
    for j in range(start, stop, step):
        n += 1
        if n > CAP:
            break
    z.store(tile.full((1,), n, i64))


def _expected(start: int, stop: int, step: int) -> tuple[int, int]:
    r = range(start, stop, step)
    n = min(len(r), CAP + 1)
    return n, (r[n - 1] if n else 0)


EDGES = [
    (0, I64_MAX, 2**62),  # the case: 2 iterations, the third `j + step` wraps
    (I64_MAX - 5, I64_MAX, 2),
    (I64_MIN + 5, I64_MIN, -2),
    (I64_MIN, I64_MAX, I64_MAX),
    (I64_MAX - 1, I64_MAX, I64_MAX),
    (I64_MIN + 1, I64_MIN, I64_MIN),
    (I64_MAX, I64_MIN, I64_MIN),
    (0, 10, 3),
    (5, -5, -3),
    (0, 10, -1),
    (3, 3, 7),
    (0, I64_MAX, 1),  # capped: a long loop, no wrap
]


def _random_cases(rng: np.random.Generator, count: int) -> list[tuple[int, int, int]]:
    """Bounds near the type's ends and steps of every size and sign."""
    out = []
    for _ in range(count):
        step = int(rng.choice([1, -1])) * int(2 ** rng.uniform(1, 63))
        step = max(min(step, I64_MAX), I64_MIN)
        if step == 0:
            step = 2
        far = int(rng.integers(0, 2**20))
        start = I64_MAX - far if step > 0 else I64_MIN + far
        start = int(rng.choice([start, int(rng.integers(-(2**62), 2**62))]))
        stop = I64_MAX - int(rng.integers(0, 2**10)) if step > 0 else I64_MIN + int(rng.integers(0, 2**10))
        out.append((start, stop, step))
    return out


def test_range_runs_pythons_iterations_near_the_ends_of_i64(backend: Backend) -> None:
    rng = np.random.default_rng(20261201)
    cases = EDGES + _random_cases(rng, 52)
    for start, stop, step in cases:
        out, last = np.full(1, -7, np.int64), np.full(1, -7, np.int64)  # poisoned
        got, got_last = backend.run(trips, 1, 1, out, last, start, stop, step)
        assert (int(got[0]), int(got_last[0])) == _expected(start, stop, step), (start, stop, step)


@pytest.mark.parametrize(("kernel", "start", "stop", "step"), [
    (trips_up_const, 0, I64_MAX, 2**62), (trips_up_const, -(2**62), I64_MAX - 1, 2**62), (trips_up_const, 0, 2**62 + 1, 2**62),
    (trips_down_const, I64_MIN + 7, I64_MIN, -3), (trips_down_const, 10, -10, -3),
])  # fmt: skip
def test_range_with_a_constant_step_stops_where_the_next_value_wraps(backend: Backend, kernel, start: int, stop: int, step: int) -> None:
    out = np.full(1, -7, np.int64)
    (got,) = backend.run(kernel, 1, 1, out, start, stop)
    assert int(got[0]) == _expected(start, stop, step)[0]


@pytest.mark.parametrize(("start", "stop", "step"), [(0, 2**31 - 1, 2**30), (-(2**31) + 3, -(2**31), -2), (2**31 - 2, 2**31 - 1, 2**31 - 1)])
def test_range_of_i32_runs_pythons_iterations(backend: Backend, start: int, stop: int, step: int) -> None:
    out = np.full(1, -7, np.int32)
    (got,) = backend.run(trips_i32, 1, 1, out, start, stop, step)
    assert int(got[0]) == _expected(start, stop, step)[0]


@pytest.mark.parametrize(("start", "stop", "step"), [(0, I64_MAX, 2**62), (I64_MIN + 5, I64_MIN, -2), (0, 10, 3)])
def test_range_in_a_tile_kernel_runs_pythons_iterations(backend: Backend, start: int, stop: int, step: int) -> None:
    out = wf.full((1,), -7, i64).partition((1,))
    got = tile_trips(out, start, stop, step).first().unpartition().to_host().sync_on(backend.device.create_stream())
    assert int(got[0]) == _expected(start, stop, step)[0]


@pytest.mark.parametrize(("kernel", "stop", "step"), [
    (trips_from_zero, I64_MAX, 2**61 + 3), (trips_from_zero, I64_MAX - 2**61, 2**61 + 3), (trips_from_zero, 10, 2**61 + 3),
    (trips_from_zero, -5, 2**61 + 3), (trips_down_from_zero, I64_MIN, -(2**61) - 5), (trips_down_from_zero, -7, -(2**61) - 5),
])  # fmt: skip
def test_range_from_a_constant_start_stops_where_the_next_value_wraps(backend: Backend, kernel, stop: int, step: int) -> None:
    out = np.full(1, -7, np.int64)
    (got,) = backend.run(kernel, 1, 1, out, stop)
    assert int(got[0]) == _expected(0, stop, step)[0]
