"""`warpforge run FILE.py [ARGS...]`: run a program exactly as `python FILE.py ARGS...` does.

The file runs once, as `__main__` (`runpy.run_path`), with `sys.argv` and `sys.path[0]` set as Python
sets them, the same way on a GPU and on the CPU simulator (without a GPU, or with `--simulate`,
`WARPFORGE_SIMULATE=1` is set first, so `wf.Device(0)` is the simulator). Kernels compile lazily, at
their first launch, as they do under `python`.

The one addition is an early PTX check: at the first kernel compilation (or at the end, if the
program compiles none), every kernel the program has defined by then that can be compiled ahead of
time — a SIMT kernel whose parameters are all annotated, a tile kernel with `ahead_of_time` shapes —
is compiled for the chip and assembled by ptxas; the others are listed as skipped, with why. These
notes go to stderr, so stdout is the program's own.

Errors: a `WarpforgeError` (a compile error, a refused launch, a kernel error) prints as a diagnostic
without a traceback, with the line of the user's code it came from; any other exception prints the
user's traceback, from the first frame of the user's file on, as Python would. Exit status: 0, the
program's own `SystemExit` code, or 1.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from warpforge.errors import WarpforgeError


class PtxCheckError(WarpforgeError):
    """ptxas rejected the PTX of a kernel in `warpforge run`'s early check."""


@dataclass
class RunSession:
    """The state of one `warpforge run`: the file, the chip to check for (None: the chip of the
    first compilation), and whether the early check has run."""

    file: Path
    chip: str | None = None
    checked: bool = False
    notes: list[str] = field(default_factory=list[str])


_session: RunSession | None = None


def before_compile(chip: str) -> None:
    """Called by `SimtKernel.compile` / `TileKernel.compile_specialization` before compiling: the first
    call in a `warpforge run` runs the early PTX check. Does nothing outside `warpforge run`."""
    session = _session
    if session is None or session.checked:
        return
    session.checked = True  # before compiling anything: the check compiles too
    check_kernels(session, session.chip or chip)


def _note(message: str) -> None:
    print(f"warpforge run: {message}", file=sys.stderr, flush=True)


def _program_kernels(file: Path) -> dict[str, Any]:
    """The kernels the running program defined so far: `__main__`'s globals, and those of the modules
    it imported from its own directory (a project's `kernels.py`), in that order."""
    from warpforge.simt import SimtKernel
    from warpforge.tile import TileKernel

    main = sys.modules.get("__main__")
    if main is None:
        return {}
    found: dict[str, Any] = {}
    scopes: list[dict[str, Any]] = [vars(main)]
    here = file.resolve().parent
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if isinstance(module, ModuleType) and module is not main and origin and Path(origin).resolve().parent == here:
            scopes.append(vars(module))
    for scope in scopes:
        for name, obj in list(scope.items()):
            if isinstance(obj, SimtKernel | TileKernel) and all(obj is not k for k in found.values()):
                found[name] = obj
    return found


def check_kernels(session: RunSession, chip: str) -> None:
    """Compile every ahead-of-time-compilable kernel of the program for `chip` and assemble its PTX
    with ptxas (when installed and it knows the chip); note the skipped ones. Compile errors raise."""
    from warpforge.backend.chips import ptxas_chips
    from warpforge.backend.toolkit import PtxasError, find_ptxas, run_ptxas
    from warpforge.simt import SimtKernel

    kernels = _program_kernels(session.file)
    if not kernels:
        return
    assemble = find_ptxas() is not None and chip in ptxas_chips()
    checked, skipped = [], []
    targets: dict[str, list[str]] = {}
    for name, k in kernels.items():
        if isinstance(k, SimtKernel):
            if k.is_generic:
                skipped.append(f"{name} (generic: compiled per argument types at its first launch)")
                continue
            ptxs = [k.compile(chip).ptx]
        else:
            if not k._aot:  # noqa: SLF001  (the registered ahead_of_time signatures)
                skipped.append(f"{name} (a tile kernel without ahead_of_time shapes: compiled for its arguments at launch)")
                continue
            ptxs = [c.kernel.ptx for c in k.compile(chip).kernels]
        for ptx in ptxs:
            # the chip the PTX targets: a kernel using sm_90a-only ops (wgmma, setmaxnreg) is compiled for
            # sm_90a on a 9.0 device, and ptxas refuses .target sm_90a PTX for -arch=sm_90
            found = re.search(r"^\.target\s+(sm_\w+)", ptx, re.M)
            target = found.group(1) if found else chip
            targets.setdefault(target, [])
            if name not in targets[target]:
                targets[target].append(name)
            if assemble and target in ptxas_chips():
                try:
                    run_ptxas(ptx, target, verbose=False)
                except PtxasError as e:  # a compiler bug, reported as one, not as the user's traceback
                    raise PtxCheckError(f"the PTX warpforge made for {name} does not assemble (please report it): {e}") from None
        checked.append(name)
    for target, names in targets.items():
        ok = assemble and target in ptxas_chips()
        how = "assembled by ptxas" if ok else "not assembled: ptxas not found" if find_ptxas() is None else f"not assembled: ptxas does not know {target}"
        _note(f"PTX for {target} of {', '.join(names)} {how}")
    if skipped:
        _note(f"not checked ahead of time: {'; '.join(skipped)}")


