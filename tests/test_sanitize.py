"""`warpforge sanitize` (warpforge.driver.sanitize): argument handling, finding compute-sanitizer, the
not-installed message, the exit status and the summary — on the CPU with a stand-in compute-sanitizer
that behaves as the real one does (runs the program, prints `ERROR SUMMARY`, exits with
`--error-exitcode` on errors) — and, on a GPU with compute-sanitizer installed, examples that run
clean under memcheck and racecheck."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from warpforge.driver import cli, sanitize

REPO = Path(__file__).resolve().parent.parent

FAKE_SANITIZER = """\
#!{python}
# a stand-in for compute-sanitizer: records its arguments, runs the program, reports FAKE_ERRORS errors
import json, os, subprocess, sys
args = sys.argv[1:]
opts = {{}}
while args and args[0].startswith("--"):  # --opt value, or --opt=value
    if "=" in args[0]:
        opts[args[0]], args = None, args[1:]
    else:
        opts[args[0]], args = args[1], args[2:]
with open(os.environ["FAKE_RECORD"], "w") as f:
    json.dump({{"opts": opts, "program": args}}, f)
print("========= COMPUTE-SANITIZER", flush=True)
rc = subprocess.call(args)
errors = int(os.environ.get("FAKE_ERRORS", "0"))
if errors:
    print("========= Invalid __global__ read of size 4 bytes", flush=True)
if opts["--tool"] == "racecheck":
    print(f"========= RACECHECK SUMMARY: {{errors}} hazards displayed ({{errors}} errors, 0 warnings)")
print(f"========= ERROR SUMMARY: {{errors}} error{{'s' if errors != 1 else ''}}")
sys.exit(int(opts["--error-exitcode"]) if errors else rc)
"""


@pytest.fixture
def fake_sanitizer(tmp_path, monkeypatch):
    """compute-sanitizer on PATH is the stand-in; returns a function reading what it was given."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "compute-sanitizer"
    exe.write_text(FAKE_SANITIZER.format(python=sys.executable))
    exe.chmod(0o755)
    record = tmp_path / "record.json"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("WARPFORGE_SIMULATE", raising=False)
    monkeypatch.setenv("FAKE_RECORD", str(record))

    def given() -> dict:
        import json

        return json.loads(record.read_text())

    given.exe = str(exe)  # type: ignore[attr-defined]
    return given


def program(tmp_path: Path, body: str) -> str:
    p = tmp_path / "prog.py"
    p.write_text(textwrap.dedent(body))
    return str(p)


