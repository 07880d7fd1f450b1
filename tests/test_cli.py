"""The command-line tools: every stage prints, bad input is a diagnostic with exit status 1 (no traceback)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True, input=stdin, cwd=ROOT)


@pytest.mark.parametrize("stage", ["kernel", "gpu", "nvvm", "llvm", "ll", "ptx"])
def test_compile_prints_every_stage(stage: str) -> None:
    proc = run("warpforge", "compile", "examples/vecadd.py", "--emit", stage)
    assert proc.returncode == 0, proc.stderr
    marker = {"kernel": "kernel.func @vecadd", "gpu": "gpu.func @vecadd", "nvvm": "nvvm.read.ptx.sreg", "llvm": "llvm.func @vecadd", "ll": "define ptx_kernel void @\"vecadd\"", "ptx": ".visible .entry vecadd"}[stage]
    assert marker in proc.stdout


def test_mlir_stages_resume_in_warpforge_opt() -> None:
    kernel_ir = run("warpforge", "compile", "examples/vecadd.py", "--emit", "kernel").stdout
    proc = run("warpforge-opt", "-p", "simt-to-llvm", "-t", "ptx", stdin=kernel_ir)
    assert proc.returncode == 0, proc.stderr
    assert ".reqntid 256, 1, 1" in proc.stdout
    gpu_ir = run("warpforge", "compile", "examples/vecadd.py", "--emit", "gpu").stdout
    proc = run("warpforge-opt", "-p", "gpu-to-llvm", "-t", "llvm", stdin=gpu_ir)
    assert proc.returncode == 0, proc.stderr
    assert "define ptx_kernel" in proc.stdout


def test_run_without_gpu_compiles_then_runs_on_the_simulator() -> None:
    from warpforge.runtime import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present: `warpforge run` runs the program there")
    proc = run("warpforge", "run", "examples/vecadd.py")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines == [
        "compiled vecadd: PTX for sm_90 assembled by ptxas" if "assembled" in lines[0] else lines[0],
        "no GPU found: running on the CPU simulator",
        "PASSED: all 1024 elements correct",
    ], proc.stdout


def test_run_simulate_runs_on_the_simulator_even_with_a_gpu() -> None:
    proc = run("warpforge", "run", "--simulate", "examples/saxpy.py")
    assert proc.returncode == 0, proc.stderr
    assert "compiled saxpy" in proc.stdout and "running on the CPU simulator" in proc.stdout
    assert "PASSED: all 4096 elements correct" in proc.stdout  # the size the example picks when simulated


FAILING = """
import numpy as np
import warpforge as wf
from warpforge import simt


@simt.kernel
def shifted(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get() + 1]


def main():
    assert wf.simulating()
    stream = wf.Device(0).create_stream()
    x = wf.DeviceBuffer.from_host(stream, np.zeros(64, np.float32))
    out = wf.DeviceBuffer.zeroed(stream, 64, wf.f32)
    shifted[1, 64, stream](x, out)
    {tail}
"""


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ("out.to_host(stream)", "failing.py:10:16: index 64 not in [0, 64)"),
        ("raise SystemExit('FAILED: wrong')", "FAILED: wrong"),
        ("raise ValueError('boom')", "ValueError: boom"),
    ],
)
def test_run_exits_nonzero_when_main_fails(tmp_path: Path, tail: str, message: str) -> None:
    path = tmp_path / "failing.py"
    path.write_text(FAILING.format(tail=tail))
    proc = run("warpforge", "run", "--simulate", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "running on the CPU simulator" in proc.stdout
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_a_file_without_main_runs_it_as_a_script(tmp_path: Path) -> None:
    path = tmp_path / "script.py"
    path.write_text(
        "import sys\nimport warpforge as wf\n\nif __name__ == '__main__':\n"
        "    print('script ran', wf.simulating(), wf.Device(0).simulated, sys.argv[1:])\n"
    )
    proc = run("warpforge", "run", "--simulate", str(path), "--size", "3")
    assert proc.returncode == 0, proc.stderr
    assert "script ran True True ['--size', '3']" in proc.stdout


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("warpforge-opt",), "builtin.module {\n  %x = arith.addi %a, %a : i32\n}", "2:19: error: use of undefined value '%a'"),
        (("warpforge-opt",), "builtin.module {\n  %x = arith.addi 1 : i32\n}", "stdin:2:"),
        (("warpforge-opt",), 'builtin.module {\n  "test.nope"() : () -> ()\n}', "is not registered"),
        (("warpforge-opt", "-p", "no-such-pass"), "builtin.module {}", "no-such-pass"),
        (("warpforge-opt",), "gpu.module @m { gpu.func @k() kernel { gpu.return } }", ""),
        (("warpforge", "compile", "no/such/file.py"), None, "no such file"),
    ],
)
def test_bad_input_is_a_diagnostic_not_a_traceback(args: tuple[str, ...], stdin: str | None, message: str) -> None:
    proc = run(*args, stdin=stdin)
    if message == "":
        assert proc.returncode == 0, proc.stderr
        return
    assert proc.returncode == 1
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_verify_error_names_the_op() -> None:
    ir = "gpu.module @m {\n  gpu.func @k(%a: i32) kernel attributes {known_block_size = array<i32: 0, 1, 1>} {\n    gpu.return\n  }\n}"
    proc = run("warpforge-opt", stdin=ir)
    assert proc.returncode == 1
    assert "known_block_size must be 3 positive integers" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_lists_passes_pipelines_and_targets() -> None:
    proc = run("warpforge-opt", "--help")
    assert proc.returncode == 0
    for name in ("kernel-to-gpu", "convert-gpu-to-nvvm", "check-nvvm-target", "simt-to-llvm", "gpu-to-llvm", "ptx"):
        assert name in proc.stdout


def test_doctor_reports_each_component() -> None:
    proc = run("warpforge", "doctor")
    for name in ("python", "xdsl", "llvmlite NVPTX", "ptxas", "libdevice", "CUDA driver", "GPUs"):
        assert name in proc.stdout
    assert proc.returncode == 0
