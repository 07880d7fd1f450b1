"""`warpforge sanitize FILE.py [--tool memcheck|racecheck|synccheck|initcheck] [args...]`: run a program
under NVIDIA's compute-sanitizer, as `cargo oxide sanitize` does for cuda-oxide.

The program runs as `python FILE.py args...` inside `compute-sanitizer --tool TOOL --error-exitcode 1`,
so every CUDA call and kernel of the process is checked: `memcheck` (out-of-bounds and misaligned
accesses, leaks, failing CUDA API calls), `racecheck` (shared-memory hazards), `synccheck` (illegal
barrier use), `initcheck` (reads of uninitialized device memory) — see the Compute Sanitizer User
Manual, "Tools". Its report passes through as it is printed; at the end one line on stderr sums it
up (`warpforge sanitize: memcheck: 0 errors in examples/vecadd.py (exit status 0)`), and the exit
status is compute-sanitizer's: the program's own, or 1 when the tool found errors.

compute-sanitizer is found in `CUDA_HOME` / `CUDA_PATH`, on `PATH`, in `/usr/local/cuda`, or where
`cuda.pathfinder` finds NVIDIA's binaries (the PyPI package `nvidia-cuda-sanitizer-api` installs
it). Without it, the command says how to install it and exits 1 without running anything.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
"""compute-sanitizer's tools (`--tool`), memcheck first: the default."""

ERROR_EXIT = 1
"""The exit status compute-sanitizer gives when its tool reports errors (`--error-exitcode`)."""

NOT_FOUND = (
    "compute-sanitizer not found: it ships with the CUDA toolkit (<cuda>/bin/compute-sanitizer) and as the PyPI "
    "package nvidia-cuda-sanitizer-api (pip install 'nvidia-cuda-sanitizer-api==13.0.*'); put it on PATH or set CUDA_HOME"
)

_EXE = "compute-sanitizer"


def find_compute_sanitizer() -> str | None:
    """The path of compute-sanitizer, or None: `$CUDA_HOME` / `$CUDA_PATH` (`bin/`, then the
    toolkit's `compute-sanitizer/` folder), `PATH`, `/usr/local/cuda`, then `cuda.pathfinder`."""
    homes = [Path(h) for h in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if h]
    for home in homes:
        if found := _in_toolkit(home):
            return found
    if found := shutil.which(_EXE):
        return found
    if found := _in_toolkit(Path("/usr/local/cuda")):
        return found
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        return find_nvidia_binary_utility(_EXE)
    except Exception:  # pathfinder missing, or it does not know the tool: not found
        return None


def _in_toolkit(home: Path) -> str | None:
    for candidate in (home / "bin" / _EXE, home / _EXE / _EXE):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass
class Summary:
    """What compute-sanitizer's closing lines say: `errors` from `ERROR SUMMARY: N errors` (None
    when it printed none, e.g. it was killed), and for racecheck the hazards of `RACECHECK SUMMARY:
    N hazards displayed (E errors, W warnings)`."""

    errors: int | None = None
    hazard_errors: int | None = None
    hazard_warnings: int | None = None
    no_cuda: bool = False
    """compute-sanitizer said the program ended before its first CUDA call (then it checked
    nothing, prints no summary and exits 255)."""

    _ERRORS = re.compile(rb"^=+ ERROR SUMMARY: (\d+) errors?")
    _HAZARDS = re.compile(rb"^=+ RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, (\d+) warnings?\)")
    _NO_CUDA = re.compile(rb"^=+ Error: Target application terminated before first instrumented API call")

    def read(self, line: bytes) -> None:
        """Take in one line of compute-sanitizer's output."""
        if m := self._ERRORS.match(line):
            self.errors = int(m.group(1))
        elif m := self._HAZARDS.match(line):
            self.hazard_errors, self.hazard_warnings = int(m.group(1)), int(m.group(2))
        elif self._NO_CUDA.match(line):
            self.no_cuda = True

    def describe(self, tool: str) -> str:
        if self.errors is None and self.hazard_errors is not None:  # racecheck closes with its own summary only
            return f"{tool}: {self.hazard_errors} race hazard error{'s' if self.hazard_errors != 1 else ''}, {self.hazard_warnings} warning{'s' if self.hazard_warnings != 1 else ''}"
        if self.errors is None and self.no_cuda:
            text = f"{tool}: the program ended before its first CUDA call, so nothing was checked"
        elif self.errors is None:
            text = f"{tool}: no error summary from compute-sanitizer (it did not finish)"
        else:
            text = f"{tool}: {self.errors} error{'s' if self.errors != 1 else ''}"
        if self.hazard_errors is not None:
            text += f" (race hazards: {self.hazard_errors} errors, {self.hazard_warnings} warnings)"
        return text


