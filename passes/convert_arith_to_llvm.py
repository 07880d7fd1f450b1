"""`convert-arith-to-llvm`: `arith` ops on signless integers, floats and 1-D vectors → `llvm` ops.

Mirrors MLIR's `convert-arith-to-llvm`; each table below maps an `arith` op to the `llvm` op it
becomes one to one, copying fast-math flags (float ops) and `nsw`/`nuw` (addi, subi, muli, shli):

| table | ops |
|---|---|
| `INT_OVERFLOW_OPS` | addi, subi, muli, shli → add, sub, mul, shl |
| `INT_OPS` | divsi, divui, remsi, remui, andi, ori, xori, shrsi, shrui → sdiv, udiv, srem, urem, and, or, xor, ashr, lshr |
| `FLOAT_OPS` | addf, subf, mulf, divf, maxnumf, minnumf → fadd, fsub, fmul, fdiv, `llvm.intr.maxnum/minnum` |
| `MINMAX_OPS` | maximumf, minimumf (NaN-propagating: `llvm.intr.maximum/minimum`, PTX `max.NaN`), maxsi, minsi, maxui, minui → `llvm.intr.smax/smin/umax/umin` |
| `CASTS` | extf, truncf, extsi, extui, trunci, sitofp, uitofp, bitcast → fpext, fptrunc, sext, zext, trunc, sitofp, uitofp, bitcast |
| `SATURATING_CASTS` | fptosi, fptoui → `llvm.fptosi.sat` / `llvm.fptoui.sat` |

plus cmpi/cmpf (every predicate; cmpf `false`/`true` become constants), select, constant (scalars
and dense vectors), negf, and expansions for floordivsi/ceildivsi/ceildivui, addui_extended and
mului_extended/mulsi_extended.

Policy: float → int conversion **saturates** and maps NaN to 0 (`llvm.fptosi.sat.iN.fM`, PTX
`cvt.rzi.sat`): arith's out-of-range result is poison, so this is a legal refinement, and it is
DESIGN.md's semantics. Integer division by zero is guarded before this level (checked mode), so
div/rem map straight to LLVM's. `maximumf`/`minimumf` keep no fast-math flags (the `llvm.intr.maximum`
op has none).

`index` must already be `i64` (`convert-index-to-llvm`): an `arith` op still on `index` — or on
tensors — is an error naming it, as is any `arith` op this pass does not know.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects import llvm as wllvm
from warpforge.dialects.element_types import is_float, is_signless
from warpforge.dialects.arith import IndexCastUIOp
from warpforge.rewriting import OneSweepWalker, fail, intrinsic_suffix, llvm_fastmath, ops_of_dialect
from warpforge.rewriting import replace_op
from warpforge.rewriting import TypedPatternApplier

# --------------------------------------------------------------------------- tables

INT_OVERFLOW_OPS: dict[type[Operation], type[llvm.ArithmeticBinOpOverflow]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.ShLIOp: llvm.ShlOp,
}
"""Integer ops carrying `nsw`/`nuw` overflow flags."""

INT_OPS: dict[type[Operation], type[Operation]] = {
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
}
"""Integer ops without flags (xDSL's `arith` has no `exact`/`disjoint`)."""

FLOAT_OPS: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
    arith.MaxnumfOp: llvm.VectorFMaxOp,
    arith.MinnumfOp: llvm.VectorFMinOp,
}
"""Float ops taking fast-math flags."""

MINMAX_OPS: dict[type[Operation], type[Operation]] = {
    arith.MaximumfOp: wllvm.MaximumOp,
    arith.MinimumfOp: wllvm.MinimumOp,
    arith.MaxSIOp: wllvm.SMaxOp,
    arith.MinSIOp: wllvm.SMinOp,
    arith.MaxUIOp: wllvm.UMaxOp,
    arith.MinUIOp: wllvm.UMinOp,
}
"""Max/min → the LLVM intrinsic ops warpforge's `llvm` dialect adds (no flags)."""

CASTS: dict[type[Operation], Callable[[SSAValue, Attribute], Operation]] = {
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: wllvm.UIToFPOp,
    arith.BitcastOp: llvm.BitcastOp,
}
"""Conversions that map to one LLVM cast instruction."""

SATURATING_CASTS: dict[type[Operation], str] = {
    arith.FPToSIOp: "llvm.fptosi.sat",
    arith.FPToUIOp: "llvm.fptoui.sat",
}
"""Float → integer conversions: saturating intrinsics (`llvm.fpto[su]i.sat.<int>.<float>`, NaN → 0)."""


# --------------------------------------------------------------------------- helpers


