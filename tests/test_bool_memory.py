"""Bools in memory are bytes, as in NumPy: any nonzero byte reads True, stores write 0 or 1.

Before the fix a `Slice[bool_]` was read with LLVM's `load i1`, which is undefined for bytes other
than 0/1: on the GPU the byte 0x02 read False (NumPy and the simulator: True). Every byte 0..255,
viewed as `np.bool_`, goes through SIMT and tile kernels on both backends and is compared with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import i32, simt, tile
from warpforge.backend.toolkit import find_ptxas, run_ptxas

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(3)


def _raw_bools(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every byte value 0..255 (then random bytes) and the same memory viewed as NumPy bools."""
    raw = np.concatenate([np.arange(256, dtype=np.uint8), rng.integers(0, 256, n - 256, dtype=np.uint8)])
    return raw, raw.view(np.bool_)


@simt.kernel
def bool_ops(x: simt.Slice[wf.bool_], ones: simt.Slice[wf.bool_], copy: simt.DisjointSlice[wf.bool_],
             negated: simt.DisjointSlice[wf.bool_], as_int: simt.DisjointSlice[wf.i32], equal: simt.DisjointSlice[wf.bool_],
             both: simt.DisjointSlice[wf.bool_]):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    copy[idx] = x[i]
    negated[idx] = not x[i]
    as_int[idx] = 1 if x[i] else 0
    equal[idx] = x[i] == ones[i]
    both[idx] = x[i] and ones[i]


def test_any_nonzero_byte_reads_true(backend: Backend) -> None:
    n = 1024
    raw, x = _raw_bools(n)
    truth = raw != 0
    ones = np.ones(n, np.bool_)
    outs = [poisoned(n, np.uint8).view(np.bool_) for _ in range(2)]
    res = backend.run(bool_ops, n // 256, 256, x, ones, outs[0], outs[1], poisoned(n, np.int32),
                      poisoned(n, np.uint8).view(np.bool_), poisoned(n, np.uint8).view(np.bool_))  # fmt: skip
    copy, negated, as_int, equal, both = res[2:]
    # stores write exactly 0 or 1 (compare the bytes, not NumPy's view of them)
    np.testing.assert_array_equal(copy.view(np.uint8), truth.astype(np.uint8))
    np.testing.assert_array_equal(negated.view(np.uint8), (~truth).astype(np.uint8))
    np.testing.assert_array_equal(as_int, truth.astype(np.int32))
    np.testing.assert_array_equal(equal.view(np.uint8), truth.astype(np.uint8))
    np.testing.assert_array_equal(both.view(np.uint8), truth.astype(np.uint8))


def test_bool_loads_are_bytes_compared_to_zero() -> None:
    ll = bool_ops.ir("ll")
    assert "load i1" not in ll and "store i1" not in ll
    assert "load i8" in ll and "icmp ne i8" in ll
    if find_ptxas() is not None:
        run_ptxas(bool_ops.ir("ptx"), "sm_90", verbose=False)


@simt.kernel
def bool_shared(x: simt.Slice[wf.bool_], out: simt.DisjointSlice[wf.bool_]):
    """Bools through a shared array (an i8 array in PTX): written, then read by another thread."""
    idx = simt.index_1d()
    t = simt.thread_idx.x
    s = simt.shared_array(256, wf.bool_)
    s[t] = x[idx.get()]
    simt.sync_threads()
    out[idx] = s[255 - t]


def test_bools_through_shared_memory(backend: Backend) -> None:
    n = 512
    raw, x = _raw_bools(n)
    (out,) = backend.run(bool_shared, n // 256, 256, x, poisoned(n, np.uint8).view(np.bool_))[1:]
    expected = (raw != 0).reshape(-1, 256)[:, ::-1].ravel()
    np.testing.assert_array_equal(out.view(np.uint8), expected.astype(np.uint8))


@tile.kernel
def tile_bools(copy: tile.Tensor[wf.bool_, ("B",)], as_int: tile.Tensor[i32, ("B",)], x: tile.Tensor[wf.bool_, (-1,)]):
    t = tile.load_tile_like(x, copy)
    copy.store(t)
    as_int.store(tile.where(t, 1, 0).astype(i32))


@pytest.mark.parametrize("n", [1024, 1000])
def test_tile_loads_and_stores_of_bool_tensors(backend: Backend, n: int) -> None:
    raw, x = _raw_bools(n)
    copy = wf.from_host(poisoned(n, np.uint8).view(np.bool_)).partition((256,))
    as_int = wf.from_host(poisoned(n, np.int32)).partition((256,))
    res = tile_bools(copy, as_int, wf.from_host(x))
    stream = backend.device.create_stream()
    got_copy = res[0].unpartition().to_host()
    got_int = res[1].unpartition().to_host().sync_on(stream)
    got_copy = got_copy.sync_on(stream)
    np.testing.assert_array_equal(got_copy.view(np.uint8), (raw != 0).astype(np.uint8))
    np.testing.assert_array_equal(got_int, (raw != 0).astype(np.int32))
