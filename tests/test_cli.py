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


def test_run_without_gpu_compiles_and_says_nothing_ran() -> None:
    from warpforge.runtime import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present: `warpforge run` runs the program")
    proc = run("warpforge", "run", "examples/vecadd.py")
    assert proc.returncode == 0, proc.stderr
    assert "no GPU found" in proc.stdout and "nothing ran" in proc.stdout


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("warpforge-opt",), "builtin.module {\n  %x = arith.addi %a, %a : i32\n}", "values used but not defined"),
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
