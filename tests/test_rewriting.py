"""`TypedPatternApplier`: the same rewrites as xDSL's greedy applier, offering each op only to the
patterns whose `@op_type_rewrite_pattern` signature accepts its type."""

from __future__ import annotations

from xdsl.dialects import arith
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp, UnitAttr
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


NESTED = """
func.func @g(%c: i1, %a: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.addi %a, %a : i32
    %d = arith.muli %a, %a : i32
    scf.yield %x : i32
  } else {
    %y = arith.subi %a, %a : i32
    scf.yield %y : i32
  }
  "test.store"(%r) : (i32) -> ()
  func.return %r : i32
}
"""


def _nested() -> ModuleOp:
    from warpforge.context import make_context
    from warpforge.diagnostics import parse_mlir

    return parse_mlir(make_context(allow_unregistered=True), NESTED, "<nested>")


def test_walk_ops_gives_walk_order() -> None:
    """`walk_ops` (one loop over the blocks) lists the ops `walk()` yields, in the same order, from a
    module, a region and a block; `ops_of_dialect` is its filter on the name's dialect prefix."""
    from warpforge.rewriting import dialect_of, ops_of_dialect, walk_ops

    module = _nested()
    assert walk_ops(module) == list(module.walk())
    assert walk_ops(module.body) == list(module.body.walk())
    assert walk_ops(module.body.block) == list(module.body.block.walk())
    assert [op.name for op in ops_of_dialect(module, "arith")] == ["arith.addi", "arith.muli", "arith.subi"]
    assert ops_of_dialect(module, "func") == [op for op in module.walk() if dialect_of(op) == "func"] != []


def test_is_dead_is_xdsls_answer() -> None:
    """`is_dead` / `dead_if_unused` (the class-level part remembered per op class) answer as xDSL's
    `is_trivially_dead` / `would_be_trivially_dead` for every op of kernels at every MLIR stage: pure
    ops with and without uses, stores, terminators, symbols, and ops whose effects are those of their
    regions (`scf.if`, `scf.for`), an unregistered op."""
    from xdsl.transforms.dead_code_elimination import is_trivially_dead, would_be_trivially_dead

    import warpforge.compile as C
    from warpforge.driver.cli import _kernels, _load_file
    from warpforge.rewriting import dead_if_unused, is_dead
    from warpforge.tile_compile import frontend

    ops = list(_nested().walk())
    root = Path(__file__).resolve().parent.parent / "examples"
    for example in ("sgemm.py", "softmax.py", "histogram.py"):
        kernel = next(iter(_kernels(_load_file(str(root / example))).values()))
        for stage in ("kernel", "gpu", "nvvm", "llvm"):
            if type(kernel).__name__ == "TileKernel":
                kir, model = frontend(kernel, kernel.specialize(kernel._aot[0])), "tile"
            else:
                kir, model = kernel.kernel_ir(), "simt"
            module = C.lower(kir.module, stage, model=model, module_name=kir.symbol + "_module")
            ops += list(module.walk())
    names = {op.name for op in ops}
    assert {"scf.if", "scf.for", "memref.store", "func.return", "builtin.unregistered", "llvm.func", "llvm.store"} <= names
    dead = [op for op in ops if is_trivially_dead(op)]
    assert dead and len(dead) < len(ops)
    for op in ops:
        assert is_dead(op) == is_trivially_dead(op), op.name
        assert dead_if_unused(op) == would_be_trivially_dead(op), op.name


def test_table_patterns_declare_their_tables() -> None:
    """A table-driven pattern's `OP_TYPES` are its table's keys, so `TypedPatternApplier` offers it
    every op its table lowers (and no other)."""
    from warpforge.passes import convert_arith_to_llvm as A, convert_math_to_llvm as M

    pairs = [
        (A.ConvertIntOverflowOp, A.INT_OVERFLOW_OPS), (A.ConvertIntOp, A.INT_OPS), (A.ConvertFloatOp, A.FLOAT_OPS),
        (A.ConvertMinMaxOp, A.MINMAX_OPS), (A.ConvertCastOp, A.CASTS), (A.ConvertSaturatingCastOp, A.SATURATING_CASTS),
        (M.ConvertLibdeviceOp, M.LIBDEVICE), (M.ConvertIntrinsicOp, M.INTRINSICS), (M.ConvertCallIntrinsicOp, M.CALL_INTRINSICS),
    ]  # fmt: skip
    for pattern, table in pairs:
        assert set(_accepted_types(pattern()) or ()) == set(table) != set(), pattern.__name__