def command(sanitizer: str, tool: str, file: str, args: list[str], extra: list[str] | None = None) -> list[str]:
    """The command line: compute-sanitizer with `tool` (and `extra` options of its own), running
    `python FILE args...` with this interpreter."""
    if tool not in TOOLS:
        raise ValueError(f"unknown compute-sanitizer tool {tool!r}: one of {', '.join(TOOLS)}")
    return [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXIT), *(extra or []), sys.executable, file, *args]


def run(file: str, tool: str = "memcheck", args: list[str] | None = None, extra: list[str] | None = None) -> int:
    """Run `python FILE args...` under compute-sanitizer's `tool`; return its exit status.

    Prints the report as it comes (stdout), then the summary line (stderr). Returns 1 with a message
    when compute-sanitizer or the file is missing, when the file is not Python source, or when `WARPFORGE_SIMULATE=1` (the CPU
    simulator runs no CUDA code to check). SIGINT / SIGTERM are passed on to the program, and the
    summary of what ran so far is still printed."""
    args = list(args or [])
    while args and (args[0] == "--tool" or args[0].startswith("--tool=")):  # `sanitize FILE --tool X`: ours, not the program's
        if args[0] == "--tool" and len(args) < 2:
            return _fail(f"--tool needs a value: one of {', '.join(TOOLS)}")
        tool, args = (args[1], args[2:]) if args[0] == "--tool" else (args[0].split("=", 1)[1], args[1:])
    if tool not in TOOLS:  # the first thing to say, before looking for the file or compute-sanitizer
        return _fail(f"unknown compute-sanitizer tool {tool!r}: --tool is one of {', '.join(TOOLS)}")
    if not Path(file).is_file():
        return _fail(f"no such file: {file}")
    if Path(file).suffix != ".py":
        from warpforge.driver.cli import python_file_message

        return _fail(python_file_message(file, "sanitize"))
    from warpforge.environment import flag

    if flag("WARPFORGE_SIMULATE"):
        return _fail("WARPFORGE_SIMULATE=1 runs kernels on the CPU simulator, which compute-sanitizer cannot check: unset it")
    sanitizer = find_compute_sanitizer()
    if sanitizer is None:
        return _fail(NOT_FOUND)
    cmd = command(sanitizer, tool, file, args, extra)
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # the program's lines and the report's, in order
    summary = Summary()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)

    def forward(signum: int, frame: Any) -> None:
        proc.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert proc.stdout is not None
        out = sys.stdout.buffer
        for line in iter(proc.stdout.readline, b""):
            out.write(line)
            out.flush()
            summary.read(line)
        code = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    status = f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
    print(f"warpforge sanitize: {summary.describe(tool)} in {file} ({status})", file=sys.stderr, flush=True)
    return code if code >= 0 else 128 - code


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def add_parser(sub: Any) -> None:
    """Register the `sanitize` subcommand on `warpforge`'s subparsers."""
    import argparse

    s = sub.add_parser(
        "sanitize",
        help="run FILE.py under NVIDIA compute-sanitizer (memcheck, racecheck, synccheck or initcheck)",
        description="Run `python FILE.py args...` under compute-sanitizer; exit with its status (1 when the tool found errors).",
    )
    s.add_argument("--tool", choices=TOOLS, default="memcheck", help="the compute-sanitizer tool (default: memcheck)")
    s.add_argument(
        "--sanitizer-option", "-X", action="append", default=[], metavar="OPT",
        help="an option passed to compute-sanitizer as it is, e.g. -X=--leak-check=full (repeatable)",
    )  # fmt: skip
    s.add_argument("file")
    s.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the program")
    s.set_defaults(func=lambda a: run(a.file, a.tool, a.args, a.sanitizer_option))
