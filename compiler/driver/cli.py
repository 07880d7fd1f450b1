"""`warpforge`: compile, run and check.

    warpforge compile FILE.py [--kernel NAME] --emit {kernel,gpu,nvvm,llvm,ll,ptx} [--chip sm_90] [-o OUT]
    warpforge run FILE.py [--simulate]
    warpforge cache {info,clear}
    warpforge doctor

`compile` prints a kernel at any stage (MLIR text for `kernel`/`gpu`/`nvvm`/`llvm`, LLVM IR for `ll`,
PTX for `ptx`); `run` runs the file's `main()` on the GPU, or, without one (or with `--simulate`),
compiles every kernel in the file, checks the PTX with ptxas, then runs `main()` on the CPU simulator
(`WARPFORGE_SIMULATE=1`; exit status 1 when it fails); `cache` shows or empties the on-disk kernel
cache (`warpforge.cache`) all three share; `doctor` checks the installation.
Errors are diagnostics (file:line:col for kernels) and exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from warpforge.compile import STAGES


def _load_file(path: str) -> ModuleType:
    """Import a Python file as a module (without running its `if __name__ == "__main__":` block)."""
    p = Path(path)
    if not p.is_file():
        raise SystemExit(_fail(f"no such file: {path}"))
    sys.path.insert(0, str(p.resolve().parent))
    name = f"__warpforge_user__.{p.stem}"  # never shadows a real module (a user file named types.py)
    spec = importlib.util.spec_from_file_location(name, p)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _kernels(module: ModuleType) -> dict[str, Any]:
    from warpforge.simt import SimtKernel
    from warpforge.tile import TileKernel  # tile kernels compile for their `ahead_of_time` shapes

    return {name: obj for name, obj in vars(module).items() if isinstance(obj, SimtKernel | TileKernel)}


def _fail(message: str) -> int:
    """Print a diagnostic; a `CompileError` already starts with `file:line:col: error:`."""
    first = message.split("\n", 1)[0]
    print(message if "error:" in first else f"error: {message}", file=sys.stderr)
    return 1


def cmd_compile(args: argparse.Namespace) -> int:
    module = _load_file(args.file)
    kernels = _kernels(module)
    if not kernels:
        return _fail(f"{args.file} defines no @simt.kernel or @tile.kernel functions")
    if args.kernel:
        if args.kernel not in kernels:
            return _fail(f"no kernel named '{args.kernel}' in {args.file} (kernels: {', '.join(kernels)})")
        selected = {args.kernel: kernels[args.kernel]}
    else:
        selected = kernels
    chunks = []
    for name, k in selected.items():
        text = k.ir(args.emit, chip=args.chip, features=args.features)
        chunks.append(text if len(selected) == 1 else f"// ----- kernel {name}\n{text}")
        if args.report:  # ptxas -v's registers, spills, shared and local memory, on stderr
            print(k.report(chip=args.chip, features=args.features), file=sys.stderr)
    out = "\n".join(chunks)
    if args.output:
        Path(args.output).write_text(out)
    else:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from warpforge.runtime import gpu_available

    forced = args.simulate or os.environ.get("WARPFORGE_SIMULATE") == "1"
    if gpu_available() and not forced:
        sys.argv = [args.file, *args.args]
        runpy.run_path(args.file, run_name="__main__")
        return 0
    # the CPU simulator: first compile every kernel and check its PTX, then run main() there
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    os.environ["WARPFORGE_SIMULATE"] = "1"  # wf.Device(0) is the simulator, wf.simulating() is true
    module = _load_file(args.file)
    kernels = _kernels(module)
    ptxas = find_ptxas()
    for name, k in kernels.items():
        ptx = k.compile(args.chip).ptx  # cached: the simulated run reuses it
        if ptxas is not None:
            run_ptxas(ptx, args.chip, verbose=False)
            print(f"compiled {name}: PTX for {args.chip} assembled by ptxas")
        else:
            print(f"compiled {name}: PTX for {args.chip} (ptxas not found, not assembled)")
    why = "no GPU found" if not gpu_available() else "--simulate" if args.simulate else "WARPFORGE_SIMULATE=1"
    print(f"{why}: running on the CPU simulator", flush=True)
    sys.argv = [args.file, *args.args]
    main = getattr(module, "main", None)
    if callable(main):
        main()
    else:  # no main(): run the file as a script
        runpy.run_path(args.file, run_name="__main__")
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
        from warpforge.backend.toolkit import find_ptxas

        path = find_ptxas()
        if path is None:
            raise FileNotFoundError("ptxas not found")
        return path

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
        err, version = drv.cuDriverGetVersion()
        return f"CUDA driver {version // 1000}.{version % 1000 // 10}"

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
    essential = {"python", "xdsl", "llvmlite NVPTX"}
    return 0 if all(ok for name, ok, _ in rows if name in essential) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warpforge", description="warpforge: GPU kernels in Python, compiled through xDSL to PTX")
    sub = parser.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compile", help="print a kernel at a compilation stage")
    c.add_argument("file")
    c.add_argument("--kernel", help="the kernel to compile (default: every kernel in the file)")
    c.add_argument("--emit", choices=STAGES, default="ptx", help="kernel | gpu | nvvm | llvm (MLIR), ll (LLVM IR), ptx")
    c.add_argument("--chip", default="sm_90")
    c.add_argument("--features", default="+ptx80", help="PTX version feature, e.g. +ptx80")
    c.add_argument("-o", "--output")
    c.add_argument("--report", action="store_true", help="print each kernel's registers, spills, shared and local memory (ptxas -v) on stderr")
    c.set_defaults(func=cmd_compile)

    k = sub.add_parser("cache", help="the on-disk kernel cache ($WARPFORGE_CACHE_DIR or ~/.cache/warpforge)")
    k.add_argument("action", choices=("info", "clear"), help="info: where, how many entries, how big; clear: remove every entry")
    k.set_defaults(func=cmd_cache)

    r = sub.add_parser("run", help="run FILE.py's main() on the GPU (without one: compile and check every kernel, then run on the CPU simulator)")
    r.add_argument("file")
    r.add_argument("--chip", default="sm_90")
    r.add_argument("--simulate", action="store_true", help="run on the CPU simulator even if a GPU is present")
    r.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the program")
    r.set_defaults(func=cmd_run)

    d = sub.add_parser("doctor", help="check Python, xdsl, llvmlite's NVPTX target, ptxas, libdevice, the driver and GPUs")
    d.set_defaults(func=cmd_doctor)
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
    except Exception as e:  # a diagnostic, not a traceback; WARPFORGE_TRACEBACK=1 shows it
        if os.environ.get("WARPFORGE_TRACEBACK") == "1":
            raise
        code = _fail(f"{type(e).__name__}: {e} (set WARPFORGE_TRACEBACK=1 for the traceback)")
    raise SystemExit(code)