def _is_llvm_scalar_or_vector(typ: Attribute) -> bool:
    elem = typ.element_type if isinstance(typ, VectorType) else typ
    if isinstance(typ, VectorType) and (typ.get_num_dims() != 1 or typ.get_num_scalable_dims()):
        return False
    return is_signless(elem) or is_float(elem)


def _check_types(op: Operation) -> None:
    for value in (*op.operands, *op.results):
        if not _is_llvm_scalar_or_vector(value.type):
            hint = " (run convert-index-to-llvm first)" if "index" in str(value.type) else ""
            fail(op, f"on {value.type} has no LLVM lowering: expected signless integers, floats or 1-D vectors of them{hint}")


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    flags = op.properties.get("fastmath")
    return llvm_fastmath(flags if isinstance(flags, arith.FastMathFlagsAttr) else None)


def _constant(value: int, typ: Attribute) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, typ, truncate_bits=True), typ)


# --------------------------------------------------------------------------- one-to-one patterns


@dataclass
class ConvertIntOverflowOp(RewritePattern):
    """`INT_OVERFLOW_OPS`: addi/subi/muli/shli → add/sub/mul/shl with the same `nsw`/`nuw` flags."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(INT_OVERFLOW_OPS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        target = INT_OVERFLOW_OPS.get(type(op))
        if target is None:
            return
        _check_types(op)
        flags = op.properties.get("overflowFlags")
        names = [llvm.OverflowFlag(f.value) for f in flags.data] if isinstance(flags, arith.IntegerOverflowAttr) else []
        overflow = llvm.OverflowAttr(names or "none")
        replace_op(rewriter, op, target(op.operands[0], op.operands[1], {}, overflow))


_SIGN_EXTEND_SELECTOR = {8: 0x8880, 16: 0x9910}
"""`prmt.b32` selectors that sign-extend the low byte / half of a 32-bit value (PTX ISA §9.7.9.7:
a selector nibble of 8 + k replicates the sign bit of byte k)."""


@dataclass
class ConvertNarrowNegation(RewritePattern):
    """`arith.subi 0, %x` on i8/i16 (`-x`, and `abs(x)`'s negative arm) → the negation at i32, its low
    bits sign-extended by `llvm.nvvm.prmt`, then truncated.

    Why: for `neg.s16` followed by `cvt.s32.s16` (what LLVM emits for a negated i16 that is then
    widened) ptxas 13.0 drops the sign extension, so −(−32768) widened gave +32768 on the GPU (seen
    on the H200; NVRTC-compiled CUDA C++ does the same). With the arithmetic at 32 bits and the sign
    extension explicit, LLVM cannot narrow the negation back to 16 bits (it does for a plain
    `trunc`/`sext` pair) and ptxas keeps the extension (its SASS: `IADD3 … -R`, then `PRMT … 0x9910`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter, /):
        typ = op.result.type
        if not isinstance(typ, IntegerType) or typ.width.data not in _SIGN_EXTEND_SELECTOR or not _is_zero(op.lhs):
            return
        i32 = IntegerType(32)
        wide = llvm.SExtOp(op.rhs, i32)
        zero, c0, sel = _constant(0, i32), _constant(0, i32), _constant(_SIGN_EXTEND_SELECTOR[typ.width.data], i32)
        neg = llvm.SubOp(zero.result, wide.res)
        extended = llvm.CallIntrinsicOp("llvm.nvvm.prmt", [neg.res, c0.result, sel.result], [i32])
        narrow = llvm.TruncOp(extended.results[0], typ)
        replace_op(rewriter, op, [wide, zero, c0, sel, neg, extended, narrow], [narrow.res])


def _is_zero(value: SSAValue) -> bool:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp):
        attr = owner.value
        return isinstance(attr, IntegerAttr) and attr.value.data == 0
    return False


@dataclass
class ConvertIntOp(RewritePattern):
    """`INT_OPS`: divsi/divui/remsi/remui/andi/ori/xori/shrsi/shrui → the LLVM instruction."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(INT_OPS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        target = INT_OPS.get(type(op))
        if target is None:
            return
        _check_types(op)
        replace_op(rewriter, op, target(op.operands[0], op.operands[1]))  # pyright: ignore[reportCallIssue]


@dataclass
class ConvertFloatOp(RewritePattern):
    """`FLOAT_OPS`: addf/subf/mulf/divf/maxnumf/minnumf → fadd/fsub/fmul/fdiv/maxnum/minnum with fast-math flags."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(FLOAT_OPS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        target = FLOAT_OPS.get(type(op))
        if target is None:
            return
        _check_types(op)
        replace_op(rewriter, op, target(op.operands[0], op.operands[1], _fastmath(op)))  # pyright: ignore[reportCallIssue]


