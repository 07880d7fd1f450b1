"""A new user's report, problem by problem: each misuse is a `WarpforgeError` subclass with a message
that says what is taken (and where), never a plain traceback or an internal class name. (No `from __future__ import annotations`: the
annotations are evaluated at `def`, as the located-annotation test needs.)"""

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile
from warpforge.driver import cli


@pytest.fixture
def sim():
    dev = wf.Device.simulator()
    return dev, dev.create_stream()


@simt.kernel
def double(a: simt.Slice[wf.f32], x: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    x[idx] = a[idx.get()] * 2.0


@tile.kernel
def add_one(z: tile.Tensor[wf.f32, (16,)], x: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.load(x, (tile.bid(0),), (16,)) + 1.0)


# ---------------------------------------------------------------- 4: keyword arguments of launches


def test_simt_launch_takes_keyword_arguments(sim) -> None:
    dev, st = sim
    rng = np.random.default_rng(4)
    host = rng.standard_normal(64).astype(np.float32)
    a = wf.DeviceBuffer.from_host(st, host)
    o = wf.DeviceBuffer.from_host(st, np.full(64, np.nan, np.float32))
    double[1, 64, st](a, x=o)
    np.testing.assert_array_equal(o.to_host(st), host * np.float32(2.0))
    o2 = wf.DeviceBuffer.from_host(st, np.full(64, np.nan, np.float32))
    double[1, 64, st](x=o2, a=a)  # any order
    np.testing.assert_array_equal(o2.to_host(st), host * np.float32(2.0))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"y": 0}, r"double\(a, x\) has no parameter named 'y'"), ({"a": 0}, r"double\(a, x\): multiple values for argument 'a'")],
)
def test_simt_launch_bad_keyword_is_a_usage_error(sim, kwargs, message) -> None:
    dev, st = sim
    a = wf.DeviceBuffer.zeroed(st, 64, wf.f32)
    with pytest.raises(wf.UsageError, match=message):
        double[1, 64, st](a, **kwargs)


def test_simt_launch_missing_keyword_names_the_parameters(sim) -> None:
    dev, st = sim
    with pytest.raises(wf.UsageError, match=r"double\(a, x\): missing a required argument: 'a'"):
        double[1, 64, st](x=wf.DeviceBuffer.zeroed(st, 64, wf.f32))


def test_tile_launch_takes_keyword_arguments(sim) -> None:
    dev, st = sim
    host = np.random.default_rng(5).standard_normal(64).astype(np.float32)
    out = add_one(wf.full((64,), np.nan, wf.f32).partition((16,)), x=wf.from_host(host)).first().unpartition().to_host().sync_on(st)
    np.testing.assert_array_equal(out, host + np.float32(1.0))
    with pytest.raises(wf.UsageError, match=r"add_one\(z, x\) has no parameter named 'y'"):
        add_one(wf.zeros((64,)).partition((16,)), y=wf.from_host(host))


# ---------------------------------------------------------------- 5, 14, 15: the command line


