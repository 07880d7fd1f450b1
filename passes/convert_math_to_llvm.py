"""`convert-math-to-llvm`: `math` ops → libdevice calls or LLVM intrinsics, by table.

Mirrors MLIR's `convert-math-to-llvm` plus `convert-math-to-rocdl`/GPUToNVVM's libdevice patterns
(`__nv_*` calls), for NVPTX:

- **libdevice** (`LIBDEVICE`): transcendental functions call CUDA's libdevice
  (`__nv_expf` for f32, `__nv_exp` for f64, …). The pass declares `llvm.func @__nv_xxx(f32) -> f32`
  once in the enclosing `gpu.module` (or module); the PTX emitter links `libdevice.10.bc` when a
  `__nv_` function is called and inlines it, so no `.extern .func __nv_` remains in the PTX.
  f16/bf16 operands are extended to f32, passed to the f32 function and the result truncated back.
- **fast math**: an f32 op whose fast-math flags include `afn` (or `fast`) calls libdevice's
  `__nv_fast_*` variant where one exists (`FAST_F32`: exp, log, log2, log10, sin, cos, tan, pow —
  the `.approx` PTX instructions, CUDA's `--use_fast_math` functions). f64 has none. The flags are
  also copied to the call.
- **LLVM intrinsics** (`INTRINSICS`, `CALL_INTRINSICS`) where NVPTX has an exact instruction:
  absf → `llvm.intr.fabs` (`abs.f32`), floor/ceil → `llvm.intr.floor/ceil` (`cvt.rmi/rpi`),
  trunc/round/roundeven → `llvm.trunc/round/roundeven`, sqrt → `llvm.intr.sqrt` (`sqrt.rn`,
  correctly rounded), copysign → `llvm.intr.copysign`, fma → `llvm.intr.fma` (`fma.rn`); integer
  absi/ctlz/cttz/ctpop → `llvm.abs/ctlz/cttz/ctpop` (never poison: the flag operand is false). These
  keep the operand type (f16, bf16 and vectors included).

Not lowered (a diagnostic naming the op): `math.ipowi`, libdevice functions on vectors, `math.fpowi`
with a non-i32 exponent. xDSL's `math` has no `isnan`/`isinf`/`isfinite` (use `arith.cmpf uno`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import llvm, math
from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import (
    AnyFloat,
    Float64Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    f32,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from warpforge.rewriting import OneSweepWalker, enclosing_op, fail, intrinsic_suffix, llvm_fastmath, ops_of_dialect
from warpforge.rewriting import replace_op
from warpforge.rewriting import TypedPatternApplier

# --------------------------------------------------------------------------- tables

LIBDEVICE: dict[type[Operation], tuple[str, str]] = {
    math.RsqrtOp: ("__nv_rsqrtf", "__nv_rsqrt"),
    math.ExpOp: ("__nv_expf", "__nv_exp"),
    math.Exp2Op: ("__nv_exp2f", "__nv_exp2"),
    math.ExpM1Op: ("__nv_expm1f", "__nv_expm1"),
    math.LogOp: ("__nv_logf", "__nv_log"),
    math.Log2Op: ("__nv_log2f", "__nv_log2"),
    math.Log10Op: ("__nv_log10f", "__nv_log10"),
    math.Log1pOp: ("__nv_log1pf", "__nv_log1p"),
    math.SinOp: ("__nv_sinf", "__nv_sin"),
    math.CosOp: ("__nv_cosf", "__nv_cos"),
    math.TanOp: ("__nv_tanf", "__nv_tan"),
    math.AsinOp: ("__nv_asinf", "__nv_asin"),
    math.AcosOp: ("__nv_acosf", "__nv_acos"),
    math.AtanOp: ("__nv_atanf", "__nv_atan"),
    math.Atan2Op: ("__nv_atan2f", "__nv_atan2"),
    math.SinhOp: ("__nv_sinhf", "__nv_sinh"),
    math.CoshOp: ("__nv_coshf", "__nv_cosh"),
    math.TanhOp: ("__nv_tanhf", "__nv_tanh"),
    math.AsinhOp: ("__nv_asinhf", "__nv_asinh"),
    math.AcoshOp: ("__nv_acoshf", "__nv_acosh"),
    math.AtanhOp: ("__nv_atanhf", "__nv_atanh"),
    math.ErfOp: ("__nv_erff", "__nv_erf"),
    math.CbrtOp: ("__nv_cbrtf", "__nv_cbrt"),
    math.PowFOp: ("__nv_powf", "__nv_pow"),
    math.FPowIOp: ("__nv_powif", "__nv_powi"),
}
"""`math` op → libdevice function for (f32, f64) operands (libdevice User's Guide, "Function Reference")."""

FAST_F32: dict[type[Operation], str] = {
    math.ExpOp: "__nv_fast_expf",
    math.LogOp: "__nv_fast_logf",
    math.Log2Op: "__nv_fast_log2f",
    math.Log10Op: "__nv_fast_log10f",
    math.SinOp: "__nv_fast_sinf",
    math.CosOp: "__nv_fast_cosf",
    math.TanOp: "__nv_fast_tanf",
    math.PowFOp: "__nv_fast_powf",
}
"""f32 functions with an approximate libdevice variant, used under the `afn` fast-math flag."""

_Builder = Callable[[list[SSAValue], llvm.FastMathAttr], Operation]

INTRINSICS: dict[type[Operation], _Builder] = {
    math.AbsFOp: lambda a, fm: llvm.FAbsOp(a[0], a[0].type, fm),
    math.FloorOp: lambda a, fm: llvm.FFloorOp(a[0], fm),
    math.CeilOp: lambda a, fm: llvm.FCeilOp(a[0], fm),
    math.SqrtOp: lambda a, fm: llvm.FSqrtOp(a[0], fm),
    math.CopySignOp: lambda a, fm: llvm.FCopySignOp(a[0], a[1], fm),
    math.FmaOp: lambda a, fm: llvm.FMAOp(a[0], a[1], a[2], fm),
}
"""`math` op → the `llvm.intr.*` op of the LLVM intrinsic (LangRef "Standard C/C++ Library Intrinsics")."""

CALL_INTRINSICS: dict[type[Operation], tuple[str, tuple[int, ...]]] = {
    math.TruncOp: ("llvm.trunc", ()),
    math.RoundOp: ("llvm.round", ()),
    math.RoundEvenOp: ("llvm.roundeven", ()),
    math.AbsIOp: ("llvm.abs", (0,)),
    math.CountLeadingZerosOp: ("llvm.ctlz", (0,)),
    math.CountTrailingZerosOp: ("llvm.cttz", (0,)),
    math.CtPopOp: ("llvm.ctpop", ()),
}
"""`math` op → (overloaded LLVM intrinsic, trailing `i1` immediates) for ops without an `llvm.intr.*` op.

The immediates are the "is poison" flags of `llvm.abs`/`llvm.ctlz`/`llvm.cttz`, always false: the
`math` ops are defined for every input (ctlz(0) = bit width)."""


# --------------------------------------------------------------------------- helpers


def _symbol_table_block(op: Operation) -> Block:
    parent = enclosing_op(op, lambda p: p.has_trait(SymbolTable))
    if parent is None:
        fail(op, "is not inside a module")
    return parent.regions[0].block


def declare_function(rewriter: PatternRewriter, at: Operation, name: str, inputs: list[Attribute], output: Attribute) -> None:
    """Declare `llvm.func @name(inputs) -> output` in the module enclosing `at`, unless a symbol `name` exists."""
    block = _symbol_table_block(at)
    for existing in block.ops:
        if (sym := existing.properties.get("sym_name")) is not None and getattr(sym, "data", None) == name:
            return
    decl = llvm.FuncOp(name, llvm.LLVMFunctionType(inputs, output), linkage=llvm.LinkageAttr("external"))
    rewriter.insert(decl, InsertPoint.at_end(block))


def _fastmath_of(op: Operation) -> llvm.FastMathAttr:
    flags = op.properties.get("fastmath")
    return llvm_fastmath(flags if isinstance(flags, FastMathFlagsAttr) else None)


def _is_afn(fm: llvm.FastMathAttr) -> bool:
    return any(f.value == "afn" for f in fm.data)


# --------------------------------------------------------------------------- patterns


@dataclass
class ConvertLibdeviceOp(RewritePattern):
    """A `LIBDEVICE` op → `llvm.call @__nv_<fn>[f]` (f16/bf16 through f32; `__nv_fast_*` under `afn`)."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(LIBDEVICE)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        names = LIBDEVICE.get(type(op))
        if names is None:
            return
        result_type = op.results[0].type
        if not isinstance(result_type, AnyFloat):
            fail(op, f"on {result_type} has no libdevice lowering (scalar f16, bf16, f32 or f64 only)")
        fm = _fastmath_of(op)
        float_operands = [v for v in op.operands if isinstance(v.type, AnyFloat)]
        int_operands = [v for v in op.operands if not isinstance(v.type, AnyFloat)]
        if any(v.type != IntegerType(32) for v in int_operands):
            fail(op, "takes an i32 exponent on the GPU (libdevice __nv_powif/__nv_powi)")
        new_ops: list[Operation] = []
        if isinstance(result_type, Float64Type):
            callee, call_type, args = names[1], result_type, list(float_operands)
        else:
            callee = FAST_F32.get(type(op), names[0]) if _is_afn(fm) else names[0]
            call_type, args = f32, []
            for value in float_operands:
                if value.type == f32:
                    args.append(value)
                else:
                    ext = llvm.FPExtOp(value, f32)
                    new_ops.append(ext)
                    args.append(ext.result)
        args += int_operands
        call = llvm.CallOp(callee, *args, return_type=call_type, fastmath=fm)
        new_ops.append(call)
        result: SSAValue = call.results[0]
        if call_type != result_type:
            trunc = llvm.FPTruncOp(result, result_type)
            new_ops.append(trunc)
            result = trunc.result
        declare_function(rewriter, op, callee, [a.type for a in args], call_type)
        replace_op(rewriter, op, new_ops, [result])


@dataclass
class ConvertIntrinsicOp(RewritePattern):
    """An `INTRINSICS` op → its `llvm.intr.*` op, fast-math flags kept."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(INTRINSICS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        build = INTRINSICS.get(type(op))
        if build is None:
            return
        replace_op(rewriter, op, build(list(op.operands), _fastmath_of(op)))


@dataclass
class ConvertCallIntrinsicOp(RewritePattern):
    """A `CALL_INTRINSICS` op → `llvm.call_intrinsic "<name>.<type>"(operands, i1 flags)`."""

    OP_TYPES: ClassVar[tuple[type[Operation], ...]] = tuple(CALL_INTRINSICS)
    """The ops this pattern lowers (`TypedPatternApplier` offers it no others)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        entry = CALL_INTRINSICS.get(type(op))
        if entry is None:
            return
        name, flags = entry
        typ = op.results[0].type
        try:
            suffix = intrinsic_suffix(typ)
        except ValueError as e:
            fail(op, str(e))
        new_ops: list[Operation] = [llvm.ConstantOp(IntegerAttr(v, i1), i1) for v in flags]
        call = llvm.CallIntrinsicOp(f"{name}.{suffix}", [*op.operands, *(c.results[0] for c in new_ops)], [typ])
        if "fastmath" in op.properties and isinstance(typ, AnyFloat | VectorType):
            call.properties["fastmathFlags"] = _fastmath_of(op)
        replace_op(rewriter, op, [*new_ops, call], [call.results[0]])


class ConvertMathToLLVMPass(ModulePass):
    """Lower `math` ops to libdevice calls (`__nv_*`) or LLVM intrinsics, declaring what they call."""

    name = "convert-math-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier([ConvertLibdeviceOp(), ConvertIntrinsicOp(), ConvertCallIntrinsicOp()])
        ).rewrite_module(op)
        for inner in ops_of_dialect(op, "math"):
            fail(inner, "has no lowering to the llvm dialect")
