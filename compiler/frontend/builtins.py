"""The frontend of the elementwise builtins: the catalog's type rules (`warpforge.dialects.math_catalog`),
applied to a call in either model.

`scalar_call` is the SIMT rule (Python semantics: `math.floor` gives an int; constants fold with
Python's function), also used in tile kernels when no argument is a tile and the call is not spelled
`tile.<name>`; `tile_call` is the tile rule (NumPy semantics, broadcasting, NEP 50 weak literals).
Both emit the record's scalar op — on scalars directly, on tiles through its generated tile op
(`warpforge.dialects.tile.BUILTIN_OPS`). Errors are `CompileError`s at the call.
"""

from __future__ import annotations

import ast
from typing import Any

from xdsl.dialects.builtin import StringAttr

from warpforge import dtypes
from warpforge.dialects.math_catalog import BY_PYTHON_NAME, Builtin
from warpforge.frontend.values import Literal, Scalar, Value

__all__ = ["BY_PYTHON_NAME", "scalar_call", "tile_call"]


def _fold(fc: Any, b: Builtin, qualified: str, node: ast.AST, args: list[Value]) -> Literal | None:
    """The constant result when every argument is a compile-time number and `b` folds."""
    if b.fold is None or not args or not all(isinstance(a, Literal) for a in args):
        return None
    values = [a.value for a in args]  # pyright: ignore[reportAttributeAccessIssue]
    try:
        result = b.fold(*values)
    except ZeroDivisionError:
        fc.error(node, f"division by zero in the constant expression '{fc.text_of(node)}'")
    except (ValueError, OverflowError, TypeError) as e:
        fc.error(node, f"{qualified}{tuple(values)}: {e}")
    if isinstance(result, int) and not isinstance(result, bool) and not -(2**63) <= result < 2**64:
        fc.error(node, f"the constant {result} does not fit 64 bits")
    return Literal(result)


def _text(op: Any, fc: Any, node: ast.AST) -> Any:
    """`op` with the call's source text, for the error record of a checked division."""
    op.attributes["text"] = StringAttr(fc.text_of(node))
    return op


def scalar_call(fc: Any, b: Builtin, qualified: str, node: ast.Call, args: list[Value]) -> Value:
    """`qualified(*args)` on scalars (`fc` is a SIMT `FunctionCompiler`, or a tile one)."""
    folded = _fold(fc, b, qualified, node, args)
    if folded is not None:
        return folded
    fc.arity(node, args, b.arity, qualified)
    if b.rule in ("float", "round"):
        xs = [fc.float_arg(a, node) for a in args]  # floats keep their type, integers become f64
        dt = xs[0].dtype
        for x in xs[1:]:
            dt = dtypes.promote(dt, x.dtype)
        xs = [fc.cast(x, dt, node) for x in xs]
        result = Scalar(fc.emit(b.op(*(x.ssa for x in xs)), node), dt)
        return fc.cast(result, dtypes.i64, node) if b.rule == "round" else result
    assert b.rule == "int"
    if b.arity == 1:
        x = fc.materialize(args[0], node)
        _check_int(fc, qualified, x.dtype, node)
        return Scalar(fc.emit(b.op(x.ssa), node), x.dtype)
    dt = fc.result_dtype(args[0], args[1], node)
    assert dt is not None
    _check_int(fc, qualified, dt, node)
    x, y, dt = fc.coerce_pair(args[0], args[1], node, dt)
    return Scalar(fc.emit(_text(b.op(x.ssa, y.ssa), fc, node), node), dt)


def _check_int(fc: Any, qualified: str, dt: Any, node: ast.AST) -> None:
    if not dt.is_int:
        fc.error(node, f"{qualified}() needs integers, got {dt.name}" + (" (convert with int() first)" if dt.is_bool else ""))


def tile_call(fc: Any, b: Builtin, qualified: str, node: ast.Call, args: list[Value]) -> Value:
    """`qualified(*args)` in a tile kernel (`fc` is a tile `FunctionCompiler`): the tile op of `b` when
    an argument is a tile (NumPy broadcasting and NEP 50 types), else a scalar."""
    from warpforge.dialects.tile import BUILTIN_OPS
    from warpforge.frontend.tile.values import elem_of, is_tile, shape_of

    if not b.tile:
        fc.error(node, f"{qualified}() does not take tiles (it has no tile form)")
    if not any(is_tile(a) for a in args):
        if b.rule == "round" and qualified.startswith("tile."):  # numpy.floor of a scalar stays a float
            fc.arity(node, args, 1, qualified)
            x = fc.materialize(args[0], node)
            return x if not x.dtype.is_float else Scalar(fc.emit(b.op(x.ssa), node), x.dtype)
        return scalar_call(fc, b, qualified, node, args)
    fc.arity(node, args, b.arity, qualified)
    op = BUILTIN_OPS[b]
    if b.arity == 1:
        t = args[0]
        assert isinstance(t, Scalar)
        elem, shape = elem_of(t.dtype), shape_of(t)
    else:
        elem, shape = fc.common(args, node, qualified)
    if b.rule == "int":
        _check_int(fc, qualified, elem, node)
    elif not elem.is_float:
        if b.rule == "round":
            return args[0]  # numpy.floor of integers: the same values (NumPy makes floats; the type is kept)
        elem = dtypes.f64  # NumPy: integer tiles become float64
    tiles = [fc.to_tile(a, elem, shape, node) for a in args]
    made = op(*(t.ssa for t in tiles))
    if b.rule == "int" and b.arity == 2:
        _text(made, fc, node)
    return fc.new_tile(made, elem, shape, node)
