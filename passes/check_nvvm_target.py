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

Atomics (`memref.atomic_rmw`, `gpu.atomic_cmpxchg`) are checked against `ATOMIC_MIN_SM` (the chip
that first has the instruction natively; LLVM would otherwise emulate it with a compare-and-swap loop
without saying so), and their `syncscope` / `ordering` attributes against the chips that have
scoped atomics (sm_60: `.cta`, `.sys`) and memory-ordering qualifiers (sm_70: `.acquire`, …).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from warpforge.dialects import gpu
from xdsl.dialects.builtin import ArrayAttr

from warpforge.dialects.nvvm import NVVMIntrinsicOp, NVVMTargetAttr, WgmmaMmaAsyncOp, ptx_number
from warpforge.rewriting import fail

DEFAULT_TARGET = NVVMTargetAttr("sm_90", "+ptx80")
"""What a `gpu.module` without an `#nvvm.target` is compiled for (the PTX emitter's default)."""


def _ptx(version: int) -> str:
    return f"{version // 10}.{version % 10}"


def check_ops(root: Operation, target: NVVMTargetAttr, what: str) -> None:
    """Raise `LoweringError` at the first `nvvm` op under `root` that `target` cannot run.

    `what` names the target's owner in the message (`gpu.module @m`)."""
    for op in root.walk():
        spec = getattr(type(op), "SPEC", None)
        if not isinstance(op, NVVMIntrinsicOp | WgmmaMmaAsyncOp) or spec is None:
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


ATOMIC_MIN_SM: dict[tuple[int, str], int] = {
    (0, "f64"): 60,   # addf: atom.add.f64
    (0, "f16"): 70,   # atom.add.noftz.f16
    (0, "bf16"): 90,  # atom.add.noftz.bf16
}
"""(`memref.atomic_rmw` kind, element type) → the first SM with the instruction (PTX ISA §9.7.13.5)."""

SCOPED_ATOMICS_SM = 60
"""`.cta`/`.sys` scopes on atomics (PTX ISA: `atom{.scope}` requires sm_60)."""
ORDERED_ATOMICS_SM = 70
"""`.acquire`/`.release`/`.acq_rel` on atomics (PTX ISA: `atom{.sem}` requires sm_70)."""


def check_atomics(root: Operation, target: NVVMTargetAttr, what: str) -> None:
    """Raise `LoweringError` at the first atomic under `root` that `target` lacks."""
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import StringAttr

    for op in root.walk():
        if not isinstance(op, memref.AtomicRMWOp | gpu.AtomicCmpxchgOp | gpu.AtomicAddPairOp):
            continue
        if isinstance(op, gpu.AtomicAddPairOp):
            elem = str(op.lo.type)
            need = 60 if elem == "f16" else 90
            if target.sm < need:
                fail(op, f"(an atomic add of an {elem}x2 pair) needs sm_{need}, but {what} targets {target.chip.data}")
        if isinstance(op, memref.AtomicRMWOp):
            elem = str(op.value.type)
            need = ATOMIC_MIN_SM.get((op.kind.value.data, elem))
            if need is not None and target.sm < need:
                fail(op, f"(an atomic add of {elem}) needs sm_{need}, but {what} targets {target.chip.data}")
        scope = op.attributes.get("syncscope")
        if isinstance(scope, StringAttr) and scope.data in ("block", "system") and target.sm < SCOPED_ATOMICS_SM:
            fail(op, f"with scope '{scope.data}' needs sm_{SCOPED_ATOMICS_SM}, but {what} targets {target.chip.data} (device scope only)")
        ordering = op.attributes.get("ordering")
        if isinstance(ordering, StringAttr) and ordering.data not in ("relaxed",) and target.sm < ORDERED_ATOMICS_SM:
            fail(op, f"with ordering '{ordering.data}' needs sm_{ORDERED_ATOMICS_SM}, but {what} targets {target.chip.data} (relaxed only)")


class CheckNVVMTargetPass(ModulePass):
    """Reject `nvvm` ops that the `gpu.module`'s `#nvvm.target` chip or PTX version lacks."""

    name = "check-nvvm-target"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        modules = [m for m in op.walk() if isinstance(m, gpu.ModuleOp)]
        for module in modules:
            target = module.target if isinstance(module.target, NVVMTargetAttr) else DEFAULT_TARGET
            check_ops(module, target, f"gpu.module @{module.sym_name.data}")
            check_atomics(module, target, f"gpu.module @{module.sym_name.data}")
        if not modules:  # device code outside any gpu.module (hand-written IR): the emitter's default
            check_ops(op, DEFAULT_TARGET, "the default target")
            check_atomics(op, DEFAULT_TARGET, "the default target")