def _user_frames(tb: TracebackType | None, file: Path) -> TracebackType | None:
    """`tb` from the first frame of the user's file on (dropping runpy's and warpforge's frames)."""
    target = str(file.resolve())
    t = tb
    while t is not None:
        if str(Path(t.tb_frame.f_code.co_filename).resolve()) == target:
            return t
        t = t.tb_next
    # no frame of the file itself (e.g. an error while importing a module it imports): drop the runner's
    import runpy

    here = str(Path(__file__).resolve())
    t = tb
    while t is not None and (t.tb_frame.f_code.co_filename in (here, runpy.__file__) or "<frozen runpy>" in t.tb_frame.f_code.co_filename):
        t = t.tb_next
    return t


def _user_line(tb: TracebackType | None, file: Path) -> str | None:
    """`file:line in function` of the innermost frame in the user's file."""
    target = str(file.resolve())
    where = None
    t = tb
    while t is not None:
        code = t.tb_frame.f_code
        if str(Path(code.co_filename).resolve()) == target:
            where = f"{code.co_filename}:{t.tb_lineno} in {code.co_name}()"
        t = t.tb_next
    return where


def _device_chip() -> str:
    """The chip of `wf.Device(0)` (the simulator's is sm_90, the H200's)."""
    try:
        from warpforge.runtime import Device

        return Device(0).chip
    except Exception:  # no usable device: check for the default chip
        return "sm_90"


def run_file(file: str, args: list[str], *, simulate: bool, chip: str | None = None) -> int:
    """Run `file` as `python file args...` does (see the module docstring); returns the exit status."""
    global _session
    from warpforge.runtime import gpu_available

    path = Path(file)
    if not path.is_file():
        print(f"error: no such file: {file}", file=sys.stderr)
        return 1
    if path.suffix != ".py":
        from warpforge.driver.cli import python_file_message

        print(f"error: {python_file_message(file, 'run')}", file=sys.stderr)
        return 1
    from warpforge.environment import flag

    try:
        forced = simulate or flag("WARPFORGE_SIMULATE")
    except WarpforgeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if forced or not gpu_available():
        os.environ["WARPFORGE_SIMULATE"] = "1"  # wf.Device(0) is the simulator, wf.simulating() is true
        why = "--simulate" if simulate else "WARPFORGE_SIMULATE=1" if forced else "no GPU found"
        _note(f"{why}: running on the CPU simulator")
    if chip is not None:
        from warpforge.backend.chips import chip as check_chip

        try:
            check_chip(chip)
        except WarpforgeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    _session = RunSession(path, chip)
    sys.argv = [file, *args]
    sys.path.insert(0, str(path.resolve().parent))
    code = 0
    import runpy  # here, not at module level: the compile path imports this module (before_compile)

    try:
        try:
            runpy.run_path(file, run_name="__main__")
        except SystemExit as e:
            if e.code not in (None, 0):
                raise
        before_compile(chip or _device_chip())  # a program that compiled nothing still gets its kernels checked
    except SystemExit as e:
        if isinstance(e.code, int):
            code = e.code
        else:  # as Python: a message is printed to stderr, exit status 1
            print(e.code, file=sys.stderr)
            code = 1
    except WarpforgeError as e:
        message = str(e)
        first = message.split("\n", 1)[0]
        print(message if "error:" in first else f"error: {message}", file=sys.stderr)
        if where := _user_line(e.__traceback__, path):
            print(f"  (raised from {where})", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException as e:  # the user's own exception: the user's traceback, as Python prints it
        import traceback

        traceback.print_exception(type(e), e, _user_frames(e.__traceback__, path), file=sys.stderr)
        code = 1
    finally:
        _session = None
    sys.stdout.flush()
    return code
