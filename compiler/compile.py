"""The compile driver of both programming models: stages, pass pipelines, PTX and the disk cache.

| stage | what | SIMT (`@simt.kernel`) | Tile (`@tile.kernel`) |
|---|---|---|---|
| `kernel` | the `kernel` dialect (Python semantics) | the frontend | the frontend |
| `tile` | tensor views and tile coordinates (`tile` dialect) | — | `kernel-to-tile` |
| `gpu` | gpu/arith/math/scf/cf/memref/func in a `gpu.module` | `kernel-to-gpu-pipeline` | `tile-to-gpu-pipeline` less `kernel-to-tile` |
| `nvvm` | special registers, barriers, tensor-core ops as `nvvm` ops, checked against the target | `convert-nvgpu-to-nvvm`, `convert-gpu-to-nvvm`, `check-nvvm-target` | the same |
| `llvm` | the `llvm` dialect | the rest of `gpu-to-llvm` | the same, with `convert-vector-to-llvm` |
| `ll` | LLVM IR text (`nvptx64-nvidia-cuda`) | `warpforge.backend.export` | the same |
| `ptx` | PTX text, O3, libdevice linked when used | `warpforge.backend.nvptx` | the same |

The pass lists come from `warpforge.pipelines.stage_pipelines`, cut from the named pipelines
`warpforge-opt` runs, so the Python API, the CLI and `warpforge-opt` compile the same way. Every stage
is MLIR text that `warpforge-opt` parses and resumes from. The module is verified once where a
lowering stops at an MLIR stage, not after every pass; compiling to PTX verifies it at the `gpu`
stage (structured control flow, before the lowering to blocks, where xDSL's verifier is quadratic in
the number of blocks) and LLVM verifies the exported module.

`compile_simt` and `compile_tile` are what `SimtKernel.compile` and `TileKernel.compile` call: they
look the kernel up in the on-disk cache (`warpforge.cache`) first, and write what they compile there.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import inspect
import json
import linecache
import threading
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warpforge.errors import UsageError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from warpforge.runtime.compiled import CompiledKernel, ParamSpec

STAGES = ("kernel", "gpu", "nvvm", "llvm", "ll", "ptx")
"""The stages of a SIMT kernel."""

TILE_STAGES = ("kernel", "tile", "gpu", "nvvm", "llvm", "ll", "ptx")
"""The stages of a tile kernel."""

MODEL_STAGES: dict[str, tuple[str, ...]] = {"simt": STAGES, "tile": TILE_STAGES}

COMPILER_VERSION = "warpforge-0.1.0"
"""Part of every in-memory cache key (the disk cache adds `warpforge.cache.compiler_fingerprint()`)."""

EXPORT_SKIPS = ("canonicalize",)
"""Passes at the end of the `llvm` stage that a compile to PTX leaves out: the last `canonicalize` of
`gpu-to-llvm` only tidies the `llvm` dialect (dead constants, folded casts) as LLVM's O3 does again
after export; every example's PTX is byte-identical without it (docs/compile-time.md), and it took
10-20 % of the passes' time. `--emit llvm`, `ll` and `warpforge-opt -p gpu-to-llvm` still run it."""

OP_COUNT_WARNING = 40_000
"""A kernel whose `gpu`-level IR has more ops than this gets a `CompileWarning` (compile time grows
with it): usually a `simt.static_range` loop or a tile shape too large for one CTA."""


@dataclass(frozen=True)
class Target:
    """What to compile for: a chip of `warpforge.backend.chips.CHIPS` and a `+ptxNN` feature string
    (`""`: the chip's default PTX version). Checked on construction (`TargetError`), before any pass
    or LLVM sees it; `features` is then always explicit."""

    chip: str = "sm_90"
    features: str = ""

    def __post_init__(self) -> None:
        from warpforge.backend.chips import resolve_target

        object.__setattr__(self, "features", resolve_target(self.chip, self.features).features)


# --------------------------------------------------------------------------- stages


def stage_passes(model: str, target: Target, module_name: str) -> tuple[tuple[str, str], ...]:
    """(stage, pass spec reaching it from the stage before) for `model` (`"simt"` or `"tile"`)."""
    from warpforge.pipelines import stage_pipelines

    return stage_pipelines(model, chip=target.chip, features=target.features, module=module_name)