def _cli(capsys, *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as e:
        cli.main(list(argv))
    return int(e.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("command", ["compile", "run", "sanitize"])
def test_cli_refuses_a_file_that_is_not_python(capsys, tmp_path, command) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# not Python\n")
    code, err = _cli(capsys, command, str(notes))
    assert code == 1
    assert "AssertionError" not in err and "Traceback" not in err
    assert f"warpforge {command} takes a Python source file (FILE.py)" in err and "notes.md" in err


def test_cli_compile_points_mlir_files_to_warpforge_opt(capsys, tmp_path) -> None:
    f = tmp_path / "k.mlir"
    f.write_text("builtin.module {}\n")
    code, err = _cli(capsys, "compile", str(f), "--emit", "ptx")
    assert code == 1 and "use `warpforge-opt FILE.mlir`" in err


def test_cli_run_without_a_file_names_only_the_file(capsys) -> None:
    code, err = _cli(capsys, "run")
    assert code == 2
    assert "required: file" in err and "args" not in err.split("required:")[1]


def test_cli_compile_says_to_keep_launches_under_main(capsys, tmp_path) -> None:
    f = tmp_path / "launches.py"
    f.write_text("import warpforge as wf\nx = wf.zeros((-1,))  # module-level device work\n")
    code, err = _cli(capsys, "compile", str(f), "--emit", "ptx")
    assert code == 1
    assert "a tensor shape is an int or a tuple of non-negative ints" in err
    assert 'keep launches and device work under `if __name__ == "__main__":`' in err


# ---------------------------------------------------------------- 6: simulator buffers in tile chains


def test_wf_tensor_takes_a_simulator_device_buffer(sim) -> None:
    dev, st = sim
    host = np.random.default_rng(6).standard_normal(64).astype(np.float32)
    b = wf.DeviceBuffer.from_host(st, host)
    assert isinstance(b, wf.DeviceBuffer)
    out = add_one(wf.full((64,), np.nan, wf.f32).partition((16,)), wf.tensor(b)).first().unpartition().to_host().sync_on(st)
    np.testing.assert_array_equal(out, host + np.float32(1.0))
    # used in place: a kernel's output written into the buffer is seen through it
    o = wf.DeviceBuffer.from_host(st, np.full(64, np.nan, np.float32))
    add_one(wf.tensor(o).partition((16,)), wf.from_host(host)).first().unpartition().to_host().sync_on(st)
    np.testing.assert_array_equal(o.to_host(st), host + np.float32(1.0))


# ---------------------------------------------------------------- 12: error classes


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: wf.zeros((-1,)), "a tensor shape is an int or a tuple of non-negative ints, got (-1,)"),
        (lambda: wf.LaunchConfig(grid=(1, 2, 3, 4), block=32), "grid is an int or a tuple of 1 to 3 ints, got (1, 2, 3, 4)"),
        (lambda: wf.LaunchConfig(grid=1, block=32, shmem_size=-1), "shmem_size is a number of bytes"),
        (lambda: wf.tensor(object()), "wf.tensor() takes a NumPy array or a device array"),
        (lambda: wf.arange(-2), "wf.arange(n) takes an int n >= 0"),
    ],
)
def test_bad_constructor_arguments_are_usage_errors(make, message) -> None:
    with pytest.raises(wf.UsageError) as e:
        make()
    assert message in str(e.value)
    assert isinstance(e.value, wf.LaunchError)  # what these raised before


# ---------------------------------------------------------------- 7, 8, 9, 10, 16: kernel diagnostics


def _compile_error(kernel, *args, stage="kernel") -> wf.CompileError:
    with pytest.raises(wf.CompileError) as e:
        kernel.ir(stage, *args)
    return e.value


