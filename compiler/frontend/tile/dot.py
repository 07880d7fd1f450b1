"""`tile.dot(a, b, acc=None, allow_tf32=False)` and `a @ b` in tile kernels → `tile.dot` (tensor cores).

Checked here, at the call's line, naming shapes and dtypes: both operands 2-D tiles, matching inner
dimensions, one input dtype with an `mma.sync` (f16, bf16, f32 only with `allow_tf32=True`, i8, u8),
M, N ≥ 16 and K ≥ 16 (32 for 8-bit inputs), the accumulator f32 (i32 for 8-bit inputs) of shape
M×N, and the shared memory the lowering needs within the 48 KiB a CTA has statically.
"""

from __future__ import annotations

import ast

from warpforge import dtypes
from warpforge.dialects import tile_dot
from warpforge.frontend.tile.values import NoneValue, TileDType, is_tile
from warpforge.frontend.values import Literal, Scalar, Value

_INPUTS = {"f16": "f16", "bf16": "bf16", "f32": "tf32", "i8": "s8", "u8": "u8"}


def _fmt(t: TileDType) -> str:
    return f"{'x'.join(map(str, t.shape))} {t.elem.name}"


class TileDotMixin:
    """`tcall_dot` and the `@` operator on tiles (mixed into the tile function compiler)."""

    def tcall_dot(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        a, b, acc, tf32 = self.params(node, "tile.dot", args, kwargs, [("a", ...), ("b", ...), ("acc", None), ("allow_tf32", None)])  # pyright: ignore[reportAttributeAccessIssue]
        if tf32 is not None and not (isinstance(tf32, Literal) and isinstance(tf32.value, bool)):
            self.error(node, f"tile.dot allow_tf32 must be True or False, got {tf32.describe()}")  # pyright: ignore[reportAttributeAccessIssue]
        allow = bool(tf32.value) if isinstance(tf32, Literal) else False
        return self.tile_dot(a, b, None if acc is None or isinstance(acc, NoneValue) else acc, allow, node)  # pyright: ignore[reportArgumentType]

    def binary(self, op_type: type[ast.operator], left: Value, right: Value, node: ast.AST) -> Value:
        if op_type is ast.MatMult and (is_tile(left) or is_tile(right)):
            return self.tile_dot(left, right, None, False, node)
        return super().binary(op_type, left, right, node)  # pyright: ignore[reportAttributeAccessIssue]

    def tile_dot(self, a: Value, b: Value, acc: Value | None, allow_tf32: bool, node: ast.AST) -> Value:
        err = self.error  # pyright: ignore[reportAttributeAccessIssue]
        for name, v in (("a", a), ("b", b)):
            if not is_tile(v):
                err(node, f"tile.dot: {name} must be a 2-D tile, got {v.describe()}")
        assert isinstance(a, Scalar) and isinstance(b, Scalar)
        ta, tb = a.dtype, b.dtype
        assert isinstance(ta, TileDType) and isinstance(tb, TileDType)
        what = f"tile.dot of {_fmt(ta)} and {_fmt(tb)}"
        if len(ta.shape) != 2 or len(tb.shape) != 2:
            err(node, f"{what}: both operands must be 2-D tiles")
        (m, k), (k2, n) = ta.shape, tb.shape
        if k != k2:
            err(node, f"{what}: the inner dimensions differ (K = {k} and {k2})")
        if ta.elem != tb.elem:
            err(node, f"{what}: the operands have different dtypes; convert one (.astype) — mma.sync multiplies one input type")
        kind = _INPUTS.get(ta.elem.name)
        if kind is None:
            err(node, f"{what}: no tensor-core multiply for {ta.elem.name} (f16, bf16, f32 as tf32, i8, u8)")
        if kind == "tf32" and not allow_tf32:
            err(node, f"{what}: f32 inputs multiply as tf32 (10 mantissa bits); pass allow_tf32=True to accept that, or convert to f16/bf16")
        need_k = tile_dot.min_k(kind)  # pyright: ignore[reportArgumentType]
        if m < 16 or n < 16 or k < need_k:
            err(node, f"{what}: M and N must be at least 16 and K at least {need_k} (the mma.sync tile), got M={m}, N={n}, K={k}")
        acc_dt = dtypes.i32 if kind in ("s8", "u8") else dtypes.f32
        if acc is None:
            c = self.to_tile(Literal(0), acc_dt, (m, n), node)  # pyright: ignore[reportAttributeAccessIssue]
        else:
            if not is_tile(acc):
                err(node, f"{what}: acc must be a {m}x{n} {acc_dt.name} tile, got {acc.describe()}")
            assert isinstance(acc, Scalar) and isinstance(acc.dtype, TileDType)
            if acc.dtype.shape != (m, n) or acc.dtype.elem != acc_dt:
                err(node, f"{what}: acc must be a {m}x{n} {acc_dt.name} tile, got {_fmt(acc.dtype)}")
            c = acc
        op = tile_dot.DotOp(a.ssa, b.ssa, c.ssa, allow_tf32=kind == "tf32")
        return self.new_tile(op, acc_dt, (m, n), node)  # pyright: ignore[reportAttributeAccessIssue]
