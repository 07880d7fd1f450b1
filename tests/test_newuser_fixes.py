"""The second new user's findings (each test fails before its fix): what a kernel compiles from
when its file is edited after import, module constants rebound after the first compile, kernel
overrides the simulator cannot apply, `wf.full`'s fill value, and the smaller diagnostics. CPU only
(the simulator runs the kernels)."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import time

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile
from warpforge.simulator.launch import run as sim_run


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    later = time.time() + 5
    os.utime(path, (later, later))  # linecache/inspect see a changed file


# --------------------------------------------------------------------------- 1. edited after import

_SIMT_MODULE = """\
from warpforge import simt, f32

@simt.device
def bump(x: f32) -> f32:
    return x + 1.0

@simt.kernel
def kern(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d(); i = idx.get()
    if i < len(a):
        c[idx] = bump(a[i]) + 10.0
"""

_TILE_MODULE = """\
from warpforge import tile, f32

@tile.kernel
def tk(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + 1.0)
"""


@pytest.mark.parametrize("edit", ["kernel", "device"])
def test_simt_kernel_compiles_the_source_it_was_imported_with(tmp_path, monkeypatch, edit: str) -> None:
    path = tmp_path / f"edited_simt_{edit}.py"
    path.write_text(_SIMT_MODULE)
    module = _import(path, path.stem)
    if edit == "kernel":  # an editor saves the file between import and the first launch
        _edit(path, "bump(a[i]) + 10.0", "bump(a[i]) * 100.0")
    else:
        _edit(path, "return x + 1.0", "return x - 7.0")
    rng = np.random.default_rng(1)
    a = rng.standard_normal(40).astype(np.float32)
    out = np.full(40, np.nan, np.float32)
    sim_run(module.kern, 1, 64, a, out)
    np.testing.assert_allclose(out, a + 1.0 + 10.0, rtol=1e-6)


def test_tile_kernel_compiles_the_source_it_was_imported_with(tmp_path) -> None:
    path = tmp_path / "edited_tile.py"
    path.write_text(_TILE_MODULE)
    module = _import(path, path.stem)
    _edit(path, "+ 1.0)", "* 100.0)")
    rng = np.random.default_rng(2)
    a = rng.standard_normal(40).astype(np.float32)
    stream = wf.Device.simulator().create_stream()
    got = module.tk(wf.zeros((40,), wf.f32).partition((64,)), wf.from_host(a)).first().unpartition().to_host().sync_on(stream)
    np.testing.assert_allclose(got, a + 1.0, rtol=1e-6)


# --------------------------------------------------------------------------- 2. module constants rebound

SCALE = 2.0
OFFSET = 1.0


@simt.device
def _offset(x: wf.f32) -> wf.f32:
    return x + OFFSET


@simt.kernel
def scaled(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d(); i = idx.get()
    if i < len(a):
        c[idx] = _offset(a[i] * SCALE)


@simt.kernel
def scaled_generic(a, c):
    idx = simt.index_1d(); i = idx.get()
    if i < len(a):
        c[idx] = a[i] * SCALE


@tile.kernel
def scaled_tile(z: tile.Tensor[wf.f32, ("B",)], x: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) * SCALE)


def _simt_launches(kernel, a):
    """The same launch three ways: kernel[grid, block], a prepare()d token made before, generic."""
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    out = []
    for how in ("getitem", "token"):
        c = wf.DeviceBuffer.from_host(stream, np.full(a.size, np.nan, np.float32))
        if how == "getitem":
            kernel[1, 64, stream](wf.DeviceBuffer.from_host(stream, a), c)
        else:
            kernel.launch(stream, _tokens.setdefault(id(kernel), kernel.prepare(wf.LaunchConfig(grid=1, block=64), dev)), wf.DeviceBuffer.from_host(stream, a), c)
        out.append(c.to_host(stream))
    return out


_tokens: dict = {}


def test_a_launch_sees_module_constants_rebound_since_the_first_compile(monkeypatch) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal(40).astype(np.float32)
    monkeypatch.setitem(globals(), "SCALE", 2.0)
    monkeypatch.setitem(globals(), "OFFSET", 1.0)
    for got in _simt_launches(scaled, a):
        np.testing.assert_allclose(got, a * 2 + 1, rtol=1e-6)
    first = scaled.compile()
    assert scaled.compile() is first  # nothing rebound: the compiled kernel is kept
    globals()["SCALE"] = 2.0  # the same value again (a new float object): still kept
    assert scaled.compile() is first
    globals()["SCALE"] = 5.0
    for got in _simt_launches(scaled, a):  # the token prepared under SCALE = 2 runs the new code too
        np.testing.assert_allclose(got, a * 5 + 1, rtol=1e-6)
    globals()["OFFSET"] = -3.0  # read by the @simt.device function
    for got in _simt_launches(scaled, a):
        np.testing.assert_allclose(got, a * 5 - 3, rtol=1e-6)
    globals()["SCALE"] = 5  # an int where a float was: the literal's type changes, so compile again
    assert scaled.compile() is not first


def test_generic_and_tile_kernels_see_rebound_module_constants(monkeypatch) -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal(40).astype(np.float32)
    stream = wf.Device.simulator().create_stream()
    for value in (2.0, 7.0, -0.5):
        monkeypatch.setitem(globals(), "SCALE", value)
        c = wf.DeviceBuffer.from_host(stream, np.full(40, np.nan, np.float32))
        scaled_generic[1, 64, stream](wf.DeviceBuffer.from_host(stream, a), c)
        np.testing.assert_allclose(c.to_host(stream), a * value, rtol=1e-6)
        got = scaled_tile(wf.zeros((40,), wf.f32).partition((64,)), wf.from_host(a)).first().unpartition().to_host().sync_on(stream)
        np.testing.assert_allclose(got, a * value, rtol=1e-6)


def test_a_closure_value_rebound_is_seen() -> None:
    def make():
        factor = 3.0

        @simt.kernel
        def k(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
            idx = simt.index_1d(); i = idx.get()
            if i < len(a):
                c[idx] = a[i] * factor

        def set_factor(v):
            nonlocal factor
            factor = v

        return k, set_factor

    k, set_factor = make()
    a = np.random.default_rng(5).standard_normal(40).astype(np.float32)
    for value in (3.0, -2.0):
        set_factor(value)
        c = np.full(40, np.nan, np.float32)
        sim_run(k, 1, 64, a, c)
        np.testing.assert_allclose(c, a * value, rtol=1e-6)


# --------------------------------------------------------------------------- 3. overrides on the simulator

@simt.kernel
def addone(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d(); i = idx.get()
    if i < len(a):
        c[idx] = a[i] + 1.0


@tile.kernel
def addone_tile(z: tile.Tensor[wf.f32, ("B",)], x: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + 1.0)


@pytest.mark.parametrize("stage", ["nvvm", "llvm", "ll", "ptx"])
@pytest.mark.parametrize("model", ["simt", "tile"])
def test_an_override_past_the_gpu_stage_is_refused_on_the_simulator(tmp_path, monkeypatch, stage: str, model: str) -> None:
    from warpforge.knobs import stage_file_name

    a = np.random.default_rng(6).standard_normal(40).astype(np.float32)
    stream = wf.Device.simulator().create_stream()
    monkeypatch.setenv("WARPFORGE_CACHE", "0")

    def launch():
        fresh = simt.kernel(addone.fn) if model == "simt" else tile.kernel(addone_tile.fn)  # compiled anew
        if model == "simt":
            c = np.full(40, np.nan, np.float32)
            sim_run(fresh, 1, 64, a, c)
            return c
        return fresh(wf.zeros((40,), wf.f32).partition((64,)), wf.from_host(a)).first().unpartition().to_host().sync_on(stream)

    monkeypatch.setenv("WARPFORGE_DUMP_IR", str(tmp_path / "dump"))
    np.testing.assert_allclose(launch(), a + 1, rtol=1e-6)  # dumps the stages: their file names and text
    dumped = [p for p in (tmp_path / "dump").iterdir() if p.name.endswith(stage_file_name("", stage))]
    assert len(dumped) == 1, list((tmp_path / "dump").iterdir())
    monkeypatch.delenv("WARPFORGE_DUMP_IR")
    override = tmp_path / "ov"
    override.mkdir()
    text = dumped[0].read_text()
    # a PTX that is not even PTX was accepted; the others (valid IR) were applied to the GPU path only
    (override / dumped[0].name).write_text("garbage\n" if stage == "ptx" else text)
    monkeypatch.setenv("WARPFORGE_KERNEL_OVERRIDE", str(override))
    with pytest.raises(wf.UsageError, match=rf"{dumped[0].name} overrides a stage past 'gpu' .* the CPU simulator runs the kernel's gpu stage"):
        launch()
    (override / dumped[0].name).unlink()
    (override / dumped[0].name.replace(stage_file_name("", stage), ".gpu.mlir")).write_text(
        (tmp_path / "dump" / dumped[0].name.replace(stage_file_name("", stage), ".gpu.mlir")).read_text())
    np.testing.assert_allclose(launch(), a + 1, rtol=1e-6)  # a gpu-stage override applies on the simulator


# --------------------------------------------------------------------------- 4. wf.full's fill value

@pytest.mark.parametrize(
    ("value", "dtype", "message"),
    [
        (2**40, wf.i32, r"wf.full\(\(3,\), 1099511627776, i32\): the fill value 1099511627776 does not fit int32 \(range \[-2147483648, 2147483647\]\)"),
        (300, wf.i8, r"the fill value 300 does not fit int8"),
        (-1, wf.u8, r"the fill value -1 does not fit uint8"),
        (1.7, wf.i32, r"the fill value is int32 \(an integer\); got float 1.7: pass an int"),
        (float("nan"), wf.i32, r"the fill value is int32 \(an integer\); got float nan"),
        (float("inf"), wf.i64, r"the fill value is int64 \(an integer\); got float inf"),
        (1e6, wf.f16, r"the fill value 1000000.0 does not fit float16 \(largest finite value 65504\)"),
        (1e39, wf.f32, r"does not fit float32"),
        (np.nan, wf.bool_, r"the fill value is a bool; got float nan: pass True or False"),
        ("3", wf.f32, r"the fill value is a number \(or True/False\), got str '3'"),
        ([1, 2], wf.f32, r"the fill value is a number"),
    ],
)
def test_full_checks_its_fill_value_at_the_call(value, dtype, message: str) -> None:
    # NaN/inf -> i32 gave INT_MIN, 1e6 -> f16 inf, "3" was accepted, 2**40 raised NumPy's OverflowError at sync
    with pytest.raises(wf.LaunchUsageError, match=message):
        wf.full((3,), value, dtype)


def test_full_fills_what_fits() -> None:
    stream = wf.Device.simulator().create_stream()
    for value, dtype in [(np.nan, wf.f32), (-np.inf, wf.f16), (65504.0, wf.f16), (-128, wf.i8), (255, wf.u8), (2**63 - 1, wf.i64), (True, wf.bool_), (7, wf.f32), (np.float32(2.5), None)]:
        got = wf.full((3,), value, dtype).to_host().sync_on(stream)
        expect = np.full(3, value, dtype.np if dtype is not None else np.float32)
        np.testing.assert_array_equal(got, expect)
        assert got.dtype == expect.dtype


# --------------------------------------------------------------------------- 5. warpforge compile FILE.py

_MIXED = """\
from warpforge import simt, tile, f32

@simt.kernel
def plain(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    c[idx] = a[idx.get()] * 3.0

@simt.kernel
def gen(a, c):
    idx = simt.index_1d()
    c[idx] = a[idx.get()]

@tile.kernel
def tk(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z))
"""


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    from warpforge.driver.cli import main

    with pytest.raises(SystemExit) as info:
        main(list(argv))
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_compile_without_kernel_skips_generic_and_shapeless_tile_kernels(tmp_path, capsys) -> None:
    path = tmp_path / "mixed.py"
    path.write_text(_MIXED)
    code, out, err = _cli(capsys, "compile", str(path), "--emit", "kernel")
    assert code == 0, err
    assert "kernel.func @plain" in out and "@gen" not in out and "@tk" not in out
    assert "note: not compiled: gen (generic: compiled per argument types at its first launch); tk (a tile kernel without ahead_of_time shapes" in err
    # named, the tile kernel's refusal is located at its definition
    code, _, err = _cli(capsys, "compile", str(path), "--kernel", "tk")
    assert code == 1 and err.startswith(f"{path}:13:1: error: tk is a tile kernel without ahead_of_time shapes"), err
    # nothing that compiles: a nonzero exit, with the note
    path.write_text(_MIXED.replace("@simt.kernel\ndef plain", "@simt.kernel\ndef plain_generic(a, c):\n    pass\n\ndef plain"))
    code, out, err = _cli(capsys, "compile", str(path), "--emit", "kernel")
    assert code == 1 and out == "" and "no kernel compiles ahead of time" in err and "plain_generic (generic" in err


# --------------------------------------------------------------------------- 6. unknown kernel options

def test_unknown_kernel_options_are_located_compile_errors() -> None:
    line = sys._getframe().f_lineno + 2
    with pytest.raises(wf.CompileError, match=r"@simt.kernel: unknown option 'bogus_option'; the options are contract, launch_bounds, checks, fastmath, min_blocks_per_sm") as info:
        simt.kernel(bogus_option=3)
    assert (info.value.filename, info.value.line) == (__file__, line) and info.value.col > 1
    line = sys._getframe().f_lineno + 2
    with pytest.raises(wf.CompileError, match=r"@tile.kernel: unknown options 'bogus', 'other'; the options are num_warps, checks, num_stages, min_blocks_per_sm") as info:
        tile.kernel(bogus=1, other=2)
    assert (info.value.filename, info.value.line) == (__file__, line)


def test_checks_takes_a_bool_only() -> None:
    def k(c: simt.DisjointSlice[wf.f32]):
        c[simt.index_1d()] = 1.0

    with pytest.raises(wf.CompileError, match=r"@simt.kernel: checks is True or False, got 'yes'") as info:
        simt.kernel(checks="yes")(k)
    assert info.value.filename == __file__
    with pytest.raises(wf.UsageError, match=r"checks is True or False, got 1"):
        tile.kernel(checks=1)(k)
    assert simt.kernel(checks=False)(k).checks is False


# --------------------------------------------------------------------------- 7. a partition where an input is declared

@tile.kernel
def add_inputs(z: tile.Tensor[wf.f32, ("B",)], x: tile.Tensor[wf.f32, (-1,)], y: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


def test_a_partition_passed_for_an_input_names_the_parameter_and_the_call() -> None:
    x = wf.from_host(np.arange(100, dtype=np.float32)).partition((16,))
    line = sys._getframe().f_lineno + 2
    with pytest.raises(wf.CompileError, match=rf"add_inputs: the call passes a partitioned tensor \(tiles \(16,\)\) as 'x' \(at {__file__}:{line}\), but 'x' is declared") as info:
        add_inputs(x, x, wf.ones((100,), wf.f32))
    # at the parameter (was <unknown>:0:0)
    assert info.value.filename == __file__ and info.value.line == add_inputs.fn.__code__.co_firstlineno + 1
    assert info.value.col > 30  # x:, after z's annotation


# --------------------------------------------------------------------------- 8. pass options out of range

@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tile-to-gpu{vector-bytes=-16}", "option vector-bytes=-16: vector-bytes takes 1, 2, 4, 8 or 16"),
        ("tile-to-gpu{vector-bytes=0}", "option vector-bytes=0: vector-bytes takes 1, 2, 4, 8 or 16"),
        ("tile-to-gpu{vector-bytes=3}", "option vector-bytes=3:"),
        ("tile-to-gpu{vector-bytes=1024}", "option vector-bytes=1024:"),
        ("cse,tile-pipeline{num-stages=-3}", "option num-stages=-3: num-stages takes an int from 0 to 8"),
        ("tile-pipeline{num-stages=9}", "option num-stages=9:"),
    ],
)
def test_pass_options_out_of_range_are_refused_at_the_option(spec: str, message: str) -> None:
    from warpforge.pass_manager import PipelineSpecError, instantiate, parse_pass_pipeline
    from warpforge.passes import get_all_passes

    with pytest.raises(PipelineSpecError, match=re.escape(message)) as info:
        instantiate(parse_pass_pipeline(spec), get_all_passes(), spec)
    assert spec.index("{") + 2 == info.value.col  # at the option's name


def test_pass_options_in_range_are_taken() -> None:
    from warpforge.pass_manager import instantiate, parse_pass_pipeline
    from warpforge.passes import get_all_passes

    spec = "tile-to-gpu{vector-bytes=8},tile-pipeline{num-stages=0},tile-pipeline{num-stages=8}"
    passes = instantiate(parse_pass_pipeline(spec), get_all_passes(), spec)
    assert (passes[0].vector_bytes, passes[1].num_stages, passes[2].num_stages) == (8, 0, 8)


# --------------------------------------------------------------------------- 9. small ones

def test_sanitize_names_a_bad_tool_first(tmp_path, capsys) -> None:
    from warpforge.driver.sanitize import run as sanitize

    # `--tool` after FILE went to the program's arguments; missing compute-sanitizer was reported instead
    for args in (["--tool", "bogus"], ["--tool=bogus"]):
        assert sanitize(str(tmp_path / "missing.py"), "memcheck", args) == 1
        assert capsys.readouterr().err == "error: unknown compute-sanitizer tool 'bogus': --tool is one of memcheck, racecheck, synccheck, initcheck\n"
    assert sanitize(str(tmp_path / "missing.py"), "bogus", []) == 1
    assert "unknown compute-sanitizer tool 'bogus'" in capsys.readouterr().err
    assert sanitize(str(tmp_path / "missing.py"), "memcheck", ["--tool", "racecheck"]) == 1  # a good tool: taken, then the file
    assert capsys.readouterr().err == f"error: no such file: {tmp_path / 'missing.py'}\n"


def test_cache_info_says_a_file_as_cache_dir_turns_the_cache_off(tmp_path, monkeypatch, capsys) -> None:
    target = tmp_path / "not-a-dir"
    target.write_text("x")
    for root, blamed in ((target, target), (target / "sub", target)):
        monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(root))
        code, out, _ = _cli(capsys, "cache", "info")
        assert code == 0 and f"state: off: {blamed} is a file, not a directory" in out and "nothing is cached" in out, out
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "fresh"))
    code, out, _ = _cli(capsys, "cache", "info")
    assert "state: on\n" in out


def test_two_simulators_in_a_cross_device_message_are_told_apart(tmp_path) -> None:
    first = wf.Device.simulator()
    other = wf.Device.simulator(step_limit=12345)
    a = wf.DeviceBuffer.from_host(first.create_stream(), np.ones(4, np.float32))
    stream = other.create_stream()
    c = wf.DeviceBuffer.zeroed(stream, 4, wf.f32)
    with pytest.raises(wf.LaunchError) as info:
        addone[1, 32, stream](a, c)
    message = str(info.value)
    here, there = message.split("lives on ", 1)[1].split(", the launch is on ")
    assert here != there and "step limit 12345" in there and "step limit 12345" not in here, message
