"""The third new user's findings (each test fails before its fix): module-level tuples and strings
in SIMT kernels (the README says module constants are compiled in by value, "numbers, strings,
dtypes, tuples of those"; a SIMT kernel refused tuples and strings). Both backends."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, simt

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

WEIGHTS = (0.25, 0.5, 0.25)
SHAPE = (4, 8)
PAIR = (3, 1.5)
LABEL = "row"


@simt.kernel
def blur(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    acc = f32(0.0)
    for q in simt.static_range(3):  # WEIGHTS[q]: the loop is unrolled, each item a constant
        j = i + q - 1
        if 0 <= j and j < len(a):
            acc += a[j] * WEIGHTS[q]
    k, w = PAIR
    if i < len(a):
        c[idx] = acc + WEIGHTS[-1] * k + w


@simt.kernel
def flip_rows(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    s = simt.shared_array(SHAPE, f32)  # a module-level shape
    idx = simt.index_1d()
    i = idx.get()
    s[i // SHAPE[1], i % SHAPE[1]] = a[i]
    simt.sync_threads()
    if i == 0:
        print(LABEL, i)  # a module-level string
    c[idx] = s[SHAPE[0] - 1 - i // SHAPE[1], i % SHAPE[1]]


def test_module_tuples_index_unpack_and_shape_in_a_simt_kernel(backend: Backend) -> None:
    rng = np.random.default_rng(31)
    x = rng.standard_normal(32).astype(np.float32)
    poison = np.full(32, np.nan, np.float32)
    (_, got) = backend.run(blur, 1, 32, x, poison.copy())
    p = np.pad(x, 1)
    expected = p[:-2] * np.float32(0.25) + p[1:-1] * np.float32(0.5) + p[2:] * np.float32(0.25) + np.float32(0.25 * 3 + 1.5)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    (_, flipped) = backend.run(flip_rows, 1, 32, x, poison.copy())
    np.testing.assert_array_equal(flipped, x.reshape(SHAPE)[::-1].reshape(-1))


@simt.kernel
def by_thread(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] * WEIGHTS[i]


@simt.kernel
def past_the_end(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] * WEIGHTS[3]


@pytest.mark.parametrize(("kernel", "message"), [
    (by_thread, r"test_newuser3_fixes\.py:\d+:\d+: error: a tuple is indexed by a constant integer \(or a simt\.static_range variable\), got a value of type i64"),
    (past_the_end, r"test_newuser3_fixes\.py:\d+:\d+: error: tuple index 3 out of range for a tuple of 3"),
])  # fmt: skip
def test_a_tuple_item_needs_a_constant_index_in_range(kernel, message: str) -> None:
    with pytest.raises(wf.CompileError, match=message):
        kernel.compile("sm_90")
