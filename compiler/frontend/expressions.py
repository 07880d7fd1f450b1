"""Expressions: names, constants, arithmetic (NEP 50 types, Python integer semantics), comparisons,
`and`/`or`/`a if c else b` (short-circuit: the lazy side lives in a `kernel.if` region),
attributes and subscripts (checked reads)."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import Region
from xdsl.ir import Block

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.globals import resolve_attribute
from warpforge.frontend.values import (
    ArrayValue,
    RegisterArrayValue,
    BlockIndexValue,
    BoundMethod,
    IndexValue,
    Literal,
    LoopIndex,
    Namespace,
    NeedsUnroll,
    Scalar,
    SliceValue,
    Text,
    TupleValue,
    Value,
    ViewValue,
)

_BINOPS: dict[type[ast.operator], tuple[str, type[kernel._BinaryOp] | None, Callable[[Any, Any], Any]]] = {  # pyright: ignore[reportPrivateUsage]
    ast.Add: ("+", kernel.AddOp, operator.add),
    ast.Sub: ("-", kernel.SubOp, operator.sub),
    ast.Mult: ("*", kernel.MulOp, operator.mul),
    ast.Div: ("/", kernel.TrueDivOp, operator.truediv),
    ast.FloorDiv: ("//", kernel.FloorDivOp, operator.floordiv),
    ast.Mod: ("%", kernel.ModOp, operator.mod),
    ast.Pow: ("**", None, operator.pow),
    ast.BitAnd: ("&", kernel.AndOp, operator.and_),
    ast.BitOr: ("|", kernel.OrOp, operator.or_),
    ast.BitXor: ("^", kernel.XorOp, operator.xor),
    ast.LShift: ("<<", kernel.LShiftOp, operator.lshift),
    ast.RShift: (">>", kernel.RShiftOp, operator.rshift),
}

OPERATOR_NAMES: dict[type[ast.operator], tuple[str, str]] = {
    ast.Add: ("+", "addition"), ast.Sub: ("-", "subtraction"), ast.Mult: ("*", "multiplication"),
    ast.MatMult: ("@", "matrix multiplication"), ast.Div: ("/", "true division"), ast.FloorDiv: ("//", "floor division"),
    ast.Mod: ("%", "modulo"), ast.Pow: ("**", "power"), ast.LShift: ("<<", "left shift"), ast.RShift: (">>", "right shift"),
    ast.BitOr: ("|", "bitwise or"), ast.BitXor: ("^", "bitwise xor"), ast.BitAnd: ("&", "bitwise and"),
}  # fmt: skip
"""Every Python binary operator: its symbol and name, for messages."""


def operator_text(op_type: type[ast.operator]) -> str:
    """`'@' (matrix multiplication)`: how messages name a binary operator."""
    symbol, name = OPERATOR_NAMES.get(op_type, (op_type.__name__, op_type.__name__))
    return f"'{symbol}' ({name})"


_COMPARE: dict[type[ast.cmpop], tuple[str, Callable[[Any, Any], bool]]] = {
    ast.Eq: ("eq", operator.eq),
    ast.NotEq: ("ne", operator.ne),
    ast.Lt: ("lt", operator.lt),
    ast.LtE: ("le", operator.le),
    ast.Gt: ("gt", operator.gt),
    ast.GtE: ("ge", operator.ge),
}

_INT_ONLY = {ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift}


class ExpressionMixin(FunctionCompilerBase):
    def visit_expr(self, node: ast.expr) -> Value:
        method = getattr(self, f"visit_{type(node).__name__}", None)
        if method is None:
            self.error(node, f"{type(node).__name__} expressions are not supported in kernels")
        return method(node)

    # ------------------------------------------------------------------ leaves

    def visit_Constant(self, node: ast.Constant) -> Value:
        if isinstance(node.value, bool | int | float):
            return Literal(node.value)
        if isinstance(node.value, str):
            return Text(node.value)  # only meaningful as an argument (scope="block"); elsewhere an error at the use
        self.error(node, f"{type(node.value).__name__} constants are not supported in kernels (only bool, int, float)")

    def visit_Name(self, node: ast.Name) -> Value:
        return self.lookup(node.id, node)

    def visit_Attribute(self, node: ast.Attribute) -> Value:
        base = self.visit_expr(node.value)
        if isinstance(base, Namespace):
            if base.name.startswith("simt.") and node.attr in ("x", "y", "z"):
                return self.special_register(base.name.removeprefix("simt."), node.attr, node)
            if base.name in ("simt.thread_idx", "simt.block_idx", "simt.block_dim", "simt.grid_dim"):
                self.error(node, f"{base.name} has no attribute '{node.attr}' (x, y, z)")
            resolved = resolve_attribute(base, node.attr)
            if resolved is None:
                self.error(node, f"'{base.name}.{node.attr}' is not available inside kernels")
            return resolved
        if isinstance(base, BlockIndexValue):
            if node.attr == "get":
                return BoundMethod(base, "get")
            self.error(node, f"a BlockIndex has .get() only, not '.{node.attr}'")
        if isinstance(base, SliceValue) and base.kind == "disjoint_slice" and node.attr in ("row", "column", "tile"):
            return BoundMethod(base, node.attr)
        if isinstance(base, IndexValue):
            if node.attr == "get":
                return BoundMethod(base, "get")
            if node.attr in ("row", "col", "x", "y", "z"):
                if base.dims == 1 or (node.attr == "z" and base.dims != 3):
                    self.error(node, f"'.{node.attr}' exists only on a ThreadIndex from simt.index_2d(ncols) (.row/.col, .y/.x) or simt.index_3d(ny, nx) (.z/.y/.x)")
                cls = {"row": kernel.IndexRowOp, "y": kernel.IndexRowOp, "col": kernel.IndexColOp, "x": kernel.IndexColOp, "z": kernel.IndexPlaneOp}[node.attr]
                return Scalar(self.emit(cls(base.ssa), node), dtypes.i64)
        found = base.kernel_attribute(node.attr) if hasattr(base, "kernel_attribute") else None  # handles (simt.TensorMap)
        if found is not None:
            return found
        self.error(node, f"{base.describe()} has no attribute '{node.attr}' in a kernel")

    def special_register(self, which: str, dim: str, node: ast.AST) -> Scalar:
        ops = {"thread_idx": kernel.ThreadIdxOp, "block_idx": kernel.BlockIdxOp, "block_dim": kernel.BlockDimOp, "grid_dim": kernel.GridDimOp}
        if which not in ops:
            self.error(node, f"simt.{which}.{dim} is not a thread id or dimension")
        return Scalar(self.emit(ops[which](dim), node), dtypes.i64)

    # ------------------------------------------------------------------ arithmetic

    def visit_BinOp(self, node: ast.BinOp) -> Value:
        left = self.visit_expr(node.left)
        right = self.visit_expr(node.right)
        return self.binary(type(node.op), left, right, node)

    def binary(self, op_type: type[ast.operator], left: Value, right: Value, node: ast.AST) -> Value:
        if op_type not in _BINOPS:
            self.error(node, f"the operator {operator_text(op_type)} is not supported on scalars in kernels")
        symbol, op_cls, py_fn = _BINOPS[op_type]
        if isinstance(left, LoopIndex) or isinstance(right, LoopIndex):
            if not (isinstance(left, Scalar) or isinstance(right, Scalar)):
                return self.loop_index_binary(op_type, left, right, node)
            if isinstance(right, LoopIndex) and op_type in (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift):
                raise NeedsUnroll(right.loops)  # a divisor, exponent or shift: unrolled, each a constant
            if op_type is ast.Pow:
                raise NeedsUnroll(left.loops if isinstance(left, LoopIndex) else right.loops)  # pyright: ignore[reportAttributeAccessIssue]
        for side in (left, right):
            if not isinstance(side, Literal | Scalar | LoopIndex):
                self.materialize(side, node)  # raises a precise error for slices, undefined names, …
        if isinstance(left, Literal) and isinstance(right, Literal):
            return self.fold(symbol, py_fn, left.value, right.value, node)
        if op_type is ast.Pow:
            return self.power(left, right, node)
        dt = self.result_dtype(left, right, node)
        assert dt is not None
        if dt.is_bool and op_type in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod):
            self.error(node, f"'{symbol}' on two bools is not supported (NumPy and Python disagree); convert with int() first")
        if op_type in _INT_ONLY and dt.is_float:
            self.error(node, f"'{symbol}' needs integer operands, got {dt.name}")
        if op_type is ast.Div and not dt.is_float:
            dt = dtypes.f64  # NumPy: integer / integer is float64
        a, b, dt = self.coerce_pair(left, right, node, dt)
        assert op_cls is not None
        op = op_cls(a.ssa, b.ssa)
        if op_type in (ast.FloorDiv, ast.Mod) and not dt.is_float:
            op.attributes["text"] = _text_attr(self.text_of(node))
        return Scalar(self.emit(op, node), dt)

    def loop_index_binary(self, op_type: type[ast.operator], left: Value, right: Value, node: ast.AST) -> LoopIndex:
        """Python int arithmetic on `simt.static_range` variables and int constants (`i * 8 + j`,
        `q // 2`, `1 << s`): a `LoopIndex` whose range is that of the ints it stands for. Anything
        else (floats, `/`, a variable divisor, a range beyond +-2^62) raises `NeedsUnroll`."""
        loops = frozenset().union(*(v.loops for v in (left, right) if isinstance(v, LoopIndex)))
        for side in (left, right):
            if isinstance(side, Literal) and (not isinstance(side.value, int) or isinstance(side.value, bool)):
                raise NeedsUnroll(loops)
            if not isinstance(side, Literal | LoopIndex):
                raise NeedsUnroll(loops)
        (alo, ahi), (blo, bhi) = ((v.lo, v.hi) if isinstance(v, LoopIndex) else (v.value, v.value) for v in (left, right))  # pyright: ignore[reportAttributeAccessIssue]
        if op_type is ast.Add:
            lo, hi = alo + blo, ahi + bhi
        elif op_type is ast.Sub:
            lo, hi = alo - bhi, ahi - blo
        elif op_type is ast.Mult:
            corners = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
            lo, hi = min(corners), max(corners)
        elif op_type in (ast.FloorDiv, ast.Mod) and isinstance(right, Literal) and blo > 0:
            if op_type is ast.FloorDiv:
                lo, hi = alo // blo, ahi // blo
            elif ahi - alo < blo and alo % blo <= ahi % blo:
                lo, hi = alo % blo, ahi % blo
            else:
                lo, hi = 0, blo - 1
        elif op_type is ast.LShift and 0 <= blo and bhi <= 62 and (isinstance(right, Literal) or alo >= 0):
            corners = (alo << blo, alo << bhi, ahi << blo, ahi << bhi)
            lo, hi = min(corners), max(corners)
        else:
            raise NeedsUnroll(loops)
        if not -(2**62) <= lo <= hi < 2**62:
            raise NeedsUnroll(loops)
        a, b = (self.materialize(v, node, dtypes.i64) for v in (left, right))
        _, op_cls, _ = _BINOPS[op_type]
        assert op_cls is not None
        op = op_cls(a.ssa, b.ssa)
        if op_type in (ast.FloorDiv, ast.Mod):
            op.attributes["text"] = _text_attr(self.text_of(node))
        return LoopIndex(self.emit(op, node), lo, hi, loops)

    def fold(self, symbol: str, fn: Callable[[Any, Any], Any], a: Any, b: Any, node: ast.AST) -> Literal:
        try:
            result = fn(a, b)
        except ZeroDivisionError:
            self.error(node, f"division by zero in the constant expression '{self.text_of(node)}'")
        except (OverflowError, ValueError) as e:
            self.error(node, f"cannot evaluate the constant expression '{self.text_of(node)}': {e}")
        if not isinstance(result, bool | int | float):
            self.error(node, f"the constant expression '{self.text_of(node)}' is not a number")
        if isinstance(result, int) and not isinstance(result, bool) and not -(2**63) <= result < 2**64:
            self.error(node, f"the constant {result} does not fit 64 bits")
        return Literal(result)

    def power(self, base: Value, exponent: Value, node: ast.AST) -> Value:
        """`**`: an integer-constant exponent is multiplied out (square-and-multiply); a float base with a
        run-time exponent uses `pow`; an integer base needs a non-negative constant exponent."""
        if isinstance(exponent, Literal) and isinstance(exponent.value, int) and not isinstance(exponent.value, bool):
            n = exponent.value
            b = self.materialize(base, node)
            if b.dtype.is_bool:
                b = self.cast(b, dtypes.i64, node)
            if n < 0 and not b.dtype.is_float:
                self.error(node, "integers to negative integer powers are not allowed (as in NumPy); use a float base")
            result = self.pow_by_squaring(b, abs(n), node)
            if n < 0:
                one = self.const(1.0, b.dtype, node)
                result = Scalar(self.emit(kernel.TrueDivOp(one.ssa, result.ssa), node), b.dtype)
            return result
        dt = self.result_dtype(base, exponent, node)
        assert dt is not None
        if not dt.is_float:
            self.error(node, "an integer power needs a constant integer exponent (e.g. x ** 3); for a run-time exponent use floats")
        a, b, dt = self.coerce_pair(base, exponent, node, dt)
        return Scalar(self.emit(kernel.PowOp(a.ssa, b.ssa), node), dt)

    def pow_by_squaring(self, base: Scalar, n: int, node: ast.AST) -> Scalar:
        result: Scalar | None = None
        square = base
        while n:
            if n & 1:
                result = square if result is None else Scalar(self.emit(kernel.MulOp(result.ssa, square.ssa), node), base.dtype)
            n >>= 1
            if n:
                square = Scalar(self.emit(kernel.MulOp(square.ssa, square.ssa), node), base.dtype)
        return result if result is not None else self.const(1, base.dtype, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Value:
        operand = self.visit_expr(node.operand)
        if isinstance(node.op, ast.Not):
            if isinstance(operand, Literal):
                return Literal(not operand.value)
            return Scalar(self.emit(kernel.NotOp(self.truthy(operand, node).ssa), node), dtypes.bool_)
        if isinstance(operand, Literal):
            if isinstance(node.op, ast.USub):
                return Literal(-operand.value)
            if isinstance(node.op, ast.UAdd):
                return Literal(+operand.value)
            if isinstance(node.op, ast.Invert):
                if isinstance(operand.value, float):
                    self.error(node, "'~' needs an integer")
                return Literal(~operand.value)
        x = self.materialize(operand, node)
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(node.op, ast.USub):
            if x.dtype.is_bool:
                self.error(node, "unary '-' on a bool is not supported; convert with int() first")
            return Scalar(self.emit(kernel.NegOp(x.ssa), node), x.dtype)
        if isinstance(node.op, ast.Invert):
            if x.dtype.is_float:
                self.error(node, f"'~' needs an integer or bool, got {x.dtype.name}")
            return Scalar(self.emit(kernel.InvertOp(x.ssa), node), x.dtype)
        self.error(node, f"unsupported unary operator {type(node.op).__name__}")

    # ------------------------------------------------------------------ comparisons

    def visit_Compare(self, node: ast.Compare) -> Value:
        left = self.visit_expr(node.left)
        if len(node.ops) == 1:
            return self.compare(node.ops[0], left, self.visit_expr(node.comparators[0]), node)
        # a < b < c: (a < b) and (b < c), b evaluated once, c only if a < b
        return self.chain_compare(left, list(node.ops), list(node.comparators), node)

    def chain_compare(self, left: Value, ops: list[ast.cmpop], rest: list[ast.expr], node: ast.AST) -> Value:
        middle = self.visit_expr(rest[0])
        first = self.compare(ops[0], left, middle, node)
        if len(ops) == 1:
            return first
        return self.lazy_and(first, lambda: self.chain_compare(middle, ops[1:], rest[1:], node), node)

    def compare(self, op: ast.cmpop, left: Value, right: Value, node: ast.AST) -> Value:
        if type(op) not in _COMPARE:
            self.error(node, f"the comparison '{type(op).__name__}' is not supported in kernels (only == != < <= > >=)")
        pred, py_fn = _COMPARE[type(op)]
        if isinstance(left, Literal) and isinstance(right, Literal):
            return Literal(py_fn(left.value, right.value))
        for weak, strong in ((left, right), (right, left)):
            if isinstance(weak, LoopIndex):  # a run-time compare only against a typed value (unrolled: folded otherwise)
                if not isinstance(strong, Scalar) or (strong.dtype.is_int and not strong.dtype.min <= weak.lo <= weak.hi <= strong.dtype.max):
                    raise NeedsUnroll(weak.loops)
        # a literal outside an integer type's range compares by value, as in NumPy 2 (u8 > -1 is True)
        for strong, weak, flipped in ((left, right, False), (right, left, True)):
            if isinstance(weak, Literal) and isinstance(strong, Scalar) and strong.dtype.is_int:
                if isinstance(weak.value, int) and not strong.dtype.min <= weak.value <= strong.dtype.max:
                    below = weak.value < strong.dtype.min  # the literal is below every value of the type
                    outcome = {"eq": False, "ne": True, "lt": not below, "le": not below, "gt": below, "ge": below}[pred]
                    if flipped:
                        outcome = {"eq": False, "ne": True, "lt": below, "le": below, "gt": not below, "ge": not below}[pred]
                    return Literal(outcome)
        a, b, _ = self.coerce_pair(left, right, node)
        return Scalar(self.emit(kernel.CmpOp(pred, a.ssa, b.ssa), node), dtypes.bool_)

    # ------------------------------------------------------------------ short-circuit

    def visit_BoolOp(self, node: ast.BoolOp) -> Value:
        result = self.visit_expr(node.values[0])
        for operand in node.values[1:]:
            if isinstance(node.op, ast.And):
                result = self.lazy_and(result, lambda operand=operand: self.visit_expr(operand), node)
            else:
                result = self.lazy_or(result, lambda operand=operand: self.visit_expr(operand), node)
        return result

    def lazy_and(self, left: Value, right: Callable[[], Value], node: ast.AST) -> Value:
        """Python `left and right`: `right` is evaluated only when `left` is true."""
        if isinstance(left, Literal):
            return right() if left.value else left
        return self.lazy_select(self.truthy(left, node), right, lambda: left, node)

    def lazy_or(self, left: Value, right: Callable[[], Value], node: ast.AST) -> Value:
        """Python `left or right`: `right` is evaluated only when `left` is false."""
        if isinstance(left, Literal):
            return left if left.value else right()
        return self.lazy_select(self.truthy(left, node), lambda: left, right, node)

    def visit_IfExp(self, node: ast.IfExp) -> Value:
        cond = self.visit_expr(node.test)
        if isinstance(cond, Literal):
            return self.visit_expr(node.body if cond.value else node.orelse)
        return self.lazy_select(self.truthy(cond, node), lambda: self.visit_expr(node.body), lambda: self.visit_expr(node.orelse), node)

    def lazy_select(self, cond: Scalar, then: Callable[[], Value], otherwise: Callable[[], Value], node: ast.AST) -> Value:
        """`kernel.if` with one result; each side is evaluated in its own region. The result type is the
        NEP 50 common type of the two sides."""
        then_block, else_block = Block(), Block()
        with self.in_block(then_block):
            t = then()
        with self.in_block(else_block):
            e = otherwise()
        if isinstance(t, Literal) and isinstance(e, Literal) and type(t.value) is type(e.value) and t.value == e.value:
            return t
        dt = self._branch_dtype(t, e, node)
        with self.in_block(then_block):
            tv = self.materialize(t, node, dt)
            self.emit(kernel.YieldOp([tv.ssa]), node)
        with self.in_block(else_block):
            ev = self.materialize(e, node, dt)
            self.emit(kernel.YieldOp([ev.ssa]), node)
        op = kernel.IfOp(cond.ssa, [dt.mlir], Region(then_block), Region(else_block))
        return Scalar(self.emit(op, node), dt)

    def _branch_dtype(self, t: Value, e: Value, node: ast.AST) -> DType:
        for side in (t, e):
            if not isinstance(side, Literal | Scalar):
                self.error(node, f"both sides must be numbers here, got {side.describe()}")
        if isinstance(t, Literal) and isinstance(e, Literal):
            if isinstance(t.value, float) or isinstance(e.value, float):
                return dtypes.f64
            if isinstance(t.value, bool) and isinstance(e.value, bool):
                return dtypes.bool_
            return dtypes.i64
        if isinstance(t, Scalar) and isinstance(e, Scalar):
            try:
                return dtypes.promote(t.dtype, e.dtype)
            except TypeError as err:
                self.error(node, str(err))
        strong, weak = (t, e) if isinstance(t, Scalar) else (e, t)
        assert isinstance(strong, Scalar) and isinstance(weak, Literal)
        return dtypes.promote_weak(strong.dtype, weak.value)

    # ------------------------------------------------------------------ subscripts

    def tuple_item(self, base: TupleValue, index: Value, node: ast.AST) -> Value:
        """`T[k]` of a tuple (a module-level table, a tuple written in the kernel): Python's item for
        a constant `k` (negative counts from the end); a `simt.static_range` variable unrolls the loop."""
        if isinstance(index, LoopIndex):
            raise NeedsUnroll(index.loops)
        if not isinstance(index, Literal) or isinstance(index.value, bool) or not isinstance(index.value, int):
            self.error(node, f"a tuple is indexed by a constant integer (or a simt.static_range variable), got {index.describe()}")
        n = len(base.elements)
        if not -n <= index.value < n:
            self.error(node, f"tuple index {index.value} out of range for {base.describe()}")
        return base.elements[index.value]

    def visit_Subscript(self, node: ast.Subscript) -> Value:
        base = self.visit_expr(node.value)
        index = self.visit_expr(node.slice)
        if isinstance(base, ArrayValue):
            return self.array_load(base, index, node)
        if isinstance(base, RegisterArrayValue):
            return self.register_load(base, index, node)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(base, ViewValue):
            return self.view_load(base, index, node)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(base, TupleValue):
            return self.tuple_item(base, index, node)
        if not isinstance(base, SliceValue):
            self.error(node, f"cannot index {base.describe()}")
        return self.load(base, index, node)

    def array_indices(self, base: ArrayValue, index: Value, node: ast.AST) -> list[Scalar]:
        """The indices of `arr[i]` / `arr[i, j]` as integer scalars, one per dimension. A constant index
        outside a static extent is a `CompileError`; run-time ones are checked when the kernel runs."""
        parts = list(index.elements) if isinstance(index, TupleValue) else [index]
        if len(parts) != len(base.shape):
            self.error(node, f"{base.describe()} takes {len(base.shape)} index(es), got {len(parts)}")
        out: list[Scalar] = []
        for part, extent in zip(parts, base.shape):
            if isinstance(part, Literal):
                if not isinstance(part.value, int) or isinstance(part.value, bool):
                    self.error(node, f"an array index must be an integer, got {part.value!r}")
                if extent is not None and not 0 <= part.value < extent:
                    self.error(node, f"index {part.value} is out of range for an extent of {extent}")
                out.append(self.const(part.value, dtypes.i64, node))
                continue
            if isinstance(part, LoopIndex):  # as a constant index: one outside a static extent is refused, unrolled
                if part.lo < 0 or (extent is not None and part.hi >= extent):
                    raise NeedsUnroll(part.loops)
                out.append(self.loop_index_as(part, dtypes.i64, node))
                continue
            if isinstance(part, IndexValue):
                part = Scalar(self.emit(kernel.IndexGetOp(part.ssa), node), dtypes.i64)
            scalar = self.materialize(part, node)
            if not scalar.dtype.is_int:
                self.error(node, f"an array index must be an integer, got {scalar.dtype.name}")
            out.append(scalar)
        return out

    def array_load(self, base: ArrayValue, index: Value, node: ast.AST) -> Scalar:
        indices = self.array_indices(base, index, node)
        op = kernel.ArrayLoadOp(base.ssa, [i.ssa for i in indices], self.text_of(node))
        return Scalar(self.emit(op, node), base.dtype)

    def load(self, base: SliceValue, index: Value, node: ast.AST) -> Scalar:
        text = self.text_of(node)
        if base.kind == "atomic_slice":
            self.error(node, f"{base.describe()} takes atomic operations only (simt.atomic_add(...), simt.atomic_exch(...), …); a plain read would race with them")
        if base.kind == "disjoint_slice":
            if isinstance(index, ViewValue):
                self.error(node, "index a view with its own coordinates: view[r, c]")
            if not isinstance(index, IndexValue):
                hint = " (a BlockIndex is written by the block's first thread only; other threads reading it would race)" if isinstance(index, BlockIndexValue) else ""
                self.error(node, f"{base.describe()} can be read only at the thread's own ThreadIndex (e.g. {base.name}[idx]); reading other elements would race with their writers{hint}")
            return Scalar(self.emit(kernel.LoadOp(base.ssa, index.ssa, text), node), base.dtype)
        if isinstance(index, IndexValue):
            index = Scalar(self.emit(kernel.IndexGetOp(index.ssa), node), dtypes.i64)
        if isinstance(index, BlockIndexValue):
            index = Scalar(self.emit(kernel.BlockIndexGetOp(index.ssa), node), dtypes.i64)
        if isinstance(index, Literal):
            if not isinstance(index.value, int) or isinstance(index.value, bool):
                self.error(node, f"a slice index must be an integer, got {index.value!r}")
            i = self.const(index.value, dtypes.i64, node)
        elif isinstance(index, LoopIndex):
            i = self.loop_index_as(index, dtypes.i64, node)
        else:
            i = self.materialize(index, node)
            if not i.dtype.is_int:
                self.error(node, f"a slice index must be an integer, got {i.dtype.name}")
        return Scalar(self.emit(kernel.LoadOp(base.ssa, i.ssa, text), node), base.dtype)

    def visit_Tuple(self, node: ast.Tuple) -> Value:
        return TupleValue(tuple(self.visit_expr(e) for e in node.elts))


def _text_attr(text: str):
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(text)


_ = math
