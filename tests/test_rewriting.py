"""`TypedPatternApplier`: the same rewrites as xDSL's greedy applier, offering each op only to the
patterns whose `@op_type_rewrite_pattern` signature accepts its type."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern

from warpforge.context import parse_module
from warpforge.rewriting import TypedPatternApplier, _accepted_types  # pyright: ignore[reportPrivateUsage]

IR = """
func.func @f(%a: i32, %b: i32, %x: f32) -> (i32, i32, f32) {
  %s = arith.addi %a, %b : i32
  %m = arith.muli %s, %b : i32
  %t = arith.subi %m, %a : i32
  %y = arith.addf %x, %x : f32
  func.return %t, %m, %y : i32, i32, f32
}
"""


class AddToSub(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter, /):
        if "from_mul" not in op.attributes:
            new = arith.SubiOp(op.lhs, op.rhs)
            new.attributes["from_add"] = UnitAttr()
            rewriter.replace(op, new)


class MulOrSubToAdd(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp | arith.SubiOp, rewriter: PatternRewriter, /):
        if "from_add" not in op.attributes:
            new = arith.AddiOp(op.lhs, op.rhs)
            new.attributes["from_mul"] = UnitAttr()
            rewriter.replace(op, new)


class FloatByName(RewritePattern):  # not typed: offered every op
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if op.name == "arith.addf":
            rewriter.replace(op, arith.MulfOp(op.operands[0], op.operands[1]))


def rewrite(applier_type: type) -> tuple[str, dict[str, int]]:
    module = parse_module(IR)
    patterns = [AddToSub(), MulOrSubToAdd(), FloatByName()]
    calls = {type(p).__name__: 0 for p in patterns}
    for p in patterns:
        inner = p.match_and_rewrite

        def counted(op, rewriter, inner=inner, name=type(p).__name__):
            calls[name] += 1
            inner(op, rewriter)

        p.match_and_rewrite = counted  # the applier reads the types from the class, calls the instance
    PatternRewriteWalker(applier_type(patterns)).rewrite_module(module)
    return str(module), calls


def test_accepted_types_come_from_the_signature() -> None:
    assert _accepted_types(AddToSub()) == (arith.AddiOp,)
    assert _accepted_types(MulOrSubToAdd()) == (arith.MuliOp, arith.SubiOp)
    assert _accepted_types(FloatByName()) is None


def test_same_result_as_the_greedy_applier_with_fewer_calls() -> None:
    greedy, greedy_calls = rewrite(GreedyRewritePatternApplier)
    typed, typed_calls = rewrite(TypedPatternApplier)
    assert typed == greedy
    assert "arith.mulf" in typed and "arith.addf" not in typed and "arith.muli" not in typed
    assert typed.count("from_add") == 1 and typed.count("from_mul") == 2
    assert typed_calls["FloatByName"] == greedy_calls["FloatByName"]  # untyped: offered the same ops
    assert typed_calls["AddToSub"] < greedy_calls["AddToSub"]
    assert typed_calls["MulOrSubToAdd"] < greedy_calls["MulOrSubToAdd"]