def run_stage(module: ModuleOp, stage: str, passes: str) -> None:
    """Run one stage's passes on `module` in place. The one place every stage of every model passes
    through: per-stage hooks (IR dumps, overrides) belong here."""
    from xdsl.utils.exceptions import DiagnosticException

    from warpforge.pipelines import run_pipeline
    from warpforge.rewriting import as_compile_error

    try:
        run_pipeline(module, passes, verify_each=False, verify_end=False)
    except DiagnosticException as e:  # e.g. an instruction the target chip/PTX lacks: a located CompileError
        raise as_compile_error(e) from None


def lower(
    module: ModuleOp,
    until: str,
    target: Target = Target(),
    *,
    model: str = "simt",
    module_name: str = "kernels",
    start: str = "kernel",
    ftz: bool = False,
    verify: bool = True,
    require_unrolled: bool = False,
) -> ModuleOp | str:
    """Lower a module (modified in place) from stage `start` through the stages up to `until`.

    Returns the (verified) module for MLIR stages and text for `ll` and `ptx`. `ftz`: flush f32
    denormals in libdevice too (fast-math kernels). Raises `ValueError` for an unknown stage, and what
    the passes raise (`CompileError`, `LoweringError`) for kernels they cannot lower. `verify=False`
    skips verifying the MLIR stage where it stops. Runs with the garbage collector paused (`gc_paused`).
    """
    with gc_paused():
        return _lower(module, until, target, model=model, module_name=module_name, start=start, ftz=ftz, verify=verify, require_unrolled=require_unrolled)


def _lower(
    module: ModuleOp,
    until: str,
    target: Target,
    *,
    model: str,
    module_name: str,
    start: str,
    ftz: bool,
    verify: bool,
    require_unrolled: bool,
) -> ModuleOp | str:
    stages = MODEL_STAGES.get(model)
    if stages is None:
        raise UsageError(f"unknown programming model {model!r}: expected one of {', '.join(MODEL_STAGES)}")
    check_stage(until, model)
    if start not in stages[:-2]:
        raise UsageError(f"unknown start stage '{start}': lowering starts at one of {', '.join(stages[:-2])} (MLIR stages)")
    if stages.index(until) < stages.index(start):
        raise UsageError(f"cannot lower from '{start}' back to '{until}'")
    from warpforge.knobs import apply_stage_hooks, text_stage

    symbol = module_name.removesuffix("_module")  # WARPFORGE_DUMP_IR / _KERNEL_OVERRIDE file names
    if start == "kernel":
        apply_stage_hooks(symbol, "kernel", module)
    if until == start:
        return module
    for stage, passes in stage_passes(model, target, module_name):
        if stages.index(stage) > stages.index(start):
            if stage == "llvm" and until == "ptx":
                for skipped in EXPORT_SKIPS:
                    passes = passes.removesuffix("," + skipped)
            run_stage(module, stage, passes)
            apply_stage_hooks(symbol, stage, module)
        if until == stage:
            if verify:
                module.verify()
            return module
    # `ll`/`ptx`: no MLIR verification of the llvm stage (xDSL's verifier is quadratic in the blocks
    # of a region, and LLVM verifies the module it parses); the compile path verifies at `gpu`
    from warpforge.backend.export import export_llvm_ir

    llvm_ir = text_stage(symbol, "ll", lambda: str(export_llvm_ir(module)))
    if until == "ll":
        return llvm_ir
    from warpforge.backend.nvptx import NVPTXOptions, compile_ptx

    return text_stage(symbol, "ptx", lambda: compile_ptx(llvm_ir, NVPTXOptions(chip=target.chip, features=target.features, ftz=ftz, require_unrolled=require_unrolled)))


@dataclass(frozen=True)
class SiteInfo:
    """An error site read back from `kernel.error_sites` on the lowered kernel function."""

    id: int
    kind: str
    text: str
    filename: str
    line: int
    col: int
    operands: tuple[str, str]


