"""`warpforge`: compile, run and check (also `python -m warpforge`).

    warpforge compile FILE.py [--kernel NAME] --emit {kernel,gpu,nvvm,llvm,ll,ptx} [--chip sm_90] [--features +ptx86] [-o OUT]
    warpforge run FILE.py [--simulate] [--chip CHIP] [ARGS...]
    warpforge new NAME
    warpforge cache {info,clear}
    warpforge doctor
    warpforge sanitize FILE.py [--tool memcheck|racecheck|synccheck|initcheck] [args...]
    warpforge --version

`compile` prints a kernel at any stage (MLIR text for `kernel`/`gpu`/`nvvm`/`llvm`, LLVM IR for `ll`,
PTX for `ptx`); `run` runs the file as `python FILE.py` does, on the GPU or, without one (or with
`--simulate`), on the CPU simulator, with an early PTX check of the kernels that compile ahead of
time (`warpforge.driver.run`); `new` creates a project that runs at once (`warpforge.driver.new`); `cache` shows or empties the
on-disk kernel cache (`warpforge.cache`) that `compile`, `run` and the Python API share;
`doctor` checks the installation and lists the chips ptxas and the driver support
(`warpforge.backend.chips`). Errors are diagnostics (file:line:col for kernels) and exit status 1,
never a traceback (except the user's own exceptions under `run`, which show the user's traceback).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from warpforge.compile import STAGES
from warpforge.errors import WarpforgeError


def _load_file(path: str) -> ModuleType:
    """Import a Python file as a module (without running its `if __name__ == "__main__":` block)."""
    p = Path(path)
    if not p.is_file():
        raise SystemExit(_fail(f"no such file: {path}"))
    if p.suffix != ".py":
        raise SystemExit(_fail(python_file_message(path, "compile")))
    sys.path.insert(0, str(p.resolve().parent))
    name = f"__warpforge_user__.{p.stem}"  # never shadows a real module (a user file named types.py)
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise SystemExit(_fail(python_file_message(path, "compile")))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except WarpforgeError as e:  # the file's module-level code failed (typically a launch without a GPU)
        note = (
            f"\nnote: `warpforge compile` imports {path} (its `if __name__ == \"__main__\":` block does not run); "
            "this error came from its module-level code: keep launches and device work under `if __name__ == \"__main__\":`"
        )
        raise SystemExit(_fail(f"{e}{note}")) from None
    return module


def python_file_message(path: str, command: str) -> str:
    """The message for a file `warpforge compile`/`run`/`sanitize` cannot take (they take Python source files)."""
    hint = " (MLIR: use `warpforge-opt FILE.mlir`)" if path.endswith(".mlir") else ""
    return f"warpforge {command} takes a Python source file (FILE.py) defining @simt.kernel / @tile.kernel functions, got {path}{hint}"


def _kernels(module: ModuleType) -> dict[str, Any]:
    from warpforge.simt import SimtKernel
    from warpforge.tile import TileKernel  # tile kernels compile for their `ahead_of_time` shapes

    return {name: obj for name, obj in vars(module).items() if isinstance(obj, SimtKernel | TileKernel)}


def _not_ahead_of_time(k: Any) -> str | None:
    """Why `warpforge compile`/`run` cannot compile kernel `k` without its arguments, or None."""
    from warpforge.simt import SimtKernel

    if isinstance(k, SimtKernel):
        return "generic: compiled per argument types at its first launch" if k.is_generic else None
    return None if k._aot else "a tile kernel without ahead_of_time shapes: compiled for its arguments at launch"  # noqa: SLF001


def _fail(message: str) -> int:
    """Print a diagnostic; a `CompileError` already starts with `file:line:col: error:`."""
    first = message.split("\n", 1)[0]
    print(message if "error:" in first else f"error: {message}", file=sys.stderr)
    return 1


def cmd_compile(args: argparse.Namespace) -> int:
    from warpforge.tile import TileKernel

    module = _load_file(args.file)
    kernels = _kernels(module)
    if not kernels:
        return _fail(f"{args.file} defines no @simt.kernel or @tile.kernel functions")
    if args.kernel:
        if args.kernel not in kernels:
            return _fail(f"no kernel named '{args.kernel}' in {args.file} (kernels: {', '.join(kernels)})")
        selected = {args.kernel: kernels[args.kernel]}
        k = selected[args.kernel]
        if isinstance(k, TileKernel) and not k._aot:  # noqa: SLF001  (located at its def; a generic SIMT kernel's error is)
            code = k.fn.__code__
            return _fail(f"{code.co_filename}:{code.co_firstlineno}:1: error: {args.kernel} is {_not_ahead_of_time(k)}: register shapes "
                         f"with {args.kernel}.ahead_of_time(tile.spec(...), ...) to compile it here")
    else:  # every kernel that compiles ahead of time; the others noted, as `warpforge run` does
        selected = {name: k for name, k in kernels.items() if _not_ahead_of_time(k) is None}
        skipped = [f"{name} ({_not_ahead_of_time(k)})" for name, k in kernels.items() if name not in selected]
        if skipped:
            print(f"note: not compiled: {'; '.join(skipped)}; name one with --kernel to see why", file=sys.stderr)
        if not selected:
            return _fail(f"{args.file}: no kernel compiles ahead of time")
    chunks = []
    mlir = args.emit not in ("ll", "ptx")
    for name, k in selected.items():
        text = k.ir(args.emit, chip=args.chip, features=args.features, debuginfo=args.print_debuginfo) if mlir else k.ir(args.emit, chip=args.chip, features=args.features)
        if args.report:  # ptxas -v's registers, spills, shared and local memory, on stderr
            print(k.report(chip=args.chip, features=args.features), file=sys.stderr)
        chunks.append(text.rstrip("\n") if len(selected) == 1 or not mlir else f"// kernel {name}\n{text.rstrip(chr(10))}")
    # MLIR stages: one module per kernel, separated as `warpforge-opt --split-input-file` reads them
    out = ("\n// -----\n" if mlir else "\n").join(chunks) + "\n"
    if args.output:
        try:
            Path(args.output).write_text(out)
        except OSError as e:
            return _fail(f"cannot write output file '{args.output}': {e.strerror or e}")
    else:
        sys.stdout.write(out)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from warpforge.driver.run import run_file

    return run_file(args.file, list(args.args), simulate=args.simulate, chip=args.chip)


def cmd_new(args: argparse.Namespace) -> int:
    from warpforge.driver.new import new_project

    root = new_project(args.name)
    print(f"created {root}/ (kernels.py, main.py, test_kernels.py, README.md)")
    print(f"run it:  cd {args.name} && warpforge run main.py")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from warpforge.cache import DiskCache, cache_dir

    store = DiskCache(cache_dir())
    if args.action == "info":
        print(store.info())
    else:
        removed = store.clear()
        print(f"removed {removed} entries from {store.root}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    rows: list[tuple[str, bool, str]] = []

    def check(name: str, fn: Any, fix: str) -> None:
        try:
            detail = fn()
            rows.append((name, True, detail))
        except Exception as e:  # each check reports, none aborts
            rows.append((name, False, f"{e} — {fix}"))

    check("python", lambda: f"{platform.python_version()} ({sys.executable})", "install Python ≥ 3.11")

    def xdsl_version() -> str:
        from importlib.metadata import version

        return f"xdsl {version('xdsl')}"

    check("xdsl", xdsl_version, "pip install 'xdsl==0.75.0'")

    def nvptx() -> str:
        from warpforge.backend.nvptx import target_machine

        import llvmlite

        tm = target_machine("sm_90", "+ptx80", 3)
        return f"llvmlite {llvmlite.__version__}, NVPTX target ({tm.triple})"

    check("llvmlite NVPTX", nvptx, "pip install 'llvmlite==0.50.*' (its LLVM includes NVPTX)")

    def ptxas() -> str:
        from warpforge.backend.toolkit import ptxas_origin

        from warpforge.backend.chips import ptx_text, ptxas_max_ptx, ptxas_version

        path, why = ptxas_origin()
        if path is None:
            raise FileNotFoundError(f"ptxas not found: {why}")
        release, newest = ptxas_version(), ptxas_max_ptx()
        if release is None or newest is None:
            return f"{path} (version unknown; {why})"
        return f"{path} (CUDA {release[0]}.{release[1]}: assembles PTX up to {ptx_text(newest)}; {why})"

    check("ptxas", ptxas, "install the CUDA toolkit or pip install 'nvidia-cuda-nvcc==13.0.*'")

    def libdevice() -> str:
        from warpforge.backend.toolkit import find_libdevice

        path = find_libdevice()
        if path is None:
            raise FileNotFoundError("libdevice.10.bc not found")
        return path

    check("libdevice", libdevice, "install the CUDA toolkit or pip install 'nvidia-nvvm==13.0.*'")

    def driver() -> str:
        from cuda.bindings import driver as drv

        (err,) = drv.cuInit(0)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuInit failed: {err.name}")
        from warpforge.backend.chips import cuda_max_ptx, ptx_text

        err, version = drv.cuDriverGetVersion()
        major, minor = version // 1000, version % 1000 // 10
        return f"CUDA driver {major}.{minor} (JIT-compiles PTX up to {ptx_text(cuda_max_ptx(major, minor))})"

    check("CUDA driver", driver, "install an NVIDIA driver (no GPU: use `warpforge run --simulate` or compile only)")

    def gpus() -> str:
        from cuda.bindings import driver as drv

        drv.cuInit(0)
        err, count = drv.cuDeviceGetCount()
        if err != drv.CUresult.CUDA_SUCCESS or count == 0:
            raise RuntimeError("no GPU found")
        names = []
        for i in range(count):
            _, dev = drv.cuDeviceGet(i)
            _, raw = drv.cuDeviceGetName(64, dev)
            _, major = drv.cuDeviceGetAttribute(drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
            _, minor = drv.cuDeviceGetAttribute(drv.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
            names.append(f"GPU {i}: {raw.decode().rstrip(chr(0))} (sm_{major}{minor})")
        return "; ".join(names)

    check("GPUs", gpus, "a machine with an NVIDIA GPU is needed to run kernels (compiling works without one)")

    width = max(len(n) for n, _, _ in rows)
    for name, ok, detail in rows:
        print(f"{name:<{width}}  {'ok     ' if ok else 'missing'}  {detail}")
    _print_chips()
    essential = {"python", "xdsl", "llvmlite NVPTX"}
    return 0 if all(ok for name, ok, _ in rows if name in essential) else 1


def _print_chips() -> None:
    """The chip table (`warpforge.backend.chips`) against the installed ptxas and driver."""
    from warpforge.backend.chips import CHIPS, driver_max_ptx, ptx_text, ptxas_chips, ptxas_max_ptx

    assembles, ptxas_newest, driver_newest = set(ptxas_chips()), ptxas_max_ptx(), driver_max_ptx()
    print("\nchips (PTX: the minimum and the default warpforge uses; ptxas: the installed ptxas assembles code for it;")
    print("       driver: the installed driver JIT-compiles its default PTX version):")
    for row in CHIPS.values():
        ptxas = "ptxas" if row.name in assembles and ptxas_newest is not None and row.default_ptx <= ptxas_newest else "-"
        driver = "driver" if driver_newest is not None and row.default_ptx <= driver_newest else "-"
        cc = f"{row.major}.{row.minor}"
        print(f"  {row.name:<8} {cc:<5} PTX {ptx_text(row.min_ptx)} / {ptx_text(row.default_ptx)}  {ptxas:<5}  {driver}")


def build_parser() -> argparse.ArgumentParser:
    from warpforge import __version__

    parser = argparse.ArgumentParser(prog="warpforge", description="warpforge: GPU kernels in Python, compiled through xDSL to PTX")
    parser.add_argument("--version", action="version", version=f"warpforge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compile", help="print a kernel at a compilation stage")
    c.add_argument("file")
    c.add_argument("--kernel", help="the kernel to compile (default: every kernel in the file)")
    c.add_argument("--emit", choices=STAGES, default="ptx", help="kernel | gpu | nvvm | llvm (MLIR), ll (LLVM IR), ptx")
    c.add_argument("--chip", default="sm_90")
    c.add_argument("--features", default="", help="PTX ISA version, e.g. +ptx86 (default: the chip's, see `warpforge doctor`)")
    c.add_argument("-o", "--output")
    c.add_argument("--report", action="store_true", help="print each kernel's registers, spills, shared and local memory (ptxas -v) on stderr")
    c.add_argument("--print-debuginfo", action="store_true", help="MLIR stages: print each op's loc(...) (kept when warpforge-opt resumes)")
    c.set_defaults(func=cmd_compile)

    k = sub.add_parser("cache", help="the on-disk kernel cache ($WARPFORGE_CACHE_DIR or ~/.cache/warpforge)")
    k.add_argument("action", choices=("info", "clear"), help="info: where, how many entries, how big; clear: remove every entry")
    k.set_defaults(func=cmd_cache)

    r = sub.add_parser("run", help="run FILE.py as `python FILE.py` does, on the GPU or (without one) on the CPU simulator")
    r.add_argument("file")
    r.add_argument("--chip", default=None, help="the chip to check kernels' PTX for (default: the device's)")
    r.add_argument("--simulate", action="store_true", help="run on the CPU simulator even if a GPU is present")
    r.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the program").required = False  # optional (argparse marks REMAINDER required)
    r.set_defaults(func=cmd_run)

    n = sub.add_parser("new", help="create a project NAME/ with a SIMT and a tile kernel, a test and a README")
    n.add_argument("name")
    n.set_defaults(func=cmd_new)

    d = sub.add_parser("doctor", help="check Python, xdsl, llvmlite's NVPTX target, ptxas, libdevice, the driver and GPUs; list supported chips")
    d.set_defaults(func=cmd_doctor)

    from warpforge.driver import sanitize  # warpforge sanitize FILE.py [--tool memcheck|racecheck|...] [args...]

    sanitize.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `warpforge` console script."""
    from warpforge.errors import WarpforgeError

    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
    except WarpforgeError as e:
        code = _fail(str(e))
    except SystemExit:
        raise
    except KeyboardInterrupt:
        code = 1
    except BrokenPipeError:  # `warpforge doctor | head -2`: the reader left; exit quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's flush of stdout at exit would fail again
        code = 0
    except Exception as e:  # a diagnostic, not a traceback; WARPFORGE_TRACEBACK=1 shows it
        if os.environ.get("WARPFORGE_TRACEBACK", "").strip().lower() in ("1", "true", "yes", "on"):  # never refused here: an error is being shown
            raise
        code = _fail(f"{type(e).__name__}: {e} (set WARPFORGE_TRACEBACK=1 for the traceback)")
    raise SystemExit(code)