@dataclass
class ConvertMinMaxOp(RewritePattern):
    """`MINMAX_OPS`: maximumf/minimumf/maxsi/minsi/maxui/minui → `llvm.intr.maximum/minimum/smax/smin/umax/umin`."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(MINMAX_OPS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        target = MINMAX_OPS.get(type(op))
        if target is None:
            return
        _check_types(op)
        replace_op(rewriter, op, target(op.operands[0], op.operands[1]))  # pyright: ignore[reportCallIssue]


@dataclass
class ConvertCastOp(RewritePattern):
    """`CASTS`: extf/truncf/extsi/extui/trunci/sitofp/uitofp/bitcast → the LLVM cast (a same-type bitcast vanishes)."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(CASTS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        build = CASTS.get(type(op))
        if build is None:
            return
        _check_types(op)
        source, result = op.operands[0], op.results[0]
        if isinstance(op, arith.BitcastOp) and source.type == result.type:
            replace_op(rewriter, op, [], [source])
            return
        replace_op(rewriter, op, build(source, result.type))


@dataclass
class ConvertSaturatingCastOp(RewritePattern):
    """`arith.fptosi/fptoui` → `llvm.call_intrinsic "llvm.fpto[su]i.sat.<int>.<float>"` (saturating, NaN → 0)."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(SATURATING_CASTS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        name = SATURATING_CASTS.get(type(op))
        if name is None:
            return
        _check_types(op)
        source, result = op.operands[0], op.results[0]
        call = llvm.CallIntrinsicOp(f"{name}.{intrinsic_suffix(result.type)}.{intrinsic_suffix(source.type)}", [source], [result.type])
        replace_op(rewriter, op, call)


@dataclass
class ConvertNegfOp(RewritePattern):
    """`arith.negf` → `llvm.fneg`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter, /):
        _check_types(op)
        replace_op(rewriter, op, llvm.FNegOp(op.operand, _fastmath(op)))


@dataclass
class ConvertCmpiOp(RewritePattern):
    """`arith.cmpi <pred>` → `llvm.icmp "<pred>"` (the same ten predicates)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter, /):
        _check_types(op)
        name = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        predicate = IntegerAttr(llvm.ICmpPredicateFlag(name).to_int(), 64)
        replace_op(rewriter, op, llvm.ICmpOp(op.lhs, op.rhs, predicate))


@dataclass
class ConvertCmpfOp(RewritePattern):
    """`arith.cmpf <pred>` → `llvm.fcmp "<pred>"` with fast-math flags; `false`/`true` → an i1 constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter, /):
        _check_types(op)
        name = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        if name in ("false", "true"):
            replace_op(rewriter, op, _constant(int(name == "true"), i1))
            return
        cmp = llvm.FCmpOp(op.lhs, op.rhs, name)
        cmp.properties["fastmathFlags"] = _fastmath(op)
        replace_op(rewriter, op, cmp)


@dataclass
class ConvertSelectOp(RewritePattern):
    """`arith.select` → `llvm.select`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /):
        _check_types(op)
        replace_op(rewriter, op, llvm.SelectOp(op.cond, op.lhs, op.rhs))


@dataclass
class ConvertConstantOp(RewritePattern):
    """`arith.constant` → `llvm.mlir.constant` (integers, floats, dense vectors incl. splats)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter, /):
        _check_types(op)
        value = op.value
        if not isinstance(value, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr):
            fail(op, f"has a {value.name} value with no LLVM constant form")
        replace_op(rewriter, op, llvm.ConstantOp(value, op.result.type))


# --------------------------------------------------------------------------- expansions


def _signed_div_adjust(op: Operation, rewriter: PatternRewriter, *, floor: bool) -> None:
    """floor/ceil signed division: q = a / b (toward zero), r = a % b; adjust q by ∓1 when r ≠ 0 and
    the exact quotient is negative (floor) / positive (ceil), i.e. sign(r) ≠ / = sign(b)."""
    a, b = op.operands
    typ = a.type
    zero, one = _constant(0, typ), _constant(1, typ)
    quotient = llvm.SDivOp(a, b)
    remainder = llvm.SRemOp(a, b)
    inexact = llvm.ICmpOp(remainder.res, zero.result, IntegerAttr(llvm.ICmpPredicateFlag.NE.to_int(), 64))
    signs = llvm.XOrOp(remainder.res, b)
    predicate = llvm.ICmpPredicateFlag.SLT if floor else llvm.ICmpPredicateFlag.SGE
    direction = llvm.ICmpOp(signs.res, zero.result, IntegerAttr(predicate.to_int(), 64))
    adjust = llvm.AndOp(inexact.res, direction.res)
    adjusted = (llvm.SubOp if floor else llvm.AddOp)(quotient.res, one.result)
    result = llvm.SelectOp(adjust.res, adjusted.res, quotient.res)
    replace_op(rewriter, op, [zero, one, quotient, remainder, inexact, signs, direction, adjust, adjusted, result])


