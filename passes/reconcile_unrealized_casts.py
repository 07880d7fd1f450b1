"""`reconcile-unrealized-casts`: xDSL's removal of `builtin.unrealized_conversion_cast` chains that
cancel out (MLIR's `reconcile-unrealized-casts`), with less bookkeeping per op.

The pattern is xDSL 0.75's (`ReconcileUnrealizedCastsPattern`, warning on a chain it cannot remove,
as xDSL's pass does), walked as xDSL walks it (to a fixpoint, no dead-code erasure); only the casts
are offered to it (`TypedPatternApplier` without DCE) and the walker is `FastRewriteWalker`, so the
IR is the one xDSL's pass leaves (tests/test_compile_speed.py).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from warpforge.rewriting import FastRewriteWalker, TypedPatternApplier


class ReconcileUnrealizedCastsPass(ModulePass):
    """Remove chains of `builtin.unrealized_conversion_cast` whose ends have the same types (xDSL's pattern)."""

    name = "reconcile-unrealized-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = ReconcileUnrealizedCastsPattern(warn_on_failure=True)
        FastRewriteWalker(TypedPatternApplier([pattern], dce_enabled=False)).rewrite_module(op)
