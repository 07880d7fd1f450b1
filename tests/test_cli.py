"""The command-line tools: every stage prints, bad input is a diagnostic with exit status 1 (no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import warpforge as wf
from warpforge import simt

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


def test_run_without_gpu_checks_the_ptx_then_runs_on_the_simulator() -> None:
    from warpforge.runtime import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present: `warpforge run` runs the program there")
    proc = run("warpforge", "run", "examples/vecadd.py")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["PASSED: all 1024 elements correct"], proc.stdout  # stdout is the program's
    notes = proc.stderr.splitlines()
    assert notes[0] == "warpforge run: no GPU found: running on the CPU simulator", proc.stderr
    assert notes[1] in ("warpforge run: PTX for sm_90 of vecadd assembled by ptxas", "warpforge run: PTX for sm_90 of vecadd not assembled: ptxas not found")


def test_run_simulate_runs_on_the_simulator_even_with_a_gpu() -> None:
    proc = run("warpforge", "run", "--simulate", "examples/saxpy.py")
    assert proc.returncode == 0, proc.stderr
    assert "--simulate: running on the CPU simulator" in proc.stderr and "of saxpy" in proc.stderr
    assert "PASSED: all 4096 elements correct" in proc.stdout  # the size the example picks when simulated


FAILING = """
import numpy as np
import warpforge as wf
from warpforge import simt


@simt.kernel
def shifted(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get() + 1]


def helper(value):
    raise ValueError(f"boom {{value}}")