def test_unknown_thread_index_attribute_is_located() -> None:
    @simt.kernel
    def bad(o: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        o[idx] = simt.thread_idx.w

    e = _compile_error(bad)
    assert e.message == "simt.thread_idx has no attribute 'w' (x, y, z)"
    assert e.filename == __file__ and e.line == bad.fn.__code__.co_firstlineno + 3 and e.col == 18


def test_messages_name_no_internal_classes() -> None:
    @simt.kernel
    def bad(o: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        o[idx] = simt.thread_idx

    e = _compile_error(bad)
    assert "Namespace" not in str(e) and "'simt.thread_idx' (a namespace, not a value)" in e.message

    @tile.kernel
    def to_float(z: tile.Tensor[wf.f32, (16,)], x: tile.Tensor[wf.f32, (-1,)]):
        z.store(tile.load(x, (tile.bid(0),), (16,)).astype(wf.f32).astype(len))

    e = _compile_error(to_float, tile.spec(wf.f32, (64,), partition=(16,)), tile.spec(wf.f32, (64,)), stage="tile")
    assert "Builtin" not in str(e) and "got the function 'len'" in e.message


def test_astype_takes_python_types_as_numpy_does(sim) -> None:
    @tile.kernel
    def truth(z: tile.Tensor[wf.f32, (16,)], n: tile.Tensor[wf.i64, (16,)], x: tile.Tensor[wf.f32, (-1,)]):
        t = tile.load(x, (tile.bid(0),), (16,))
        z.store(t.astype(bool).astype(float).astype(wf.f32))
        n.store((t * 2.0).astype(int))

    dev, st = sim
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(16) * 3).astype(np.float32)
    x[::3] = 0.0
    z, n, _ = truth(wf.full((16,), np.nan, wf.f32).partition((16,)), wf.full((16,), -7, wf.i64).partition((16,)), wf.from_host(x))
    zh, nh = z.unpartition().to_host(), n.unpartition().to_host()
    zh.sync_on(st)
    np.testing.assert_array_equal(zh.sync_on(st), x.astype(bool).astype(np.float32))
    np.testing.assert_array_equal(nh.sync_on(st), (x * np.float32(2.0)).astype(np.int64))


def test_loop_retype_hint_for_tiles_is_code() -> None:
    @tile.kernel
    def scaled(z: tile.Tensor[wf.f32, (128,)]):
        acc = tile.zeros((128,), wf.f32)
        for i in range(4):
            acc = acc * i
        z.store(acc)

    e = _compile_error(scaled, tile.spec(wf.f32, (256,), partition=(128,)), stage="tile")
    assert "(128,)(0)" not in e.message
    assert "e.g. acc = tile.zeros((128,), wf.f64), or convert the new value back with .astype(wf.f32)" in e.message


def test_rank5_tensor_annotation_is_a_located_compile_error() -> None:
    with pytest.raises(wf.CompileError) as e:

        def bad(z: tile.Tensor[wf.f32, (2, 2, 2, 2, 2)]):
            pass

    err = e.value
    assert isinstance(err, wf.UsageError)  # what it raised before
    assert "the shape is a tuple of 1 to 4 dimensions, got (2, 2, 2, 2, 2)" in err.message
    assert err.filename == __file__ and err.col == 20
    assert "def bad(z: tile.Tensor" in str(err)


def test_tile_arange_takes_numpy_and_triton_forms(sim) -> None:
    @tile.kernel
    def ramps(z: tile.Tensor[wf.i32, (16,)]):
        z.store(tile.arange(4, 20) + tile.arange(16, dtype=wf.i32) * 100 + tile.arange(0, 16, wf.i32) * 10000)

    dev, st = sim
    out = ramps(wf.full((16,), -1, wf.i32).partition((16,))).first().unpartition().to_host().sync_on(st)
    r = np.arange(16, dtype=np.int32)
    np.testing.assert_array_equal(out, (r + 4) + r * 100 + r * 10000)

    @tile.kernel
    def bad(z: tile.Tensor[wf.f32, (16,)]):
        z.store(tile.arange(16, 1.5).astype(wf.f32))

    e = _compile_error(bad, tile.spec(wf.f32, (16,), partition=(16,)), stage="tile")
    assert "tile.arange(n, dtype=wf.i32) or tile.arange(start, stop)" in e.message or "tile.arange(start, stop)" in e.message


def test_bad_partition_is_located_at_its_column() -> None:
    with pytest.raises(wf.CompileError) as e:
        wf.zeros((8,), wf.f32).partition((3,))
    err = e.value
    assert "the partition (3,) is not a valid tile shape" in err.message
    assert err.filename == __file__ and err.col == 9  # the call expression, not column 0
    assert ".partition((3,))" in (err.source_line or "")


def test_pipeline_chip_option_is_located(capsys, tmp_path) -> None:
    from warpforge.driver import opt

    f = tmp_path / "e.mlir"
    f.write_text("builtin.module {}\n")
    spec = "builtin.module(kernel-to-gpu{chip=sm_999})"
    with pytest.raises(SystemExit) as e:
        opt.main([str(f), f"--pass-pipeline={spec}"])
    err = capsys.readouterr().err
    assert e.value.code == 1
    assert err.startswith(f"pass-pipeline:1:{spec.index('chip=') + 1}: error: unknown chip 'sm_999'"), err


# ---------------------------------------------------------------- 17, 18: chips and the toolkit


@pytest.mark.parametrize("old", ["sm_20", "sm_30", "sm_37"])
def test_chips_older_than_sm50_are_refused(old) -> None:
    from warpforge.backend.chips import CHIPS, MIN_SM, resolve_target

    assert all(c.sm >= MIN_SM for c in CHIPS.values())
    with pytest.raises(wf.TargetError, match=rf"chip '{old}' is older than warpforge supports \(sm_50 and newer.*expected one of sm_50, sm_52"):
        resolve_target(old)
    with pytest.raises(wf.TargetError, match="older than warpforge supports"):
        double.compile(old)


def test_doctor_says_which_ptxas_and_why(capsys) -> None:
    from warpforge.backend.toolkit import ptxas_origin

    path, why = ptxas_origin()
    if path is None:
        pytest.skip("no ptxas here")
    with pytest.raises(SystemExit):
        cli.main(["doctor"])
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("ptxas"))
    assert path in line and why in line and why.startswith("from ")


