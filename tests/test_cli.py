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
        (("warpforge-opt",), "builtin.module {\n  %x = arith.addi %a, %a : i32\n}", "<stdin>:2:19: error: use of undefined value '%a'"),
        (("warpforge-opt",), "builtin.module {\n  %x = arith.addi 1 : i32\n}", "<stdin>:2:"),
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
# --------------------------------------------------------------------------- warpforge-opt for compiler developers

def opt(*args: str) -> tuple[int, str, str]:
    """Run `warpforge-opt` in this process (fast): (exit status, stdout, stderr)."""
    import contextlib
    import io

    from warpforge.driver.opt import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


KERNEL_MLIR = """kernel.func @k(%a: si32) attributes {kernel} {
  %c = kernel.truediv %a, %a : si32
  kernel.return
}
"""


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "k.mlir"
    path.write_text(run("warpforge", "compile", "examples/vecadd.py", "--emit", "kernel").stdout)
    return path


@pytest.mark.parametrize(
    ("args", "located"),
    [
        # issue 14 §4 and issue 16: each once a traceback, a wrong message or exit 0 with nothing done
        (("-p", "kernel-to-gpu{chip=}"), "pass-pipeline:1:20: error: expected a value after '='"),
        (("-p", "kernel-to-gpu{"), "pass-pipeline:1:14: error: '{' is never closed"),
        (("-p", "gpu-to-llvm{"), "pass-pipeline:1:12: error: '{' is never closed"),
        (("-t", "ptx{"), "target:1:4: error: '{' is never closed"),
        (("-t", "ptx{opt=9}"), "target:1:1: error: target 'ptx': opt must be 0, 1, 2 or 3"),
        (("-p", "simt-to-llvm{chip=sm_80}"), "pass-pipeline:1:1: error: 'simt-to-llvm' is a pipeline"),
        (("-p", "kernel-to-gpu{chp=sm_80}"), "pass 'kernel-to-gpu' has no option 'chp' (did you mean 'chip'?)"),
        (("-p", "cse,kernel-to-gpx"), "pass-pipeline:1:5: error: unknown pass or pipeline 'kernel-to-gpx' (did you mean 'kernel-to-gpu'?)"),
        (("-p", "cse", "--mlir-print-ir-after", "csee"), "unknown pass 'csee' (did you mean 'cse'?)"),
        (("-t", "ptx"), "cannot emit -t ptx: 'kernel.func' cannot be exported to LLVM IR"),  # IR that is not lowered
    ],
)
def test_opt_pipeline_and_option_errors_are_located_diagnostics(kernel_file: Path, args: tuple[str, ...], located: str) -> None:
    code, out, err = opt(str(kernel_file), *args)
    assert code == 1, err
    assert located in err
    assert "Traceback" not in err and "internal error" not in err
    assert out == ""


def test_opt_file_errors_are_diagnostics(tmp_path: Path, kernel_file: Path) -> None:
    code, _, err = opt(str(tmp_path / "missing.mlir"))
    assert (code, err.strip()) == (1, f"error: cannot open input file '{tmp_path / 'missing.mlir'}': no such file")
    (tmp_path / "k.txt").write_text("builtin.module {}")
    code, _, err = opt(str(tmp_path / "k.txt"))
    assert code == 1 and "unknown file extension '.txt'" in err
    code, _, err = opt(str(kernel_file), "-o", str(tmp_path / "no" / "such" / "dir" / "out.mlir"))
    assert code == 1 and "cannot write output file" in err and "No such file or directory" in err
    assert "Traceback" not in err


