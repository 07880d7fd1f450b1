"""The third new user's findings (each test fails before its fix): module-level tuples and strings
in SIMT kernels (the README says module constants are compiled in by value, "numbers, strings,
dtypes, tuples of those"; a SIMT kernel refused tuples and strings). Both backends."""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, simt, tile

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


# --------------------------------------------------------------------------- per-thread ops in device functions on tiles


@simt.device
def plus_warp_sum(x):
    return x + simt.warp_sum(x)


@simt.device
def plus_thread(x):
    return x + wf.f32(simt.thread_idx.x)


@simt.device
def plus_lane(x):
    return x + wf.f32(simt.lane_id())


@simt.device
def maybe_sync(x):
    if x > 3.0:
        simt.sync_threads()
    return x


@simt.device
def calls_plus_lane(x):
    return plus_lane(x) * 2.0  # the per-thread op is one call deeper


@pytest.mark.parametrize(("fn", "op"), [
    (plus_warp_sum, "kernel.warp_reduce"), (plus_thread, "kernel.thread_idx"), (plus_lane, "kernel.lane_id"),
    (maybe_sync, "kernel.barrier"), (calls_plus_lane, "kernel.lane_id"),
])  # fmt: skip
def test_a_device_function_on_tiles_that_depends_on_the_thread_is_refused(fn, op: str) -> None:
    # its values depended on num_warps (warp_sum over arange(256): 1984 / 992 / 496 for 2 / 4 / 8 warps),
    # and a barrier under a data-dependent `if` hung
    @tile.kernel(num_warps=4)
    def on_tiles(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
        z.store(fn(tile.load_tile_like(x, z)))

    @tile.kernel(num_warps=4)
    def on_scalars(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], s: f32):
        z.store(tile.load_tile_like(x, z) + fn(s))

    for k, how in ((on_tiles, "on tiles runs once per tile element"), (on_scalars, "with scalars runs on every thread")):
        with pytest.raises(wf.CompileError, match=rf"test_newuser3_fixes\.py:\d+:\d+: error: .*{how}.*`{op}` \(.*test_newuser3_fixes\.py:\d+:\d+\)"):
            k.ir("kernel", wf.zeros((256,), f32).partition((256,)), wf.zeros((256,), f32), *([1.0] if k is on_scalars else []))


@simt.device
def pure(x):
    y = x * 2.0
    if y > 1.0:
        y = y - 1.0
    return y


