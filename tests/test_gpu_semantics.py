"""DESIGN.md's semantic policies, checked against NumPy / Python on fresh random inputs — every test on
both backends (the `backend` fixture of kernel_runner.py): the GPU (marked `gpu`) and the CPU
simulator through the same runtime API (CI runs these)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(1630)


@simt.kernel
def floor_div_mod(a: simt.Slice[wf.i32], b: simt.Slice[wf.i32], q: simt.DisjointSlice[wf.i32], r: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    i = idx.get()
    q[idx] = a[i] // b[i]
    r[idx] = a[i] % b[i]


def test_floor_division_and_modulo_on_negatives(backend: Backend) -> None:
    n = 4096
    a = rng.integers(-1000, 1000, n, dtype=np.int32)
    b = rng.integers(-17, 17, n, dtype=np.int32)
    b[b == 0] = 3
    a[:4] = [np.iinfo(np.int32).min, -7, 7, -7]
    b[:4] = [-1, 2, -2, -2]
    q, r = backend.run(floor_div_mod, n // 256, 256, a, b, poisoned(n, np.int32), poisoned(n, np.int32))[2:]
    expected_q = np.array([int(x) // int(y) for x, y in zip(a, b)], dtype=np.int64)
    expected_r = np.array([int(x) % int(y) for x, y in zip(a, b)], dtype=np.int64)
    expected_q[0] = np.iinfo(np.int32).min  # INT_MIN // -1 wraps (integer overflow wraps)
    np.testing.assert_array_equal(q, expected_q.astype(np.int32))
    np.testing.assert_array_equal(r, expected_r.astype(np.int32))


@simt.kernel
def unsigned_ops(a: simt.Slice[wf.u32], b: simt.Slice[wf.u32], lt: simt.DisjointSlice[wf.bool_], f: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    lt[idx] = a[i] < b[i]
    f[idx] = float(a[i])


def test_unsigned_compare_and_conversion_above_2_31(backend: Backend) -> None:
    n = 2048
    a = rng.integers(0, 2**32, n, dtype=np.uint32)
    b = rng.integers(0, 2**32, n, dtype=np.uint32)
    a[:2] = [2**31 + 5, 2**32 - 1]
    b[:2] = [3, 2**31]
    lt, f = backend.run(unsigned_ops, n // 256, 256, a, b, poisoned(n, np.bool_), poisoned(n, np.float64))[2:]
    np.testing.assert_array_equal(lt, a < b)
    np.testing.assert_array_equal(f, a.astype(np.float64))
    assert f[1] == 2.0**32 - 1


@simt.kernel
def int_of_bool(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    out[idx] = int(x[idx.get()] > 0) + int(True)


def test_int_of_true_is_one(backend: Backend) -> None:
    n = 512
    x = rng.standard_normal(n, dtype=np.float32)
    (out,) = backend.run(int_of_bool, 2, 256, x, poisoned(n, np.int64))[1:]
    np.testing.assert_array_equal(out, (x > 0).astype(np.int64) + 1)


@simt.kernel
def nan_max_min(a: simt.Slice[wf.f32], b: simt.Slice[wf.f32], mx: simt.DisjointSlice[wf.f32], mn: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    mx[idx] = max(a[i], b[i])
    mn[idx] = min(a[i], b[i])


def test_max_min_propagate_nan(backend: Backend) -> None:
    n = 1024
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    a[rng.random(n) < 0.1] = np.nan
    b[rng.random(n) < 0.1] = np.nan
    mx, mn = backend.run(nan_max_min, 4, 256, a, b, poisoned(n, np.float32), poisoned(n, np.float32))[2:]
    np.testing.assert_array_equal(mx, np.maximum(a, b))
    np.testing.assert_array_equal(mn, np.minimum(a, b))


@simt.kernel
def guarded(x: simt.Slice[wf.f32], n: wf.i64, out: simt.DisjointSlice[wf.bool_]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = i < n and x[i] > 0


def test_short_circuit_guard_never_reads_out_of_range(backend: Backend) -> None:
    n = 1000  # 1024 threads: the last 24 would read x[1000..1023] without the short circuit
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.ones(1024, dtype=np.bool_)
    (got,) = backend.run(guarded, 4, 256, x, n, out)[1:]  # raises KernelError if any read were out of range
    np.testing.assert_array_equal(got[:n], x > 0)
    assert not got[n:].any()


@simt.kernel
def read_past_end(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get() + 1]


def test_out_of_range_read_raises_kernel_error_with_line_and_context_survives(backend: Backend) -> None:
    n = 256
    x = rng.standard_normal(n, dtype=np.float32)
    with pytest.raises(wf.KernelError) as info:
        backend.run(read_past_end, 1, 256, x, poisoned(n, np.float32))
    err = info.value
    assert "test_gpu_semantics.py" in str(err)
    assert err.line == read_past_end.fn.__code__.co_firstlineno + 3
    assert "256" in str(err)  # the index (and the length) are in the message
    # the context is still usable: a correct kernel runs right after
    n2 = 1024
    a = rng.standard_normal(n2, dtype=np.float32)
    b = rng.standard_normal(n2, dtype=np.float32)
    mx, _ = backend.run(nan_max_min, 4, 256, a, b, poisoned(n2, np.float32), poisoned(n2, np.float32))[2:]
    np.testing.assert_array_equal(mx, np.maximum(a, b))


@simt.kernel
def copy(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    c[idx] = a[idx.get()]


def test_aliased_output_is_refused(backend: Backend) -> None:
    dev = backend.device
    stream = dev.create_stream()
    buf = wf.DeviceBuffer.from_host(stream, rng.standard_normal(1024, dtype=np.float32))
    prepared = copy.prepare(wf.LaunchConfig(grid=4, block=256), device=dev)
    with pytest.raises(wf.AliasError, match="output 'c' of copy is the same memory as input 'a'"):
        copy.launch(stream, prepared, buf, buf)
    with pytest.raises(wf.AliasError):
        copy[4, 256, stream](buf, buf)
    other = wf.DeviceBuffer.zeroed(stream, 1024, wf.f32)
    copy.launch(stream, prepared, buf, other)  # separate buffers: fine
    np.testing.assert_array_equal(other.to_host(stream), buf.to_host(stream))


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def contracted(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    c[idx] = a[idx.get()]


def test_block_other_than_contract_is_refused_before_launch(backend: Backend) -> None:
    with pytest.raises(wf.LaunchError, match="256"):
        contracted.prepare(wf.LaunchConfig(grid=8, block=128), device=backend.device)
    with pytest.raises(wf.LaunchError):
        contracted.prepare(wf.LaunchConfig(grid=(4, 2), block=256), device=backend.device)
    with pytest.raises(wf.LaunchError, match="requires block"):
        contracted[8, 128, backend.device.default_stream](None, None)  # prepared (and refused) before the arguments are looked at


def test_device_limits_are_checked_before_launch(backend: Backend) -> None:
    dev = backend.device
    assert dev.limits.max_threads_per_block == 1024 and dev.limits.max_grid_dim[1] == 65535
    with pytest.raises(wf.LaunchError, match="at most 1024 threads per block"):
        copy.prepare(wf.LaunchConfig(grid=1, block=2048), device=dev)
    with pytest.raises(wf.LaunchError, match="grid y = 65536 exceeds the device limit 65535"):
        copy.prepare(wf.LaunchConfig(grid=(1, 65536), block=(32, 1)), device=dev)
    with pytest.raises(wf.LaunchError, match="index_1d"):
        copy.prepare(wf.LaunchConfig(grid=(2, 2), block=32), device=dev)
    with pytest.raises(wf.LaunchError, match="227 KiB"):
        copy.prepare(wf.LaunchConfig(grid=1, block=32, shmem_size=228 * 1024), device=dev)


def test_arguments_are_checked_before_launch(backend: Backend) -> None:
    dev = backend.device
    stream = dev.create_stream()
    prepared = unsigned_ops.prepare(wf.LaunchConfig(grid=1, block=32), device=dev)
    a = wf.DeviceBuffer.from_host(stream, np.arange(32, dtype=np.uint32))
    lt = wf.DeviceBuffer.zeroed(stream, 32, wf.bool_)
    f = wf.DeviceBuffer.zeroed(stream, 32, wf.f64)
    with pytest.raises(wf.LaunchError, match="expects uint32 elements, got int32"):
        unsigned_ops.launch(stream, prepared, wf.DeviceBuffer.zeroed(stream, 32, wf.i32), a, lt, f)
    with pytest.raises(wf.LaunchError, match="NumPy array lives in host memory"):
        unsigned_ops.launch(stream, prepared, np.arange(32, dtype=np.uint32), a, lt, f)
    with pytest.raises(wf.LaunchError, match="takes 4 arguments"):
        unsigned_ops.launch(stream, prepared, a, a, lt)
    with pytest.raises(wf.LaunchError, match="does not fit"):
        guarded[4, 256, stream](wf.DeviceBuffer.zeroed(stream, 8, wf.f32), 2**63, lt)


@simt.kernel
def big_index(out: simt.DisjointSlice[wf.u8]):
    idx = simt.index_1d()
    out[idx] = wf.u8(idx.get() % 251)


def test_global_index_past_2_31_threads(backend: Backend) -> None:
    n = 2**31 + 1000
    grid = (n + 1023) // 1024
    dev = backend.device
    stream = dev.create_stream()
    out = wf.DeviceBuffer.zeroed(stream, n, wf.u8)
    prepared = big_index.prepare(wf.LaunchConfig(grid=grid, block=1024), device=dev)
    tail_blocks = list(range((n - 5000) // 1024, grid))
    sampled = sorted(set(rng.integers(0, grid, 16).tolist()))
    with backend.only_blocks(tail_blocks + sampled):  # the simulator runs only these (2^31 threads: hours); the GPU all
        big_index.launch(stream, prepared, out)
    got = out.to_host(stream)
    tail = np.arange(n - 5000, n, dtype=np.int64)
    np.testing.assert_array_equal(got[n - 5000 :], (tail % 251).astype(np.uint8))
    for b in sampled:
        idx = np.arange(b * 1024, min((b + 1) * 1024, n), dtype=np.int64)
        np.testing.assert_array_equal(got[idx], (idx % 251).astype(np.uint8))
    if backend.name == "gpu":
        sample = rng.integers(0, n, 10000)
        np.testing.assert_array_equal(got[sample], (sample % 251).astype(np.uint8))


@simt.kernel
def divide(a: simt.Slice[wf.i64], b: simt.Slice[wf.i64], q: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    i = idx.get()
    q[idx] = a[i] // b[i]


def test_division_by_zero_is_a_kernel_error(backend: Backend) -> None:
    n = 256
    a = rng.integers(-100, 100, n, dtype=np.int64)
    b = rng.integers(1, 9, n, dtype=np.int64)
    b[77] = 0
    with pytest.raises(wf.KernelError, match="division by zero"):
        backend.run(divide, 1, 256, a, b, poisoned(n, np.int64))


@simt.kernel
def math_funcs(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    out[idx] = math.sqrt(abs(v)) + math.exp(v) - math.log(abs(v) + 1.0)


def test_libdevice_math_matches_numpy(backend: Backend) -> None:
    n = 1024
    x = rng.uniform(-4, 4, n).astype(np.float32)
    (got,) = backend.run(math_funcs, 4, 256, x, poisoned(n, np.float32))[1:]
    expected = np.sqrt(np.abs(x)) + np.exp(x) - np.log(np.abs(x) + np.float32(1.0))
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6)


def _make_scaled_copy(factor: int):
    @simt.kernel
    def scaled(a: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
        idx = simt.index_1d()
        i = idx.get()
        if i < len(out):
            out[idx] = a[i] * factor

    return scaled


def test_kernels_from_one_factory_with_different_constants_run_their_own_code(backend: Backend) -> None:
    """Regression: same source text, different closure constant — the second kernel once ran the
    first one's cached module (the module cache was keyed by source, not code)."""
    a = rng.integers(-1000, 1000, 256, dtype=np.int32)
    for factor in (2, 3, 5):
        (out,) = backend.run(_make_scaled_copy(factor), 1, 256, a, poisoned(256, np.int32))[1:]
        np.testing.assert_array_equal(out, a * factor)