def test_opt_verifier_and_parse_errors_name_file_line_col_op_and_pass(tmp_path: Path) -> None:
    path = tmp_path / "t.mlir"
    path.write_text(KERNEL_MLIR)
    code, _, err = opt(str(path))
    assert code == 1
    assert err.splitlines() == [f"{path}:2:3: error: 'kernel.truediv' op is not defined on integers (si32)", "  %c = kernel.truediv %a, %a : si32", "  ^"]
    # a parse error on line 3 is reported on line 3 (it was 4:1), an undefined %b on line 2 at its use (was 5:1)
    path.write_text("func.func @f() {\n  %0 = arith.constant 1 : i32\n  %1 = arith.addi %0 : i32\n  func.return\n}\n")
    assert f"{path}:3:" in opt(str(path))[2]
    path.write_text("func.func @f() -> i32 {\n  func.return %b : i32\n}\n")
    assert opt(str(path))[2].startswith(f"{path}:2:15: error: use of undefined value '%b'")
    # an unregistered op at its name, not <unknown>:0:0
    path.write_text('builtin.module {\n  "test.nope"() : () -> ()\n}\n')
    code, _, err = opt(str(path))
    assert code == 1 and err.startswith(f"{path}:2:3: error: operation 'test.nope' is not registered")
    # a pass that refuses the IR: the op's loc(...), the op and the pass
    path.write_text(
        'gpu.module @old [#nvvm.target<chip = "sm_75", features = "+ptx63">] {\n'
        "  gpu.func @f(%x: i32) -> i32 {\n    %m = arith.constant -1 : i32\n"
        '    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32 loc("k.py":4:7)\n'
        "    gpu.return %r : i32\n  }\n}\n"
    )
    code, _, err = opt(str(path), "-p", "check-nvvm-target")
    assert code == 1
    assert err.startswith("k.py:4:7: error: 'nvvm.redux.sync.add' op needs sm_80 and PTX 7.0, but gpu.module @old targets sm_75 (PTX 6.3) (in pass 'check-nvvm-target')")


def test_opt_unterminated_string_is_refused_fast_at_its_position(tmp_path: Path) -> None:
    import time

    path = tmp_path / "s.mlir"
    # xDSL's string-literal regex backtracks exponentially on this (minutes for one line)
    path.write_text('func.func @f() attributes {a = "' + "ab " * 40 + "\n  func.return\n}\n")
    start = time.perf_counter()
    code, _, err = opt(str(path))
    assert time.perf_counter() - start < 5
    assert code == 1 and err.startswith(f"{path}:1:32: error: unterminated string literal")
    path.write_text('func.func @f() attributes {a = "bad \\q escape"} {\n  func.return\n}\n')
    code, _, err = opt(str(path))
    assert code == 1 and err.startswith(f"{path}:1:37: error: invalid escape in string literal")


def test_opt_repeated_passes_flags_run_in_order_and_accept_mlir_spelling(kernel_file: Path) -> None:
    code, _, err = opt(str(kernel_file), "-p", "kernel-to-gpu-pipeline", "--pass-pipeline", "builtin.module(convert-gpu-to-nvvm)", "-p", "cse", "--dump-pass-pipeline")
    assert code == 0, err
    assert err.splitlines()[1] == "builtin.module(lower-kernel-control-flow,inline-device-functions,kernel-to-gpu,canonicalize,cse,int-range-optimizations,hoist-checks,canonicalize,fuse-checks,vectorize-global-access,cse,convert-gpu-to-nvvm,cse)"
    code, a, _ = opt(str(kernel_file), "--pass-pipeline=builtin.module(simt-to-llvm)")
    code2, b, _ = opt(str(kernel_file), "-p", "simt-to-llvm")
    assert code == code2 == 0 and a == b and "llvm.func" in a


def test_opt_verify_diagnostics_fails_on_a_wrong_expectation(tmp_path: Path) -> None:
    path = tmp_path / "v.mlir"
    path.write_text("kernel.func @k(%a: si32) attributes {kernel} {\n  // expected-error @+1 {{is not defined on integers (si32)}}\n" + KERNEL_MLIR.split("\n", 1)[1])
    assert opt(str(path), "--verify-diagnostics")[0] == 0
    path.write_text(path.read_text().replace("integers", "floats"))
    code, _, err = opt(str(path), "--verify-diagnostics")
    assert code == 1
    assert f"{path}:3:3: error: unexpected error: 'kernel.truediv' op is not defined on integers (si32)" in err
    assert f"{path}:2:6: error: expected error \"is not defined on floats (si32)\" was not produced" in err
    # a chunk with an expectation and no error fails too (it passed with exit 0 before)
    path.write_text("func.func @f() {\n  // expected-error @+1 {{anything}}\n  func.return\n}\n")
    assert opt(str(path), "--verify-diagnostics")[0] == 1