@dataclass
class ConvertFloorDivSIOp(RewritePattern):
    """`arith.floordivsi` → sdiv/srem and a −1 correction (rounds toward −∞, Python's `//`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.FloorDivSIOp, rewriter: PatternRewriter, /):
        _check_types(op)
        _signed_div_adjust(op, rewriter, floor=True)


@dataclass
class ConvertCeilDivSIOp(RewritePattern):
    """`arith.ceildivsi` → sdiv/srem and a +1 correction (rounds toward +∞)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CeilDivSIOp, rewriter: PatternRewriter, /):
        _check_types(op)
        _signed_div_adjust(op, rewriter, floor=False)


@dataclass
class ConvertCeilDivUIOp(RewritePattern):
    """`arith.ceildivui` → `a == 0 ? 0 : (a - 1) / b + 1` (no overflow for any a)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CeilDivUIOp, rewriter: PatternRewriter, /):
        _check_types(op)
        a, b = op.lhs, op.rhs
        zero, one = _constant(0, a.type), _constant(1, a.type)
        is_zero = llvm.ICmpOp(a, zero.result, IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), 64))
        minus = llvm.SubOp(a, one.result)
        quotient = llvm.UDivOp(minus.res, b)
        plus = llvm.AddOp(quotient.res, one.result)
        result = llvm.SelectOp(is_zero.res, zero.result, plus.res)
        replace_op(rewriter, op, [zero, one, is_zero, minus, quotient, plus, result])


@dataclass
class ConvertAddUIExtendedOp(RewritePattern):
    """`arith.addui_extended` → `add` and the carry `icmp ult sum, lhs`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddUIExtendedOp, rewriter: PatternRewriter, /):
        _check_types(op)
        total = llvm.AddOp(op.lhs, op.rhs)
        carry = llvm.ICmpOp(total.res, op.lhs, IntegerAttr(llvm.ICmpPredicateFlag.ULT.to_int(), 64))
        replace_op(rewriter, op, [total, carry], [total.res, carry.res])


@dataclass
class ConvertMulExtendedOp(RewritePattern):
    """`arith.mului_extended` / `mulsi_extended` → the product in twice the width, split into low and high halves."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MulUIExtendedOp | arith.MulSIExtendedOp, rewriter: PatternRewriter, /):
        _check_types(op)
        typ = op.lhs.type
        if not isinstance(typ, IntegerType):
            fail(op, "on vectors is not supported")
        width = typ.width.data
        wide = IntegerType(2 * width)
        extend = llvm.SExtOp if isinstance(op, arith.MulSIExtendedOp) else llvm.ZExtOp
        lhs, rhs = extend(op.lhs, wide), extend(op.rhs, wide)
        product = llvm.MulOp(lhs.res, rhs.res)
        low = llvm.TruncOp(product.res, typ)
        shift = _constant(width, wide)
        high_wide = llvm.LShrOp(product.res, shift.result)
        high = llvm.TruncOp(high_wide.res, typ)
        replace_op(rewriter, op, [lhs, rhs, product, low, shift, high_wide, high], [low.res, high.res])


class ConvertArithToLLVMPass(ModulePass):
    """Lower arith ops on integers, floats and vectors to llvm ops (fast-math and overflow flags kept)."""

    name = "convert-arith-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier(
                [
                    ConvertConstantOp(),
                    ConvertNarrowNegation(),
                    ConvertIntOverflowOp(),
                    ConvertIntOp(),
                    ConvertFloatOp(),
                    ConvertMinMaxOp(),
                    ConvertCastOp(),
                    ConvertSaturatingCastOp(),
                    ConvertNegfOp(),
                    ConvertCmpiOp(),
                    ConvertCmpfOp(),
                    ConvertSelectOp(),
                    ConvertFloorDivSIOp(),
                    ConvertCeilDivSIOp(),
                    ConvertCeilDivUIOp(),
                    ConvertAddUIExtendedOp(),
                    ConvertMulExtendedOp(),
                ]
            )
        ).rewrite_module(op)
        for inner in ops_of_dialect(op, "arith"):
            hint = " (run convert-index-to-llvm first)" if isinstance(inner, arith.IndexCastOp | IndexCastUIOp) else ""
            fail(inner, f"has no lowering to the llvm dialect{hint}")
