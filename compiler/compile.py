"""The compilation pipeline as stages, from the frontend's `kernel` module to PTX.

| stage | what | produced by |
|---|---|---|
| `kernel` | the `kernel` dialect (Python semantics) | the frontend |
| `gpu` | gpu/arith/math/scf/cf/memref/func in a `gpu.module` | `lower-kernel-control-flow`, `kernel-to-gpu` |
| `nvvm` | special registers and barriers as `nvvm` ops, checked against the target | `convert-gpu-to-nvvm`, `check-nvvm-target` |
| `llvm` | the `llvm` dialect | the rest of `gpu-to-llvm` |
| `ll` | LLVM IR text (`nvptx64-nvidia-cuda`) | `warpforge.backend.export` |
| `ptx` | PTX text, O3, libdevice linked when used | `warpforge.backend.nvptx` |

Every stage is MLIR text that `warpforge-opt` parses and resumes from.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, StringAttr

from warpforge.backend.export import export_llvm_ir
from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
from warpforge.pipelines import GPU_TO_LLVM, run_pipeline

STAGES = ("kernel", "gpu", "nvvm", "llvm", "ll", "ptx")

COMPILER_VERSION = "warpforge-0.1.0"
"""Part of every cache key: a new compiler never reuses an old compiler's PTX."""


def _gpu_passes(chip: str, features: str, module: str) -> str:
    return f'lower-kernel-control-flow,inline-device-functions,kernel-to-gpu{{chip={chip} features="{features}" module={module}}},canonicalize,cse'


def _nvvm_passes() -> str:
    return "convert-gpu-to-nvvm,check-nvvm-target"


def _llvm_passes() -> str:
    rest = GPU_TO_LLVM[GPU_TO_LLVM.index("check-nvvm-target") + 1 :]
    return ",".join(rest)


@dataclass(frozen=True)
class Target:
    """What to compile for: an `sm_XX` chip and a `+ptxNN` feature string."""

    chip: str = "sm_90"
    features: str = "+ptx80"


def lower(
    module: ModuleOp, until: str, target: Target = Target(), *, module_name: str = "kernels", start: str = "kernel"
) -> ModuleOp | str:
    """Lower a module (modified in place) from stage `start` through the stages up to `until`.

    Returns the module for MLIR stages (`kernel`, `gpu`, `nvvm`, `llvm`) and text for `ll` and `ptx`.
    """
    from warpforge.errors import UsageError

    if until not in STAGES or start not in STAGES[:4]:
        raise UsageError(f"unknown stage '{until}' or start '{start}', expected one of {', '.join(STAGES)}")
    if STAGES.index(until) < STAGES.index(start):
        raise UsageError(f"cannot lower from '{start}' back to '{until}'")
    if until == start:
        return module
    steps = (
        ("gpu", lambda: _gpu_passes(target.chip, target.features, module_name)),
        ("nvvm", _nvvm_passes),
        ("llvm", _llvm_passes),
    )
    for stage, passes in steps:
        if STAGES.index(stage) > STAGES.index(start):
            run_pipeline(module, passes(), verify_each=False)  # verified once per stage
        if until == stage:
            return module
    llvm_ir = str(export_llvm_ir(module))
    if until == "ll":
        return llvm_ir
    return compile_ptx(llvm_ir, NVPTXOptions(chip=target.chip, features=target.features))


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


WARP_COLLECTIVES = frozenset({"gpu.shuffle", "gpu.subgroup_reduce", "gpu.vote", "gpu.ballot", "gpu.match_any"})
"""gpu-level ops that need every lane of the warp (full-mask `shfl/vote/redux/match.sync`)."""


@dataclass(frozen=True)
class Resources:
    """What a gpu-level module asks of a launch: static shared memory (bytes per block, each array
    16-byte aligned as the PTX declares it) and whether it needs whole warps."""

    static_shared_bytes: int
    full_warps: bool


def resources(module: ModuleOp) -> Resources:
    """The `Resources` of a gpu-level module (after `kernel-to-gpu`)."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import IntegerType, MemRefType

    shared = 0
    full_warps = False
    for op in module.walk():
        if isinstance(op, memref.GlobalOp) and isinstance(op.type, MemRefType):
            space = op.type.memory_space
            if isinstance(space, IntegerAttr) and space.value.data == 3:
                elem = op.type.element_type
                size = max(1, (elem.width.data if isinstance(elem, IntegerType) else elem.bitwidth) // 8)  # pyright: ignore[reportAttributeAccessIssue]
                count = 1
                for d in op.type.get_shape():
                    count *= d
                shared += -(-size * count // 16) * 16
        elif op.name in WARP_COLLECTIVES:
            full_warps = True
    return Resources(shared, full_warps)


def closure_fingerprint(fn: object) -> tuple[tuple[str, str], ...]:
    """The compile-time values a kernel's source reads from outside it (closure variables and globals
    that are numbers, strings or dtypes), so kernels made by one factory with different constants get
    different cache keys."""
    import inspect

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


def cache_key(*parts: object) -> str:
    """A stable hash of the parts (source, signature, chip, options) and the compiler version."""
    h = hashlib.sha256(COMPILER_VERSION.encode())
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:32]
