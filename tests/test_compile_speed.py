"""What keeps a process that only launches kernels fast (issue 13's import and warm-cache goals),
checked by what gets imported and what runs, not by timing asserts:

- `import warpforge` loads neither xDSL nor llvmlite, nor the dialects, passes, backend or simulator,
  nor cuda-python or NumPy (goal: `import warpforge` <= 0.25 s);
- a new process whose disk cache holds a kernel gets it ready to launch without importing xDSL or
  llvmlite and without lowering anything (goal: <= 20 ms after import), for SIMT and tile kernels.

Each check runs in a fresh interpreter (`sys.executable`), since this test process has imported
everything already.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from warpforge import f32, simt, tile  # the growth and gc tests' kernels (annotations are read from this module's globals)

ROOT = Path(__file__).resolve().parent.parent

HEAVY = (
    "xdsl",
    "llvmlite",
    "warpforge.dialects",
    "warpforge.passes",
    "warpforge.pipelines",
    "warpforge.pass_manager",
    "warpforge.backend.nvptx",
    "warpforge.backend.export",
    "warpforge.simulator",
    "warpforge.frontend.compiler",
    "cuda",
)
"""Modules (and their submodules) that only compiling, simulating or launching needs."""

NOT_AT_IMPORT = (*HEAVY, "numpy", "ml_dtypes", "torch", "statistics")
"""What `import warpforge` alone leaves unloaded: NumPy too (`warpforge.lazy_import`: most of the
import's time), and the autotuner's `statistics`."""

PROBE = r"""
import json, sys
import warpforge
after_import = sorted(sys.modules)
result = {"after_import": after_import}
if len(sys.argv) > 1:
    import warpforge.compile as C
    lowered = []
    original = C.lower
    def counting_lower(*args, **kwargs):  # every stage of every compile passes through here
        lowered.append(kwargs.get("until", args[1] if len(args) > 1 else None))
        return original(*args, **kwargs)
    C.lower = counting_lower
    from warpforge import cache
    from warpforge.driver.cli import _kernels, _load_file
    ptx = {}
    for name, k in sorted(_kernels(_load_file(sys.argv[1])).items()):
        ptx[name] = k.compile("sm_90").ptx  # tile kernels: their ahead_of_time signatures
    result.update(modules=sorted(sys.modules), lowered=lowered, stats=dict(cache.stats), ptx=ptx)
print(json.dumps(result))
"""


def _probe(env: dict[str, str], *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _heavy(modules: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy))


def test_import_warpforge_loads_no_compiler_backend_or_simulator() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPFORGE_")}
    got = _probe(env)
    assert "warpforge" in got["after_import"]
    assert _heavy(got["after_import"], NOT_AT_IMPORT) == []


@pytest.mark.parametrize("example,kernels", [("vecadd.py", 1), ("softmax.py", 1)])
def test_a_warm_disk_cache_hit_imports_no_compiler_and_lowers_nothing(tmp_path: Path, example: str, kernels: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARPFORGE_")}
    env["WARPFORGE_CACHE_DIR"] = str(tmp_path / "cache")
    path = str(ROOT / "examples" / example)
    cold = _probe(env, path)  # compiles, fills the cache
    assert cold["stats"].get("write", 0) == kernels and cold["stats"].get("hit", 0) == 0
    assert "ptx" in cold["lowered"] and "xdsl" in cold["modules"]  # the probe sees a real compile
    warm = _probe(env, path)  # a new process: every kernel from the disk
    assert warm["stats"].get("hit", 0) == kernels and warm["stats"].get("miss", 0) == 0
    assert warm["lowered"] == []
    assert _heavy(warm["modules"]) == []
    assert "subprocess" not in warm["after_import"] and "subprocess" not in warm["modules"]  # no ptxas probe either
    assert warm["ptx"] == cold["ptx"] and all(".entry" in p for p in warm["ptx"].values())


@pytest.mark.parametrize("example", ["scan.py", "softmax.py"])
def test_skipping_the_last_canonicalize_before_export_keeps_the_ptx(monkeypatch: pytest.MonkeyPatch, example: str) -> None:
    """`compile.EXPORT_SKIPS` leaves `gpu-to-llvm`'s last `canonicalize` out of compiles to PTX on the
    claim that LLVM's O3 does the same tidying: the PTX must be the one the full pipeline gives."""
    import warpforge.compile as C
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.tile_compile import frontend

    assert C.EXPORT_SKIPS == ("canonicalize",)
    for kernel in _kernels(_load_file(str(ROOT / "examples" / example))).values():
        if type(kernel).__name__ == "TileKernel":
            kir, model = frontend(kernel, kernel.specialize(kernel._aot[0])), "tile"
        else:
            kir, model = kernel.kernel_ir(), "simt"
        full = kir.module.clone()
        skipped = C.lower(kir.module, "ptx", model=model, module_name=kir.symbol + "_module")
        monkeypatch.setattr(C, "EXPORT_SKIPS", ())
        unskipped = C.lower(full, "ptx", model=model, module_name=kir.symbol + "_module")
        monkeypatch.setattr(C, "EXPORT_SKIPS", ("canonicalize",))
        assert ".entry" in skipped and _code(skipped) == _code(unskipped)


def _code(ptx: str) -> list[str]:
    """PTX less its comments (LLVM numbers `// callseq N` across the compiles of one process)."""
    return [line.split("//", 1)[0].rstrip() for line in ptx.splitlines()]


@pytest.mark.parametrize("example", ["scan.py", "softmax.py"])
def test_one_sweep_conversions_match_the_fixpoint_walker(monkeypatch: pytest.MonkeyPatch, example: str) -> None:
    """The conversion passes walk once (`rewriting.OneSweepWalker`); xDSL's walker walks again until
    nothing changes. Both must give the same `llvm`-stage IR."""
    from xdsl.pattern_rewriter import PatternRewriteWalker

    import warpforge.compile as C
    from warpforge.diagnostics import print_ir
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.rewriting import OneSweepWalker
    from warpforge.tile_compile import frontend

    for kernel in _kernels(_load_file(str(ROOT / "examples" / example))).values():
        if type(kernel).__name__ == "TileKernel":
            kir, model = frontend(kernel, kernel.specialize(kernel._aot[0])), "tile"
        else:
            kir, model = kernel.kernel_ir(), "simt"
        fixpoint = kir.module.clone()
        one = print_ir(C.lower(kir.module, "llvm", model=model, module_name=kir.symbol + "_module"))
        with monkeypatch.context() as m:
            m.setattr(OneSweepWalker, "rewrite_region", PatternRewriteWalker.rewrite_region)
            full = print_ir(C.lower(fixpoint, "llvm", model=model, module_name=kir.symbol + "_module"))
        assert "llvm.func" in one and one == full


@pytest.mark.parametrize("example", ["sgemm.py", "softmax.py", "matmul.py", "block_reduce.py", "attention.py"])
def test_xdsl_passes_we_run_cheaper_give_xdsls_result(example: str) -> None:
    """Our `canonicalize`, `convert-scf-to-cf` and `reconcile-unrealized-casts` (xDSL's patterns on
    `FastRewriteWalker` and `TypedPatternApplier`; canonicalize's patterns looked up once per op
    class, its region DCE per class) leave the IR xDSL's passes leave, on the IR each of them gets
    in the compile pipeline."""
    from xdsl.transforms.canonicalize import CanonicalizePass as XdslCanonicalize
    from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf as XdslScfToCf
    from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass as XdslReconcile

    import warpforge.compile as C
    from warpforge.context import make_context
    from warpforge.diagnostics import print_ir
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.passes.canonicalize import CanonicalizePass
    from warpforge.passes.convert_scf_to_cf import ConvertScfToCfPass
    from warpforge.passes.reconcile_unrealized_casts import ReconcileUnrealizedCastsPass
    from warpforge.pipelines import run_pipeline
    from warpforge.tile_compile import frontend

    pairs = {
        "canonicalize": (CanonicalizePass, XdslCanonicalize),
        "convert-scf-to-cf": (ConvertScfToCfPass, XdslScfToCf),
        "reconcile-unrealized-casts": (ReconcileUnrealizedCastsPass, XdslReconcile),
    }
    kernel = next(iter(_kernels(_load_file(str(ROOT / "examples" / example))).values()))
    if type(kernel).__name__ == "TileKernel":
        kir, model = frontend(kernel, kernel.specialize(kernel._aot[0])), "tile"
    else:
        kir, model = kernel.kernel_ir(), "simt"
    module, compared = kir.module, []
    for _, spec in C.stage_passes(model, C.Target(), kir.symbol + "_module"):
        for p in _split(spec):
            if p in pairs:
                ours, theirs = module.clone(), module.clone()
                pairs[p][0]().apply(make_context(), ours)
                pairs[p][1]().apply(make_context(), theirs)
                assert print_ir(ours) == print_ir(theirs), p
                compared.append(p)
            run_pipeline(module, p, verify_each=False, verify_end=False)
    # kernel-to-gpu-pipeline's two canonicalize runs or tile-to-gpu's one, then gpu-to-llvm's three passes
    assert compared == ["canonicalize"] * (2 if model == "simt" else 1) + ["convert-scf-to-cf", "reconcile-unrealized-casts", "canonicalize"]
    assert "scf." not in print_ir(module)


def _split(spec: str) -> list[str]:
    """A pass spec's passes (commas inside `{...}` options kept)."""
    out, depth, current = [], 0, ""
    for ch in spec + ",":
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    return [p for p in out if p]


def test_index_conversion_memo_gives_the_unmemoized_conversion() -> None:
    """`convert-index-to-llvm` remembers each attribute's conversion within a run (by id, the attribute
    held in the memo): nested and repeated attributes convert as without the memo, and a hit returns
    the same object."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IndexType, IntegerAttr, VectorType, i32, i64

    from warpforge.passes.convert_index_to_llvm import convert_attribute

    index = IndexType()
    attrs = [
        index,
        i32,
        IntegerAttr(42, index),
        VectorType(index, [4]),
        FunctionType.from_lists([index, i32, VectorType(index, [2])], [index]),
        ArrayAttr([IntegerAttr(1, index), i32, ArrayAttr([index])]),
        DictionaryAttr({"a": IntegerAttr(3, index), "b": i32}),
    ]
    memo: dict = {}
    first = [convert_attribute(a, memo) for a in attrs]
    assert first == [convert_attribute(a) for a in attrs]
    assert first[0] == i64 and first[1] is i32 and first[3] == VectorType(i64, [4])
    assert "index" not in str(first[4]) and "index" not in str(first[5]) and "index" not in str(first[6])
    assert all(convert_attribute(a, memo) is f for a, f in zip(attrs, first))
    assert len(memo) > len(attrs)  # nested attributes are remembered too


LAZY_NUMPY = r"""
import json, sys
import warpforge
from warpforge import dtypes, lazy_import, simt
launch = sys.modules["warpforge.runtime.launch"]  # (warpforge.runtime.launch is also a function's name)
before = [type(m.__dict__[n]).__name__ for m, n in ((dtypes, "np"), (simt, "numpy"), (launch, "numpy"))]
loaded_before = "numpy" in sys.modules
dt = warpforge.f32.np  # the first use imports NumPy and puts it in place of every stand-in
import numpy
after = [m.__dict__[n] is numpy for m, n in ((dtypes, "np"), (simt, "numpy"), (launch, "numpy"), (lazy_import, "numpy"))]
import warpforge.runtime.memory as memory  # a module loaded later gets the real module
print(json.dumps({"before": before, "loaded_before": loaded_before, "after": after, "dtype": str(dt), "later": memory.numpy is numpy}))
"""


def test_numpy_loads_at_first_use_and_replaces_every_stand_in() -> None:
    proc = subprocess.run([sys.executable, "-c", LAZY_NUMPY], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"before": ["LazyModule"] * 3, "loaded_before": False, "after": [True] * 4, "dtype": "float32", "later": True}


def _tile_add(b: int):
    @tile.kernel
    def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
        z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))

    add.ahead_of_time(tile.spec(f32, (4 * b,), partition=(b,)), tile.spec(f32, (4 * b,)), tile.spec(f32, (4 * b,)))
    return add


def _op_lines(text: str) -> int:
    import re

    return sum(1 for line in text.splitlines() if re.match(r'\s*(%[^=]+=\s*)?"?[a-z_]+\.[a-z_.0-9]+', line))


def test_the_ir_grows_linearly_with_the_tile() -> None:
    """Issue 13's growth goal, by what the passes are given (seconds are `bench/compile_time.py
    --growth`'s): the same frontend kernel for tiles of 2^13, 2^14 and 2^15 elements gives gpu- and
    llvm-stage modules whose size grows linearly with the tile (each doubling adds twice what the
    previous one added, not four times), and the llvm stage stays proportional to the gpu stage."""
    sizes = [1 << 13, 1 << 14, 1 << 15]
    gpu = [_op_lines(_tile_add(b).ir("gpu")) for b in sizes]
    llvm = [_op_lines(_tile_add(b).ir("llvm")) for b in sizes]
    kernel = [_op_lines(_tile_add(b).ir("kernel")) for b in sizes]
    assert kernel[0] == kernel[1] == kernel[2] > 0  # the frontend's IR does not depend on the tile size
    for counts in (gpu, llvm):
        assert counts[0] < counts[1] < counts[2]
        assert counts[2] - counts[1] <= 2.5 * (counts[1] - counts[0]), counts  # linear: 2x; quadratic: 4x
    ratios = [a / g for a, g in zip(llvm, gpu)]
    assert max(ratios) <= 1.5 * min(ratios), (gpu, llvm)


def _libdevice_kernel_ll() -> list[str]:
    """LLVM IR of kernels that call libdevice: a SIMT kernel of f32 and f64 math functions, and the
    softmax example's tile kernel."""
    import math

    import warpforge as wf
    import warpforge.compile as C
    from warpforge import simt
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.tile_compile import frontend

    def body(x: simt.Slice[wf.f32], y: simt.Slice[wf.f64], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        v = x[idx.get()]
        w = y[idx.get()]
        out[idx] = math.exp(v) + math.sin(v) * math.log(abs(v) + 1.0) + wf.f32(math.tanh(w) + math.cos(w))

    texts = [simt.kernel(body).ir("ll")]
    for kernel in _kernels(_load_file(str(ROOT / "examples" / "softmax.py"))).values():
        kir = frontend(kernel, kernel.specialize(kernel._aot[0]))
        texts.append(C.lower(kir.module, "ll", model="tile", module_name=kir.symbol + "_module"))
    return texts


def test_dropping_unused_libdevice_before_o3_keeps_the_ptx(monkeypatch: pytest.MonkeyPatch) -> None:
    """`nvptx.DROP_UNUSED_LIBDEVICE` runs GlobalDCE on the module libdevice was linked into before O3
    (a compile-time cut): the PTX must be the one O3 alone gives, and go through ptxas."""
    from warpforge.backend import nvptx
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    assert nvptx.DROP_UNUSED_LIBDEVICE
    texts = _libdevice_kernel_ll()
    assert len(texts) == 2
    for ll in texts:
        assert nvptx._NV_CALL.search(ll), "the kernel should call libdevice"
        for chip in ("sm_80", "sm_90"):
            options = nvptx.NVPTXOptions(chip=chip)
            dropped = nvptx.compile_ptx(ll, options)
            monkeypatch.setattr(nvptx, "DROP_UNUSED_LIBDEVICE", False)
            kept = nvptx.compile_ptx(ll, options)
            monkeypatch.setattr(nvptx, "DROP_UNUSED_LIBDEVICE", True)
            assert ".entry" in dropped
            assert _code(dropped) == _code(kept)
            assert "__nv_" not in dropped  # every libdevice call inlined, nothing left external
            if find_ptxas() is not None:
                run_ptxas(dropped, chip, verbose=False)


def test_compiles_pause_the_garbage_collector_and_restore_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compile.gc_paused`: the collector is off while a kernel compiles (a miss of the disk cache)
    and while `compile.lower` runs, nested and concurrent pauses end with the last one, and it is back in the state the caller left
    it in (on, or off when the program turned it off itself)."""
    import gc
    import threading

    import warpforge.compile as C

    monkeypatch.setenv("WARPFORGE_CACHE", "0")
    seen: list[bool] = []
    real = C._compile_simt

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(C, "_compile_simt", spy)

    def body(x: simt.Slice[f32], out: simt.DisjointSlice[f32]):
        idx = simt.index_1d()
        out[idx] = x[idx.get()] * 2.0

    assert gc.isenabled()
    ptx = simt.kernel(body).compile("sm_90").ptx
    assert seen == [False] and gc.isenabled() and ".entry" in ptx

    lowered: list[bool] = []
    real_lower = C._lower

    def spy_lower(*args, **kwargs):
        lowered.append(gc.isenabled())
        return real_lower(*args, **kwargs)

    monkeypatch.setattr(C, "_lower", spy_lower)
    assert "gpu.func" in simt.kernel(body).ir("gpu")  # `lower` alone (the simulator's path, `.ir(stage)`) pauses it too
    assert lowered == [False] and gc.isenabled()

    gc.disable()  # the program's own choice is kept
    try:
        simt.kernel(body).compile("sm_90")
        assert seen == [False, False] and not gc.isenabled()
    finally:
        gc.enable()

    inside = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with C.gc_paused():
            inside.set()
            release.wait(10)

    other = threading.Thread(target=hold)
    other.start()
    assert inside.wait(10)
    with C.gc_paused():
        with C.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's compile still runs
    release.set()
    other.join(10)
    assert gc.isenabled()

    with pytest.raises(RuntimeError), C.gc_paused():
        raise RuntimeError("a compile that fails")
    assert gc.isenabled()


@pytest.mark.parametrize("example", ["sgemm.py", "softmax.py"])
def test_remembered_debug_locations_give_the_same_llvm_ir(monkeypatch: pytest.MonkeyPatch, example: str) -> None:
    """The exporter asks llvmlite for each `DILocation` once per function (`_FunctionState.locations`):
    the LLVM IR (its `!dbg` numbering included) must be the one asking every time gives."""
    import warpforge.backend.export as export
    import warpforge.compile as C
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.tile_compile import frontend

    class Forgetful(dict):  # a memo that remembers nothing
        def __setitem__(self, key, value) -> None:
            pass

    real = export._FunctionState
    for kernel in _kernels(_load_file(str(ROOT / "examples" / example))).values():
        if type(kernel).__name__ == "TileKernel":
            kir, model = frontend(kernel, kernel.specialize(kernel._aot[0])), "tile"
        else:
            kir, model = kernel.kernel_ir(), "simt"
        module = C.lower(kir.module, "llvm", model=model, module_name=kir.symbol + "_module")
        remembered = str(export.export_llvm_ir(module))
        monkeypatch.setattr(export, "_FunctionState", lambda *a, **k: real(*a, **k, locations=Forgetful()))
        asked = str(export.export_llvm_ir(module))
        monkeypatch.setattr(export, "_FunctionState", real)
        assert "!DILocation" in remembered and remembered == asked
