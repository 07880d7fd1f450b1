"""Index reductions, scans and new axes in tile kernels: `tile.argmax/argmin(t, axis, keepdims)`,
`tile.cumsum(t, axis)` (and the methods `t.argmax(...)`, `t.cumsum(...)`), and NumPy's new-axis
indexing `t[:, None]` / `t[None, :]` (a reshape), with which broadcast masks are built, e.g. the
causal mask `q_idx[:, None] >= k_idx[None, :]`.

NumPy's rules: `axis=None` works on the flattened tile; argmax/argmin give int64 indices (the first
on ties, the first NaN when there is one); cumsum of bool and of integers narrower than 64 bits
sums in int64 (uint64 for unsigned), as `numpy.cumsum` does on Linux.
"""

from __future__ import annotations

import ast

from warpforge import dtypes
from warpforge.dialects.tile_scan import ArgMaxOp, ArgMinOp, CumSumOp
from warpforge.frontend.tile.values import NoneValue, TileDType, is_tile, shape_of
from warpforge.frontend.values import Literal, Scalar, Value


def _new_axis_index(node: ast.expr) -> list[bool] | None:
    """For `t[<index>]` made only of `:` and `None`: per item, whether it is a new axis (None); else None."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    out = []
    for it in items:
        if isinstance(it, ast.Constant) and it.value is None:
            out.append(True)
        elif isinstance(it, ast.Slice) and it.lower is None and it.upper is None and it.step is None:
            out.append(False)
        else:
            return None
    return out if any(out) else None


class TileScanMixin:
    """`tcall_argmax`, `tcall_argmin`, `tcall_cumsum`, their tile methods, and `t[:, None]`."""

    def _axis(self, t: Scalar, axis: Value | None, node: ast.AST) -> int | None:
        if axis is None or isinstance(axis, NoneValue):
            return None
        a = self.static_int(axis, node, "axis")  # pyright: ignore[reportAttributeAccessIssue]
        rank = len(shape_of(t))
        if not -rank <= a < rank:
            self.error(node, f"axis {a} is out of range for a tile of rank {rank}")  # pyright: ignore[reportAttributeAccessIssue]
        return a + rank if a < 0 else a

    def _flat(self, t: Scalar, node: ast.AST) -> Scalar:
        assert isinstance(t.dtype, TileDType)
        return self.reshape(t, (t.dtype.numel,), node)  # pyright: ignore[reportAttributeAccessIssue]

    def argreduce(self, which: str, t: Scalar, axis: Value | None, keepdims: Value | None, node: ast.AST) -> Value:
        assert isinstance(t.dtype, TileDType)
        keep = False
        if keepdims is not None and not isinstance(keepdims, NoneValue):
            if not isinstance(keepdims, Literal) or not isinstance(keepdims.value, bool):
                self.error(node, "keepdims must be True or False")  # pyright: ignore[reportAttributeAccessIssue]
            keep = keepdims.value
        a = self._axis(t, axis, node)
        src = t
        if t.dtype.elem.is_bool:
            src = self.to_tile(src, dtypes.u8, t.dtype.shape, node)  # pyright: ignore[reportAttributeAccessIssue]
        if a is None:
            if not t.dtype.shape:
                self.error(node, f"tile.{which} of a rank-0 tile: there is no axis")  # pyright: ignore[reportAttributeAccessIssue]
            flat = self._flat(src, node)
            op = (ArgMaxOp if which == "argmax" else ArgMinOp)(flat.ssa, 0)
            r = self.new_tile(op, dtypes.i64, (), node)  # pyright: ignore[reportAttributeAccessIssue]
            return self.reshape(r, (1,) * len(t.dtype.shape), node) if keep else r  # pyright: ignore[reportAttributeAccessIssue]
        shape = list(t.dtype.shape)
        if keep:
            shape[a] = 1
        else:
            del shape[a]
        op = (ArgMaxOp if which == "argmax" else ArgMinOp)(src.ssa, a, keep)
        return self.new_tile(op, dtypes.i64, tuple(shape), node)  # pyright: ignore[reportAttributeAccessIssue]

    def cumsum(self, t: Scalar, axis: Value | None, node: ast.AST) -> Value:
        assert isinstance(t.dtype, TileDType)
        elem = t.dtype.elem
        a = self._axis(t, axis, node)
        src = self._flat(t, node) if a is None else t
        if a is None:
            a = 0
        if elem.is_bool or (elem.is_int and elem.bits < 64):
            wide = dtypes.u64 if elem.is_unsigned else dtypes.i64
            src = self.to_tile(src, wide, shape_of(src), node)  # pyright: ignore[reportAttributeAccessIssue]
            elem = wide
        if not shape_of(src):
            self.error(node, "tile.cumsum of a rank-0 tile: there is no axis")  # pyright: ignore[reportAttributeAccessIssue]
        return self.new_tile(CumSumOp(src.ssa, a), elem, shape_of(src), node)  # pyright: ignore[reportAttributeAccessIssue]

    def tcall_argmax(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, axis, keep = self.params(node, "tile.argmax", args, kwargs, [("t", ...), ("axis", None), ("keepdims", None)])  # pyright: ignore[reportAttributeAccessIssue]
        return self.argreduce("argmax", self.as_tile(t, node, "tile.argmax's argument"), axis, keep, node)  # pyright: ignore[reportAttributeAccessIssue]

    def tcall_argmin(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, axis, keep = self.params(node, "tile.argmin", args, kwargs, [("t", ...), ("axis", None), ("keepdims", None)])  # pyright: ignore[reportAttributeAccessIssue]
        return self.argreduce("argmin", self.as_tile(t, node, "tile.argmin's argument"), axis, keep, node)  # pyright: ignore[reportAttributeAccessIssue]

    def tcall_cumsum(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, axis = self.params(node, "tile.cumsum", args, kwargs, [("t", ...), ("axis", None)])  # pyright: ignore[reportAttributeAccessIssue]
        return self.cumsum(self.as_tile(t, node, "tile.cumsum's argument"), axis, node)  # pyright: ignore[reportAttributeAccessIssue]

    def tile_method(self, t: Scalar, name: str, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if name in ("argmax", "argmin"):
            axis, keep = self.params(node, f"t.{name}", args, kwargs, [("axis", None), ("keepdims", None)])  # pyright: ignore[reportAttributeAccessIssue]
            return self.argreduce(name, t, axis, keep, node)
        if name == "cumsum":
            (axis,) = self.params(node, "t.cumsum", args, kwargs, [("axis", None)])  # pyright: ignore[reportAttributeAccessIssue]
            return self.cumsum(t, axis, node)
        return super().tile_method(t, name, node, args, kwargs)  # pyright: ignore[reportAttributeAccessIssue]

    def visit_Subscript(self, node: ast.Subscript) -> Value:
        new_axes = _new_axis_index(node.slice)
        if new_axes is None:
            return super().visit_Subscript(node)  # pyright: ignore[reportAttributeAccessIssue]
        base = self.visit_expr(node.value)  # pyright: ignore[reportAttributeAccessIssue]
        if not is_tile(base):
            self.error(node, f"t[:, None] adds axes to tiles only, got {base.describe()}")  # pyright: ignore[reportAttributeAccessIssue]
        assert isinstance(base, Scalar)
        shape = shape_of(base)
        kept = sum(1 for n in new_axes if not n)
        if kept > len(shape):
            self.error(node, f"too many ':' for a tile of rank {len(shape)}")  # pyright: ignore[reportAttributeAccessIssue]
        dims = iter(shape)
        out = [1 if n else next(dims) for n in new_axes] + list(dims)  # missing trailing ':' are implied
        return self.reshape(base, tuple(out), node)  # pyright: ignore[reportAttributeAccessIssue]
