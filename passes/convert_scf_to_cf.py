"""`convert-scf-to-cf`: xDSL's lowering of `scf.if`, `scf.for` and `scf.index_switch` to `cf`
branches (MLIR's `convert-scf-to-cf`), with less bookkeeping per op.

The patterns are xDSL 0.75's (`xdsl.transforms.convert_scf_to_cf`: `IfLowering`, `ForLowering`,
`SwitchLowering`), applied as xDSL's pass applies them: a greedy applier (dead ops erased first) and
walks repeated until one changes nothing. `warpforge.rewriting.TypedPatternApplier` offers each op
only to the pattern of its type, and `FastRewriteWalker` keeps xDSL's order and fixpoint with a
cheaper worklist, so the IR is the one xDSL's pass leaves (tests/test_compile_speed.py).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

from warpforge.rewriting import FastRewriteWalker, TypedPatternApplier


class ConvertScfToCfPass(ModulePass):
    """Lower `scf.if`, `scf.for` and `scf.index_switch` to unstructured `cf` control flow (xDSL's patterns)."""

    name = "convert-scf-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        FastRewriteWalker(TypedPatternApplier([SwitchLowering(), IfLowering(), ForLowering()])).rewrite_module(op)
