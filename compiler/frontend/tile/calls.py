"""Calls in tile kernels: the `tile.*` functions, tensor methods (`z.store(t)`, `z.load()`), tile
methods (`t.sum(axis=1)`, `t.astype(wf.f16)`), dtype conversions of tiles and the Python builtins
(`abs`, `min`, `max`, `math.*`) on tiles; everything else goes to the SIMT call handlers."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from warpforge import dtypes
from warpforge.dialects import tile as tiled
from warpforge.dialects import kernel_tile as ktile
from warpforge.dtypes import DType
from warpforge.frontend.builtins import BY_PYTHON_NAME, tile_call
from warpforge.frontend.tile.expressions import TileExpressionMixin, _fmt
from warpforge.frontend.tile.values import NoneValue, TensorValue, TileDType, TupleValue, elem_of, is_tile, shape_of
from warpforge.frontend.values import BoundMethod, Builtin, DTypeRef, Literal, Scalar, Value

_REDUCE = {"sum": "sum", "max": "max", "min": "min", "prod": "prod"}
# Python's types as dtypes, as NumPy reads them (`np.dtype(bool)`, `np.dtype(int)` is int64, `float` float64)
_PYTHON_TYPE_DTYPES = {"bool": dtypes.bool_, "int": dtypes.i64, "float": dtypes.f64}

Handler = Callable[[ast.Call, list[Value], dict[str, Value]], Value]


class TileCallMixin(TileExpressionMixin):
    def visit_Call(self, node: ast.Call) -> Value:
        callee = self.visit_expr(node.func)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(callee, Builtin) and callee.name == "print":
            return self.call_print(node)  # pyright: ignore[reportAttributeAccessIssue]
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.error(node, "*args is not supported in kernel calls")
        if any(k.arg is None for k in node.keywords):
            self.error(node, "**kwargs is not supported in kernel calls")
        args = [self.visit_expr(a) for a in node.args]  # pyright: ignore[reportAttributeAccessIssue]
        kwargs = {k.arg: self.visit_expr(k.value) for k in node.keywords}  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(callee, BoundMethod) and isinstance(callee.receiver, TensorValue):
            return self.tensor_method(callee.receiver, callee.name, node, args, kwargs)
        if isinstance(callee, BoundMethod) and is_tile(callee.receiver):
            return self.tile_method(callee.receiver, callee.name, node, args, kwargs)  # pyright: ignore[reportArgumentType]
        if isinstance(callee, Builtin) and callee.name in BY_PYTHON_NAME and (callee.name.startswith("tile.") or any(is_tile(a) for a in args)):
            if callee.name != "math.fabs":  # math.fabs of a tile is tile.abs (below)
                self.no_keywords(node, kwargs)
                return tile_call(self, BY_PYTHON_NAME[callee.name], callee.name, node, args)
        if isinstance(callee, Builtin) and callee.name.startswith("tile."):
            handler: Handler | None = getattr(self, "tcall_" + callee.name.removeprefix("tile."), None)
            assert handler is not None, callee.name
            return handler(node, args, kwargs)
        if isinstance(callee, DTypeRef) and args and is_tile(args[0]):
            self.no_keywords(node, kwargs)
            self.arity(node, args, 1, callee.dtype.name)  # pyright: ignore[reportAttributeAccessIssue]
            return self.to_tile(args[0], callee.dtype, shape_of(args[0]), node)
        if isinstance(callee, Builtin) and any(is_tile(a) for a in args):
            self.no_keywords(node, kwargs)
            if callee.name in ("abs", "min", "max"):
                return {"abs": self.tcall_abs, "min": self.tcall_minimum, "max": self.tcall_maximum}[callee.name](node, args, {})
            if callee.name == "math.fabs":
                return self.tcall_abs(node, args, {})
            if callee.name in ("int", "float", "bool"):
                return self.cast(args[0], {"int": dtypes.i64, "float": dtypes.f64, "bool": dtypes.bool_}[callee.name], node)  # pyright: ignore[reportArgumentType]
            self.error(node, f"{callee.name}() does not take tiles")
        return self.call_evaluated(callee, node, args, kwargs)

    def call_evaluated(self, callee: Value, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """The SIMT frontend's call rules, on already evaluated arguments."""
        saved = (node.func, node.args, node.keywords)
        names = [f"__wf_arg{i}__" for i in range(len(args))]
        knames = {k: f"__wf_kw_{k}__" for k in kwargs}
        place = [ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node) for n in names]
        fname = ast.copy_location(ast.Name(id="__wf_callee__", ctx=ast.Load()), node)
        kws = [ast.keyword(arg=k, value=ast.copy_location(ast.Name(id=knames[k], ctx=ast.Load()), node)) for k in kwargs]
        self.vars.update({"__wf_callee__": callee, **dict(zip(names, args)), **{knames[k]: v for k, v in kwargs.items()}})
        node.func, node.args, node.keywords = fname, place, kws  # pyright: ignore[reportAttributeAccessIssue]
        try:
            return super().visit_Call(node)  # pyright: ignore[reportAttributeAccessIssue]
        finally:
            node.func, node.args, node.keywords = saved
            for n in ["__wf_callee__", *names, *knames.values()]:
                self.vars.pop(n, None)

    # ------------------------------------------------------------------ argument helpers

    def no_keywords(self, node: ast.AST, kwargs: dict[str, Value], allowed: tuple[str, ...] = ()) -> None:
        for k in kwargs:
            if k not in allowed:
                self.error(node, f"unexpected keyword argument '{k}'" + (f" (allowed: {', '.join(allowed)})" if allowed else ""))

    def params(self, node: ast.Call, name: str, args: list[Value], kwargs: dict[str, Value], spec: list[tuple[str, Any]]) -> list[Value | None]:
        """Bind positional and keyword arguments to `spec` ([(name, default)], `...` = required)."""
        if len(args) > len(spec):
            self.error(node, f"{name}() takes at most {len(spec)} arguments, got {len(args)}")
        out: list[Value | None] = list(args) + [None] * (len(spec) - len(args))
        names = [n for n, _ in spec]
        for k, v in kwargs.items():
            if k not in names:
                self.error(node, f"{name}() got an unexpected keyword argument '{k}' (takes {', '.join(names)})")
            i = names.index(k)
            if i < len(args):
                self.error(node, f"{name}() got multiple values for '{k}'")
            out[i] = v
        for i, (n, default) in enumerate(spec):
            if out[i] is None:
                if default is ...:
                    self.error(node, f"{name}() is missing the argument '{n}'")
                out[i] = default
        return out

    def static_shape(self, value: Value | None, node: ast.AST, what: str) -> tuple[int, ...]:
        if isinstance(value, Literal) and isinstance(value.value, int) and not isinstance(value.value, bool):
            value = TupleValue((value,))
        if not isinstance(value, TupleValue) or not all(isinstance(i, Literal) and isinstance(i.value, int) and not isinstance(i.value, bool) for i in value.items):
            self.error(node, f"{what} must be a tuple of constant integers, e.g. (128,) or (1, 1024)")
        return tuple(i.value for i in value.items)  # pyright: ignore[reportAttributeAccessIssue]

    def static_int(self, value: Value | None, node: ast.AST, what: str) -> int:
        if not isinstance(value, Literal) or not isinstance(value.value, int) or isinstance(value.value, bool):
            self.error(node, f"{what} must be a constant integer")
        return value.value

    def dtype_arg(self, value: Value | None, node: ast.AST, default: DType | None) -> DType | None:
        if value is None or isinstance(value, NoneValue):
            return default
        if isinstance(value, DTypeRef):
            return value.dtype
        if isinstance(value, Builtin) and value.name in _PYTHON_TYPE_DTYPES:  # NumPy's: astype(bool), astype(int)
            return _PYTHON_TYPE_DTYPES[value.name]
        self.error(node, f"expected a dtype such as wf.f32, got {value.describe()}")

    def as_tile(self, value: Value, node: ast.AST, what: str) -> Scalar:
        if not is_tile(value):
            self.error(node, f"{what} must be a tile, got {value.describe()}")
        return value  # pyright: ignore[reportReturnType]

    def tensor_arg(self, value: Value | None, node: ast.AST, what: str, kinds: tuple[str, ...]) -> TensorValue:
        if not isinstance(value, TensorValue):
            self.error(node, f"{what} must be a tensor parameter, got {value.describe() if value is not None else 'nothing'}")
        if value.kind not in kinds:
            hints = {
                "partition": f"{value.describe()} is this tile block's output part: read it with {value.name}.load()",
                "atomic": f"{value.describe()} is only updated with tile.atomic_add/atomic_max/atomic_min",
                "input": f"{value.describe()} is a borrowed input; partition it on the host to make it an output",
            }
            self.error(node, f"{what}: {hints[value.kind]}")
        return value

    def padding_attr(self, value: Value | None, dtype: DType, node: ast.AST):
        if value is None:
            return None
        if not isinstance(value, Literal):
            self.error(node, "padding must be a constant (e.g. 0, -math.inf)")
        if value.value == 0 and not (isinstance(value.value, float) and math.copysign(1.0, value.value) < 0):
            return None
        if dtype.is_int and isinstance(value.value, float) and math.isinf(value.value):
            return self.constant_attr(dtype.min if value.value < 0 else dtype.max, dtype, node)
        return self.constant_attr(value.value, dtype, node)

    def coords(self, value: Value | None, rank: int, node: ast.AST, what: str) -> list[Scalar]:
        items = value.items if isinstance(value, TupleValue) else (value,)
        if len(items) != rank:
            self.error(node, f"{what} needs {rank} tile coordinate(s), got {len(items)}")
        out = []
        for it in items:
            if isinstance(it, Literal):
                if not isinstance(it.value, int) or isinstance(it.value, bool):
                    self.error(node, f"tile coordinates are integers, got {it.value!r}")
                out.append(self.const(it.value, dtypes.i64, node))
                continue
            s = self.materialize(it, node)  # pyright: ignore[reportArgumentType]
            if not elem_of(s.dtype).is_int:
                self.error(node, f"tile coordinates are integers, got {s.dtype.name}")
            out.append(self.cast(s, dtypes.i64, node))
        return out

    # ------------------------------------------------------------------ tensors

    def tensor_method(self, t: TensorValue, name: str, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if name == "store":
            (value,) = self.params(node, f"{t.name}.store", args, kwargs, [("value", ...)])
            if t.kind != "partition":
                if t.kind == "atomic":
                    self.error(node, f"{t.describe()} is updated only with tile.atomic_add/atomic_max/atomic_min")
                self.error(
                    node,
                    f"{t.describe()} is a borrowed input (read-only); only a partitioned argument is written: "
                    f"pass {t.name}.partition(tile_shape) to make it this kernel's output",
                )
            assert t.tile_shape is not None and value is not None
            if is_tile(value) and not tiled.broadcastable(shape_of(value), t.tile_shape):
                self.error(node, f"storing a tile of shape {_fmt(shape_of(value))} into {t.describe()}, whose part has shape {_fmt(t.tile_shape)}")
            if isinstance(value, Scalar) and not t.dtype.is_bool and not elem_of(value.dtype).is_bool:
                import numpy as np

                src = elem_of(value.dtype)
                if not np.can_cast(src.np, t.dtype.np, casting="same_kind"):
                    self.error(node, f"storing {src.name} into {t.describe()} ({t.dtype.name}) needs an explicit conversion: .astype({t.dtype!r})")
            v = self.to_tile(value, t.dtype, t.tile_shape, node)
            self.emit(ktile.PartStoreOp(v.ssa, t.ssa), node)
            return NoneValue()
        if name == "load":
            self.params(node, f"{t.name}.load", args, kwargs, [])
            if t.kind != "partition":
                self.error(node, f"{t.describe()}: .load() reads this tile block's own part of a partitioned tensor; load inputs with tile.load_tile_like or tile.load")
            assert t.tile_shape is not None
            return self.new_tile(ktile.PartLoadOp(t.ssa), t.dtype, t.tile_shape, node)
        self.error(node, f"{t.describe()} has no method '{name}'")

    def tcall_load_tile_like(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x, z, padding = self.params(node, "tile.load_tile_like", args, kwargs, [("x", ...), ("like", ...), ("padding", None)])
        xt = self.tensor_arg(x, node, "tile.load_tile_like's first argument", ("input",))
        zt = self.tensor_arg(z, node, "tile.load_tile_like's second argument", ("partition",))
        if len(xt.tensor_dims) != len(zt.tensor_dims):
            self.error(node, f"{xt.describe()} is {len(xt.tensor_dims)}-D but {zt.describe()} is {len(zt.tensor_dims)}-D: their tiles cannot line up")
        self.like_pairs.append((xt.name, zt.name))
        assert zt.tile_shape is not None
        op = ktile.LoadTileLikeOp(xt.ssa, zt.ssa, self.padding_attr(padding, xt.dtype, node))
        return self.new_tile(op, xt.dtype, zt.tile_shape, node)

    def tcall_load(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x, index, shape, padding = self.params(node, "tile.load", args, kwargs, [("x", ...), ("index", ...), ("shape", ...), ("padding", None)])
        xt = self.tensor_arg(x, node, "tile.load's first argument", ("input",))
        tshape = self.static_shape(shape, node, "tile.load's shape")
        if len(tshape) != len(xt.tensor_dims):
            self.error(node, f"tile.load: a {len(tshape)}-D tile shape {_fmt(tshape)} for the {len(xt.tensor_dims)}-D {xt.describe()}")
        dt = self.tile_dtype(xt.dtype, tshape, node)
        cs = self.coords(index, len(tshape), node, "tile.load's index")
        op = ktile.TensorLoadOp(xt.ssa, [c.ssa for c in cs], dt.mlir, self.padding_attr(padding, xt.dtype, node))  # pyright: ignore[reportArgumentType]
        return Scalar(self.emit(op, node), dt)

    def tcall_gather(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x, offsets, mask, padding = self.params(node, "tile.gather", args, kwargs, [("x", ...), ("offsets", ...), ("mask", None), ("padding", Literal(0))])
        xt = self.tensor_arg(x, node, "tile.gather's first argument", ("input",))
        offs = self.as_tile(offsets, node, "tile.gather's offsets")  # pyright: ignore[reportArgumentType]
        if not elem_of(offs.dtype).is_int:
            self.error(node, f"tile.gather's offsets are integers, got {elem_of(offs.dtype).name}")
        shape = shape_of(offs)
        m = self.to_tile(Literal(True) if mask is None or isinstance(mask, NoneValue) else mask, dtypes.bool_, shape, node)
        pad = self.implicit(padding, xt.dtype, node, "tile.gather's padding")  # pyright: ignore[reportArgumentType]
        op = ktile.TensorGatherOp(xt.ssa, offs.ssa, m.ssa, pad.ssa)
        return self.new_tile(op, xt.dtype, shape, node)

    def atomic(self, kind: str, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        x, offsets, values, mask = self.params(node, f"tile.atomic_{kind}", args, kwargs, [("x", ...), ("offsets", ...), ("values", ...), ("mask", None)])
        xt = self.tensor_arg(x, node, f"tile.atomic_{kind}'s first argument", ("atomic",))
        offs = self.as_tile(offsets, node, f"tile.atomic_{kind}'s offsets")  # pyright: ignore[reportArgumentType]
        shape = shape_of(offs)
        vals = self.to_tile(values, xt.dtype, shape, node)  # pyright: ignore[reportArgumentType]
        m = self.to_tile(Literal(True) if mask is None or isinstance(mask, NoneValue) else mask, dtypes.bool_, shape, node)  # pyright: ignore[reportArgumentType]
        self.emit(ktile.TensorAtomicOp(kind, xt.ssa, offs.ssa, vals.ssa, m.ssa), node)
        return NoneValue()

    def tcall_atomic_add(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return self.atomic("add", node, args, kwargs)

    def tcall_atomic_max(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return self.atomic("max", node, args, kwargs)

    def tcall_atomic_min(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return self.atomic("min", node, args, kwargs)

    # ------------------------------------------------------------------ grid

    def grid_axis(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value], name: str) -> int:
        (axis,) = self.params(node, name, args, kwargs, [("axis", Literal(0))])
        a = self.static_int(axis, node, f"{name}'s axis")
        rank = len(self.grid_param.tile)
        if not 0 <= a < rank:
            self.error(node, f"{name}({a}): the grid has {rank} dimension(s)")
        return a

    def tcall_bid(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return Scalar(self.emit(ktile.TileIdOp(self.grid_axis(node, args, kwargs, "tile.bid")), node), dtypes.i64)

    def tcall_num_tiles(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        return Scalar(self.emit(ktile.TileCountOp(self.grid_axis(node, args, kwargs, "tile.num_tiles")), node), dtypes.i64)

    # ------------------------------------------------------------------ making tiles

    def tcall_zeros(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        shape, dt = self.params(node, "tile.zeros", args, kwargs, [("shape", ...), ("dtype", None)])
        return self.to_tile(Literal(0), self.dtype_arg(dt, node, dtypes.f32), self.static_shape(shape, node, "tile.zeros's shape"), node)  # pyright: ignore[reportArgumentType]

    def tcall_ones(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        shape, dt = self.params(node, "tile.ones", args, kwargs, [("shape", ...), ("dtype", None)])
        return self.to_tile(Literal(1), self.dtype_arg(dt, node, dtypes.f32), self.static_shape(shape, node, "tile.ones's shape"), node)  # pyright: ignore[reportArgumentType]

    def tcall_full(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        shape, value, dt = self.params(node, "tile.full", args, kwargs, [("shape", ...), ("value", ...), ("dtype", None)])
        s = self.static_shape(shape, node, "tile.full's shape")
        assert value is not None
        if isinstance(value, Literal):
            d = self.dtype_arg(dt, node, dtypes.literal_dtype(value.value) if not isinstance(value.value, float) else dtypes.f32)
        else:
            d = self.dtype_arg(dt, node, elem_of(self.materialize(value, node).dtype))
        return self.to_tile(value, d, s, node)  # pyright: ignore[reportArgumentType]

    def tcall_arange(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """`tile.arange(n, dtype=wf.i32)`: 0 … n − 1; `tile.arange(start, stop, dtype=wf.i32)`: start …
        stop − 1 (NumPy's and Triton's two-argument form). The length is a constant power of two."""
        start = 0
        if len(args) >= 2 and not isinstance(args[1], DTypeRef | Builtin | NoneValue) or "stop" in kwargs:  # (start, stop[, dtype])
            first, stop, dt = self.params(node, "tile.arange", args, kwargs, [("start", ...), ("stop", ...), ("dtype", None)])
            if not isinstance(first, Literal):
                self.error(node, "tile.arange's start must be a constant integer (the length is a constant); for a run-time start add it: tile.arange(n) + start")
            start = self.static_int(first, node, "tile.arange's start (tile.arange(start, stop) or tile.arange(n))")
            count = self.static_int(stop, node, "tile.arange's stop (tile.arange(start, stop) or tile.arange(n))") - start
        else:
            n, dt = self.params(node, "tile.arange", args, kwargs, [("n", ...), ("dtype", None)])
            count = self.static_int(n, node, "tile.arange's n (tile.arange(n, dtype=wf.i32) or tile.arange(start, stop))")
        if dt is not None and not isinstance(dt, DTypeRef | Builtin | NoneValue):
            self.error(node, f"tile.arange's dtype must be a dtype such as wf.i32, got {dt.describe()}: the forms are tile.arange(n, dtype) and tile.arange(start, stop, dtype)")
        d = self.dtype_arg(dt, node, dtypes.i32)
        assert d is not None
        if not d.is_int:
            self.error(node, f"tile.arange makes integers, got {d.name}")
        tdt = self.tile_dtype(d, (count,), node)
        iota = Scalar(self.emit(tiled.IotaOp(tdt.mlir), node), tdt)  # pyright: ignore[reportArgumentType]
        return iota if start == 0 else self.binary(ast.Add, iota, Literal(start), node)  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ elementwise

    def tcall_where(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        c, a, b = self.params(node, "tile.where", args, kwargs, [("cond", ...), ("x", ...), ("y", ...)])
        assert c is not None and a is not None and b is not None
        elem, shape = self.common([a, b], node, "tile.where")
        _, cshape = self.common([c], node, "tile.where")
        from warpforge.frontend.tile.expressions import broadcast_shapes

        full = broadcast_shapes(shape, cshape)
        if full is None:
            self.error(node, f"tile.where: shapes {_fmt(cshape)} and {_fmt(shape)} do not broadcast together")
        if not full:
            full = (1,)
        ct = self.to_tile(c, dtypes.bool_, full, node)
        at, bt = self.to_tile(a, elem, full, node), self.to_tile(b, elem, full, node)
        return self.new_tile(tiled.WhereOp(ct.ssa, at.ssa, bt.ssa), elem, full, node)

    def minmax(self, node: ast.Call, args: list[Value], which: str) -> Value:
        if len(args) != 2:
            self.error(node, f"tile.{which}imum takes two arguments")
        elem, shape = self.common(args, node, f"tile.{which}imum")
        if not shape:
            shape = (1,)
        a, b = (self.to_tile(v, elem, shape, node) for v in args)
        op = tiled.MaximumOp(a.ssa, b.ssa) if which == "max" else tiled.MinimumOp(a.ssa, b.ssa)
        return self.new_tile(op, elem, shape, node)

    def tcall_maximum(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        self.no_keywords(node, kwargs)
        return self.minmax(node, args, "max")

    def tcall_minimum(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        self.no_keywords(node, kwargs)
        return self.minmax(node, args, "min")

    def tcall_abs(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        self.no_keywords(node, kwargs)
        self.arity(node, args, 1, "tile.abs")  # pyright: ignore[reportAttributeAccessIssue]
        t = self.as_tile(args[0], node, "tile.abs's argument")
        elem = elem_of(t.dtype)
        if elem.is_bool:
            return t
        return self.new_tile(tiled.AbsOp(t.ssa), elem, shape_of(t), node)

    # ------------------------------------------------------------------ reductions

    def reduce(self, kind: str, t: Scalar, axis: Value | None, keepdims: Value | None, node: ast.AST) -> Value:
        assert isinstance(t.dtype, TileDType)
        shape = t.dtype.shape
        rank = len(shape)
        if axis is None or isinstance(axis, NoneValue):
            axes = list(range(rank))
        elif isinstance(axis, TupleValue):
            axes = [self.static_int(a, node, "an axis") for a in axis.items]
        else:
            axes = [self.static_int(axis, node, "axis")]
        axes = sorted({a + rank if a < 0 else a for a in axes}, reverse=True)
        for a in axes:
            if not 0 <= a < rank:
                self.error(node, f"axis {a} is out of range for a tile of rank {rank}")
        keep = False
        if keepdims is not None:
            if not isinstance(keepdims, Literal) or not isinstance(keepdims.value, bool):
                self.error(node, "keepdims must be True or False")
            keep = keepdims.value
        elem = t.dtype.elem
        result = t
        if kind in ("sum", "prod") and (elem.is_bool or (elem.is_int and elem.bits < 64)):
            wide = dtypes.u64 if elem.is_unsigned else dtypes.i64  # NumPy sums small integers in 64 bits
            result = self.to_tile(result, wide, shape, node)
        elif kind in ("max", "min") and elem.is_bool:
            result = self.to_tile(result, dtypes.u8, shape, node)
        for a in axes:
            rshape = list(shape_of(result))
            if keep:
                rshape[a] = 1
            else:
                del rshape[a]
            op = tiled.ReduceOp(kind, result.ssa, a, keep)
            result = self.new_tile(op, elem_of(result.dtype), tuple(rshape), node)
        if kind in ("max", "min") and elem.is_bool:
            result = self.to_tile(result, dtypes.bool_, shape_of(result), node)
        return result

    def _reduce_handler(kind: str) -> Handler:  # noqa: N805
        def handler(self: TileCallMixin, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
            t, axis, keepdims = self.params(node, f"tile.{kind}", args, kwargs, [("t", ...), ("axis", None), ("keepdims", None)])
            return self.reduce(kind, self.as_tile(t, node, f"tile.{kind}'s argument"), axis, keepdims, node)  # pyright: ignore[reportArgumentType]

        return handler  # pyright: ignore[reportReturnType]

    tcall_sum = _reduce_handler("sum")
    tcall_max = _reduce_handler("max")
    tcall_min = _reduce_handler("min")
    tcall_prod = _reduce_handler("prod")

    # ------------------------------------------------------------------ shapes

    def tcall_reshape(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, shape = self.params(node, "tile.reshape", args, kwargs, [("t", ...), ("shape", ...)])
        return self.reshape(self.as_tile(t, node, "tile.reshape's argument"), self.static_shape(shape, node, "the new shape"), node)  # pyright: ignore[reportArgumentType]

    def reshape(self, t: Scalar, shape: tuple[int, ...], node: ast.AST) -> Value:
        assert isinstance(t.dtype, TileDType)
        if math.prod(shape) != t.dtype.numel:
            self.error(node, f"cannot reshape a tile of shape {_fmt(t.dtype.shape)} ({t.dtype.numel} elements) to {_fmt(shape)}")
        if shape == t.dtype.shape:
            return t
        dt = self.tile_dtype(t.dtype.elem, shape, node)
        return Scalar(self.emit(tiled.ReshapeOp(t.ssa, dt.mlir), node), dt)  # pyright: ignore[reportArgumentType]

    def tcall_permute(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, axes = self.params(node, "tile.permute", args, kwargs, [("t", ...), ("axes", ...)])
        return self.permute(self.as_tile(t, node, "tile.permute's argument"), self.static_shape(axes, node, "the axes"), node)  # pyright: ignore[reportArgumentType]

    def permute(self, t: Scalar, axes: tuple[int, ...], node: ast.AST) -> Value:
        assert isinstance(t.dtype, TileDType)
        if sorted(axes) != list(range(len(t.dtype.shape))):
            self.error(node, f"{list(axes)} is not a permutation of the {len(t.dtype.shape)} axes")
        if list(axes) == sorted(axes):
            return t
        shape = tuple(t.dtype.shape[a] for a in axes)
        return self.new_tile(tiled.PermuteOp(t.ssa, list(axes)), t.dtype.elem, shape, node)

    def tcall_transpose(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        (t,) = self.params(node, "tile.transpose", args, kwargs, [("t", ...)])
        return self.tile_transpose(self.as_tile(t, node, "tile.transpose's argument"), node)  # pyright: ignore[reportArgumentType]

    def tcall_broadcast_to(self, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        t, shape = self.params(node, "tile.broadcast_to", args, kwargs, [("t", ...), ("shape", ...)])
        s = self.static_shape(shape, node, "the shape")
        assert t is not None
        src = shape_of(t)
        if not tiled.broadcastable(src, s):
            self.error(node, f"cannot broadcast shape {_fmt(src)} to {_fmt(s)}")
        elem = elem_of(t.dtype) if isinstance(t, Scalar) else self.common([t], node, "tile.broadcast_to")[0]
        return self.to_tile(t, elem, s, node)

    # ------------------------------------------------------------------ tile methods

    def tile_method(self, t: Scalar, name: str, node: ast.Call, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if name in _REDUCE:
            axis, keepdims = self.params(node, f"t.{name}", args, kwargs, [("axis", None), ("keepdims", None)])
            return self.reduce(name, t, axis, keepdims, node)
        if name == "astype":
            (dt,) = self.params(node, "t.astype", args, kwargs, [("dtype", ...)])
            d = self.dtype_arg(dt, node, None)
            assert d is not None
            return self.to_tile(t, d, shape_of(t), node)
        if name == "reshape":
            shape = args[0] if len(args) == 1 else TupleValue(tuple(args))
            self.no_keywords(node, kwargs)
            return self.reshape(t, self.static_shape(shape, node, "the new shape"), node)
        if name in ("permute", "transpose"):
            self.no_keywords(node, kwargs)
            if not args:
                return self.tile_transpose(t, node)
            axes = args[0] if len(args) == 1 else TupleValue(tuple(args))
            return self.permute(t, self.static_shape(axes, node, "the axes"), node)
        if name == "broadcast_to":
            return self.tcall_broadcast_to(node, [t, *args], kwargs)
        self.error(node, f"a tile has no method '{name}'")