def _crashing_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register `test-crash`, a pass with a bug (it raises ZeroDivisionError)."""
    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    import warpforge.passes as registry

    @dataclass(frozen=True)
    class CrashPass(ModulePass):
        """A pass with a bug."""

        name = "test-crash"

        def apply(self, ctx, op) -> None:  # type: ignore[no-untyped-def]
            _ = 1 // 0

    original = registry.get_all_passes
    monkeypatch.setattr(registry, "get_all_passes", lambda: {**original(), "test-crash": lambda: CrashPass})


def test_opt_crash_writes_a_reproducer_that_replays(tmp_path: Path, kernel_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _crashing_pass(monkeypatch)
    repro = tmp_path / "repro.mlir"
    code, _, err = opt(str(kernel_file), "-p", "kernel-to-gpu,test-crash,cse", f"--mlir-pass-pipeline-crash-reproducer={repro}")
    assert code == 1
    assert "internal error: pass 'test-crash' failed with ZeroDivisionError" in err and str(repro) in err
    text = repro.read_text()
    assert text.startswith("// RUN: warpforge-opt %s --pass-pipeline='builtin.module(test-crash,cse)'")
    assert '"gpu.func"' in text and "kernel.func" not in text  # the IR just before the crashing pass
    code, _, err = opt(str(repro), "--run-reproducer")
    assert code == 1 and "pass 'test-crash' failed with ZeroDivisionError" in err
    # the reproducer's IR resumes without the crashing pass
    code, out, err = opt(str(repro), "-p", "cse")
    assert code == 0 and "gpu.func @vecadd" in out, err


def test_python_api_crash_writes_a_reproducer_in_warpforge_reproducer_dir(tmp_path: Path, kernel_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.context import parse_module
    from warpforge.pass_manager import PassCrashError
    from warpforge.pipelines import run_pipeline

    _crashing_pass(monkeypatch)
    monkeypatch.setenv("WARPFORGE_REPRODUCER_DIR", str(tmp_path / "repros"))
    with pytest.raises(PassCrashError) as info:
        run_pipeline(parse_module(kernel_file.read_text()), "lower-kernel-control-flow,test-crash")
    assert info.value.reproducer is not None and Path(info.value.reproducer).parent == tmp_path / "repros"
    assert "--pass-pipeline='builtin.module(test-crash)'" in Path(info.value.reproducer).read_text()


def test_opt_instrumentation_flags(kernel_file: Path) -> None:
    code, out, err = opt(str(kernel_file), "-p", "kernel-to-gpu,cse", "--mlir-print-ir-after=kernel-to-gpu", "--mlir-timing", "--mlir-pass-statistics", "--verify-each=0")
    assert code == 0, err
    assert "// -----// IR Dump After kernel-to-gpu //----- //" in err and "IR Dump After cse" not in err
    assert "Execution time report" in err and "Pass statistics report" in err
    assert "gpu.func @vecadd" in out
    assert opt(str(kernel_file), "--verify-each=maybe")[0] == 2  # argparse: a bad flag value


def test_opt_info_flags_show_warpforge_and_hide_upstream() -> None:
    code, out, _ = opt("--list-passes")
    assert code == 0
    assert "kernel-to-gpu" in out and "chip=str (default 'sm_90')" in out and "tile-dialect-to-llvm" in out
    assert "riscv" not in out and "--upstream" in out
    assert "convert-riscv" in "".join(opt("--list-passes", "--upstream")[1]) or "riscv" in opt("--list-passes", "--upstream")[1]
    code, out, _ = opt("--show-dialects")
    assert code == 0 and "warpforge's: kernel, tile, gpu, nvvm, llvm" in out and "riscv" not in out
    code, out, _ = opt("--help")
    assert code == 0 and "--mlir-print-ir-after-failure" in out and "simt-to-llvm" in out and "riscv" not in out


def test_opt_broken_pipe_is_quiet(kernel_file: Path) -> None:
    proc = subprocess.run(f"{BIN / 'warpforge-opt'} {kernel_file} -p simt-to-llvm | head -1", shell=True, capture_output=True, text=True)
    assert proc.stdout == "builtin.module {\n"
    assert proc.stderr == ""


def test_python_api_compile_with_a_bad_chip_is_a_warpforge_error() -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    import vecadd  # noqa: E402

    from warpforge.errors import WarpforgeError

    for chip in ("", "gfx90a"):
        with pytest.raises(WarpforgeError):
            vecadd.vecadd.compile(chip)


@pytest.mark.parametrize("args", [("--chip", ""), ("--features", '"')])
def test_compile_with_bad_chip_or_features_is_a_diagnostic(args: tuple[str, ...]) -> None:
    proc = run("warpforge", "compile", "examples/vecadd.py", "--emit", "ptx", *args)
    assert proc.returncode == 1
    assert "error:" in proc.stderr and "Traceback" not in proc.stderr and "ArgSpecParseError" not in proc.stderr


# --------------------------------------------------------------------------- round trips

TWO_KERNELS_PY = '''
import warpforge as wf
from warpforge import simt, f32


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def {prefix}_add(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i]


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def {prefix}_scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    c[idx] = a[idx.get()] * 2.0
'''


def _assemble_each(ptx: str) -> None:
    """ptxas (when installed) on each PTX module of a `--split-input-file` output."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is not None:
        for module in ptx.split("\n// -----\n"):
            run_ptxas(module, "sm_90", verbose=False)