@simt.kernel(checks=False)
def shifts64(a: simt.Slice[wf.i64], n: simt.Slice[wf.i64], left: simt.DisjointSlice[wf.i64], right: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(left):
        left[idx] = a[i] << n[i]
        right[idx] = a[i] >> n[i]


def test_shift_counts_past_the_width_give_zero_or_the_sign_fill(backend: Backend) -> None:
    """Regression (found by the simulator-vs-GPU differential test): LLVM's NVPTX backend turned
    `count < 64 ? x << count : 0` into PTX's clamping `shl` of the count's low 32 bits, so a count like
    -2^63 or 2^32 shifted by 0 on the GPU."""
    counts = np.array([0, 1, 63, 64, 65, -1, -(2**63), 2**32, 2**32 + 1, 2**40 + 3], dtype=np.int64)
    a = np.where(np.arange(len(counts)) % 2 == 0, -12345, 6789).astype(np.int64)
    left, right = backend.run(shifts64, 1, 32, a, counts, poisoned(len(a), np.int64), poisoned(len(a), np.int64))[2:]

    def py_shift(x: int, c: int, op: str) -> int:
        if 0 <= c < 64:
            r = (x << c) if op == "<<" else (x >> c)
            return ((r + 2**63) % 2**64) - 2**63
        return 0 if op == "<<" or x >= 0 else -1

    np.testing.assert_array_equal(left, [py_shift(int(x), int(c), "<<") for x, c in zip(a, counts)])
    np.testing.assert_array_equal(right, [py_shift(int(x), int(c), ">>") for x, c in zip(a, counts)])


def _tag_2d(ncols_type: wf.DType) -> simt.SimtKernel:
    """Each thread of an index_2d(ncols) launch writes row*100 + col at its element (ncols of a type)."""

    def body(out, ncols):
        idx = simt.index_2d(ncols)
        out[idx] = wf.i32(idx.row * 100 + idx.col)

    body.__annotations__ = {"out": simt.DisjointSlice[wf.i32], "ncols": ncols_type}
    body.__qualname__ = body.__name__ = f"tag_2d_{ncols_type.name}"
    return simt.kernel(body)


def _tag_3d(ny_type: wf.DType) -> simt.SimtKernel:
    """Each thread of an index_3d(ny, nx) launch writes z*10000 + y*100 + x at its element."""

    def body(out, ny, nx):
        idx = simt.index_3d(ny, nx)
        out[idx] = wf.i32(idx.z * 10000 + idx.y * 100 + idx.x)

    body.__annotations__ = {"out": simt.DisjointSlice[wf.i32], "ny": ny_type, "nx": wf.i64}
    body.__qualname__ = body.__name__ = f"tag_3d_{ny_type.name}"
    return simt.kernel(body)


tag_2d, tag_2d_i32, tag_2d_u32 = _tag_2d(wf.i64), _tag_2d(wf.i32), _tag_2d(wf.u32)
tag_3d, tag_3d_i32 = _tag_3d(wf.i64), _tag_3d(wf.i32)


def _unique_writes(n: int, threads: list[tuple[int, int]]) -> np.ndarray:
    """What a DisjointSlice of `n` i32 holds after each thread (linear index, tag) of `threads`
    writes: -1 where nobody wrote. Fails if two threads own one element."""
    want = np.full(n, -1, np.int32)
    for linear, tag in threads:
        if 0 <= linear < n:
            assert want[linear] == -1, f"element {linear} owned twice"
            want[linear] = tag
    return want


@pytest.mark.parametrize("ncols", [-3, 0, 2, 5, 2**62 + 1, 2**63 - 1])
def test_index_2d_owns_each_element_once_for_any_ncols(backend: Backend, ncols: int) -> None:
    # `0 <= col < ncols` signed, and `row*ncols + col` must not wrap: a negative ncols passed an
    # unsigned compare (threads (0,0) and (1,3) both wrote element 0 with ncols = -3), and
    # ncols = 2^63 - 1 wrapped row 2's columns 2, 3 onto elements 0, 1.
    (got,) = backend.run(tag_2d, (1, 1), (4, 4), np.full(16, -1, np.int32), ncols)
    threads = [(r * ncols + c, r * 100 + c) for r in range(4) for c in range(4) if 0 <= c < ncols and r * ncols + c < 2**63]
    np.testing.assert_array_equal(got, _unique_writes(16, threads))


@pytest.mark.parametrize("ny,nx", [(-2, 2), (2, -2), (2, 2), (2**62, 3), (3, 2**63 - 1), (2**62 + 1, 2**62 + 1)])
def test_index_3d_owns_each_element_once_for_any_extents(backend: Backend, ny: int, nx: int) -> None:
    (got,) = backend.run(tag_3d, (1, 1, 1), (4, 2, 2), np.full(32, -1, np.int32), ny, nx)
    threads = []
    for z in range(2):
        for y in range(2):
            for x in range(4):
                linear = (z * ny + y) * nx + x
                if 0 <= y < ny and 0 <= x < nx and z * ny + y < 2**63 and linear < 2**63:
                    threads.append((linear, z * 10000 + y * 100 + x))
    np.testing.assert_array_equal(got, _unique_writes(32, threads))


@pytest.mark.parametrize("ncols", [-(2**31), -3, 0, 2, 5, 2**31 - 1])
def test_index_2d_of_a_32_bit_ncols_owns_each_element_once(backend: Backend, ncols: int) -> None:
    # row < 2^26 and col < ncols < 2^32: row*ncols + col cannot wrap, so kernel-to-gpu computes no
    # exactness flag (filecheck/passes/kernel-to-gpu.mlir, @two_d_i32); the ownership is as with i64
    (got,) = backend.run(tag_2d_i32, (1, 1), (4, 4), np.full(16, -1, np.int32), np.int32(ncols))
    threads = [(r * ncols + c, r * 100 + c) for r in range(4) for c in range(4) if 0 <= c < ncols]
    np.testing.assert_array_equal(got, _unique_writes(16, threads))
    if ncols >= 0:
        (got,) = backend.run(tag_2d_u32, (1, 1), (4, 4), np.full(16, -1, np.int32), np.uint32(ncols))
        np.testing.assert_array_equal(got, _unique_writes(16, threads))
    (got,) = backend.run(tag_2d_u32, (1, 1), (4, 4), np.full(16, -1, np.int32), np.uint32(2**32 - 1))
    np.testing.assert_array_equal(got, _unique_writes(16, [(r * (2**32 - 1) + c, r * 100 + c) for r in range(4) for c in range(4)]))


@pytest.mark.parametrize("ny,nx", [(-2, 2), (2, -2), (2, 2), (2**31 - 1, 3), (3, 2**63 - 1), (2**31 - 1, 2**62 + 1)])
def test_index_3d_of_a_32_bit_ny_owns_each_element_once(backend: Backend, ny: int, nx: int) -> None:
    # z*ny + y is exact by the bounds (no flag); (z*ny + y)*nx + x keeps its flag (nx is i64)
    (got,) = backend.run(tag_3d_i32, (1, 1, 1), (4, 2, 2), np.full(32, -1, np.int32), np.int32(ny), nx)
    threads = []
    for z in range(2):
        for y in range(2):
            for x in range(4):
                linear = (z * ny + y) * nx + x
                if 0 <= y < ny and 0 <= x < nx and linear < 2**63:
                    threads.append((linear, z * 10000 + y * 100 + x))
    np.testing.assert_array_equal(got, _unique_writes(32, threads))


@simt.kernel
def tag_row_view(out: simt.DisjointSlice[wf.i32], n: wf.i64, j: wf.i64):
    idx = simt.index_1d()
    r = out.row(idx, n)
    r[j] = wf.i32(idx.get())


@simt.kernel
def tag_column_view(out: simt.DisjointSlice[wf.i32], n: wf.i64, j: wf.i64):
    idx = simt.index_1d()
    c = out.column(idx, n)
    c[j] = wf.i32(idx.get())


@simt.kernel
def tag_tile_view(out: simt.DisjointSlice[wf.i32], ncols: wf.i64, th: wf.Constant[int], n: wf.i64):
    idx = simt.index_2d(ncols)
    t = out.tile(idx, (th, 1), n)
    t[0, 0] = wf.i32(idx.row * 100 + idx.col)


@pytest.mark.parametrize("n,j", [(4, 1), (2**62, 0), (2**61 + 1, 3), (2**63 - 1, 1)])
def test_row_and_column_views_never_wrap_onto_another_thread(backend: Backend, n: int, j: int) -> None:
    # row view: thread i owns i*n + j (j < n); column view: j*n + i (i < n). With n = 2^62 the row
    # view of thread 4 wrapped onto element 0, which thread 0 owns.
    (row,) = backend.run(tag_row_view, 1, 8, np.full(16, -1, np.int32), n, j)
    want = _unique_writes(16, [(i * n + j, i) for i in range(8) if 0 <= j < n and i * n + j < 2**63])
    np.testing.assert_array_equal(row, want)
    (col,) = backend.run(tag_column_view, 1, 8, np.full(16, -1, np.int32), n, j)
    want = _unique_writes(16, [(j * n + i, i) for i in range(8) if 0 <= i < n and j >= 0 and j * n + i < 2**63])
    np.testing.assert_array_equal(col, want)


@pytest.mark.parametrize("th,n", [(2**62, 4), (1, 2**62), (2, 2**63 - 1), (2, 4)])
def test_tile_views_never_wrap_onto_another_thread(backend: Backend, th: int, n: int) -> None:
    # thread (R, C) owns (R*th + r)*n + C + k for r < th, k < 1: no product may wrap
    (got,) = backend.run(tag_tile_view, (1, 1), (4, 4), np.full(32, -1, np.int32), 4, th, n)
    threads = []
    for row in range(4):
        for col in range(4):
            address = (row * th) * n + col
            if col < n and row * th < 2**63 and address < 2**63:
                threads.append((address, row * 100 + col))
    np.testing.assert_array_equal(got, _unique_writes(32, threads))
