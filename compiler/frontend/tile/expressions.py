"""Expressions on tiles: names of the `tile` module, attributes (`x.shape`, `t.dtype`, methods),
arithmetic and comparisons with NumPy broadcasting and NEP 50 types, unary operators, and the
conversions (`cast`, `const`, `implicit`, `truthy`) the SIMT statement code calls."""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from xdsl.dialects.builtin import FloatAttr, IntegerAttr

from warpforge import dtypes
from warpforge.dialects import kernel, tile as tiled
from warpforge.dialects.kernel_tile import TensorDimOp
from warpforge.dialects.tile import MAX_TENSOR_RANK, MAX_TILE_ELEMENTS
from warpforge.dtypes import DType
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.expressions import _BINOPS, _COMPARE, _INT_ONLY, OPERATOR_NAMES, operator_text  # pyright: ignore[reportPrivateUsage]
from warpforge.frontend.tile.values import NoneValue, TensorValue, TileDType, TupleValue, elem_of, is_tile, shape_of
from warpforge.frontend.values import BoundMethod, Builtin, DTypeRef, Literal, Namespace, Scalar, Value

TILE_BINARY: dict[type[ast.operator], type[tiled.ElementwiseBinaryOp]] = {
    ast.Add: tiled.AddOp,
    ast.Sub: tiled.SubOp,
    ast.Mult: tiled.MulOp,
    ast.Div: tiled.TrueDivOp,
    ast.FloorDiv: tiled.FloorDivOp,
    ast.Mod: tiled.ModOp,
    ast.Pow: tiled.PowOp,
    ast.BitAnd: tiled.AndOp,
    ast.BitOr: tiled.OrOp,
    ast.BitXor: tiled.XorOp,
    ast.LShift: tiled.LShiftOp,
    ast.RShift: tiled.RShiftOp,
}
"""Python operator → the `tile` elementwise op."""