def _kernels_file(tmp_path: Path, prefix: str) -> Path:
    path = tmp_path / f"{prefix}_kernels.py"
    path.write_text(TWO_KERNELS_PY.format(prefix=prefix))
    return path


def _load(path: Path, name: str):  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stage", ["kernel", "gpu", "nvvm", "llvm"])
def test_multi_kernel_output_splits_back_into_modules(tmp_path: Path, stage: str) -> None:
    src = _kernels_file(tmp_path, "rt")
    out = tmp_path / f"both.{stage}.mlir"
    proc = run("warpforge", "compile", str(src), "--emit", stage, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.endswith("}\n")  # -o keeps the trailing newline
    assert text.count("\n// -----\n") == 1  # MLIR's separator, nothing after it on the line
    pipeline = {"kernel": "simt-to-llvm", "gpu": "gpu-to-llvm", "nvvm": "gpu-to-llvm", "llvm": ""}[stage]
    code, ptx, err = opt(str(out), "--split-input-file", *(["-p", pipeline] if pipeline else []), "-t", "ptx")
    assert code == 0, err
    assert ".visible .entry rt_add(" in ptx and ".visible .entry rt_scale(" in ptx
    _assemble_each(ptx)


def test_locations_survive_compile_and_resume_down_to_ptx(tmp_path: Path) -> None:
    src = _kernels_file(tmp_path, "loc")
    out = tmp_path / "k.mlir"
    assert run("warpforge", "compile", str(src), "--kernel", "loc_add", "--emit", "kernel", "--print-debuginfo", "-o", str(out)).returncode == 0
    text = out.read_text()
    assert f'loc("{src}":10:' in text  # the line of `c[idx] = a[i] + b[i]`
    code, printed, _ = opt(str(out), "--print-debuginfo")
    assert code == 0 and printed == text  # locations round-trip through warpforge-opt
    code, ptx, _ = opt(str(out), "-p", "simt-to-llvm", "-t", "ptx")
    assert code == 0
    assert f'.file\t2 "{src}"' in ptx or str(src) in ptx
    assert "\t.loc\t2 10 " in ptx
    _assemble_each(ptx)


def test_compile_and_opt_name_the_gpu_module_alike(tmp_path: Path, kernel_file: Path) -> None:
    compiled = run("warpforge", "compile", "examples/vecadd.py", "--emit", "gpu").stdout
    code, resumed, _ = opt(str(kernel_file), "-p", "kernel-to-gpu-pipeline")
    assert code == 0
    assert "gpu.module @vecadd_module" in compiled and "gpu.module @vecadd_module" in resumed


def test_every_stage_of_a_tile_kernel_resumes(tmp_path: Path) -> None:
    stages: dict[str, Path] = {}
    for stage in ("kernel", "gpu", "nvvm", "llvm"):
        stages[stage] = tmp_path / f"tile_sum.{stage}.mlir"
        proc = run("warpforge", "compile", "examples/tile_sum.py", "--emit", stage, "-o", str(stages[stage]))
        assert proc.returncode == 0, proc.stderr
    assert "vector.load" in stages["gpu"].read_text()  # what gpu-to-llvm lacked (convert-vector-to-llvm)
    tile_stage = tmp_path / "tile_sum.tile.mlir"
    assert opt(str(stages["kernel"]), "-p", "kernel-to-tile", "-o", str(tile_stage))[0] == 0
    for path, pipeline in ((stages["kernel"], "tile-to-llvm"), (tile_stage, "tile-dialect-to-llvm"), (stages["gpu"], "gpu-to-llvm"), (stages["nvvm"], "gpu-to-llvm"), (stages["llvm"], "")):
        code, ptx, err = opt(str(path), "--split-input-file", *(["-p", pipeline] if pipeline else []), "-t", "ptx")
        assert code == 0, f"{path.name} -p {pipeline}: {err}"
        assert ".visible .entry tile_sum" in ptx
        _assemble_each(ptx)


# --------------------------------------------------------------------------- WARPFORGE_DUMP_IR / WARPFORGE_KERNEL_OVERRIDE

def test_dump_ir_writes_every_stage_named_by_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    monkeypatch.setenv("WARPFORGE_DUMP_IR", str(tmp_path / "dump"))
    module = _load(_kernels_file(tmp_path, "dump"), "dump_kernels")
    module.dump_add.compile("sm_90")
    names = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert names == [f"dump_add.{s}" for s in ("gpu.mlir", "kernel.mlir", "ll", "llvm.mlir", "nvvm.mlir", "ptx")]
    assert 'loc("' in (tmp_path / "dump" / "dump_add.kernel.mlir").read_text()  # printed with locations
    code, ptx, err = opt(str(tmp_path / "dump" / "dump_add.gpu.mlir"), "-p", "gpu-to-llvm", "-t", "ptx")
    assert code == 0, err
    import re

    def same(text: str) -> str:  # LLVM numbers call sequences per process
        return re.sub(r"callseq \d+", "callseq", text)

    assert same(ptx) == same((tmp_path / "dump" / "dump_add.ptx").read_text())  # the dumped stage resumes to the same PTX
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
    # tile kernels: named by their specialization, with the tile stage
    monkeypatch.setenv("WARPFORGE_DUMP_IR", str(tmp_path / "tile"))
    tile_module = _load(ROOT / "examples" / "tile_vecadd.py", "dump_tile_vecadd")
    tile_module.add.compile("sm_90")
    tile_names = sorted(p.name for p in (tmp_path / "tile").iterdir())
    assert len(tile_names) == 7 and any(n.endswith(".tile.mlir") for n in tile_names) and all(n.startswith("add__") for n in tile_names)


def _override_kernel_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str) -> object:
    """`<prefix>_add` with its kernel stage overridden: `a[i] + b[i]` edited into `a[i] - b[i]`."""
    monkeypatch.setenv("WARPFORGE_DUMP_IR", str(tmp_path / "dump"))
    _load(_kernels_file(tmp_path, prefix), f"{prefix}_first").__dict__[f"{prefix}_add"].ir("kernel")
    monkeypatch.delenv("WARPFORGE_DUMP_IR")
    edited = (tmp_path / "dump" / f"{prefix}_add.kernel.mlir").read_text()
    assert edited.count("kernel.add ") == 1
    (tmp_path / "override").mkdir()
    (tmp_path / "override" / f"{prefix}_add.kernel.mlir").write_text(edited.replace("kernel.add ", "kernel.sub "))
    monkeypatch.setenv("WARPFORGE_KERNEL_OVERRIDE", str(tmp_path / "override"))
    return _load(tmp_path / f"{prefix}_kernels.py", f"{prefix}_second").__dict__[f"{prefix}_add"]