# ---------------------------------------------------------------- 12, 13: stage names, environment


def test_unknown_stage_lists_the_stages() -> None:
    with pytest.raises(wf.UsageError) as e:
        double.ir("foo")
    assert "or start" not in str(e.value)
    assert "unknown stage 'foo': a simt kernel's stages are kernel, gpu, nvvm, llvm, ll, ptx" in str(e.value)
    with pytest.raises(wf.UsageError, match="a tile kernel's stages are kernel, tile, gpu, nvvm, llvm, ll, ptx"):
        add_one.ir("foo", tile.spec(wf.f32, (64,), partition=(16,)), tile.spec(wf.f32, (64,)))


@pytest.mark.parametrize("value", ["1", "true", "YES", " on ", "True"])
def test_switches_take_every_spelling_of_on(monkeypatch, value) -> None:
    from warpforge import environment

    monkeypatch.setenv("WARPFORGE_SIMULATE", value)
    assert environment.flag("WARPFORGE_SIMULATE") is True
    assert wf.simulating()
    assert wf.Device(0) is wf.Device.simulator()


@pytest.mark.parametrize("value", ["0", "false", "No", "OFF", ""])
def test_switches_take_every_spelling_of_off(monkeypatch, value) -> None:
    from warpforge import cache, environment

    monkeypatch.setenv("WARPFORGE_CACHE", value)
    assert environment.flag("WARPFORGE_CACHE", True) is (value == "")
    assert cache.enabled() is (value == "")


@pytest.mark.parametrize(
    ("name", "value", "read", "message"),
    [
        ("WARPFORGE_SIMULATE", "maybe", lambda: wf.Device(0), "WARPFORGE_SIMULATE='maybe': expected one of 1, true, yes, on (on) or 0, false, no, off (off)"),
        ("WARPFORGE_CACHE", "2", lambda: __import__("warpforge.cache").cache.enabled(), "WARPFORGE_CACHE='2': expected one of"),
        ("WARPFORGE_CACHE_MAX_BYTES", "abc", lambda: __import__("warpforge.cache").cache.max_bytes(), "WARPFORGE_CACHE_MAX_BYTES='abc' is not an integer: expected an integer >= 0 (bytes)"),
        ("WARPFORGE_CACHE_MAX_BYTES", "-5", lambda: __import__("warpforge.cache").cache.max_bytes(), "WARPFORGE_CACHE_MAX_BYTES='-5': expected an integer >= 0 (bytes)"),
        ("WARPFORGE_SIM_STEP_LIMIT", "-3", lambda: wf.Device.simulator(), "WARPFORGE_SIM_STEP_LIMIT='-3': expected an integer >= 1 (steps)"),
    ],
)
def test_bad_environment_values_are_refused_by_name(monkeypatch, name, value, read, message) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(wf.UsageError) as e:
        read()
    assert message in str(e.value)