def error_sites(module: ModuleOp, symbol: str) -> tuple[SiteInfo, ...]:
    """The checked-mode error sites of kernel `symbol`, in id order (ids start at 1)."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr

    for op in module.walk():
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(name, StringAttr) and name.data == symbol:
            table = op.attributes.get("kernel.error_sites")
            if not isinstance(table, ArrayAttr):
                return ()
            sites = []
            for i, entry in enumerate(table.data, start=1):
                assert isinstance(entry, DictionaryAttr)
                d = entry.data

                def s(key: str) -> str:
                    v = d.get(key)
                    return v.data if isinstance(v, StringAttr) else ""

                def n(key: str) -> int:
                    v = d.get(key)
                    return v.value.data if isinstance(v, IntegerAttr) else 0

                ops = d.get("operands")
                names = tuple(o.data for o in ops.data) if isinstance(ops, ArrayAttr) else ("index", "length")  # pyright: ignore[reportAttributeAccessIssue]
                sites.append(SiteInfo(i, s("kind"), s("text"), s("file"), n("line"), n("col"), names))  # pyright: ignore[reportArgumentType]
            return tuple(sites)
    return ()


def site_message(site: Any) -> str:
    """The message a `KernelError` shows for an error site (`"a[i] read out of range"`)."""
    what = f"{site.text}: " if site.text else ""
    if site.kind == "out-of-range read":
        return f"{what}read out of range" if what else "read out of range"
    return f"{what}{site.kind}" if what else site.kind


WARP_COLLECTIVES = frozenset({"gpu.shuffle", "gpu.subgroup_reduce", "gpu.vote", "gpu.ballot", "gpu.match_any", "nvgpu.mma.sync", "nvgpu.ldmatrix", "nvvm.elect.sync"})
"""gpu-level ops that need every lane of the warp (full-mask `shfl/vote/redux/match.sync`, `.aligned` `mma.sync`/`ldmatrix`)."""


@dataclass(frozen=True)
class Resources:
    """What a gpu-level module asks of a launch: static shared memory (bytes per block, each array
    16-byte aligned as the PTX declares it), whether it needs whole warps, and its op count."""

    static_shared_bytes: int
    full_warps: bool
    ops: int = 0


def resources(module: ModuleOp) -> Resources:
    """The `Resources` of a gpu-level module (after `kernel-to-gpu`)."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import IntegerAttr, MemRefType

    from warpforge.dialects.element_types import byte_size

    shared = 0
    full_warps = False
    ops = 0
    for op in module.walk():
        ops += 1
        if isinstance(op, memref.GlobalOp) and isinstance(op.type, MemRefType):
            space = op.type.memory_space
            if isinstance(space, IntegerAttr) and space.value.data == 3:
                elem = op.type.element_type
                size = byte_size(elem)
                count = 1
                for d in op.type.get_shape():
                    count *= d
                shared += -(-size * count // 16) * 16
        elif op.name in WARP_COLLECTIVES:
            full_warps = True
    return Resources(shared, full_warps, ops)


def warn_if_large(name: str, ops: int, filename: str, line: int, hint: str) -> None:
    """A `CompileWarning` at the kernel's source line when its `gpu`-level IR has more than
    `OP_COUNT_WARNING` ops."""
    if ops <= OP_COUNT_WARNING:
        return
    from warpforge.errors import CompileWarning

    warnings.warn_explicit(
        f"{name}: the kernel lowers to {ops} ops at the gpu stage (more than {OP_COUNT_WARNING}): compile time and "
        f"register pressure grow with it; {hint}",
        CompileWarning,
        filename,
        line,
    )


# --------------------------------------------------------------------------- cache keys


def closure_fingerprint(fn: object) -> tuple[tuple[str, str], ...]:
    """The compile-time values a kernel's source reads from outside it (closure variables and globals
    that are numbers, strings or dtypes), so kernels made by one factory with different constants get
    different cache keys."""
    try:
        captured = inspect.getclosurevars(fn)  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        return ()
    out = []
    for scope in (captured.nonlocals, captured.globals):
        for name, value in sorted(scope.items()):
            if _plain(value):
                out.append((name, repr(value)))
    return tuple(out)


def _plain(value: object) -> bool:
    """A value whose repr is its identity for compilation: numbers, strings, dtypes, tuples of those."""
    if isinstance(value, bool | int | float | str) or type(value).__name__ == "DType":
        return True
    return isinstance(value, tuple | frozenset) and all(_plain(v) for v in value)


def source_fingerprint(fn: Any) -> tuple[Any, ...] | None:
    """Everything in the source a kernel compiles from: its file (name and text) and first line, what
    each name it reads from outside is (constants by value, modules, functions and types by name),
    and, recursively, the same for every `@simt.device` function it names (in whatever file). None
    when the source is not available (then nothing is cached)."""
    from warpforge.frontend.device_function import DeviceFunction

    seen: set[int] = set()

    def visit(f: Any) -> tuple[Any, ...]:
        seen.add(id(f))
        # the whole file's text (as numba's cache keys on the file): cheaper than cutting the function
        # out (tokenizing), and it covers module-level code the function's text does not show; the file
        # name and first line are part of the code too (PTX `.loc`, error sites)
        code = f.__code__
        from warpforge.source_snapshot import snapshot_of

        lines = snapshot_of(f)  # the text the kernel compiles from (its decorator's snapshot)
        if lines is None:
            linecache.checkcache(code.co_filename)  # a file rewritten since it was read (as inspect does)
            lines = linecache.getlines(code.co_filename, f.__globals__)
        if not lines:
            raise OSError(f"no source for {f.__qualname__}")
        source = (code.co_filename, code.co_firstlineno, hashlib.sha256("".join(lines).encode()).hexdigest())
        deps: list[Any] = []
        try:
            captured = inspect.getclosurevars(f)
        except (TypeError, ValueError):
            return (source, ())
        for scope in (captured.nonlocals, captured.globals):
            for name, value in sorted(scope.items()):
                if _plain(value):
                    deps.append((name, repr(value)))
                elif isinstance(value, DeviceFunction):
                    deps.append((name, "device", value.inline, visit(value.fn) if id(value.fn) not in seen else value.fn.__qualname__))
                elif isinstance(value, types.ModuleType):
                    deps.append((name, "module", value.__name__))
                elif isinstance(value, types.FunctionType | types.BuiltinFunctionType | type):
                    deps.append((name, "function", getattr(value, "__module__", None), value.__qualname__))
                else:  # an object the frontend may read (its repr, unless that is just an address)
                    text = repr(value)
                    deps.append((name, "object", type(value).__qualname__, text if " at 0x" not in text else ""))
        return (source, tuple(deps))

    try:
        return visit(fn)
    except (OSError, TypeError, AttributeError):
        return None


def cache_key(*parts: object) -> str:
    """A stable hash of the parts (source, signature, chip, options) and the compiler version."""
    h = hashlib.sha256(COMPILER_VERSION.encode())
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def kernel_key(model: str, fn: Any, *parts: object) -> str | None:
    """The disk-cache key of a kernel: `model`, its file, qualified name and `source_fingerprint(fn)`, the
    `parts` (signature, options, chip, PTX version) and `warpforge.cache.compiler_fingerprint()`.
    None when the source is not available."""
    from warpforge.cache import compiler_fingerprint, digest

    source = source_fingerprint(fn)
    if source is None:
        return None
    # the module's name is left out (`__main__` in a script, another under `warpforge compile`), so
    # both share entries; its file is in `source`
    return digest(model, getattr(fn, "__qualname__", ""), source, parts, compiler_fingerprint())


# --------------------------------------------------------------------------- (de)serializing compiled kernels


def kernel_to_json(k: CompiledKernel) -> dict[str, Any]:
    """A `CompiledKernel` less its PTX, as JSON-able data (dtypes by warpforge name)."""
    from warpforge.dtypes import from_numpy

    return {
        "name": k.name,
        "entry": k.entry,
        "chip": k.chip,
        "params": [[p.name, p.kind, from_numpy(p.dtype).name, p.ndim, p.strided, list(p.box), p.swizzle, p.align, [[list(b), sw] for b, sw in p.tma]] for p in k.params],
        "checked": k.checked,
        "error_sites": [[s.id, s.kind, s.message, s.filename, s.line, s.col, list(s.operands)] for s in k.error_sites],
        "exact_block": list(k.exact_block) if k.exact_block is not None else None,
        "max_threads": k.max_threads,
        "index_domain": k.index_domain,
        "static_shared_bytes": k.static_shared_bytes,
        "cache_key": k.cache_key,
        "full_warps": k.full_warps,
        "source": list(k.source) if k.source is not None else None,
        "launch_condition": k.launch_condition,
    }


def kernel_from_json(d: dict[str, Any], ptx: str) -> CompiledKernel:
    """The inverse of `kernel_to_json`. Raises `KeyError`/`TypeError`/`ValueError` on malformed data."""
    from warpforge.dtypes import BY_NAME
    from warpforge.runtime.compiled import CompiledKernel, ErrorSite, ParamSpec

    block = d["exact_block"]
    source = d.get("source")
    return CompiledKernel(
        name=str(d["name"]),
        entry=str(d["entry"]),
        ptx=ptx,
        chip=str(d["chip"]),
        params=tuple(
            ParamSpec(str(n), str(kind), BY_NAME[dt].np, int(nd), strided=bool(rest[0]) if rest else False,
                      box=tuple(int(b) for b in rest[1]) if len(rest) > 1 else (), swizzle=str(rest[2]) if len(rest) > 2 else "",
                      align=int(rest[3]) if len(rest) > 3 else 0,
                      tma=tuple((tuple(int(x) for x in b), str(sw)) for b, sw in rest[4]) if len(rest) > 4 else ())
            for n, kind, dt, nd, *rest in d["params"]
        ),
        checked=bool(d["checked"]),
        error_sites=tuple(ErrorSite(int(i), str(kd), str(m), str(f), int(ln), int(c), (str(o[0]), str(o[1]))) for i, kd, m, f, ln, c, o in d["error_sites"]),
        exact_block=(int(block[0]), int(block[1]), int(block[2])) if block is not None else None,
        max_threads=None if d["max_threads"] is None else int(d["max_threads"]),
        index_domain=None if d["index_domain"] is None else int(d["index_domain"]),
        static_shared_bytes=int(d["static_shared_bytes"]),
        cache_key=str(d["cache_key"]),
        full_warps=bool(d["full_warps"]),
        source=(str(source[0]), int(source[1])) if source is not None else None,
        launch_condition=str(d.get("launch_condition", "")),
    )


def _kernel_store(key: str | None) -> Any:
    from warpforge import cache

    return cache.default_cache() if key is not None and not cache.bypassed() else None


def _load(key: str | None) -> tuple[CompiledKernel, dict[str, Any]] | None:
    from warpforge import cache

    store = _kernel_store(key)
    if store is None or key is None:
        return None
    sections = store.get("kernel", key)
    if sections is None:
        return None
    try:
        meta = json.loads(sections["meta"])
        return kernel_from_json(meta["kernel"], sections["ptx"].decode()), meta
    except (KeyError, TypeError, ValueError, IndexError, UnicodeDecodeError):
        cache.stats["corrupt"] += 1
        store.discard("kernel", key)
        return None


def _store(key: str | None, compiled: CompiledKernel, extra: dict[str, Any]) -> None:
    store = _kernel_store(key)
    if store is None or key is None:
        return
    meta = {"kernel": kernel_to_json(compiled), **extra}
    store.put("kernel", key, {"meta": json.dumps(meta).encode(), "ptx": compiled.ptx.encode()})


# --------------------------------------------------------------------------- the garbage collector

_gc_lock = threading.Lock()
_gc_depth = 0
_gc_reenable = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a kernel compiles (nested and concurrent compiles
    included; back on when the last one ends, if it was on before the first).

    A compile allocates ~10^5 IR objects (xDSL ops, attributes, use lists) and, the first time, the
    classes of every dialect it loads; each allocation burst triggers collections that walk every live
    object again: a cold compile spent 12-20 % of its time in the collector here (softmax 0.18 s of
    0.8 s). The IR's garbage (erased ops point at their blocks and back) waits for the first
    collection after the compile; peak memory grows by what one compile leaves (sgemm: ~7 MB)."""
    global _gc_depth, _gc_reenable
    with _gc_lock:
        if _gc_depth == 0:
            _gc_reenable = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_reenable:
                gc.enable()


# --------------------------------------------------------------------------- SIMT kernels


def simt_key(kernel: Any, chip: str, features: str) -> str | None:
    """The disk-cache key of a `SimtKernel` for `chip`/`features`."""
    return kernel_key(
        "simt",
        kernel.fn,
        kernel.bindings,
        chip,
        features,
        kernel.checks,
        kernel.launch_bounds,
        repr(kernel.contract),
        kernel.fastmath,
        kernel.min_blocks_per_sm,
        *(() if kernel.assume_aligned else ("unaligned",)),
        *(("checks hold at launch",) if kernel.checks_hold else ()),
    )


def compile_simt(kernel: Any, chip: str = "sm_90", features: str = "") -> CompiledKernel:
    """Compile a `SimtKernel` (not generic: a specialization) to a `CompiledKernel`, through the disk
    cache. Raises `CompileError` for kernels that do not compile."""
    key = simt_key(kernel, chip, features)
    hit = _load(key)
    if hit is not None:
        return hit[0]
    with gc_paused():
        compiled = _compile_simt(kernel, chip, features, key or "")
    _store(key, compiled, {"model": "simt"})
    return compiled


def _compile_simt(kernel: Any, chip: str, features: str, key: str) -> CompiledKernel:
    from warpforge.backend.nvptx import LoopNotUnrolled

    try:
        return _compile_simt_once(kernel, chip, features, key, unroll_static=False)
    except LoopNotUnrolled:  # LLVM kept a simt.static_range loop: the frontend unrolls them all, as it used to
        return _compile_simt_once(kernel, chip, features, key, unroll_static=True)


def simt_param_specs(kir: Any, aligned: dict[int, int] | None = None) -> tuple[ParamSpec, ...]:
    """The run-time parameters of a SIMT kernel as the runtime checks its arguments (a `ParamSpec`
    each: slices of rank 1, TMA descriptors, scalars), from the frontend's output (`KernelIR.params`)
    alone: the same for every target, so they can be known before code generation. `aligned`
    (parameter index → bytes / multiple) adds what the compiled code relies on
    (`vectorize-global-access`'s `aligned_arguments`)."""
    from warpforge.frontend.annotations import SliceAnnotation, TensorMapAnnotation
    from warpforge.runtime.compiled import ParamSpec

    params: list[ParamSpec] = []
    for p in kir.params:
        if isinstance(p.annotation, SliceAnnotation):
            assert p.annotation.dtype is not None
            params.append(ParamSpec(p.name, p.annotation.kind, p.annotation.dtype.np, 1, align=(aligned or {}).get(len(params), 0)))
        elif isinstance(p.annotation, TensorMapAnnotation):
            ann = p.annotation
            params.append(ParamSpec(p.name, "tensor_map", ann.dtype.np, len(ann.box), box=ann.box, swizzle=ann.swizzle))
        else:
            params.append(ParamSpec(p.name, "scalar", p.annotation.np, 0, align=(aligned or {}).get(len(params), 0)))
    return tuple(params)


def _compile_simt_once(kernel: Any, chip: str, features: str, key: str, *, unroll_static: bool) -> CompiledKernel:
    from warpforge.errors import CompileError
    from warpforge.runtime.compiled import CompiledKernel, ErrorSite

    target = Target(chip, features)
    kir = kernel.kernel_ir(unroll_static=unroll_static)
    module = kir.module
    lower(module, "gpu", target, module_name=kir.symbol + "_module")
    # a kernel using an sm_90a-only op (wgmma, setmaxnreg) on an sm_90 device compiles for sm_90a
    from warpforge.backend.targets import module_target
    from warpforge.passes.check_nvvm_target import retarget_arch_specific

    if retarget_arch_specific(module, chip) != chip:
        chip, features = module_target(module) or (chip, features)
        target = Target(chip, features)
    sites = error_sites(module, kir.symbol)  # recorded by kernel-to-gpu on the gpu.func
    res = resources(module)
    if res.static_shared_bytes > 48 * 1024:
        raise CompileError(
            f"{kernel.__qualname__} needs {res.static_shared_bytes} bytes of static shared memory (its device functions "
            "included); a block has at most 49152 bytes (48 KiB): use simt.dynamic_shared(dtype) for more",
            filename=kir.source.filename,
            line=kir.source.first_line,
            col=1,
        )
    warn_if_large(
        kernel.__qualname__, res.ops, kir.source.filename, kir.source.first_line,
        "unroll less (fewer simt.static_range iterations) or move work into a loop",
    )  # fmt: skip
    aligned = aligned_arguments(module, kir.symbol)  # what the vector loads rely on (vectorize-global-access)
    condition = launch_condition(module, kir.symbol)  # hoist-checks' entry condition, when the host can decide it
    ptx = lower(module, "ptx", target, start="gpu", module_name=kir.symbol + "_module", ftz=kernel.fastmath is True, require_unrolled=not unroll_static)
    assert isinstance(ptx, str)
    params = simt_param_specs(kir, aligned)
    # the most restrictive requirement of the indices used (index_1d: y = z = 1; index_2d: z = 1)
    domain = min(d for d in kir.index_dims if d in (1, 2)) if kir.index_dims & {1, 2} else None
    contract = kernel.contract
    contract_domain = getattr(contract, "domain", None) if contract is not None else None
    if contract_domain is not None:
        domain = contract_domain if domain is None else min(domain, contract_domain)
    return CompiledKernel(
        name=kernel.__qualname__,
        entry=kir.symbol,
        ptx=ptx,
        chip=chip,
        params=params,
        checked=kernel.checks,
        error_sites=tuple(ErrorSite(s.id, s.kind, site_message(s), s.filename, s.line, s.col, s.operands) for s in sites),
        exact_block=tuple(contract.block) if contract is not None and contract.block is not None else None,
        max_threads=kernel.launch_bounds,
        index_domain=domain,
        static_shared_bytes=res.static_shared_bytes,
        cache_key=key,
        full_warps=res.full_warps,
        source=(kir.source.filename, kir.source.first_line),
        launch_condition=condition,
    )


def aligned_arguments(module: ModuleOp, symbol: str) -> dict[int, int]:
    """Argument position → what the `gpu.func` `symbol`'s code relies on: `llvm.align` bytes of a slice's
    pointer, or the `warpforge.divisibility` of an integer scalar (vectorize-global-access keeps only those)."""
    from xdsl.dialects.builtin import IntegerAttr

    from warpforge.dialects import gpu

    out: dict[int, int] = {}
    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == symbol and op.arg_attrs is not None:
            for i, attrs in enumerate(op.arg_attrs.data):
                align = attrs.data.get("llvm.align", attrs.data.get("warpforge.divisibility"))
                if isinstance(align, IntegerAttr):
                    out[i] = align.value.data
    return out


def launch_condition(module: ModuleOp, symbol: str) -> str:
    """`hoist-checks`' launch condition recorded on the `gpu.func` `symbol` (JSON), or ""."""
    from xdsl.dialects.builtin import StringAttr

    from warpforge.dialects import gpu

    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == symbol:
            attr = op.attributes.get("hoist_checks.launch_condition")
            return attr.data if isinstance(attr, StringAttr) else ""
    return ""


def check_stage(stage: object, model: str = "simt") -> None:
    """`UsageError` unless `stage` is a stage of `model`'s pipeline (`STAGES`, `TILE_STAGES`); the
    message lists them."""
    stages = MODEL_STAGES[model]
    if stage not in stages:
        what = f"'{stage}'" if isinstance(stage, str) else repr(stage)
        raise UsageError(f"unknown stage {what}: a {model} kernel's stages are {', '.join(stages)} (MLIR: {', '.join(s for s in stages if s not in ('ll', 'ptx'))}; ll: LLVM IR; ptx)")


def lower_simt(kernel: Any, stage: str, target: Target = Target(), *, debuginfo: bool = False) -> str:
    """A `SimtKernel` at `stage`, as text (`ptx` comes from `compile_simt`, so it is cached).
    `debuginfo`: MLIR stages print each op's `loc(...)`. An unknown stage is a `UsageError` listing them."""
    check_stage(stage, "simt")
    if stage == "ptx":
        return compile_simt(kernel, target.chip, target.features).ptx
    kir = kernel.kernel_ir()
    out = lower(kir.module, stage, target, module_name=kir.symbol + "_module", ftz=kernel.fastmath is True)
    return out if isinstance(out, str) else _print(out, debuginfo)


def _print(module: ModuleOp, debuginfo: bool) -> str:
    from warpforge.diagnostics import print_ir

    return print_ir(module, debuginfo=debuginfo)


# --------------------------------------------------------------------------- tile kernels


def tile_key(kernel: Any, spec: Any, chip: str, features: str) -> str | None:
    """The disk-cache key of a `TileKernel` for one specialization and `chip`/`features`."""
    return kernel_key("tile", kernel.fn, spec.key, chip, features, kernel.checks, kernel.num_warps, kernel.num_stages, kernel.min_blocks_per_sm)


def compile_tile(kernel: Any, spec: Any, chip: str = "sm_90", features: str = "") -> Any:
    """Compile a `TileKernel` for `spec` (a `tile_compile.Specialization`) to a `CompiledTileKernel`,
    through the disk cache. Raises `CompileError` for kernels that do not compile."""
    from warpforge.tile_compile import CompiledTileKernel

    key = tile_key(kernel, spec, chip, features)
    hit = _load(key)
    if hit is not None:
        compiled, meta = hit
        try:
            tile = meta["tile"]
            pairs = tuple((str(a), str(b)) for a, b in tile["like_pairs"])
            return CompiledTileKernel(compiled, int(tile["grid_param"]), int(tile["block"]), pairs, spec, int(tile.get("dynamic_shared", 0)))
        except (KeyError, TypeError, ValueError):
            pass  # an entry of another shape: compile again (and overwrite it)
    with gc_paused():
        result = _compile_tile(kernel, spec, chip, features, key or "")
    _store(key, result.kernel, {"model": "tile", "tile": {"grid_param": result.grid_param, "block": result.block, "like_pairs": [list(p) for p in result.like_pairs], "dynamic_shared": result.dynamic_shared}})
    return result


def _compile_tile(kernel: Any, spec: Any, chip: str, features: str, key: str) -> Any:
    from xdsl.dialects.builtin import ArrayAttr, IntegerAttr

    from warpforge.dialects import gpu
    from warpforge.runtime.compiled import CompiledKernel, ErrorSite, ParamSpec
    from warpforge.tile_compile import CompiledTileKernel, frontend

    target = Target(chip, features)
    kir = frontend(kernel, spec)
    module = kir.module
    lower(module, "gpu", target, model="tile", module_name=kir.symbol + "_module")
    block, shared, dynamic, checked = 0, 0, 0, False
    tma_of: list[int] = []
    boxes: list[tuple[tuple[int, ...], str]] = []
    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == kir.symbol:
            bs = op.known_block_size
            block = bs.get_values()[0] if bs is not None else 0
            sh = op.attributes.get("tile.shared_bytes")
            shared = sh.value.data if isinstance(sh, IntegerAttr) else 0
            dy = op.attributes.get("tile.dynamic_shared_bytes")
            dynamic = dy.value.data if isinstance(dy, IntegerAttr) else 0
            # a checked kernel with nothing to check gets no error record (tile-to-gpu drops it)
            # (a strided view takes 1 + rank + rank - 1 gpu.func arguments: its memref, extents, strides)
            taken = sum(2 * len(p.dims) if getattr(p, "strided", False) else 1 for p in kir.params)
            tma_params = op.attributes.get("tile.tma_params")  # tile-tma-ring's descriptors, after the kernel's own
            tma_of = [a.value.data for a in tma_params.data] if isinstance(tma_params, ArrayAttr) else []
            boxes = [(tuple(t.dims), t.swizzle.data) for t in op.function_type.inputs.data[taken : taken + len(tma_of)]]
            checked = len(op.function_type.inputs) > taken + len(tma_of)
    sites = error_sites(module, kir.symbol)
    filename, line = _source_line(kernel.fn)
    warn_if_large(kernel.__qualname__, resources(module).ops, filename, line, "use smaller tiles (partition into more tile blocks) or more warps (num_warps)")
    ptx = lower(module, "ptx", target, model="tile", start="gpu", module_name=kir.symbol + "_module")
    assert isinstance(ptx, str)
    kinds = {"partition": "disjoint_slice", "input": "slice", "atomic": "atomic_slice"}
    params = []
    for i, p in enumerate(kir.params):
        if p.kind == "scalar":
            params.append(ParamSpec(p.name, "scalar", p.dtype.np, 0))
        else:
            tma = tuple(b for b, of in zip(boxes, tma_of) if of == i)
            params.append(ParamSpec(p.name, kinds[p.kind], p.dtype.np, len(p.dims), getattr(p, "strided", False), tma=tma))
    compiled = CompiledKernel(
        name=kernel.__qualname__,
        entry=kir.symbol,
        ptx=ptx,
        chip=chip,
        params=tuple(params),
        checked=checked,
        error_sites=tuple(ErrorSite(s.id, s.kind, site_message(s), s.filename, s.line, s.col, s.operands) for s in sites),
        exact_block=(block, 1, 1),
        max_threads=None,
        index_domain=None,
        static_shared_bytes=shared,
        cache_key=key,
        source=(filename, line),
    )
    grid = next(i for i, p in enumerate(kir.params) if p.kind == "partition")
    return CompiledTileKernel(compiled, grid, block, kir.like_pairs, spec, dynamic)


def lower_tile(kernel: Any, spec: Any, stage: str, target: Target = Target(), *, debuginfo: bool = False) -> str:
    """A `TileKernel` for `spec` at `stage`, as text (`ptx` comes from `compile_tile`, so it is cached).
    `debuginfo`: MLIR stages print each op's `loc(...)`."""
    from warpforge.tile_compile import frontend

    check_stage(stage, "tile")
    if stage == "ptx":
        return compile_tile(kernel, spec, target.chip, target.features).kernel.ptx
    kir = frontend(kernel, spec)
    out = lower(kir.module, stage, target, model="tile", module_name=kir.symbol + "_module")
    return out if isinstance(out, str) else _print(out, debuginfo)


def _source_line(fn: Any) -> tuple[str, int]:
    try:
        _, line = inspect.getsourcelines(fn)
        return inspect.getsourcefile(fn) or "<unknown>", line
    except (OSError, TypeError):
        return "<unknown>", 0