def main():
    assert wf.simulating()
    stream = wf.Device(0).create_stream()
    x = wf.DeviceBuffer.from_host(stream, np.zeros(64, np.float32))
    out = wf.DeviceBuffer.zeroed(stream, 64, wf.f32)
    shifted[1, 64, stream](x, out)
    {tail}


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ("out.to_host(stream)", "failing.py:10:16: index 64 not in [0, 64)"),
        ("raise SystemExit('FAILED: wrong')", "FAILED: wrong"),
    ],
)
def test_run_warpforge_errors_are_diagnostics_without_traceback(tmp_path: Path, tail: str, message: str) -> None:
    path = tmp_path / "failing.py"
    path.write_text(FAILING.format(tail=tail))
    proc = run("warpforge", "run", "--simulate", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "running on the CPU simulator" in proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    if "to_host" in tail:  # the host line the error came from
        assert f"(raised from {path}:23 in main())" in proc.stderr, proc.stderr


def test_run_user_exceptions_show_the_users_traceback(tmp_path: Path) -> None:
    path = tmp_path / "failing.py"
    path.write_text(FAILING.format(tail="helper(3)"))
    proc = run("warpforge", "run", "--simulate", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    tb = proc.stderr[proc.stderr.index("Traceback (most recent call last):") :]
    assert tb.splitlines()[1] == f'  File "{path}", line 27, in <module>', tb
    assert f'File "{path}", line 23, in main' in tb and f'File "{path}", line 14, in helper' in tb
    assert tb.rstrip().endswith("ValueError: boom 3")
    assert "runpy" not in tb and "warpforge/driver" not in tb  # the runner's frames are not the user's


def test_run_a_syntax_error_reads_as_pythons(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import warpforge\nx = (1,\n")
    proc = run("warpforge", "run", "--simulate", str(path))
    assert proc.returncode == 1
    assert f'File "{path}", line 2' in proc.stderr and "SyntaxError: '(' was never closed" in proc.stderr, proc.stderr
    assert "runpy" not in proc.stderr and "warpforge/driver" not in proc.stderr


RUN_ONCE = """
import sys
import numpy as np
import warpforge as wf
from warpforge import f32, simt, tile

print("top level", __name__, sys.argv[1:])


@simt.kernel
def double(x, out: simt.DisjointSlice[f32]):  # generic: x has no annotation
    idx = simt.index_1d()
    if idx.get() < len(x):
        out[idx] = x[idx.get()] * 2


@tile.kernel
def add_one(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):  # no ahead_of_time shapes
    z.store(tile.load_tile_like(x, z) + 1.0)


def main():
    rng = np.random.default_rng(5)
    host = rng.standard_normal(300).astype(np.float32)
    stream = wf.Device(0).create_stream()
    x = wf.DeviceBuffer.from_host(stream, host)
    out = wf.DeviceBuffer.from_host(stream, np.full(300, np.nan, np.float32))
    double[3, 128, stream](x, out)
    assert np.array_equal(out.to_host(stream), host * 2)
    got = add_one(wf.empty((300,), f32).partition((128,)), wf.from_host(host)).first().unpartition().to_host().sync_on(stream)
    assert np.array_equal(got, host + np.float32(1))
    print("main ran", wf.simulating())


main()  # no `if __name__` guard
"""


def test_run_runs_the_file_once_as_python_does(tmp_path: Path) -> None:
    path = tmp_path / "once.py"
    path.write_text(RUN_ONCE)
    proc = run("warpforge", "run", "--simulate", str(path), "--size", "3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["top level __main__ ['--size', '3']", "main ran True"], proc.stdout
    assert "not checked ahead of time: double (generic" in proc.stderr
    assert "add_one (a tile kernel without ahead_of_time shapes" in proc.stderr
    # the same program under plain python with the simulator prints the same
    env = dict(os.environ, WARPFORGE_SIMULATE="1")
    plain = subprocess.run([sys.executable, str(path), "--size", "3"], capture_output=True, text=True, env=env)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == proc.stdout


@pytest.mark.gpu
def test_run_on_the_gpu_runs_the_file_once_as_python_does(tmp_path: Path) -> None:
    # generic and tile kernels without ahead_of_time shapes, a main() without a guard: as under python
    path = tmp_path / "once.py"
    path.write_text(RUN_ONCE.replace('print("main ran", wf.simulating())', 'print("main ran", wf.simulating(), wf.Device(0).simulated)'))
    env = dict(os.environ)
    env.pop("WARPFORGE_SIMULATE", None)
    proc = subprocess.run([str(BIN / "warpforge"), "run", str(path), "--size", "3"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["top level __main__ ['--size', '3']", "main ran False False"], proc.stdout
    assert "simulator" not in proc.stderr and "not checked ahead of time: double (generic" in proc.stderr
    plain = subprocess.run([sys.executable, str(path), "--size", "3"], capture_output=True, text=True, env=env)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == proc.stdout


@pytest.mark.gpu
def test_run_on_the_gpu_shows_the_users_traceback(tmp_path: Path) -> None:
    path = tmp_path / "failing.py"
    path.write_text(FAILING.format(tail="helper(3)").replace("assert wf.simulating()", "assert not wf.simulating()"))
    env = dict(os.environ)
    env.pop("WARPFORGE_SIMULATE", None)
    proc = subprocess.run([str(BIN / "warpforge"), "run", str(path)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f'File "{path}", line 14, in helper' in proc.stderr and "\nValueError: boom 3" in proc.stderr
    assert "runpy" not in proc.stderr


def test_run_reports_a_compile_error_at_the_first_launch(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text(RUN_ONCE.replace("x[idx.get()] * 2", "x[idx.get()] * undefined_name"))
    proc = run("warpforge", "run", "--simulate", str(path))
    assert proc.returncode == 1
    assert f"{path}:14:" in proc.stderr and "undefined_name" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "top level" in proc.stdout and "main ran" not in proc.stdout


def test_run_a_file_without_main_runs_it_as_a_script(tmp_path: Path) -> None:
    path = tmp_path / "script.py"
    path.write_text(
        "import sys\nimport warpforge as wf\n\nif __name__ == '__main__':\n"
        "    print('script ran', wf.simulating(), wf.Device(0).simulated, sys.argv[1:])\n"
    )
    proc = run("warpforge", "run", "--simulate", str(path), "--size", "3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "script ran True True ['--size', '3']\n"


def test_run_refuses_an_unknown_chip() -> None:
    proc = run("warpforge", "run", "--simulate", "--chip", "sm_999", "examples/vecadd.py")
    assert proc.returncode == 1
    assert "unknown chip 'sm_999'" in proc.stderr and proc.stdout == ""


def test_version_and_python_dash_m() -> None:
    proc = run("warpforge", "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"warpforge {wf.__version__}"
    proc = subprocess.run([sys.executable, "-m", "warpforge", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == f"warpforge {wf.__version__}"
    proc = subprocess.run([sys.executable, "-m", "warpforge", "compile", "examples/vecadd.py", "--emit", "kernel"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "kernel.func @vecadd" in proc.stdout, proc.stderr


def test_new_creates_a_project_that_runs_and_passes_its_tests(tmp_path: Path) -> None:
    proc = subprocess.run([str(BIN / "warpforge"), "new", "my_kernels"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    project = tmp_path / "my_kernels"
    assert sorted(p.name for p in project.iterdir()) == ["README.md", "kernels.py", "main.py", "test_kernels.py"]
    assert "# my_kernels" in (project / "README.md").read_text()
    env = dict(os.environ)
    env.pop("WARPFORGE_SIMULATE", None)
    ran = subprocess.run([str(BIN / "warpforge"), "run", "main.py"], capture_output=True, text=True, cwd=project, env=env, timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "PASSED: saxpy and scaled_add" in ran.stdout
    assert "of saxpy, scaled_add" in ran.stderr  # both compiled ahead of time (and assembled where ptxas is)
    tested = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True, text=True, cwd=project, env=env, timeout=600)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "6 passed" in tested.stdout
    again = subprocess.run([str(BIN / "warpforge"), "new", "my_kernels"], capture_output=True, text=True, cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr and "Traceback" not in again.stderr
    bad = subprocess.run([str(BIN / "warpforge"), "new", "../escape"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 1 and "plain directory name" in bad.stderr


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


def test_doctor_lists_the_chips_ptxas_and_the_driver_support() -> None:
    from warpforge.backend.chips import CHIPS, ptxas_chips, ptxas_version

    proc = run("warpforge", "doctor")
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line.startswith("  sm_")}
    assert list(rows) == list(CHIPS)
    assert rows["sm_90"][1:5] == ["9.0", "PTX", "7.8", "/"] and rows["sm_90"][5] == "8.0"
    assert rows["sm_100"][3] == "8.6"
    for name in CHIPS:
        assert (rows[name][6] == "ptxas") == (name in ptxas_chips()), rows[name]
    if (release := ptxas_version()) is not None:
        assert f"CUDA {release[0]}.{release[1]}: assembles PTX up to" in proc.stdout
    assert proc.returncode == 0


@simt.kernel
def copy(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    if idx.get() < len(x):
        out[idx] = x[idx.get()]


@simt.kernel
def generic(x, out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = x[0]


def test_run_early_check_reports_a_ptxas_rejection_as_a_diagnostic(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from warpforge.backend import chips, toolkit
    from warpforge.driver import run as run_module

    def reject(*args: object, **kwargs: object) -> None:
        raise toolkit.PtxasError("ptxas rejected the PTX for sm_90:\nline 7: bad")

    monkeypatch.setattr(run_module, "_program_kernels", lambda file: {"copy": copy, "generic": generic})
    monkeypatch.setattr(toolkit, "find_ptxas", lambda: "/opt/ptxas")
    monkeypatch.setattr(chips, "ptxas_chips", lambda: ("sm_90",))
    assembled: list[str] = []
    monkeypatch.setattr(toolkit, "run_ptxas", lambda ptx, chip, verbose: assembled.append(chip))
    run_module.check_kernels(run_module.RunSession(Path("prog.py")), "sm_90")
    notes = capsys.readouterr().err
    assert assembled == ["sm_90"]
    assert "PTX for sm_90 of copy assembled by ptxas" in notes and "not checked ahead of time: generic (generic:" in notes
    monkeypatch.setattr(toolkit, "run_ptxas", reject)
    with pytest.raises(run_module.PtxCheckError, match=r"(?s)the PTX warpforge made for copy does not assemble .*line 7: bad"):
        run_module.check_kernels(run_module.RunSession(Path("prog.py")), "sm_90")
    assert issubclass(run_module.PtxCheckError, wf.WarpforgeError)
