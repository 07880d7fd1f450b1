"""`convert-cf-to-llvm`: `cf.br`, `cf.cond_br` and `cf.switch` → `llvm.br`, `llvm.cond_br`, `llvm.switch`.

Mirrors MLIR's `convert-cf-to-llvm`. Block arguments carry over unchanged (they become PHIs when
exported). `llvm.switch` in warpforge's `llvm` dialect passes no successor operands, so a
`cf.switch` case (or default) that passes values goes through a new block of its own that
branches on with them:

    cf.switch %x : i32, [default: ^d(%a : f32), 3: ^b]
    →  llvm.switch %x : i32, ^d_fwd [3: ^b]      ^d_fwd: llvm.br ^d(%a : f32)

Not lowered (a diagnostic naming the op): `cf.assert` (checked-mode errors are reported through
the error record, never by trapping).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint

from warpforge.dialects.llvm import SwitchOp
from warpforge.rewriting import OneSweepWalker, fail, ops_of_dialect
from warpforge.rewriting import inherit_location, replace_op
from warpforge.rewriting import TypedPatternApplier


@dataclass
class ConvertBranchOp(RewritePattern):
    """`cf.br ^bb(%args)` → `llvm.br ^bb(%args)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter, /):
        new = llvm.BrOp(op.successor, *op.arguments)
        new.attributes.update({k: v for k, v in op.attributes.items() if k.startswith("llvm.")})  # a latch's loop metadata
        replace_op(rewriter, op, new)


BRANCH_WEIGHTS = "branch_weights"
"""`array<i32: then, else>` on `cf.cond_br`/`llvm.cond_br`: how likely each successor is (MLIR's attribute of
that name; LLVM `!prof !{!"branch_weights", i32 then, i32 else}`)."""


@dataclass
class ConvertCondBranchOp(RewritePattern):
    """`cf.cond_br %c, ^t(%a), ^f(%b)` → `llvm.cond_br` with the same successors and operands."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter, /):
        new = llvm.CondBrOp(op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments)
        if BRANCH_WEIGHTS in op.attributes:  # MLIR's `branch_weights` (then, else), exported as `!prof` metadata
            new.attributes[BRANCH_WEIGHTS] = op.attributes[BRANCH_WEIGHTS]
        replace_op(rewriter, op, new)


@dataclass
class ConvertSwitchOp(RewritePattern):
    """`cf.switch` → `llvm.switch`, through a forwarding block for each destination that takes values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.SwitchOp, rewriter: PatternRewriter, /):
        if not isinstance(op.flag.type, IntegerType):
            fail(op, f"switches on {op.flag.type}; run convert-index-to-llvm first")
        block = op.parent_block()
        assert block is not None

        def target(dest: Block, operands: tuple[SSAValue, ...]) -> Block:
            if not operands:
                return dest
            forward = rewriter.create_block(BlockInsertPoint.after(block))
            branch = llvm.BrOp(dest, *operands)
            inherit_location([branch], op)
            rewriter.insert(branch, InsertPoint.at_end(forward))
            return forward

        default = target(op.default_block, tuple(op.default_operands))
        values = op.case_values.get_values() if op.case_values is not None else ()
        cases = [(int(v), target(dest, tuple(args))) for v, dest, args in zip(values, op.case_blocks, op.case_operand)]
        replace_op(rewriter, op, SwitchOp(op.flag, default, cases))


class ConvertCfToLLVMPass(ModulePass):
    """Lower cf.br, cf.cond_br and cf.switch (block arguments included) to llvm branches."""

    name = "convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier([ConvertBranchOp(), ConvertCondBranchOp(), ConvertSwitchOp()])
        ).rewrite_module(op)
        leftovers = ops_of_dialect(op, "cf")
        for inner in leftovers:
            fail(inner, "has no lowering to the llvm dialect")
