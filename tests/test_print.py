"""`print()` in kernels: exact text on the simulator, the refusals (CompileError at the line), the PTX
(ptxas), and on the GPU the text CUDA's vprintf writes to the process's stdout (in a subprocess,
compared sorted: the order across threads is unspecified there)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i32, simt, tile, u32

import print_kernels as pk

HERE = Path(__file__).parent
SEED = 20261201


# --------------------------------------------------------------------------- the simulator


def test_simulator_prints_every_dtype_in_thread_order(capsys: pytest.CaptureFixture[str]) -> None:
    inputs = pk.scalar_inputs(SEED)
    pk.run_scalars(wf.Device.simulator(), inputs)
    out = capsys.readouterr().out
    assert out.splitlines() == pk.scalar_lines(inputs)
    assert out.endswith("!\n")


def test_simulator_prints_tiles_element_by_element(capsys: pytest.CaptureFixture[str]) -> None:
    x = pk.tile_inputs(SEED)
    out = pk.run_tiles(wf.Device.simulator(), x)
    assert np.array_equal(out, x)
    assert capsys.readouterr().out.splitlines() == pk.tile_lines(x)


def test_simulator_prints_a_2d_tile_with_its_indices(capsys: pytest.CaptureFixture[str]) -> None:
    x = pk.tile2d_inputs(SEED)
    assert np.array_equal(pk.run_2d(wf.Device.simulator(), x), x)
    assert sorted(capsys.readouterr().out.splitlines()) == pk.tile2d_lines(x)


@simt.kernel
def divergent(n: i32):
    i = simt.index_1d().get()
    if i % 2 == 0:
        print("even", i)
    else:
        print("odd", i, sep=":")
    print(f"done {i}", n)


def test_simulator_print_order_follows_the_threads_that_run_each_print(capsys: pytest.CaptureFixture[str]) -> None:
    n = int(np.random.default_rng(SEED).integers(1, 1000))
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    divergent.launch(stream, divergent.prepare(wf.LaunchConfig(grid=1, block=4, shmem_size=0), device=dev), np.int32(n))
    stream.sync()
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[:4]) == sorted(["even 0", "odd:1", "even 2", "odd:3"])
    assert lines[4:] == [f"done {i} {n}" for i in range(4)]


@simt.kernel
def bare(n: i32):
    print()
    print("a%", end="")
    print("{b}", n, sep="")


def test_simulator_print_without_arguments_sep_and_end(capsys: pytest.CaptureFixture[str]) -> None:
    n = int(np.random.default_rng(SEED + 1).integers(-1000, 1000))
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    bare.launch(stream, bare.prepare(wf.LaunchConfig(grid=1, block=2, shmem_size=0), device=dev), np.int32(n))
    assert capsys.readouterr().out == f"\n\na%a%{{b}}{n}\n{{b}}{n}\n"


@simt.kernel
def unicode_text(x: f32):
    print("π ≈", x, "✓")


def test_simulator_prints_non_ascii_text(capsys: pytest.CaptureFixture[str]) -> None:
    x = np.float32(np.random.default_rng(SEED + 2).uniform(1, 4))
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    unicode_text.launch(stream, unicode_text.prepare(wf.LaunchConfig(grid=1, block=1, shmem_size=0), device=dev), x)
    assert capsys.readouterr().out == "π ≈ %f ✓\n" % float(x)


def test_the_value_of_print_is_none(tmp_path: Path) -> None:
    err = _compile_error("@simt.kernel\ndef k(n: i32):\n    x = print(n)\n    y = x + 1\n", tmp_path)
    assert "got None" in err.message and err.line == 7


# --------------------------------------------------------------------------- refusals


def _compile_error(source: str, tmp_path: Path) -> wf.CompileError:
    path = tmp_path / "k.py"
    path.write_text("import warpforge as wf\nfrom warpforge import simt, i32, f32, u32, bool_\n\n" + source)
    ns: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    with pytest.raises(wf.CompileError) as info:
        ns["k"].compile()  # pyright: ignore[reportAttributeAccessIssue]
    return info.value


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('print(f"{x:^8}")', "has no printf equivalent"),
        ('print(f"{x:*>8}")', "has no printf equivalent"),
        ('print(f"{x:,}")', "has no printf equivalent"),
        ('print(f"{n:x}")', "two's-complement bits"),
        ('print(f"{b:>6}")', "a bool takes no format spec"),
        ('print(f"{x!r}")', "not Python's repr"),
        ('print(f"{x:{n}}")', "computed at run time"),
        ('print(f"{x:.3}")', "a precision needs a type letter"),
        ('print(f"{n:.3d}")', "an integer takes no precision"),
        ('print(f"{u:+}")', "no sign for unsigned"),
        ('print(x, file=None)', "takes only sep= and end="),
        ('print(x, flush=True)', "takes only sep= and end="),
        ('print(x, sep=s)', "must be a string constant"),
        ("print(a)", "prints strings and numbers"),
    ],
)
def test_print_refusals_name_the_line(body: str, message: str, tmp_path: Path) -> None:
    src = (
        "@simt.kernel\n"
        "def k(a: simt.Slice[f32], x: f32, n: i32, u: u32, b: bool_):\n"
        "    s = 1\n"
        f"    {body}\n"
    )
    err = _compile_error(src, tmp_path)
    assert message in err.message
    assert err.line == 7 and err.filename.endswith("k.py")


def test_print_of_more_values_than_cuda_printf_takes_is_refused(tmp_path: Path) -> None:
    body = ", ".join(["x"] * 33)
    err = _compile_error(f"@simt.kernel\ndef k(x: f32):\n    print({body})\n", tmp_path)
    assert "at most 32" in err.message and err.line == 6
    src_ok = f"@simt.kernel\ndef k(x: f32):\n    print({', '.join(['x'] * 32)})\n"
    path = tmp_path / "ok.py"
    path.write_text("from warpforge import simt, f32\n" + src_ok)
    ns: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    assert ns["k"].compile().ptx.count("vprintf") >= 2  # pyright: ignore[reportAttributeAccessIssue]


# --------------------------------------------------------------------------- PTX


@simt.kernel
def every_kind(a: simt.Slice[f32], n: i32, u: u32, flag: wf.bool_):
    i = simt.index_1d().get()
    print("i =", i, a[i] if i < len(a) else 0.0, n, u, flag, wf.i8(n), wf.u16(u), wf.f16(n), wf.bf16(n), f"{u:08x} {n:+5d} {a[0]:e}")


def test_print_ptx_calls_vprintf_and_assembles() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = every_kind.compile().ptx
    assert "call.uni (retval0), vprintf" in ptx
    assert ".extern .func  (.param .b32 func_retval0) vprintf" in ptx
    assert ".extern .func llvm." not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


def test_tile_print_ptx_assembles() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = pk.print_tiles.ir("ptx", tile.spec(f32, (64,), partition=(8,)), tile.spec(f32, (64,)))
    assert ptx.count("vprintf, (param0, param1)") >= 2
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- the GPU


def _run_on_gpu(what: str) -> list[str]:
    env = dict(os.environ)
    env.pop("WARPFORGE_SIMULATE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(HERE / "print_kernels.py"), what, str(SEED)], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.gpu
def test_gpu_prints_every_dtype() -> None:
    assert sorted(_run_on_gpu("scalars")) == sorted(pk.scalar_lines(pk.scalar_inputs(SEED)))


@pytest.mark.gpu
def test_gpu_prints_tiles() -> None:
    assert sorted(_run_on_gpu("tiles")) == sorted(pk.tile_lines(pk.tile_inputs(SEED)))


@pytest.mark.gpu
def test_gpu_prints_a_2d_tile() -> None:
    assert sorted(_run_on_gpu("tiles2d")) == pk.tile2d_lines(pk.tile2d_inputs(SEED))


def test_simulator_keeps_the_printf_buffer_setting() -> None:
    dev = wf.Device.simulator(step_limit=123456)  # its own simulator object: the setting does not leak
    assert dev.printf_buffer_bytes == 1 << 20
    dev.set_printf_buffer_bytes(8 << 20)
    assert dev.printf_buffer_bytes == 8 << 20
    with pytest.raises(wf.DeviceError, match="positive number of bytes"):
        dev.set_printf_buffer_bytes(0)


@pytest.mark.gpu
def test_gpu_prints_more_than_the_default_printf_buffer_when_it_is_enlarged() -> None:
    assert sorted(_run_on_gpu("many")) == pk.many_lines(pk.many_inputs(SEED))