TILE_METHODS = ("sum", "max", "min", "prod", "reshape", "astype", "permute", "transpose", "broadcast_to", "argmax", "argmin", "cumsum")
"""Methods of tile values (`t.sum(axis=1)`, `t.astype(wf.f16)`)."""


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """NumPy's broadcast of two shapes, or None when they do not line up."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(reversed(out))


def _fmt(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


class TileExpressionMixin(FunctionCompilerBase):
    like_pairs: list[tuple[str, str]]
    max_tile: int
    grid_param: Any

    # ------------------------------------------------------------------ names

    def lookup(self, name: str, node: ast.AST) -> Value:
        if name not in self.vars and name in self.globals:
            resolved = self.resolve_tile_object(self.globals[name])
            if resolved is not None:
                return resolved
        return super().lookup(name, node)  # pyright: ignore[reportAttributeAccessIssue]

    def resolve_tile_object(self, obj: Any) -> Value | None:
        """`tile` itself and its kernel functions (compared by identity, like the SIMT `simt.*`)."""
        from warpforge import tile as tile_module

        if obj is tile_module:
            return Namespace("tile", tile_module)
        if isinstance(obj, tuple) and all(isinstance(v, bool | int | float) for v in obj):
            return TupleValue(tuple(Literal(v) for v in obj))  # a shape defined outside the kernel
        for fname in tile_module.kernel_functions():
            if obj is getattr(tile_module, fname):
                return Builtin(f"tile.{fname}")
        return None

    def visit_Constant(self, node: ast.Constant) -> Value:
        if node.value is None:
            return NoneValue()
        return super().visit_Constant(node)  # pyright: ignore[reportAttributeAccessIssue]

    def visit_Tuple(self, node: ast.Tuple) -> Value:
        return TupleValue(tuple(self.visit_expr(e) for e in node.elts))  # pyright: ignore[reportAttributeAccessIssue]

    def visit_List(self, node: ast.List) -> Value:
        return TupleValue(tuple(self.visit_expr(e) for e in node.elts))  # pyright: ignore[reportAttributeAccessIssue]

    def visit_Attribute(self, node: ast.Attribute) -> Value:
        base = self.visit_expr(node.value)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(base, Namespace) and base.name == "tile":
            from warpforge import tile as tile_module

            if node.attr in tile_module.kernel_functions():
                return Builtin(f"tile.{node.attr}")
            self.error(node, f"'tile.{node.attr}' is not available inside tile kernels")
        if isinstance(base, TensorValue):
            if node.attr == "shape":
                return self.tensor_shape(base, node)
            if node.attr == "tensor_shape":
                return self.tensor_shape(base, node, whole=True)
            if node.attr == "dtype":
                return DTypeRef(base.dtype)
            if node.attr in ("store", "load"):
                return BoundMethod(base, node.attr)
            self.error(node, f"{base.describe()} has no attribute '{node.attr}' in a tile kernel (shape, tensor_shape, dtype, load, store)")
        if is_tile(base):
            assert isinstance(base, Scalar) and isinstance(base.dtype, TileDType)
            if node.attr == "shape":
                return TupleValue(tuple(Literal(d) for d in base.dtype.shape))
            if node.attr == "dtype":
                return DTypeRef(base.dtype.elem)
            if node.attr == "T":
                return self.tile_transpose(base, node)
            if node.attr in TILE_METHODS:
                return BoundMethod(base, node.attr)
            self.error(node, f"a tile has no attribute '{node.attr}' (shape, dtype, T, {', '.join(TILE_METHODS)})")
        if isinstance(base, TupleValue):
            self.error(node, f"a tuple has no attribute '{node.attr}'")
        return self._attribute_of(base, node)

    @contextmanager
    def _evaluated(self, node: ast.AST, field: str, name: str, value: Value) -> Iterator[None]:
        """While open, `node.<field>` is a name bound to the already evaluated `value`, so a SIMT
        frontend rule can run on `node` without evaluating that subexpression twice."""
        saved = getattr(node, field)
        placeholder = ast.Name(id=name, ctx=ast.Load())
        ast.copy_location(placeholder, saved)
        self.vars[name] = value
        setattr(node, field, placeholder)
        try:
            yield
        finally:
            setattr(node, field, saved)
            del self.vars[name]

    def _attribute_of(self, base: Value, node: ast.Attribute) -> Value:
        # the SIMT frontend's attribute rules, without evaluating the base twice
        with self._evaluated(node, "value", "__wf_attr_base__", base):
            return super().visit_Attribute(node)  # pyright: ignore[reportAttributeAccessIssue]

    def tensor_shape(self, t: TensorValue, node: ast.AST, *, whole: bool = False) -> TupleValue:
        """`x.shape`: a partitioned parameter's tile shape (constants), else the tensor's extents;
        `x.tensor_shape` (`whole`): the whole tensor's extents for every kind (constants where the
        annotation fixes them, else i64 values read at run time)."""
        if t.kind == "partition" and not whole:
            assert t.tile_shape is not None
            return TupleValue(tuple(Literal(d) for d in t.tile_shape))
        items: list[Value] = []
        for axis, d in enumerate(t.tensor_dims):
            items.append(Literal(d) if d is not None else Scalar(self.emit(TensorDimOp(t.ssa, axis), node), dtypes.i64))
        return TupleValue(tuple(items))

    def visit_Subscript(self, node: ast.Subscript) -> Value:
        base = self.visit_expr(node.value)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(base, TupleValue):
            index = self.visit_expr(node.slice)  # pyright: ignore[reportAttributeAccessIssue]
            if not isinstance(index, Literal) or not isinstance(index.value, int) or isinstance(index.value, bool):
                self.error(node, "a tuple (a shape) is indexed by a constant integer, e.g. x.shape[0]")
            if not -len(base.items) <= index.value < len(base.items):
                self.error(node, f"index {index.value} is out of range for a tuple of {len(base.items)}")
            return base.items[index.value]
        if isinstance(base, TensorValue):
            self.error(node, f"{base.describe()} is not indexed element by element in a tile kernel: load tiles (tile.load_tile_like, tile.load, tile.gather)")
        if is_tile(base):
            self.error(node, "tiles are not indexed element by element; use tile.where, reductions or reshape")
        return super().visit_Subscript(node)  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ tile values

    def tile_dtype(self, elem: DType, shape: tuple[int, ...], node: ast.AST) -> TileDType:
        """The dtype of a tile of `elem` and `shape`; a dimension that is not a power of two is a `CompileError`."""
        for d in shape:
            if not isinstance(d, int) or d < 1 or d & (d - 1):
                self.error(node, f"tile shape {_fmt(tuple(shape))}: tile dimensions must be powers of two (1, 2, 4, …), got {d}")
        if len(shape) > MAX_TENSOR_RANK:
            self.error(node, f"tile shape {_fmt(tuple(shape))}: tiles have rank 0 to {MAX_TENSOR_RANK}")
        if math.prod(shape) > MAX_TILE_ELEMENTS:
            self.error(node, f"tile shape {_fmt(tuple(shape))} has {math.prod(shape)} elements; a tile has at most {MAX_TILE_ELEMENTS} (MAX_TILE_ELEMENTS)")
        dt = TileDType.of(elem_of(elem), tuple(shape))
        self.max_tile = max(self.max_tile, dt.numel)
        return dt

    def new_tile(self, op: Any, elem: DType, shape: tuple[int, ...], node: ast.AST) -> Scalar:
        return Scalar(self.emit(op, node), self.tile_dtype(elem, shape, node))

    def constant_attr(self, value: bool | int | float, dtype: DType, node: ast.AST) -> IntegerAttr | FloatAttr:
        """`value` as a constant of `dtype` (a literal out of an integer type's range is a `CompileError`)."""
        if dtype.is_float:
            return FloatAttr(float(value), dtype.mlir)  # pyright: ignore[reportArgumentType]
        if isinstance(value, float):
            if not value.is_integer():
                self.error(node, f"the constant {value!r} is not an integer, but {dtype.name} is needed here")
            value = int(value)
        v = int(bool(value)) if dtype.is_bool else int(value)
        if not dtype.is_bool and not dtype.min <= v <= dtype.max:
            self.error(node, f"the constant {value!r} does not fit {dtype.name} ({dtype.min}..{dtype.max})")
        return IntegerAttr(v, dtype.mlir)  # pyright: ignore[reportArgumentType]

    def to_tile(self, value: Value, elem: DType, shape: tuple[int, ...], node: ast.AST) -> Scalar:
        """`value` (a literal, scalar or tile) as a tile of `elem` and `shape`: converted (NumPy rules),
        splatted or broadcast."""
        target = self.tile_dtype(elem, shape, node)
        if isinstance(value, Literal):
            return self.new_tile(tiled.FullOp(self.constant_attr(value.value, elem, node), target.mlir), elem, shape, node)  # pyright: ignore[reportArgumentType]
        if not isinstance(value, Scalar):
            self.materialize(value, node)  # a precise error for tensors, tuples, …
            raise AssertionError
        if not is_tile(value):
            s = super().cast(value, elem, node) if value.dtype != elem else value  # pyright: ignore[reportAttributeAccessIssue]
            return self.new_tile(tiled.SplatOp(s.ssa, target.mlir), elem, shape, node)  # pyright: ignore[reportArgumentType]
        t = value
        assert isinstance(t.dtype, TileDType)
        if t.dtype.elem != elem:
            t = self.new_tile(tiled.CastOp(t.ssa, elem.mlir), elem, t.dtype.shape, node)
        if t.dtype.shape != tuple(shape):
            assert isinstance(t.dtype, TileDType)
            if tiled.broadcastable(t.dtype.shape, shape):
                t = self.new_tile(tiled.BroadcastOp(t.ssa, target.mlir), elem, shape, node)  # pyright: ignore[reportArgumentType]
            elif t.dtype.numel == math.prod(shape):
                t = self.new_tile(tiled.ReshapeOp(t.ssa, target.mlir), elem, shape, node)  # pyright: ignore[reportArgumentType]
            else:
                self.error(node, f"a tile of shape {_fmt(t.dtype.shape)} does not broadcast to {_fmt(tuple(shape))}")
        return t

    def common(self, values: list[Value], node: ast.AST, what: str) -> tuple[DType, tuple[int, ...]]:
        """The NEP 50 element dtype and the broadcast shape of operands (literals are weak)."""
        shape: tuple[int, ...] = ()
        strong: DType | None = None
        weak: list[bool | int | float] = []
        for v in values:
            if isinstance(v, Literal):
                weak.append(v.value)
                continue
            if not isinstance(v, Scalar):
                self.materialize(v, node)
                raise AssertionError
            s = shape_of(v)
            b = broadcast_shapes(shape, s)
            if b is None:
                self.error(node, f"{what}: shapes {_fmt(shape)} and {_fmt(s)} do not broadcast together")
            shape = b
            e = elem_of(v.dtype)
            try:
                strong = e if strong is None else dtypes.promote(strong, e)
            except TypeError as err:
                self.error(node, str(err))
        if strong is None:
            strong = dtypes.literal_dtype(weak[0]) if weak else dtypes.f64
            weak = weak[1:]
        for w in weak:
            strong = dtypes.promote_weak(strong, w)
        return strong, shape

    # ------------------------------------------------------------------ arithmetic

    def binary(self, op_type: type[ast.operator], left: Value, right: Value, node: ast.AST) -> Value:
        if not (is_tile(left) or is_tile(right)):
            return super().binary(op_type, left, right, node)  # pyright: ignore[reportAttributeAccessIssue]
        symbol = _BINOPS[op_type][0] if op_type in _BINOPS else OPERATOR_NAMES.get(op_type, (op_type.__name__,))[0]
        if op_type not in TILE_BINARY:
            self.error(node, f"the operator {operator_text(op_type)} is not supported on tiles")
        if op_type is ast.Pow and isinstance(right, Literal) and isinstance(right.value, int) and not isinstance(right.value, bool):
            return self.tile_power(left, right.value, node)
        elem, shape = self.common([left, right], node, f"'{symbol}'")
        if elem.is_bool and op_type in (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow):
            self.error(node, f"'{symbol}' on two bool tiles is not supported; convert with .astype(wf.i32) first")
        if op_type in _INT_ONLY and elem.is_float:
            self.error(node, f"'{symbol}' needs integer tiles, got {elem.name}")
        if op_type in (ast.Div, ast.Pow) and not elem.is_float:
            elem = dtypes.f64  # NumPy: integer / integer is float64 (and ** with a run-time exponent here)
        a = self.to_tile(left, elem, shape, node)
        b = self.to_tile(right, elem, shape, node)
        op = TILE_BINARY[op_type](a.ssa, b.ssa)
        if op_type in (ast.FloorDiv, ast.Mod) and not elem.is_float:
            from xdsl.dialects.builtin import StringAttr

            op.attributes["text"] = StringAttr(self.text_of(node))
        return self.new_tile(op, elem, shape, node)

    def tile_power(self, base: Value, n: int, node: ast.AST) -> Value:
        assert isinstance(base, Scalar)
        b = base
        if elem_of(b.dtype).is_bool:
            b = self.to_tile(b, dtypes.i64, shape_of(b), node)
        elem = elem_of(b.dtype)
        if n < 0 and not elem.is_float:
            self.error(node, "integers to negative integer powers are not allowed (as in NumPy); use a float tile")
        result: Scalar | None = None
        square = b
        k = abs(n)
        while k:
            if k & 1:
                result = square if result is None else self.new_tile(tiled.MulOp(result.ssa, square.ssa), elem, shape_of(b), node)
            k >>= 1
            if k:
                square = self.new_tile(tiled.MulOp(square.ssa, square.ssa), elem, shape_of(b), node)
        if result is None:
            result = self.to_tile(Literal(1), elem, shape_of(b), node)
        if n < 0:
            one = self.to_tile(Literal(1.0), elem, shape_of(b), node)
            result = self.new_tile(tiled.TrueDivOp(one.ssa, result.ssa), elem, shape_of(b), node)
        return result

    def compare(self, op: ast.cmpop, left: Value, right: Value, node: ast.AST) -> Value:
        if not (is_tile(left) or is_tile(right)):
            return super().compare(op, left, right, node)  # pyright: ignore[reportAttributeAccessIssue]
        if type(op) not in _COMPARE:
            self.error(node, f"the comparison '{type(op).__name__}' is not supported on tiles (only == != < <= > >=)")
        pred = _COMPARE[type(op)][0]
        elem, shape = self.common([left, right], node, "comparison")
        a = self.to_tile(left, elem, shape, node)
        b = self.to_tile(right, elem, shape, node)
        return self.new_tile(tiled.CmpOp(pred, a.ssa, b.ssa), dtypes.bool_, shape, node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Value:
        operand = self.visit_expr(node.operand)  # pyright: ignore[reportAttributeAccessIssue]
        if not is_tile(operand):
            return self._unary_via_super(node, operand)
        assert isinstance(operand, Scalar) and isinstance(operand.dtype, TileDType)
        elem, shape = operand.dtype.elem, operand.dtype.shape
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub):
            if elem.is_bool:
                self.error(node, "unary '-' on a bool tile is not supported; use ~ for logical not")
            return self.new_tile(tiled.NegOp(operand.ssa), elem, shape, node)
        if isinstance(node.op, ast.Invert):
            if elem.is_float:
                self.error(node, f"'~' needs an integer or bool tile, got {elem.name}")
            return self.new_tile(tiled.InvertOp(operand.ssa), elem, shape, node)
        if isinstance(node.op, ast.Not):
            return Scalar(self.emit(kernel.NotOp(self.truthy(operand, node).ssa), node), dtypes.bool_)
        self.error(node, f"unsupported unary operator {type(node.op).__name__}")

    def _unary_via_super(self, node: ast.UnaryOp, operand: Value) -> Value:
        with self._evaluated(node, "operand", "__wf_unary_operand__", operand):
            return super().visit_UnaryOp(node)  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ conversions the SIMT code calls

    def const(self, value: bool | int | float, dtype: DType, node: ast.AST) -> Scalar:
        if isinstance(dtype, TileDType):
            return self.to_tile(Literal(value), dtype.elem, dtype.shape, node)
        return super().const(value, dtype, node)

    def cast(self, value: Scalar, dtype: DType, node: ast.AST) -> Scalar:
        if isinstance(dtype, TileDType):
            return self.to_tile(value, dtype.elem, dtype.shape, node)
        if is_tile(value):
            assert isinstance(value.dtype, TileDType)
            if value.dtype.numel == 1:
                scalar = Scalar(self.emit(tiled.ExtractOp(value.ssa), node), value.dtype.elem)
                return super().cast(scalar, dtype, node)
            self.error(node, f"{value.dtype!r} cannot become a single {dtype.name} number; reduce it first (tile.sum, tile.max, …)")
        return super().cast(value, dtype, node)

    def implicit(self, value: Value, dtype: DType, node: ast.AST, what: str) -> Scalar:
        if isinstance(dtype, TileDType):
            if isinstance(value, Literal):
                return self.to_tile(value, dtype.elem, dtype.shape, node)
            if isinstance(value, Scalar) and value.dtype == dtype:
                return value
            got = value.describe() if not isinstance(value, Scalar) else repr(value.dtype) if is_tile(value) else f"a {value.dtype.name} number"
            self.error(node, f"{what}: {got} where {dtype!r} is needed; a variable keeps one type (use .astype(...) or tile.broadcast_to)")
        if is_tile(value):
            self.error(node, f"{what}: {value.dtype!r} where a {dtype.name} number is needed")  # pyright: ignore[reportAttributeAccessIssue]
        return super().implicit(value, dtype, node, what)

    def truthy(self, value: Value, node: ast.AST) -> Scalar:
        if is_tile(value):
            assert isinstance(value, Scalar) and isinstance(value.dtype, TileDType)
            if value.dtype.numel != 1:
                self.error(node, f"the truth value of a tile with {value.dtype.numel} elements is ambiguous; reduce it first (tile.max, tile.sum, …)")
            value = Scalar(self.emit(tiled.ExtractOp(value.ssa), node), value.dtype.elem)
        return super().truthy(value, node)

    def range_bound(self, value: Value, node: ast.AST) -> Scalar:
        if is_tile(value):
            value = self.cast(value, dtypes.i64, node)  # a one-element tile; others are an error there
        return super().range_bound(value, node)  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ shape ops used by attributes

    def tile_transpose(self, t: Scalar, node: ast.AST) -> Scalar:
        assert isinstance(t.dtype, TileDType)
        if len(t.dtype.shape) < 2:
            return t
        return self.new_tile(tiled.TransposeOp(t.ssa), t.dtype.elem, tuple(reversed(t.dtype.shape)), node)