def test_kernel_override_replaces_a_stage_on_the_simulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    import warpforge as wf

    kernel = _override_kernel_stage(tmp_path, monkeypatch, "ovr")
    assert "arith.subf" in kernel.ir("gpu") and "arith.addf" not in kernel.ir("gpu")  # pyright: ignore
    rng = np.random.default_rng(14)
    n = 1024  # whole blocks: the kernel reads a[i] before the store checks c
    a_host, b_host = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    a, b = wf.DeviceBuffer.from_host(stream, a_host), wf.DeviceBuffer.from_host(stream, b_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))  # poisoned
    prepared = kernel.prepare(wf.LaunchConfig(grid=(n + 255) // 256, block=256, shmem_size=0), device=dev)  # pyright: ignore
    kernel.launch(stream, prepared, a, b, c)  # pyright: ignore
    np.testing.assert_array_equal(c.to_host(stream), a_host - b_host)


def test_a_broken_override_is_a_located_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.diagnostics import IRDiagnosticError

    (tmp_path / "override").mkdir()
    (tmp_path / "override" / "bad_add.kernel.mlir").write_text("builtin.module {\n  kernel.nope\n}\n")
    monkeypatch.setenv("WARPFORGE_KERNEL_OVERRIDE", str(tmp_path / "override"))
    kernel = _load(_kernels_file(tmp_path, "bad"), "bad_kernels").bad_add
    with pytest.raises(IRDiagnosticError, match=r"override/bad_add.kernel.mlir:2:3: error: operation 'kernel.nope' is not registered"):
        kernel.compile("sm_90")


@pytest.mark.gpu
def test_kernel_override_of_the_ptx_runs_on_the_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    import warpforge as wf
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    monkeypatch.setenv("WARPFORGE_DUMP_IR", str(tmp_path / "dump"))
    _load(_kernels_file(tmp_path, "gpuovr"), "gpuovr_first").gpuovr_add.compile("sm_90")
    monkeypatch.delenv("WARPFORGE_DUMP_IR")
    ptx = (tmp_path / "dump" / "gpuovr_add.ptx").read_text()
    assert ptx.count("add.rn.f32") in (1, 2)  # 2: hoist-checks versions the kernel (a checked and a proven copy)
    edited = ptx.replace("add.rn.f32", "sub.rn.f32")
    if find_ptxas() is not None:
        run_ptxas(edited, "sm_90", verbose=False)
    (tmp_path / "override").mkdir()
    (tmp_path / "override" / "gpuovr_add.ptx").write_text(edited)
    monkeypatch.setenv("WARPFORGE_KERNEL_OVERRIDE", str(tmp_path / "override"))
    kernel = _load(tmp_path / "gpuovr_kernels.py", "gpuovr_second").gpuovr_add
    assert kernel.compile("sm_90").ptx == edited
    rng = np.random.default_rng(1414)
    n = 3072  # whole blocks: the kernel reads a[i] before the store checks c
    a_host, b_host = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dev = wf.Device(0)
    stream = dev.create_stream()
    a, b = wf.DeviceBuffer.from_host(stream, a_host), wf.DeviceBuffer.from_host(stream, b_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))  # poisoned
    prepared = kernel.prepare(wf.LaunchConfig(grid=(n + 255) // 256, block=256, shmem_size=0), device=dev)
    kernel.launch(stream, prepared, a, b, c)
    np.testing.assert_array_equal(c.to_host(stream), a_host - b_host)


def test_verify_diagnostics_matches_severity_line_notes_and_unknown_locations() -> None:
    from warpforge.diagnostics import Diagnostic, SourceLoc
    from warpforge.driver.opt import check_diagnostics, parse_expectations

    text = "\n".join(
        [
            "%a = test.op  // expected-warning {{careful}}",
            "// expected-remark @below {{fyi}}",
            "// expected-note @below {{see here}}",
            "%b = test.op",
            "// expected-error @unknown {{nowhere}}",
            "// expected-error-re @-5 {{bad {{[0-9]+}} things}}",
        ]
    )
    expected = parse_expectations(text, "f.mlir", 10)  # the chunk starts on line 10 of f.mlir
    assert [(e.severity, e.line) for e in expected] == [("warning", 10), ("remark", 13), ("note", 13), ("error", None), ("error", 10)]
    at = lambda line: SourceLoc("f.mlir", line, 1)  # noqa: E731
    produced = [
        Diagnostic("warning", "be careful", at(10)),
        Diagnostic("error", "bad 42 things", at(10), notes=[Diagnostic("note", "see here", at(13))]),
        Diagnostic("remark", "fyi", at(13)),
        Diagnostic("error", "nowhere to be found", None),
    ]
    assert check_diagnostics(produced, expected, "f.mlir") == []
    # each mismatch is reported: a wrong severity, a wrong line, an unlocated error without @unknown
    expected = parse_expectations(text, "f.mlir", 10)
    wrong = [Diagnostic("error", "be careful", at(10)), Diagnostic("remark", "fyi", at(14)), Diagnostic("error", "nowhere", at(99))]
    problems = check_diagnostics(wrong, expected, "f.mlir")
    assert "f.mlir:10:1: error: unexpected error: be careful" in problems
    assert "f.mlir:14:1: error: unexpected remark: fyi" in problems
    assert "f.mlir:99:1: error: unexpected error: nowhere" in problems
    assert sum(p.endswith("was not produced") for p in problems) == 5


def test_verify_diagnostics_refuses_a_malformed_annotation(tmp_path: Path) -> None:
    path = tmp_path / "m.mlir"
    path.write_text("func.func @f() {\n  // expected-error @sideways {{x}}\n  func.return\n}\n")
    code, _, err = opt(str(path), "--verify-diagnostics")
    assert code == 1 and f"{path}:2:6: error: malformed expected-* annotation" in err
