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
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from warpforge.dialects import gpu
from warpforge.dialects.nvvm import NVVMIntrinsicOp, NVVMTargetAttr
from warpforge.rewriting import fail

DEFAULT_TARGET = NVVMTargetAttr("sm_90", "+ptx80")
"""What a `gpu.module` without an `#nvvm.target` is compiled for (the PTX emitter's default)."""


def _ptx(version: int) -> str:
    return f"{version // 10}.{version % 10}"


def check_ops(root: Operation, target: NVVMTargetAttr, what: str) -> None:
    """Raise `LoweringError` at the first `nvvm` op under `root` that `target` cannot run.

    `what` names the target's owner in the message (`gpu.module @m`)."""
    for op in root.walk():
        if not isinstance(op, NVVMIntrinsicOp):
            continue
        spec = type(op).SPEC
        if spec.min_sm > target.sm or spec.min_ptx > target.ptx:
            fail(
                op,
                f"needs {spec.sm} and PTX {spec.ptx_version}, but {what} targets {target.chip.data} (PTX {_ptx(target.ptx)})",
            )


class CheckNVVMTargetPass(ModulePass):
    """Reject `nvvm` ops that the `gpu.module`'s `#nvvm.target` chip or PTX version lacks."""

    name = "check-nvvm-target"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        modules = [m for m in op.walk() if isinstance(m, gpu.ModuleOp)]
        for module in modules:
            target = module.target if isinstance(module.target, NVVMTargetAttr) else DEFAULT_TARGET
            check_ops(module, target, f"gpu.module @{module.sym_name.data}")
        if not modules:  # device code outside any gpu.module (hand-written IR): the emitter's default
            check_ops(op, DEFAULT_TARGET, "the default target")