def test_a_device_function_that_only_computes_still_runs_on_tiles(backend: Backend) -> None:
    @tile.kernel(num_warps=2)
    def on_tiles(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
        z.store(pure(tile.load_tile_like(x, z)))

    x = np.random.default_rng(7).uniform(-2, 2, 300).astype(np.float32)
    out = wf.full((300,), np.nan, f32).partition((128,))
    got = on_tiles(out, wf.from_host(x)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    y = x * np.float32(2.0)
    np.testing.assert_array_equal(got, np.where(y > 1.0, y - np.float32(1.0), y))


# --------------------------------------------------------------------------- NumPy ints and floats as options


@pytest.mark.parametrize("bad", [2.0, np.float32(4), True])
def test_a_num_warps_that_is_not_an_int_is_a_usage_error(bad) -> None:
    # 2.0 passed the `in (1, 2, 4, ...)` test and failed deep inside xDSL at the first compile
    with pytest.raises(wf.UsageError, match="num_warps is a power of two from 1 to 32"):
        tile.kernel(num_warps=bad)(lambda z: None)
    with pytest.raises(wf.UsageError, match="tile.Config: num_warps is a power of two"):
        tile.Config(num_warps=bad)


def test_numpy_ints_are_taken_as_kernel_options_shapes_and_partitions(backend: Backend) -> None:
    @tile.kernel(num_warps=np.int64(2), min_blocks_per_sm=np.int32(1))
    def add1(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
        z.store(tile.load_tile_like(x, z) + 1.0)

    x = np.random.default_rng(3).standard_normal(200).astype(np.float32)
    out = wf.full((200,), np.nan, f32).partition((np.int64(64),))
    got = add1(out, wf.from_host(x)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_array_equal(got, x + np.float32(1.0))
    assert add1.num_warps == 2 and type(add1.num_warps) is int
    assert tile.spec(f32, (np.int64(64),)).shape == (64,)

    @simt.kernel(launch_bounds=np.int32(64))
    def copy(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
        idx = simt.index_1d()
        i = idx.get()
        if i < len(a):
            c[idx] = a[i]

    assert ".maxntid 64, 1, 1" in copy.compile("sm_90").ptx


# --------------------------------------------------------------------------- the shorthand launch's device


@simt.kernel
def inc(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        c[idx] = a[i] + 1.0


def test_the_shorthand_launch_runs_on_the_buffers_device(monkeypatch: pytest.MonkeyPatch) -> None:
    # `inc[1, 32](a, c)` with a simulator's buffers went to wf.Device(0): "no CUDA driver / no GPU found"
    monkeypatch.delenv("WARPFORGE_SIMULATE", raising=False)
    dev = wf.Device.simulator()
    s = dev.create_stream()
    x = np.random.default_rng(5).standard_normal(20).astype(np.float32)
    a = wf.DeviceBuffer.from_host(s, x)
    c = wf.DeviceBuffer.from_host(s, np.full(20, np.nan, np.float32))
    inc[1, 32](a, c)
    np.testing.assert_array_equal(c.to_host(s), x + np.float32(1.0))


# --------------------------------------------------------------------------- tile bind() on the simulator


@tile.kernel
def accumulate(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(z.load() + tile.load_tile_like(x, z))


def test_tile_bind_runs_on_the_simulator_and_the_gpu(backend: Backend) -> None:
    # bind() on the simulator was a LaunchError pointing to a .prepare() tile kernels do not have
    dev = backend.device
    s = dev.create_stream()
    rng = np.random.default_rng(11)
    z0, x = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    z = wf.DeviceBuffer.from_host(s, z0)
    bound = accumulate.bind(wf.tensor(z).partition((128,)), wf.tensor(wf.DeviceBuffer.from_host(s, x)))
    assert bound.grid == 3
    for _ in range(3):
        bound.launch(s)
    np.testing.assert_allclose(z.to_host(s), z0 + 3 * x, rtol=1e-6, atol=1e-6)


# --------------------------------------------------------------------------- literal arguments of device functions


@simt.device
def wrap_down(x, hi):
    r = x
    while r > hi:
        r -= hi
    return r


@simt.kernel
def wrapped(a: simt.Slice[wf.i32], c: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        c[idx] = wrap_down(a[i], 10)


def test_a_literal_argument_is_weak_inside_a_device_function(backend: Backend) -> None:
    # `wrap_down(a[i], 10)` bound 10 as an i64 value, so `r -= hi` made r i64 inside the loop: a
    # CompileError ("'r' is i32 before the loop but i64 here") on code that compiles written in the kernel
    a = np.random.default_rng(9).integers(-50, 1000, 64).astype(np.int32)
    (_, got) = backend.run(wrapped, 1, 64, a, np.full(64, -7, np.int32))
    expected = a.copy()
    while (expected > 10).any():
        expected = np.where(expected > 10, expected - 10, expected)
    np.testing.assert_array_equal(got, expected)
    assert "wrap_down__i32_c10(" in wrapped.ir("kernel")  # compiled for the constant, in x's dtype


# --------------------------------------------------------------------------- smaller diagnostics


def test_tile_arange_with_a_run_time_start_says_so() -> None:
    # with dtype= the message was "tile.arange() got multiple values for 'dtype'"
    @tile.kernel
    def ramp(z: tile.Tensor[wf.i64, (8,)], s0: wf.i64):
        z.store(tile.arange(s0, s0 + 8, dtype=wf.i64))

    with pytest.raises(wf.CompileError, match=r"tile\.arange's start must be a constant integer .*tile\.arange\(n\) \+ start"):
        ramp.ir("kernel", wf.zeros((8,), wf.i64).partition((8,)), 3)


def test_tile_kernel_misuse_is_a_usage_error() -> None:
    with pytest.raises(wf.UsageError, match=r"accumulate is a tile kernel: it takes no \[grid, block\]"):
        accumulate[1, 32]
    with pytest.raises(wf.UsageError, match=r"pass them \(accumulate\.report\(\*args\)\)"):
        accumulate.report()


# --------------------------------------------------------------------------- print() in a device function on tiles


@simt.device
def shout(x):
    print("elem", x)
    return x


def test_print_in_a_device_function_on_tiles_prints_every_element_once(backend: Backend, capfd: pytest.CaptureFixture[str]) -> None:
    # it printed one line per tile block (thread 0's first element)
    @tile.kernel(num_warps=2)
    def echo(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
        z.store(shout(tile.load_tile_like(x, z)))

    x = np.random.default_rng(13).permutation(300).astype(np.float32)  # distinct values; a tail tile of 44
    out = wf.full((300,), np.nan, f32).partition((128,))
    got = echo(out, wf.from_host(x)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_array_equal(got, x)
    printed = sorted(float(line.split()[1]) for line in capfd.readouterr().out.splitlines() if line.startswith("elem "))
    assert printed == sorted(x.tolist())  # each element once, none for the tail's padding


# --------------------------------------------------------------------------- fast math flushes f32 subnormals on both backends


def _scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32], r: simt.DisjointSlice[wf.bool_]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        y = a[i] * 1e-30
        c[idx] = y
        r[idx] = y > 0.0  # a compare reads a flushed operand: setp.ftz


scale_fast = simt.kernel(fastmath=True)(_scale)
scale_exact = simt.kernel(_scale)


def test_fastmath_flushes_f32_subnormals_on_both_backends(backend: Backend) -> None:
    # the simulator kept 1e-40 where the GPU's mul.ftz.f32 gives 0 (README: fast math flushes them)
    a = np.array([1e-10, -1e-10, 1.0, 3e-9, -2.0, 1e-12, 5e-10, 7.0], np.float32)
    sub = np.abs(a * np.float32(1e-30)) < np.finfo(np.float32).tiny
    for kernel, flushed in ((scale_fast, True), (scale_exact, False)):
        c, r = np.full(8, np.nan, np.float32), np.zeros(8, np.bool_)
        (_, got, pos) = backend.run(kernel, 1, 32, a, c, r)
        expected = a * np.float32(1e-30)
        if flushed:
            expected = np.where(sub, np.copysign(np.float32(0), expected), expected)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        np.testing.assert_array_equal(pos, expected > 0)


# --------------------------------------------------------------------------- a fuzz finding


def test_a_location_with_a_line_past_i64_is_no_internal_error(tmp_path) -> None:
    # the fuzzer's mutant loc("k.py":18446744073709551616:9) on a checked load made kernel-to-gpu build
    # an out-of-range IntegerAttr for the error site: an unlocated "Integer value ... out of range"
    import subprocess
    import sys
    from pathlib import Path

    import re

    lit = (Path(__file__).resolve().parent.parent / "filecheck" / "passes" / "kernel-to-gpu.mlir").read_text()
    case = re.split(r"^// -----\s*$", lit, flags=re.M)[0]
    body = "\n".join(line for line in case.splitlines() if not line.lstrip().startswith("//"))
    assert 'loc("k.py":5:9)' in body
    src = tmp_path / "k.mlir"
    src.write_text(body.replace('loc("k.py":5:9)', 'loc("k.py":18446744073709551616:9)'))
    opt = Path(sys.executable).parent / "warpforge-opt"
    proc = subprocess.run([str(opt), str(src), "-p", "kernel-to-gpu{module=m}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert 'file = "k.py", line = 0 : i64, col = 0 : i64' in proc.stdout


def test_emitting_ptx_from_kernel_level_ir_names_the_models_pipeline(tmp_path) -> None:
    # it said "e.g. -p gpu-to-llvm", which does not lower kernel-level IR
    import subprocess
    import sys
    from pathlib import Path

    src = tmp_path / "k.mlir"
    src.write_text(inc.ir("kernel"))
    opt = Path(sys.executable).parent / "warpforge-opt"
    proc = subprocess.run([str(opt), str(src), "-t", "ptx"], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "run the lowering pipeline first: -p simt-to-llvm for a SIMT kernel" in proc.stderr, proc.stderr


def test_wf_from_host_takes_a_big_endian_array_as_device_buffer_does(backend: Backend) -> None:
    # DeviceBuffer.from_host converted '>i4'; wf.from_host refused it ("dtype >i4 is not supported")
    x = np.random.default_rng(17).integers(-1000, 1000, 300).astype(">i4")
    got = wf.from_host(x).to_host().sync_on(backend.device.create_stream())
    assert got.dtype == np.int32 and got.dtype.isnative
    np.testing.assert_array_equal(got, x.astype(np.int32))


def test_a_tile_pipeline_on_a_simt_kernel_is_a_located_error(tmp_path) -> None:
    # `-p tile-to-llvm` on a SIMT kernel exited 0 with the kernel.func left as it was (half-lowered output)
    import subprocess
    import sys
    from pathlib import Path

    src = tmp_path / "k.mlir"
    src.write_text(inc.ir("kernel"))
    opt = Path(sys.executable).parent / "warpforge-opt"
    for pipeline in ("tile-to-llvm", "tile-to-gpu-pipeline"):
        proc = subprocess.run([str(opt), str(src), "-p", pipeline], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, proc.stdout[:300]
        assert re.search(rf"k\.mlir:\d+:\d+: error: .*is a SIMT kernel \(no `tile` attribute\), which -p {pipeline} does not lower: use -p simt-to-llvm", proc.stderr), proc.stderr
    proc = subprocess.run([str(opt), str(src), "-p", "simt-to-llvm"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "kernel.func" not in proc.stdout, proc.stderr
