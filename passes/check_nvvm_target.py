"""`check-nvvm-target`: every `nvvm` op must exist on its `gpu.module`'s chip and PTX version.

An analysis, not a rewrite: for each `gpu.module`, the first `#nvvm.target<chip = "sm_XX", features =
"+ptxNN">` gives the compute capability and PTX ISA version (no target: sm_90 / PTX 8.0, the PTX
emitter's default). Each `nvvm` op's catalog row (`warpforge.dialects.nvvm_catalog`) gives `min_sm` /
`min_ptx`; an op above the target is an error naming the op, its location, what it needs and what
the module targets:

    k.py:4:7: 'nvvm.redux.sync.add' needs sm_80 and PTX 7.0, but gpu.module @m targets sm_75 (PTX 6.3)

This is the guard DESIGN.md asks for: LLVM's NVPTX backend aborts the whole process
(`LLVM ERROR: Cannot select`) on an instruction the chip lacks, so it must never see one. MLIR checks
the same requirement with the NVVM ops' `NVVMRequiresSM` trait at verification time.

A float type PTX lacks (f80, f128) is refused at the first op using it (`check_types`).

Atomics are checked against the catalog's `ATOM_OPS` rows (the chip and PTX version that first have
the instruction natively; LLVM would otherwise emulate it with a compare-and-swap loop without
saying so): `nvvm.atomicrmw` with its `.sem` and `.scope` qualifiers (`ATOM_SEMANTICS`,
`ATOM_SCOPES`: sm_60 for `.cta`/`.sys`, sm_70 for `.acquire`/…, sm_90 for `.cluster`), and the
atomics LLVM lowers (`memref.atomic_rmw`, `gpu.atomic_cmpxchg`, `gpu.atomic_add_pair`) with their
`syncscope` / `ordering` attributes against the chips that have scoped and ordered atomics.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xdsl.dialects.builtin import ArrayAttr

from warpforge.dialects import gpu, nvvm
from warpforge.dialects.arith import AtomicRMWKind
from warpforge.dialects.nvvm import CvtRnX2F32Op, MBarrierWaitParityOp, NVVMIntrinsicOp, NVVMTargetAttr, WgmmaMmaAsyncBase, WgmmaWaitAccumulatorsOp, ptx_number
from warpforge.dialects.nvvm_catalog import ATOM_OPS, ATOM_SCOPES, ATOM_SEMANTICS, atom_instruction
from warpforge.rewriting import fail, walk_ops

DEFAULT_TARGET = NVVMTargetAttr("sm_90", "+ptx80")
"""What a `gpu.module` without an `#nvvm.target` is compiled for (the PTX emitter's default)."""


def _ptx(version: int) -> str:
    return f"{version // 10}.{version % 10}"


def check_ops(root: Operation, target: NVVMTargetAttr, what: str) -> None:
    """Raise `LoweringError` at the first `nvvm` op under `root` that `target` cannot run.

    `what` names the target's owner in the message (`gpu.module @m`)."""
    for op in walk_ops(root):
        spec = getattr(type(op), "SPEC", None)
        # SPEC first: isinstance against these abstract bases is slow for the many op types that are
        # not theirs (the ABC check searches every subclass once per type)
        if spec is None or not isinstance(op, NVVMIntrinsicOp | WgmmaMmaAsyncBase | MBarrierWaitParityOp | WgmmaWaitAccumulatorsOp | CvtRnX2F32Op):
            continue
        # an arch-specific op (wgmma, setmaxnreg) needs exactly sm_XXa: sm_90 lacks it and LLVM aborts
        arch_ok = not spec.arch_specific or (target.arch_specific and target.sm == spec.min_sm)
        if spec.min_sm > target.sm or spec.min_ptx > target.ptx or not arch_ok:
            fail(
                op,
                f"needs {spec.sm} and PTX {spec.ptx_version}, but {what} targets {target.chip.data} (PTX {_ptx(target.ptx)})",
            )


def needs_arch_specific(root: Operation) -> bool:
    """True when an op under `root` exists only on an architecture-specific chip (`sm_90a`): the
    runtime then compiles for `sm_90a` on a compute-capability-9.0 device (see `arch_specific_chip`)."""
    return any(getattr(getattr(type(op), "SPEC", None), "arch_specific", False) for op in root.walk())


def arch_specific_chip(chip: str, root: Operation) -> str:
    """The chip to compile `root` for on a device whose chip is `chip`: `sm_90` → `sm_90a` when the
    module uses an `sm_90a`-only `nvvm` op (wgmma, setmaxnreg; catalog `arch_specific`), else `chip`
    unchanged — other chips are left to `check-nvvm-target` to refuse."""
    if chip == "sm_90" and needs_arch_specific(root):
        return "sm_90a"
    return chip


def retarget_arch_specific(module: Operation, chip: str) -> str:
    """Apply `arch_specific_chip` to a gpu-level module: rewrite every `gpu.module`'s
    `#nvvm.target` chip to the arch-specific one when needed. Returns the chip to compile for."""
    new_chip = arch_specific_chip(chip, module)
    if new_chip == chip:
        return chip
    for op in module.walk():
        if isinstance(op, gpu.ModuleOp) and isinstance(op.target, NVVMTargetAttr) and op.target.chip.data == chip:
            t = op.target
            features = t.features.data if (ptx_number(t.features.data) or 0) >= 80 else "+ptx80"
            op.targets = ArrayAttr([NVVMTargetAttr(new_chip, features, t.O.data)])
    return new_chip


def _atomic_requirement(op: Operation) -> tuple[str, int, int] | None:
    """(what, min SM, min PTX) of an atomic op's instruction, from the `nvvm` catalog; None: any chip."""
    from xdsl.dialects import memref

    if isinstance(op, nvvm.AtomicRMWOp):
        spec, sem, scope = op.spec, ATOM_SEMANTICS[op.sem.data], ATOM_SCOPES[op.scope.data]
        text = atom_instruction(spec, op.sem.data, op.scope.data, op.space).split(" $0")[0]
        return f"({text})", max(spec.min_sm, sem.min_sm, scope.min_sm), max(spec.min_ptx, sem.min_ptx, scope.min_ptx)
    if isinstance(op, gpu.AtomicAddPairOp):
        row = ATOM_OPS[("fadd", f"vector<2x{op.lo.type}>")]
        return f"(an atomic add of an {op.lo.type}x2 pair)", row.min_sm, 0
    if isinstance(op, memref.AtomicRMWOp):
        try:
            row = ATOM_OPS.get((AtomicRMWKind.of(op).llvm_op, str(op.value.type)))  # pyright: ignore[reportArgumentType]
        except ValueError:
            return None
        if row is not None:
            return f"(an atomic {row.op.removeprefix('f')} of {op.value.type})", row.min_sm, 0
    return None


SCOPED_ATOMICS_SM = ATOM_SCOPES["cta"].min_sm
"""`.cta`/`.sys` scopes on atomics (PTX ISA: `atom{.scope}` requires sm_60)."""
ORDERED_ATOMICS_SM = ATOM_SEMANTICS["acquire"].min_sm
"""`.acquire`/`.release`/`.acq_rel` on atomics (PTX ISA: `atom{.sem}` requires sm_70)."""


def check_atomics(root: Operation, target: NVVMTargetAttr, what: str) -> None:
    """Raise `LoweringError` at the first atomic under `root` that `target` lacks."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import StringAttr

    for op in walk_ops(root):
        if not isinstance(op, memref.AtomicRMWOp | gpu.AtomicCmpxchgOp | gpu.AtomicAddPairOp | nvvm.AtomicRMWOp):
            continue
        need = _atomic_requirement(op)
        if need is not None and (target.sm < need[1] or target.ptx < need[2]):
            ptx = f" and PTX {_ptx(need[2])}" if need[2] > target.ptx else ""
            fail(op, f"{need[0]} needs sm_{need[1]}{ptx}, but {what} targets {target.chip.data} (PTX {_ptx(target.ptx)})")
        if isinstance(op, nvvm.AtomicRMWOp):
            continue
        scope = op.attributes.get("syncscope")
        if isinstance(scope, StringAttr) and scope.data in ("block", "system") and target.sm < SCOPED_ATOMICS_SM:
            fail(op, f"with scope '{scope.data}' needs sm_{SCOPED_ATOMICS_SM}, but {what} targets {target.chip.data} (device scope only)")
        ordering = op.attributes.get("ordering")
        if isinstance(ordering, StringAttr) and ordering.data not in ("relaxed",) and target.sm < ORDERED_ATOMICS_SM:
            fail(op, f"with ordering '{ordering.data}' needs sm_{ORDERED_ATOMICS_SM}, but {what} targets {target.chip.data} (relaxed only)")


def check_types(root: Operation) -> None:
    """A float type PTX has no form of (f80, f128; also as a memref's or vector's element) is an error
    at the first op using it: PTX's floating-point types are f16, bf16, f32 and f64 (PTX ISA §5.2.2,
    "Fundamental Types"); LLVM's NVPTX backend cannot lower them."""
    from xdsl.dialects.builtin import Float80Type, Float128Type, MemRefType, VectorType

    checked: dict[int, tuple[object, object | None]] = {}  # id(type) -> (the type, held; what is bad in it)

    def bad(t: object) -> object | None:
        hit = checked.get(id(t))
        if hit is not None:
            return hit[1]
        inner = t.element_type if isinstance(t, MemRefType | VectorType) else t
        found = inner if isinstance(inner, Float80Type | Float128Type) else None
        checked[id(t)] = (t, found)
        return found

    for op in walk_ops(root):
        for v in (*op.operands, *op.results):  # (a function argument is caught at the op that uses it)
            t = bad(v.type)
            if t is not None:
                fail(op, f"uses {t}, which PTX has no type for (its floats are f16, bf16, f32 and f64)")


class CheckNVVMTargetPass(ModulePass):
    """Reject `nvvm` ops that the `gpu.module`'s `#nvvm.target` chip or PTX version lacks."""

    name = "check-nvvm-target"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        modules = [m for m in walk_ops(op) if isinstance(m, gpu.ModuleOp)]
        check_types(op)
        for module in modules:
            target = module.target if isinstance(module.target, NVVMTargetAttr) else DEFAULT_TARGET
            check_ops(module, target, f"gpu.module @{module.sym_name.data}")
            check_atomics(module, target, f"gpu.module @{module.sym_name.data}")
        if not modules:  # device code outside any gpu.module (hand-written IR): the emitter's default
            check_ops(op, DEFAULT_TARGET, "the default target")
            check_atomics(op, DEFAULT_TARGET, "the default target")