def test_integer_environment_values_are_read(monkeypatch) -> None:
    from warpforge import cache

    monkeypatch.setenv("WARPFORGE_CACHE_MAX_BYTES", "4096")
    assert cache.max_bytes() == 4096
    for spelled in (" 4096 ", "+4096", "4_096"):  # decimal digits only, as the README says
        monkeypatch.setenv("WARPFORGE_CACHE_MAX_BYTES", spelled)
        with pytest.raises(wf.UsageError, match=r"is not an integer: expected an integer >= 0 \(bytes\), in decimal digits"):
            cache.max_bytes()
    monkeypatch.setenv("WARPFORGE_SIM_STEP_LIMIT", "77")
    assert wf.Device.simulator().step_limit == 77


# ---------------------------------------------------------------- 19: the whole tensor's extents


def test_tensor_shape_is_the_whole_extent_of_a_partitioned_argument(sim) -> None:
    @tile.kernel
    def extents(z: tile.Tensor[wf.i64, ("B", "C")], x: tile.Tensor[wf.f32, (-1,)]):
        rows = z.tensor_shape[0]
        cols = z.tensor_shape[1]
        z.store(tile.full(z.shape, 0, wf.i64) + rows * 1000 + cols * 10 + x.tensor_shape[0] * 100000 + z.shape[1])

    dev, st = sim
    rng = np.random.default_rng(19)
    n, m, k = (int(v) for v in rng.integers(3, 60, 3))
    out = extents(wf.full((n, m), -1, wf.i64).partition((2, 16)), wf.zeros((k,))).first().unpartition().to_host().sync_on(st)
    assert out.shape == (n, m)
    np.testing.assert_array_equal(out, np.full((n, m), n * 1000 + m * 10 + k * 100000 + 16, np.int64))


# ---------------------------------------------------------------- 11: warpforge-opt's parse messages


@pytest.mark.parametrize(
    ("source", "where", "message"),
    [
        ("builtin.module {\n  func.func @f() {\n    func.return\n  }\n", ":5:1:", "unexpected end of input: expected an operation or '}' (a '{' above is not closed)"),
        (
            "func.func @f(%a: f32) -> f32 {\n  %0 = arith.addf %a, %a : i32\n  func.return %0 : f32\n}\n",
            ":2:3:",
            "'arith.addf' does not take i32 here: 'arith.addf' works on floating-point types",
        ),
        (
            "kernel.func @k(%x: !kernel.slice<f32>, %t: !kernel.thread_index, %v: f32) attributes {kernel} {\n"
            "  kernel.store %v, %x[%t] : f32, !kernel.slice<f32>, !kernel.thread_index\n  kernel.return\n}\n",
            ":2:3:",
            "'kernel.store' does not take !kernel.slice<f32> here: a !kernel.slice is read-only: write through a !kernel.disjoint_slice",
        ),
    ],
)
def test_opt_parse_messages_say_what_is_wrong(capsys, tmp_path, source, where, message) -> None:
    from warpforge.driver import opt

    f = tmp_path / "in.mlir"
    f.write_text(source)
    with pytest.raises(SystemExit) as e:
        opt.main([str(f)])
    err = capsys.readouterr().err
    assert e.value.code == 1
    first = err.splitlines()[0]
    assert first.startswith(f"{f}{where} error: "), err
    assert message in first and "Unexpected attribute" not in first and "error:  " not in first


def test_rank5_string_annotation_is_located_at_the_parameter(tmp_path) -> None:
    import importlib.util

    src = tmp_path / "future_kernel.py"
    src.write_text(
        "from __future__ import annotations\n"
        "import warpforge as wf\n"
        "from warpforge import tile\n\n"
        "@tile.kernel\n"
        "def k(z: tile.Tensor[wf.f32, (2, 2, 2, 2, 2)]):\n"
        "    pass\n"
    )
    spec = importlib.util.spec_from_file_location("future_kernel", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(wf.CompileError) as e:
        module.k.ir("tile", tile.spec(wf.f32, (2, 2, 2, 2, 2)))
    err = e.value
    assert (err.filename, err.line, err.col) == (str(src), 6, 7)
    assert "the shape is a tuple of 1 to 4 dimensions" in err.message and "<string>" not in err.message
