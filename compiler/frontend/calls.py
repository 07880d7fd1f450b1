"""Calls: Python builtins (`len`, `abs`, `min`, `max`, `int`, `float`, `bool`, `range`), dtype
conversions (`wf.i32(x)`), `math.*`, and warpforge's kernel functions (`simt.index_1d()`, …)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from xdsl.dialects import math as mathd
from xdsl.ir import Operation

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.values import (
    BoundMethod,
    Builtin,
    DTypeRef,
    IndexValue,
    Literal,
    RangeValue,
    Scalar,
    SliceValue,
    Value,
)

_UNARY_MATH: dict[str, type[Operation]] = {
    "sqrt": mathd.SqrtOp, "exp": mathd.ExpOp, "exp2": mathd.Exp2Op, "expm1": mathd.ExpM1Op,
    "log": mathd.LogOp, "log2": mathd.Log2Op, "log10": mathd.Log10Op, "log1p": mathd.Log1pOp,
    "sin": mathd.SinOp, "cos": mathd.CosOp, "tan": mathd.TanOp, "asin": mathd.AsinOp,
    "acos": mathd.AcosOp, "atan": mathd.AtanOp, "sinh": mathd.SinhOp, "cosh": mathd.CoshOp,
    "tanh": mathd.TanhOp, "asinh": mathd.AsinhOp, "acosh": mathd.AcoshOp, "atanh": mathd.AtanhOp,
    "erf": mathd.ErfOp, "fabs": mathd.AbsFOp, "cbrt": mathd.CbrtOp,
}  # fmt: skip
"""`math.<name>(x)` → the `math` dialect op (lowered to libdevice or an LLVM intrinsic)."""

_BINARY_MATH: dict[str, type[Operation]] = {"atan2": mathd.Atan2Op, "pow": mathd.PowFOp, "copysign": mathd.CopySignOp}

_ROUNDING: dict[str, type[Operation]] = {"floor": mathd.FloorOp, "ceil": mathd.CeilOp, "trunc": mathd.TruncOp}
"""`math.floor/ceil/trunc` return an int in Python (i64 here, saturating) from the float op."""


class CallMixin(FunctionCompilerBase):
    def visit_Call(self, node: ast.Call) -> Value:
        callee = self.visit_expr(node.func)
        if node.keywords:
            self.error(node, "keyword arguments are not supported in kernel calls")
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.error(node, "*args is not supported in kernel calls")
        args = [self.visit_expr(a) for a in node.args]
        if isinstance(callee, DTypeRef):
            self.arity(node, args, 1, callee.dtype.name)
            return self.convert(args[0], callee.dtype, node)
        if isinstance(callee, BoundMethod):
            if isinstance(callee.receiver, IndexValue) and callee.name == "get":
                self.arity(node, args, 0, "get")
                return Scalar(self.emit(kernel.IndexGetOp(callee.receiver.ssa), node), dtypes.i64)
        if isinstance(callee, Builtin):
            handler: Callable[[ast.Call, list[Value]], Value] | None = getattr(self, "call_" + callee.name.replace(".", "_"), None)
            if handler is None:
                if callee.name.startswith("math."):
                    return self.call_math(callee.name.removeprefix("math."), node, args)
                self.error(node, f"{callee.name}() is not supported inside kernels yet")
            return handler(node, args)
        self.error(node, f"{callee.describe()} is not callable in a kernel")

    def arity(self, node: ast.AST, args: list[Value], n: int | tuple[int, int], name: str) -> None:
        lo, hi = (n, n) if isinstance(n, int) else n
        if not lo <= len(args) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            self.error(node, f"{name}() takes {want} argument(s), got {len(args)}")

    def convert(self, value: Value, dtype: DType, node: ast.AST) -> Value:
        """`wf.i32(x)`, `int(x)`, …: NumPy conversion (integers wrap, float→int saturates, NaN → 0)."""
        if isinstance(value, Literal):
            v = value.value
            if dtype.is_bool:
                return self.const(bool(v), dtype, node)
            if dtype.is_int:
                if isinstance(v, float):
                    if math.isnan(v):
                        v = 0
                    elif math.isinf(v):
                        v = dtype.max if v > 0 else dtype.min
                    else:
                        v = max(min(int(v), int(dtype.max)), int(dtype.min))
                else:
                    v = int(v)
                    bits = dtype.bits
                    v &= (1 << bits) - 1
                    if dtype.is_signed and v >= 1 << (bits - 1):
                        v -= 1 << bits
                return self.const(v, dtype, node)
            return self.const(float(v), dtype, node)
        return self.cast(self.materialize(value, node), dtype, node)

    # ------------------------------------------------------------------ Python builtins

    def call_int(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "int")
        if isinstance(args[0], Literal):
            return Literal(int(args[0].value))
        return self.convert(args[0], dtypes.i64, node)

    def call_float(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "float")
        if isinstance(args[0], Literal):
            return Literal(float(args[0].value))
        return self.convert(args[0], dtypes.f64, node)

    def call_bool(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "bool")
        if isinstance(args[0], Literal):
            return Literal(bool(args[0].value))
        return self.truthy(args[0], node)

    def call_len(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "len")
        s = args[0]
        if not isinstance(s, SliceValue):
            self.error(node, f"len() needs a Slice or DisjointSlice, got {s.describe()}")
        return Scalar(self.emit(kernel.LenOp(s.ssa), node), dtypes.i64)

    def call_abs(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "abs")
        if isinstance(args[0], Literal):
            return Literal(abs(args[0].value))
        x = self.materialize(args[0], node)
        if x.dtype.is_bool:
            x = self.cast(x, dtypes.i64, node)
        return Scalar(self.emit(kernel.AbsOp(x.ssa), node), x.dtype)

    def call_min(self, node: ast.Call, args: list[Value]) -> Value:
        return self.min_max(node, args, "min")

    def call_max(self, node: ast.Call, args: list[Value]) -> Value:
        return self.min_max(node, args, "max")

    def min_max(self, node: ast.Call, args: list[Value], which: str) -> Value:
        """`min`/`max` of two or more numbers; floats propagate NaN (like numpy.minimum/maximum)."""
        if len(args) < 2:
            self.error(node, f"{which}() in a kernel takes two or more numbers")
        result = args[0]
        for other in args[1:]:
            if isinstance(result, Literal) and isinstance(other, Literal):
                a, b = result.value, other.value
                if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
                    result = Literal(math.nan)
                else:
                    result = Literal(min(a, b) if which == "min" else max(a, b))
                continue
            x, y, dt = self.coerce_pair(result, other, node)
            op = kernel.MinOp(x.ssa, y.ssa) if which == "min" else kernel.MaxOp(x.ssa, y.ssa)
            result = Scalar(self.emit(op, node), dt)
        return result

    def call_range(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, (1, 3), "range")
        if len(args) == 1:
            return RangeValue(Literal(0), args[0], Literal(1))
        if len(args) == 2:
            return RangeValue(args[0], args[1], Literal(1))
        return RangeValue(args[0], args[1], args[2])

    # ------------------------------------------------------------------ math

    def float_arg(self, value: Value, node: ast.AST) -> Scalar:
        """A math argument as a float scalar: floats keep their type (f32 stays f32, as in NumPy),
        integers and bools become f64."""
        if isinstance(value, Literal):
            return self.const(float(value.value), dtypes.f64, node)
        x = self.materialize(value, node)
        return x if x.dtype.is_float else self.cast(x, dtypes.f64, node)

    def call_math(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        if all(isinstance(a, Literal) for a in args) and name not in ("isnan", "isinf", "isfinite"):
            try:
                return Literal(getattr(math, name)(*(a.value for a in args)))  # pyright: ignore[reportAttributeAccessIssue]
            except (ValueError, OverflowError, TypeError) as e:
                self.error(node, f"math.{name}{tuple(a.value for a in args)}: {e}")  # pyright: ignore[reportAttributeAccessIssue]
        if name in _UNARY_MATH:
            self.arity(node, args, 1, f"math.{name}")
            x = self.float_arg(args[0], node)
            return Scalar(self.emit(_UNARY_MATH[name](x.ssa), node), x.dtype)
        if name in _BINARY_MATH:
            self.arity(node, args, 2, f"math.{name}")
            x, y = self.float_arg(args[0], node), self.float_arg(args[1], node)
            dt = dtypes.promote(x.dtype, y.dtype)
            x, y = self.cast(x, dt, node), self.cast(y, dt, node)
            return Scalar(self.emit(_BINARY_MATH[name](x.ssa, y.ssa), node), dt)
        if name in _ROUNDING:
            self.arity(node, args, 1, f"math.{name}")
            x = self.float_arg(args[0], node)
            rounded = Scalar(self.emit(_ROUNDING[name](x.ssa), node), x.dtype)
            return self.cast(rounded, dtypes.i64, node)
        if name in ("isnan", "isinf", "isfinite"):
            self.arity(node, args, 1, f"math.{name}")
            if isinstance(args[0], Literal):
                return Literal(getattr(math, name)(args[0].value))
            x = self.materialize(args[0], node)
            if not x.dtype.is_float:
                return Literal(name == "isfinite")
            if name == "isnan":
                return Scalar(self.emit(kernel.CmpOp("ne", x.ssa, x.ssa), node), dtypes.bool_)
            inf = self.const(math.inf, x.dtype, node)
            mag = Scalar(self.emit(mathd.AbsFOp(x.ssa), node), x.dtype)
            pred = "eq" if name == "isinf" else "lt"
            return Scalar(self.emit(kernel.CmpOp(pred, mag.ssa, inf.ssa), node), dtypes.bool_)
        if name == "fma":
            self.arity(node, args, 3, "math.fma")
            xs = [self.float_arg(a, node) for a in args]
            dt = dtypes.promote(dtypes.promote(xs[0].dtype, xs[1].dtype), xs[2].dtype)
            xs = [self.cast(x, dt, node) for x in xs]
            return Scalar(self.emit(mathd.FmaOp(*(x.ssa for x in xs)), node), dt)
        if name == "hypot":
            self.arity(node, args, 2, "math.hypot")
            x, y = self.float_arg(args[0], node), self.float_arg(args[1], node)
            dt = dtypes.promote(x.dtype, y.dtype)
            x, y = self.cast(x, dt, node), self.cast(y, dt, node)
            sq = kernel.AddOp(self.emit(kernel.MulOp(x.ssa, x.ssa), node), self.emit(kernel.MulOp(y.ssa, y.ssa), node))
            return Scalar(self.emit(mathd.SqrtOp(self.emit(sq, node)), node), dt)
        self.error(node, f"math.{name} is not supported in kernels")

    # ------------------------------------------------------------------ simt

    def call_simt_index_1d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.index_1d")
        self.index_dims.add(1)
        return IndexValue(self.emit(kernel.Index1DOp(), node), 1)

    def call_simt_index_2d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "simt.index_2d")
        ncols = args[0]
        n = self.const(ncols.value, dtypes.i64, node) if isinstance(ncols, Literal) else self.materialize(ncols, node)
        if not n.dtype.is_int:
            self.error(node, f"simt.index_2d(ncols) needs an integer, got {n.dtype.name}")
        self.index_dims.add(2)
        return IndexValue(self.emit(kernel.Index2DOp(n.ssa), node), 2)