def run_cli(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    return info.value.code


def test_parser_takes_tool_options_and_program_args():
    args = cli.build_parser().parse_args(["sanitize", "--tool", "racecheck", "-X=--print-limit=5", "prog.py", "a", "--flag", "-v"])
    assert (args.tool, args.file, args.args, args.sanitizer_option) == ("racecheck", "prog.py", ["a", "--flag", "-v"], ["--print-limit=5"])
    args = cli.build_parser().parse_args(["sanitize", "prog.py"])
    assert (args.tool, args.args, args.sanitizer_option) == ("memcheck", [], [])


def test_unknown_tool_is_refused(capsys):
    assert run_cli(["sanitize", "--tool", "leakcheck", "prog.py"]) == 2
    assert "invalid choice: 'leakcheck' (choose from" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown compute-sanitizer tool 'x': one of memcheck, racecheck, synccheck, initcheck"):
        sanitize.command("cs", "x", "f.py", [])


def test_command_line():
    assert sanitize.command("/cs", "synccheck", "f.py", ["1", "2"], ["--leak-check=full"]) == [
        "/cs", "--tool", "synccheck", "--error-exitcode", "1", "--leak-check=full", sys.executable, "f.py", "1", "2",
    ]  # fmt: skip


def test_not_installed_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sanitize, "find_compute_sanitizer", lambda: None)
    monkeypatch.delenv("WARPFORGE_SIMULATE", raising=False)
    prog = program(tmp_path, "raise SystemExit('must not run')\n")
    assert run_cli(["sanitize", prog]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: compute-sanitizer not found: it ships with the CUDA toolkit")
    assert "pip install 'nvidia-cuda-sanitizer-api==13.0.*'" in err and "must not run" not in err


def test_finds_it_in_cuda_home_first(tmp_path, monkeypatch, fake_sanitizer):
    home = tmp_path / "cuda"
    (home / "compute-sanitizer").mkdir(parents=True)
    exe = home / "compute-sanitizer" / "compute-sanitizer"  # the toolkit's own folder
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert sanitize.find_compute_sanitizer() == str(exe)
    monkeypatch.delenv("CUDA_HOME")
    assert sanitize.find_compute_sanitizer() == fake_sanitizer.exe  # then PATH


def test_missing_file_and_simulator_are_refused(tmp_path, monkeypatch, capsys, fake_sanitizer):
    assert run_cli(["sanitize", str(tmp_path / "nope.py")]) == 1
    assert f"error: no such file: {tmp_path / 'nope.py'}" in capsys.readouterr().err
    monkeypatch.setenv("WARPFORGE_SIMULATE", "1")
    assert run_cli(["sanitize", program(tmp_path, "pass\n")]) == 1
    assert "CPU simulator, which compute-sanitizer cannot check" in capsys.readouterr().err


def test_clean_run_passes_arguments_and_exit_status(tmp_path, capfd, fake_sanitizer):
    prog = program(tmp_path, """
        import sys
        print("program args:", sys.argv[1:])
        raise SystemExit(int(sys.argv[1]))
    """)
    assert run_cli(["sanitize", "--tool", "racecheck", prog, "3", "--x"]) == 3
    out, err = capfd.readouterr()
    assert "program args: ['3', '--x']" in out and "========= ERROR SUMMARY: 0 errors" in out
    assert err.strip().splitlines()[-1] == (
        f"warpforge sanitize: racecheck: 0 errors (race hazards: 0 errors, 0 warnings) in {prog} (exit status 3)"
    )
    given = fake_sanitizer()
    assert given["opts"] == {"--tool": "racecheck", "--error-exitcode": "1"}
    assert given["program"] == [sys.executable, prog, "3", "--x"]


def test_errors_fail_the_run_and_are_summed_up(tmp_path, monkeypatch, capfd, fake_sanitizer):
    monkeypatch.setenv("FAKE_ERRORS", "2")
    prog = program(tmp_path, "print('ran')\n")
    assert run_cli(["sanitize", prog]) == 1
    out, err = capfd.readouterr()
    assert "ran" in out and "Invalid __global__ read" in out
    assert err.strip().splitlines()[-1] == f"warpforge sanitize: memcheck: 2 errors in {prog} (exit status 1)"
    monkeypatch.setenv("FAKE_ERRORS", "1")
    assert run_cli(["sanitize", "-X=--print-limit=1", prog]) == 1
    assert capfd.readouterr().err.strip().endswith("memcheck: 1 error in " + prog + " (exit status 1)")
    assert fake_sanitizer()["opts"] == {"--tool": "memcheck", "--error-exitcode": "1", "--print-limit=1": None}


def test_summary_when_the_tool_did_not_finish():
    s = sanitize.Summary()
    s.read(b"========= COMPUTE-SANITIZER\n")
    assert s.describe("memcheck") == "memcheck: no error summary from compute-sanitizer (it did not finish)"
    s.read(b"========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)\n")
    s.read(b"========= ERROR SUMMARY: 1 error\n")
    assert s.describe("racecheck") == "racecheck: 1 error (race hazards: 1 errors, 2 warnings)"
    # what compute-sanitizer 13.0 prints for a program that makes no CUDA call (exit status 255)
    s = sanitize.Summary()
    s.read(b"========= Error: Target application terminated before first instrumented API call\n")
    s.read(b"========= Error: couldn't find exit code.\n")
    assert s.describe("memcheck") == "memcheck: the program ended before its first CUDA call, so nothing was checked"


@pytest.mark.gpu
@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
@pytest.mark.parametrize("example", ["vecadd.py", "block_reduce.py", "tile_vecadd.py"])
def test_examples_run_clean_under_compute_sanitizer(example, tool):
    """Before, every launch probed cuKernelGetParamInfo past the last parameter (to count them),
    and memcheck reported each failing probe as an error (CUDA_ERROR_INVALID_VALUE)."""
    if sanitize.find_compute_sanitizer() is None:
        pytest.skip("compute-sanitizer not installed")
    proc = subprocess.run(
        [sys.executable, "-c", "from warpforge.driver.cli import main; main()", "sanitize", "--tool", tool, str(REPO / "examples" / example)],
        capture_output=True, text=True, timeout=600, env={k: v for k, v in os.environ.items() if k != "WARPFORGE_SIMULATE"},
    )  # fmt: skip
    assert "PASSED" in proc.stdout, proc.stdout + proc.stderr
    if tool == "racecheck":  # racecheck closes with its own summary (compute-sanitizer 13.0 on the H200)
        assert "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" in proc.stdout, proc.stdout
        assert "warpforge sanitize: racecheck: 0 race hazard errors, 0 warnings" in proc.stderr and proc.returncode == 0, proc.stderr
    else:
        assert "========= ERROR SUMMARY: 0 errors" in proc.stdout, proc.stdout
        assert f"warpforge sanitize: {tool}: 0 errors" in proc.stderr and proc.returncode == 0, proc.stderr


def test_summary_still_printed_when_timed_out(tmp_path, fake_sanitizer):
    """`timeout` (as scripts/gpu-check.sh uses it) sends SIGTERM to the whole process group: the
    program and the tool die, and `warpforge sanitize` still says what it saw."""
    prog = program(tmp_path, """
        import time
        print("started", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.run(
        ["timeout", "-s", "TERM", "4", sys.executable, "-c", "from warpforge.driver.cli import main; main()", "sanitize", prog],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 124 and "started" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"warpforge sanitize: memcheck: no error summary from compute-sanitizer (it did not finish) in {prog} (killed by signal 15)"
    ), proc.stderr


STREAMS_PROGRAM = """
import numpy as np
import warpforge as wf
from warpforge import f32, simt

@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        c[idx] = 2.0 * a[i]

def main():
    n = 1 << 16
    dev = wf.Device(0)
    s1, s2 = dev.create_stream(), dev.create_stream()
    x = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    a = wf.DeviceBuffer.from_host(s1, x)
    c = wf.DeviceBuffer.from_host(s1, np.full(n, np.nan, np.float32))
    scale[n // 256, 256](a, c)           # default stream, after s1
    d = wf.DeviceBuffer.empty(s2, n, f32)
    scale[n // 256, 256, s2](c, d)        # s2, after the default stream
    out = d.to_host(s1)                   # s1, after s2
    del a, c                              # freed on their last streams
    assert (out == 4 * x).all(), "wrong result"
    print("PASSED: stream order")

if __name__ == "__main__":
    main()
"""


@pytest.mark.gpu
@pytest.mark.parametrize("tool", ["memcheck", "synccheck"])
def test_stream_order_runs_clean_under_compute_sanitizer(tmp_path, tool):
    """The cross-stream waits (cuEventCreate / cuEventRecord / cuStreamWaitEvent) and the moved
    deallocation streams make no failing CUDA call and no bad access."""
    if sanitize.find_compute_sanitizer() is None:
        pytest.skip("compute-sanitizer not installed")
    prog = tmp_path / "streams_program.py"
    prog.write_text(STREAMS_PROGRAM)
    proc = subprocess.run(
        [sys.executable, "-c", "from warpforge.driver.cli import main; main()", "sanitize", "--tool", tool, str(prog)],
        capture_output=True, text=True, timeout=600, env={k: v for k, v in os.environ.items() if k != "WARPFORGE_SIMULATE"},
    )  # fmt: skip
    assert "PASSED: stream order" in proc.stdout, proc.stdout + proc.stderr
    assert f"warpforge sanitize: {tool}: 0 errors" in proc.stderr and proc.returncode == 0, proc.stdout + proc.stderr


def test_summary_of_racecheck_without_an_error_summary():
    """compute-sanitizer 13.0's racecheck (seen on the H200) closes with its RACECHECK SUMMARY only."""
    s = sanitize.Summary()
    s.read(b"========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n")
    assert s.describe("racecheck") == "racecheck: 0 race hazard errors, 0 warnings"
    s = sanitize.Summary()
    s.read(b"========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)\n")
    assert s.describe("racecheck") == "racecheck: 1 race hazard error, 2 warnings"
