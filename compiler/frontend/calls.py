"""Calls: Python builtins (`len`, `abs`, `min`, `max`, `int`, `float`, `bool`, `range`), dtype
conversions (`wf.i32(x)`), `math.*`, and warpforge's kernel functions (`simt.index_1d()`, …)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from math import prod

from xdsl.dialects import math as mathd
from xdsl.ir import SSAValue

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.builtins import BY_PYTHON_NAME, scalar_call
from warpforge.frontend.values import (
    ArrayValue,
    BlockIndexValue,
    BoundMethod,
    Builtin,
    LoopIndex,
    NeedsMemory,
    NeedsUnroll,
    RegisterArrayValue,
    DTypeRef,
    IndexValue,
    Literal,
    RangeValue,
    Scalar,
    SliceValue,
    Text,
    TupleValue,
    Value,
    ViewValue,
)

_REQUIRED = object()

PARAMETERS: dict[str, tuple[tuple[str, object], ...]] = {
    "simt.shfl_xor": (("value", _REQUIRED), ("lane_mask", _REQUIRED), ("width", 32), ("with_valid", False)),
    "simt.shfl_up": (("value", _REQUIRED), ("delta", _REQUIRED), ("width", 32), ("with_valid", False)),
    "simt.shfl_down": (("value", _REQUIRED), ("delta", _REQUIRED), ("width", 32), ("with_valid", False)),
    "simt.shfl_idx": (("value", _REQUIRED), ("src_lane", _REQUIRED), ("width", 32), ("with_valid", False)),
    "simt.sync_warp": (("mask", 0xFFFFFFFF),),
    "simt.shared_array": (("shape", _REQUIRED), ("dtype", _REQUIRED)),
    "simt.local_array": (("shape", _REQUIRED), ("dtype", _REQUIRED)),
    "simt.dynamic_shared": (("dtype", _REQUIRED),),
    **{
        f"simt.atomic_{op}": (("array", _REQUIRED), ("index", _REQUIRED), ("value", _REQUIRED), ("scope", None), ("order", "relaxed"))
        for op in ("add", "sub", "min", "max", "and", "or", "xor", "exch")
    },
    "simt.atomic_add_pair": (
        ("array", _REQUIRED), ("index", _REQUIRED), ("x", _REQUIRED), ("y", _REQUIRED), ("scope", None), ("order", "relaxed"),
    ),
    "simt.atomic_cas": (
        ("array", _REQUIRED), ("index", _REQUIRED), ("expected", _REQUIRED), ("new", _REQUIRED), ("scope", None), ("order", "relaxed"),
    ),
}
"""Kernel functions that take keyword arguments or have defaults: their parameters in order, with
the default (a Python constant) or `_REQUIRED`."""


class CallMixin(FunctionCompilerBase):
    def bind_arguments(self, name: str, node: ast.Call, args: list[Value]) -> list[Value]:
        """`args` and `node`'s keywords as the positional arguments of builtin `name`, defaults filled in."""
        params = PARAMETERS.get(name)
        if params is None:
            if node.keywords:
                self.error(node, f"{name}() takes no keyword arguments")
            return args
        if len(args) > len(params):
            self.error(node, f"{name}() takes at most {len(params)} argument(s), got {len(args)}")
        bound: dict[str, Value] = {p: a for (p, _), a in zip(params, args)}
        names = [p for p, _ in params]
        for kw in node.keywords:
            if kw.arg is None:
                self.error(node, "**kwargs is not supported in kernel calls")
            if kw.arg not in names:
                self.error(kw, f"{name}() has no parameter '{kw.arg}' (parameters: {', '.join(names)})")
            if kw.arg in bound:
                self.error(kw, f"{name}() got the argument '{kw.arg}' twice")
            bound[kw.arg] = self.visit_expr(kw.value)
        out: list[Value] = []
        for p, default in params:
            if p in bound:
                out.append(bound[p])
            elif default is _REQUIRED:
                self.error(node, f"{name}() is missing the argument '{p}'")
            else:
                out.append(Text(default) if isinstance(default, str) else Literal(default))  # pyright: ignore[reportArgumentType]
        return out

    def visit_Call(self, node: ast.Call) -> Value:
        callee = self.visit_expr(node.func)
        if isinstance(callee, Builtin) and callee.name == "print":
            return self.call_print(node)
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.error(node, "*args is not supported in kernel calls")
        args = [self.visit_expr(a) for a in node.args]
        from warpforge.frontend.device import DeviceFunctionRef

        if isinstance(callee, DeviceFunctionRef):
            return self.call_device(callee.device, node, args)  # pyright: ignore[reportAttributeAccessIssue]
        if node.keywords and not isinstance(callee, Builtin):
            self.error(node, "keyword arguments are not supported in this call")
        if isinstance(callee, Builtin):
            args = self.bind_arguments(callee.name, node, args)
        if isinstance(callee, DTypeRef):
            self.arity(node, args, 1, callee.dtype.name)
            return self.convert(args[0], callee.dtype, node)
        if isinstance(callee, BoundMethod):
            if node.keywords:
                self.error(node, f".{callee.name}() takes no keyword arguments")
            if isinstance(callee.receiver, IndexValue) and callee.name == "get":
                self.arity(node, args, 0, "get")
                return Scalar(self.emit(kernel.IndexGetOp(callee.receiver.ssa), node), dtypes.i64)
            if isinstance(callee.receiver, BlockIndexValue) and callee.name == "get":
                self.arity(node, args, 0, "get")
                return Scalar(self.emit(kernel.BlockIndexGetOp(callee.receiver.ssa), node), dtypes.i64)
            if isinstance(callee.receiver, SliceValue) and callee.name in ("row", "column", "tile"):
                return self.make_view(callee.receiver, callee.name, node, args)
        if isinstance(callee, Builtin) and callee.name in BY_PYTHON_NAME:  # the elementwise builtins' catalog
            return scalar_call(self, BY_PYTHON_NAME[callee.name], callee.name, node, args)
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
        if isinstance(value, LoopIndex):  # an int in i64: the cast wraps / rounds as the constant's conversion does
            return self.cast(Scalar(value.iv, dtypes.i64), dtype, node)
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
        if isinstance(s, RegisterArrayValue):
            return Literal(s.shape[0])
        if isinstance(s, ArrayValue) and s.shape[0] is not None:
            return Literal(s.shape[0])
        if not isinstance(s, SliceValue | ArrayValue):
            self.error(node, f"len() needs a Slice, a DisjointSlice or an array, got {s.describe()}")
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

    def call_simt_static_range(self, node: ast.Call, args: list[Value]) -> Value:
        rng = self.call_range(node, args)
        assert isinstance(rng, RangeValue)
        for bound in (rng.start, rng.stop, rng.step):
            if not isinstance(bound, Literal) or not isinstance(bound.value, int) or isinstance(bound.value, bool):
                self.error(node, f"simt.static_range needs compile-time integer bounds (literals, module constants, wf.Constant parameters), got {bound.describe()}")
        if rng.step.value == 0:  # pyright: ignore[reportAttributeAccessIssue]
            self.error(node, "range() arg 3 must not be zero")
        count = len(range(rng.start.value, rng.stop.value, rng.step.value))  # pyright: ignore[reportAttributeAccessIssue]
        if count > STATIC_RANGE_LIMIT:
            self.error(node, f"simt.static_range unrolls {count} iterations; at most {STATIC_RANGE_LIMIT} (use range() for a loop)")
        return RangeValue(rng.start, rng.stop, rng.step, static=True)

    # ------------------------------------------------------------------ print

    def call_print(self, node: ast.Call) -> Value:
        """`print(*values, sep=" ", end="\\n")` → one `kernel.print` (one line per thread that runs it).

        Values: string constants, f-strings with anonymous fields (`f"i={i} x={x:.3f}"`, the spec
        checked by `_printf.printf_conversion`), scalars of any dtype and compile-time numbers
        (formatted now by the same rules: floats `%f`, bools True/False). In tile kernels one value
        may be a tile (see `tile-to-gpu`). `sep`/`end` must be string constants; `file`/`flush` are
        refused."""
        from warpforge.frontend.tile.values import TileDType

        sep, end = " ", "\n"
        for kw in node.keywords:
            if kw.arg not in ("sep", "end"):
                self.error(kw if kw.arg else node, f"print() in a kernel takes only sep= and end= (output goes to the host's stdout), not {kw.arg or '**kwargs'}=")
            value = kw.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str | type(None))):
                self.error(value, f"print()'s {kw.arg}= must be a string constant in a kernel")
            if isinstance(value.value, str):
                sep, end = (value.value, end) if kw.arg == "sep" else (sep, value.value)
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.error(node, "*args is not supported in kernel calls")
        text: list[str] = []
        operands: list[Scalar] = []
        for i, arg in enumerate(node.args):
            if i:
                text.append(_brace(sep))
            if isinstance(arg, ast.JoinedStr):
                for part in arg.values:
                    if isinstance(part, ast.Constant):
                        text.append(_brace(str(part.value)))
                    else:
                        assert isinstance(part, ast.FormattedValue)
                        text.append(self.print_field(part.value, self.fstring_spec(part), part.conversion, part, operands))
            else:
                text.append(self.print_field(arg, "", -1, arg, operands))
        text.append(_brace(end))
        if sum(1 for o in operands if isinstance(o.dtype, TileDType) and o.dtype.shape) > 1:
            self.error(node, "print() takes at most one tile (each element prints on its own line, with its index)")
        from warpforge.dialects._printf import MAX_ARGS

        count = sum(1 + (len(o.dtype.shape) if isinstance(o.dtype, TileDType) else 0) for o in operands)
        if count > MAX_ARGS:
            self.error(node, f"print() of {count} run-time values; CUDA's printf takes at most {MAX_ARGS} (it ignores the rest): split it")
        self.emit(kernel.PrintOp("".join(text), [o.ssa for o in operands]), node)
        from warpforge.frontend.tile.values import NoneValue

        return NoneValue()  # print() returns None (using it as a number is a CompileError)

    def fstring_spec(self, part: ast.FormattedValue) -> str:
        spec = part.format_spec
        if spec is None:
            return ""
        assert isinstance(spec, ast.JoinedStr)
        if not all(isinstance(v, ast.Constant) for v in spec.values):
            self.error(part, "a format spec computed at run time ({x:{w}}) is not supported in a kernel")
        return "".join(str(v.value) for v in spec.values)  # pyright: ignore[reportAttributeAccessIssue]

    def print_field(self, expr: ast.expr, spec: str, conversion: int, node: ast.AST, operands: list[Scalar]) -> str:
        """The `kernel.print` format text for one printed value (a `{spec}` field for a run-time value,
        appending its operand, or the text itself for a constant)."""
        from warpforge.dialects._printf import format_printf, is_float_spec, printf_conversion
        from warpforge.frontend.tile.values import TileDType

        value = self.visit_expr(expr)
        if isinstance(value, Text):
            if spec or conversion not in (-1, ord("s")):
                self.error(node, "a string constant takes no format spec or conversion in a kernel")
            return _brace(value.value)
        if not isinstance(value, Literal | Scalar):
            self.error(node, f"print() in a kernel prints strings and numbers (bool, int, float of any dtype), not {value.describe()}")
        dtype = dtypes.literal_dtype(value.value) if isinstance(value, Literal) else value.dtype
        elem = dtype.elem if isinstance(dtype, TileDType) else dtype
        if conversion not in (-1, ord("s"), ord("r"), ord("a")):
            self.error(node, "unknown conversion")
        if conversion != -1 and (elem.is_float or spec):
            self.error(
                node,
                f"the conversion '!{chr(conversion)}' is not supported here: floats print with printf's %f (or a spec such as "
                "{x:.6g}), not Python's repr",
            )
        if is_float_spec(spec) and not elem.is_float:
            if isinstance(dtype, TileDType):
                self.error(node, f"a float format spec (':{spec}') needs a float tile; convert it first (t.astype(wf.f64))")
            if isinstance(value, Literal):
                value = Literal(float(value.value))
            else:
                value = self.cast(value, dtypes.f64, node)
            elem = dtypes.f64
        kind = "b" if elem.is_bool else "f" if elem.is_float else "i" if elem.is_signed else "u"
        try:
            conv = printf_conversion(spec, kind, elem.bits)
        except ValueError as e:
            self.error(node, str(e))
        if isinstance(value, Literal):
            v = value.value
            if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
                self.error(node, f"the constant {v} does not fit i64, so a kernel cannot print it")
            return _brace(format_printf(conv, [v]))
        operands.append(value)
        return "{" + (":" + spec if spec else "") + "}"

    # ------------------------------------------------------------------ math

    def float_arg(self, value: Value, node: ast.AST) -> Scalar:
        """A math argument as a float scalar: floats keep their type (f32 stays f32, as in NumPy),
        integers and bools become f64."""
        if isinstance(value, Literal):
            return self.const(float(value.value), dtypes.f64, node)
        x = self.materialize(value, node)
        return x if x.dtype.is_float else self.cast(x, dtypes.f64, node)

    def call_math(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        """`math.isnan/isinf/isfinite` (the other `math.*` functions are catalog builtins: `scalar_call`)."""
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
        self.error(node, f"math.{name} is not supported in kernels")

    # ------------------------------------------------------------------ simt

    def call_simt_index_1d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.index_1d")
        self.index_dims.add(1)
        return IndexValue(self.emit(kernel.Index1DOp(), node), 1)

    def call_simt_block_index_1d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.block_index_1d")
        return BlockIndexValue(self.emit(kernel.BlockIndex1DOp(), node))

    def call_simt_index_3d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 2, "simt.index_3d")
        ny, nx = (self.const(a.value, dtypes.i64, node) if isinstance(a, Literal) else self.materialize(a, node) for a in args)
        for n in (ny, nx):
            if not n.dtype.is_int:
                self.error(node, f"simt.index_3d(ny, nx) needs integers, got {n.dtype.name}")
        self.index_dims.add(3)
        return IndexValue(self.emit(kernel.Index3DOp(ny.ssa, nx.ssa), node), 3)

    def call_simt_index_2d(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "simt.index_2d")
        ncols = args[0]
        n = self.const(ncols.value, dtypes.i64, node) if isinstance(ncols, Literal) else self.materialize(ncols, node)
        if not n.dtype.is_int:
            self.error(node, f"simt.index_2d(ncols) needs an integer, got {n.dtype.name}")
        self.index_dims.add(2)
        return IndexValue(self.emit(kernel.Index2DOp(n.ssa), node), 2)

    # ------------------------------------------------------------------ shared and local memory

    def constant_shape(self, value: Value, node: ast.AST, what: str) -> tuple[int, ...]:
        """A shape argument: an int or a tuple of ints known at compile time (literals, module
        constants, `wf.Constant` parameters), each ≥ 1."""
        parts = list(value.elements) if isinstance(value, TupleValue) else [value]
        dims: list[int] = []
        for part in parts:
            if not isinstance(part, Literal) or not isinstance(part.value, int) or isinstance(part.value, bool):
                self.error(node, f"{what}: the shape must be compile-time integers (literals, module constants or wf.Constant parameters), got {part.describe()}")
            if part.value < 1:
                self.error(node, f"{what}: extents must be at least 1, got {part.value}")
            dims.append(part.value)
        if not dims:
            self.error(node, f"{what}: the shape needs at least one extent")
        return tuple(dims)

    def dtype_argument(self, value: Value, node: ast.AST, what: str) -> DType:
        if not isinstance(value, DTypeRef):
            self.error(node, f"{what}: the dtype must be a warpforge dtype such as wf.f32, got {value.describe()}")
        return value.dtype

    def call_simt_shared_array(self, node: ast.Call, args: list[Value]) -> Value:
        if self.static_loops:  # a fresh array each iteration: only unrolled
            raise NeedsUnroll(frozenset(self.static_loops))
        shape = self.constant_shape(args[0], node, "simt.shared_array")
        dtype = self.dtype_argument(args[1], node, "simt.shared_array")
        nbytes = max(1, dtype.bits // 8) * prod(shape)
        self.static_shared_bytes += -(-nbytes // 16) * 16  # each array 16-byte aligned
        if self.static_shared_bytes > STATIC_SHARED_LIMIT:
            self.error(
                node,
                f"simt.shared_array{shape} of {dtype.name} needs {nbytes} bytes, and the kernel's static shared memory "
                f"would be {self.static_shared_bytes} bytes: a block has at most {STATIC_SHARED_LIMIT} bytes (48 KiB) of "
                "static shared memory; use simt.dynamic_shared(dtype) with LaunchConfig(shmem_size=...) for more "
                "(up to 227 KiB on an H200)",
            )
        op = kernel.SharedArrayOp(kernel.SharedArrayType(shape, dtype.mlir))
        return ArrayValue(self.emit(op, node), dtype, shape, "shared")

    def call_simt_dynamic_shared(self, node: ast.Call, args: list[Value]) -> Value:
        if self.static_loops:  # a fresh array each iteration: only unrolled
            raise NeedsUnroll(frozenset(self.static_loops))
        dtype = self.dtype_argument(args[0], node, "simt.dynamic_shared")
        self.uses_dynamic_shared = True
        return ArrayValue(self.emit(kernel.DynamicSharedOp(dtype.mlir), node), dtype, (None,), "shared")

    def call_simt_local_array(self, node: ast.Call, args: list[Value]) -> Value:
        if self.static_loops:  # a fresh array each iteration: only unrolled
            raise NeedsUnroll(frozenset(self.static_loops))
        shape = self.constant_shape(args[0], node, "simt.local_array")
        dtype = self.dtype_argument(args[1], node, "simt.local_array")
        nbytes = max(1, dtype.bits // 8) * prod(shape)
        if nbytes > LOCAL_LIMIT:
            self.error(node, f"simt.local_array{shape} of {dtype.name} needs {nbytes} bytes; a thread has at most {LOCAL_LIMIT} bytes (512 KiB) of local memory")
        site = (self.source.filename, getattr(node, "lineno", 0) + self.source.first_line, getattr(node, "col_offset", 0))
        if site not in self.memory_arrays and prod(shape) <= REGISTER_ARRAY_LIMIT:
            # registers until an access with a run-time index says otherwise (then: NeedsMemory, recompiled)
            array = RegisterArrayValue(f"__local{site[1]}_{site[2]}_{len(self.vars)}", dtype, shape, site)
            zero = self.const(0, dtype, node)
            for k in range(prod(shape)):
                self.vars[array.element(k)] = zero
            return array
        op = kernel.LocalArrayOp(kernel.LocalArrayType(shape, dtype.mlir))
        return ArrayValue(self.emit(op, node), dtype, shape, "local")

    def register_flat(self, base: RegisterArrayValue, index: Value, node: ast.AST) -> int:
        """The flat element of `base[index]` when every index is a compile-time int (a `CompileError`
        when out of range); `NeedsMemory` otherwise."""
        parts = list(index.elements) if isinstance(index, TupleValue) else [index]
        if len(parts) != len(base.shape):
            self.error(node, f"{base.describe()} takes {len(base.shape)} index(es), got {len(parts)}")
        flat = 0
        for part, extent in zip(parts, base.shape):
            if not isinstance(part, Literal):
                raise NeedsMemory(base.site)
            if not isinstance(part.value, int) or isinstance(part.value, bool):
                self.error(node, f"an array index must be an integer, got {part.value!r}")
            if not 0 <= part.value < extent:
                self.error(node, f"index {part.value} is out of range for an extent of {extent}")
            flat = flat * extent + part.value
        return flat

    def register_load(self, base: RegisterArrayValue, index: Value, node: ast.AST) -> Scalar:
        value = self.vars[base.element(self.register_flat(base, index, node))]
        assert isinstance(value, Scalar)
        return value

    def register_store(self, base: RegisterArrayValue, index: Value, value: Value, node: ast.AST) -> None:
        flat = self.register_flat(base, index, node)
        self.vars[base.element(flat)] = self.implicit(value, base.dtype, node, f"storing into {base.describe()}")

    # ------------------------------------------------------------------ barriers and fences

    def predicate(self, value: Value, node: ast.AST) -> Scalar:
        return self.truthy(value, node)

    def call_simt_sync_threads(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.sync_threads")
        self.emit(kernel.BarrierOp(), node)
        return NONE

    def _barrier_reduce(self, kind: str, node: ast.Call, args: list[Value], name: str) -> Value:
        self.arity(node, args, 1, name)
        p = self.predicate(args[0], node)
        result = self.emit(kernel.BarrierReduceOp(kind, p.ssa), node)
        return Scalar(result, dtypes.i32 if kind == "popc" else dtypes.bool_)

    def call_simt_sync_threads_count(self, node: ast.Call, args: list[Value]) -> Value:
        return self._barrier_reduce("popc", node, args, "simt.sync_threads_count")

    def call_simt_sync_threads_and(self, node: ast.Call, args: list[Value]) -> Value:
        return self._barrier_reduce("and", node, args, "simt.sync_threads_and")

    def call_simt_sync_threads_or(self, node: ast.Call, args: list[Value]) -> Value:
        return self._barrier_reduce("or", node, args, "simt.sync_threads_or")

    def call_simt_sync_warp(self, node: ast.Call, args: list[Value]) -> Value:
        mask = self.mask_argument(args[0], node, "simt.sync_warp")
        self.emit(kernel.WarpSyncOp(mask.ssa), node)
        return NONE

    def mask_argument(self, value: Value, node: ast.AST, what: str) -> Scalar:
        """A lane mask as u32 (a literal must fit 32 bits)."""
        if isinstance(value, Literal):
            if not isinstance(value.value, int) or isinstance(value.value, bool) or not 0 <= value.value <= 0xFFFFFFFF:
                self.error(node, f"{what}: a lane mask is a 32-bit unsigned integer, got {value.value!r}")
            return self.const(value.value, dtypes.u32, node)
        scalar = self.materialize(value, node)
        if not scalar.dtype.is_int:
            self.error(node, f"{what}: a lane mask is an integer, got {scalar.dtype.name}")
        return self.cast(scalar, dtypes.u32, node)

    def _fence(self, scope: str, node: ast.Call, args: list[Value], name: str) -> Value:
        self.arity(node, args, 0, name)
        self.emit(kernel.ThreadFenceOp(scope), node)
        return NONE

    def call_simt_threadfence_block(self, node: ast.Call, args: list[Value]) -> Value:
        return self._fence("block", node, args, "simt.threadfence_block")

    def call_simt_threadfence(self, node: ast.Call, args: list[Value]) -> Value:
        return self._fence("device", node, args, "simt.threadfence")

    def call_simt_threadfence_system(self, node: ast.Call, args: list[Value]) -> Value:
        return self._fence("system", node, args, "simt.threadfence_system")

    # ------------------------------------------------------------------ warp collectives

    def _shuffle(self, mode: str, node: ast.Call, args: list[Value], name: str) -> Value:
        value, offset, width, with_valid = args
        self.uses_warp_collectives = True
        if not isinstance(with_valid, Literal) or not isinstance(with_valid.value, bool):
            self.error(node, f"{name}: with_valid is a compile-time True or False, got {with_valid.describe()}")
        if not isinstance(width, Literal) or not isinstance(width.value, int) or isinstance(width.value, bool):
            self.error(node, f"{name}: the width must be a compile-time integer (a power of two from 1 to 32), got {width.describe()}")
        w = width.value
        if w < 1 or w > 32 or w & (w - 1):
            self.error(node, f"{name}: the width must be a power of two from 1 to 32, got {w}")
        x = self.materialize(value, node)
        if isinstance(offset, Literal):
            if not isinstance(offset.value, int) or isinstance(offset.value, bool) or not 0 <= offset.value < 2**31:
                self.error(node, f"{name}: the lane/offset must be a non-negative integer, got {offset.value!r}")
            off = self.const(offset.value, dtypes.i32, node)
        else:
            off = self.materialize(offset, node)
            if not off.dtype.is_int:
                self.error(node, f"{name}: the lane/offset must be an integer, got {off.dtype.name}")
        shuffle = kernel.ShuffleOp(mode, x.ssa, off.ssa, w)
        self.emit(shuffle, node)
        if with_valid.value:  # `v, ok = simt.shfl_down(x, 4, with_valid=True)`: PTX's predicate too
            return TupleValue((Scalar(shuffle.result, x.dtype), Scalar(shuffle.valid, dtypes.bool_)))
        return Scalar(shuffle.result, x.dtype)

    def call_simt_shfl_xor(self, node: ast.Call, args: list[Value]) -> Value:
        return self._shuffle("xor", node, args, "simt.shfl_xor")

    def call_simt_shfl_up(self, node: ast.Call, args: list[Value]) -> Value:
        return self._shuffle("up", node, args, "simt.shfl_up")

    def call_simt_shfl_down(self, node: ast.Call, args: list[Value]) -> Value:
        return self._shuffle("down", node, args, "simt.shfl_down")

    def call_simt_shfl_idx(self, node: ast.Call, args: list[Value]) -> Value:
        return self._shuffle("idx", node, args, "simt.shfl_idx")

    def _vote(self, kind: str, node: ast.Call, args: list[Value], name: str) -> Value:
        self.arity(node, args, 1, name)
        self.uses_warp_collectives = True
        p = self.predicate(args[0], node)
        return Scalar(self.emit(kernel.VoteOp(kind, p.ssa), node), dtypes.bool_)

    def call_simt_vote_any(self, node: ast.Call, args: list[Value]) -> Value:
        return self._vote("any", node, args, "simt.vote_any")

    def call_simt_vote_all(self, node: ast.Call, args: list[Value]) -> Value:
        return self._vote("all", node, args, "simt.vote_all")

    def call_simt_ballot(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "simt.ballot")
        self.uses_warp_collectives = True
        p = self.predicate(args[0], node)
        return Scalar(self.emit(kernel.BallotOp(p.ssa), node), dtypes.u32)

    def call_simt_active_mask(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.active_mask")
        return Scalar(self.emit(kernel.ActiveMaskOp(), node), dtypes.u32)

    def call_simt_lane_id(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 0, "simt.lane_id")
        return Scalar(self.emit(kernel.LaneIdOp(), node), dtypes.i64)

    def call_simt_match_any(self, node: ast.Call, args: list[Value]) -> Value:
        self.arity(node, args, 1, "simt.match_any")
        self.uses_warp_collectives = True
        x = self.materialize(args[0], node)
        return Scalar(self.emit(kernel.MatchAnyOp(x.ssa), node), dtypes.u32)

    def _warp_reduce(self, kind: str, node: ast.Call, args: list[Value], name: str) -> Value:
        self.arity(node, args, 1, name)
        self.uses_warp_collectives = True
        x = self.materialize(args[0], node)
        if x.dtype.is_bool:
            hint = "simt.vote_any / simt.vote_all" if kind in ("and", "or", "min", "max") else "int(flag) first"
            self.error(node, f"{name}() of a bool: use {hint}")
        if x.dtype.is_float and kind in ("and", "or", "xor"):
            self.error(node, f"{name}() needs integers, got {x.dtype.name}")
        return Scalar(self.emit(kernel.WarpReduceOp(kind, x.ssa), node), x.dtype)

    def call_simt_warp_sum(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("add", node, args, "simt.warp_sum")

    def call_simt_warp_min(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("min", node, args, "simt.warp_min")

    def call_simt_warp_max(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("max", node, args, "simt.warp_max")

    def call_simt_warp_and(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("and", node, args, "simt.warp_and")

    def call_simt_warp_or(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("or", node, args, "simt.warp_or")

    def call_simt_warp_xor(self, node: ast.Call, args: list[Value]) -> Value:
        return self._warp_reduce("xor", node, args, "simt.warp_xor")


    # ------------------------------------------------------------------ atomics

    def call_atomic(self, kind: str, node: ast.Call, args: list[Value]) -> Value:
        name = f"simt.atomic_{kind}"
        if kind == "cas":
            target, index, expected, new, scope, order = args
        else:
            target, index, value, scope, order = args
        indices, dtype, default_scope = self.atomic_target(target, index, node, name)
        scope_name = self.text_option(scope, node, name, "scope", kernel.ATOMIC_SCOPES, default_scope)
        order_name = self.text_option(order, node, name, "order", kernel.ATOMIC_ORDERINGS, "relaxed")
        text = self.text_of(node)
        if kind == "cas":
            if not dtype.is_int or dtype.bits not in (32, 64):
                self.error(node, f"{name} works on 32- and 64-bit integers, got {dtype.name} (compare floats by their bits in an integer array)")
            e = self.implicit(expected, dtype, node, f"{name}: expected")
            n = self.implicit(new, dtype, node, f"{name}: new")
            op = kernel.AtomicCASOp(target.ssa, [i.ssa for i in indices], e.ssa, n.ssa, scope_name, order_name, text)  # pyright: ignore[reportAttributeAccessIssue]
            return Scalar(self.emit(op, node), dtype)
        why = kernel.atomic_type_error(kind, dtype.mlir)
        if why is not None:
            self.error(node, f"{name}: {why}")
        v = self.implicit(value, dtype, node, f"{name}: the value")
        op = kernel.AtomicOp(kind, target.ssa, [i.ssa for i in indices], v.ssa, scope_name, order_name, text)  # pyright: ignore[reportAttributeAccessIssue]
        return Scalar(self.emit(op, node), dtype)

    def atomic_target(self, target: Value, index: Value, node: ast.AST, name: str) -> tuple[list[Scalar], DType, str]:
        """The indices, element dtype and default scope (block for shared memory) of an atomic's target."""
        if isinstance(target, SliceValue):
            if target.kind not in ("atomic_slice", "raw_slice"):
                self.error(
                    node,
                    f"{name} needs a simt.AtomicSlice (or simt.unsafe.RawSlice) or a shared array, got {target.describe()}: "
                    f"declare the parameter simt.AtomicSlice[{target.dtype!r}]",
                )
            return [self.raw_index(index, node)], target.dtype, "device"  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(target, ArrayValue):
            if target.space != "shared":
                self.error(node, f"{name} on a local array: it is this thread's own, use plain arithmetic")
            return self.array_indices(target, index, node), target.dtype, "block"  # pyright: ignore[reportAttributeAccessIssue]
        self.error(node, f"{name} needs a simt.AtomicSlice, a simt.unsafe.RawSlice or a shared array, got {target.describe()}")

    def text_option(self, value: Value, node: ast.AST, name: str, what: str, allowed: tuple[str, ...], default: str) -> str:
        if isinstance(value, Literal) and value.value is None:  # pyright: ignore[reportUnnecessaryComparison]
            return default
        if not isinstance(value, Text) or value.value not in allowed:
            got = repr(value.value) if isinstance(value, Text) else value.describe()
            self.error(node, f"{name}: {what} is one of {', '.join(repr(a) for a in allowed)}, got {got}")
        return value.value

    def call_simt_atomic_add(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("add", node, args)

    def call_simt_atomic_sub(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("sub", node, args)

    def call_simt_atomic_min(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("min", node, args)

    def call_simt_atomic_max(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("max", node, args)

    def call_simt_atomic_and(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("and", node, args)

    def call_simt_atomic_or(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("or", node, args)

    def call_simt_atomic_xor(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("xor", node, args)

    def call_simt_atomic_exch(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("exch", node, args)

    def call_simt_atomic_cas(self, node: ast.Call, args: list[Value]) -> Value:
        return self.call_atomic("cas", node, args)

    def call_simt_atomic_add_pair(self, node: ast.Call, args: list[Value]) -> Value:
        name = "simt.atomic_add_pair"
        target, index, x, y, scope, order = args
        indices, dtype, default_scope = self.atomic_target(target, index, node, name)
        if dtype.name not in ("f16", "bf16") or len(indices) != 1:
            self.error(node, f"{name} adds pairs of f16 or bf16 in a 1-D array (elements i and i + 1, i even), got {dtype.name}")
        scope_name = self.text_option(scope, node, name, "scope", kernel.ATOMIC_SCOPES, default_scope)
        order_name = self.text_option(order, node, name, "order", kernel.ATOMIC_ORDERINGS, "relaxed")
        a, b = self.implicit(x, dtype, node, f"{name}: x"), self.implicit(y, dtype, node, f"{name}: y")
        op = kernel.AtomicAddPairOp(target.ssa, [i.ssa for i in indices], a.ssa, b.ssa, scope_name, order_name, self.text_of(node))  # pyright: ignore[reportAttributeAccessIssue]
        self.emit(op, node)
        return TupleValue((Scalar(op.old0, dtype), Scalar(op.old1, dtype)))

    # ------------------------------------------------------------------ owned views

    def make_view(self, base: SliceValue, kind: str, node: ast.Call, args: list[Value]) -> Value:
        """`out.row(idx, ncols)`, `out.column(idx, ncols)`, `out.tile(idx, (th, tw), ncols)`."""
        if base.kind != "disjoint_slice":
            self.error(node, f".{kind}() views a DisjointSlice, got {base.describe()}")
        want = 3 if kind == "tile" else 2
        self.arity(node, args, want, f"{base.name}.{kind}")
        index = args[0]
        if not isinstance(index, IndexValue):
            self.error(node, f"{base.name}.{kind}(idx, ...) needs the thread's ThreadIndex, got {index.describe()}")
        if kind == "tile" and index.dims != 2:
            self.error(node, f"{base.name}.tile(idx, (th, tw), ncols) needs a 2-D ThreadIndex (simt.index_2d), got {index.describe()}")
        sizes: list[SSAValue] = []
        if kind == "tile":
            shape = self.constant_shape(args[1], node, f"{base.name}.tile")
            if len(shape) != 2:
                self.error(node, f"{base.name}.tile: the tile shape is (rows, cols), got {shape}")
            sizes += [self.const(shape[0], dtypes.i64, node).ssa, self.const(shape[1], dtypes.i64, node).ssa]
        ncols = args[-1]
        if isinstance(ncols, Literal):
            if not isinstance(ncols.value, int) or isinstance(ncols.value, bool) or ncols.value < 1:
                self.error(node, f"{base.name}.{kind}: ncols must be a positive integer, got {ncols.value!r}")
            n = self.const(ncols.value, dtypes.i64, node)
        else:
            n = self.materialize(ncols, node)
            if not n.dtype.is_int:
                self.error(node, f"{base.name}.{kind}: ncols must be an integer, got {n.dtype.name}")
            n = self.cast(n, dtypes.i64, node)
        sizes.append(n.ssa)
        return ViewValue(base, index, kind, tuple(sizes), 2 if kind == "tile" else 1)

    def view_coords(self, view: ViewValue, index: Value, node: ast.AST) -> list[SSAValue]:
        parts = list(index.elements) if isinstance(index, TupleValue) else [index]
        if len(parts) != view.rank:
            self.error(node, f"{view.describe()} takes {view.rank} index(es), got {len(parts)}")
        out = []
        for p in parts:
            i = self.raw_index(p, node)  # pyright: ignore[reportAttributeAccessIssue]
            out.append(self.cast(i, dtypes.i64, node).ssa)
        return out

    def view_load(self, view: ViewValue, index: Value, node: ast.AST) -> Scalar:
        coords = self.view_coords(view, index, node)
        op = kernel.ViewLoadOp(view.slice.ssa, view.index.ssa, view.kind, coords, list(view.sizes), self.text_of(node))
        return Scalar(self.emit(op, node), view.slice.dtype)

    def view_store(self, view: ViewValue, index: Value, value: Value, node: ast.AST) -> None:
        from warpforge.frontend.values import ownership_key

        key = ("view", view.kind, ownership_key(view.index.ssa), tuple(ownership_key(s) for s in view.sizes))
        self.claim_disjoint(view.slice, key, view.describe().replace(f" of {view.slice.describe()}", f" ({view.slice.name}.{view.kind}(...))"), node)  # pyright: ignore[reportAttributeAccessIssue]
        coords = self.view_coords(view, index, node)
        scalar = self.implicit(value, view.slice.dtype, node, f"storing into {view.describe()}")
        text = self.text_of(node.targets[0]) if isinstance(node, ast.Assign) else ""
        self.emit(kernel.ViewStoreOp(scalar.ssa, view.slice.ssa, view.index.ssa, view.kind, coords, list(view.sizes), text), node)


STATIC_SHARED_LIMIT = 48 * 1024
"""Bytes of static shared memory a block may have (every CUDA GPU; more only as dynamic memory)."""

LOCAL_LIMIT = 512 * 1024
"""Bytes of local memory a thread may have (PTX ISA: 512 KiB per thread)."""

NONE = Literal(None)  # pyright: ignore[reportArgumentType]
"""What a call returning nothing evaluates to (an expression statement discards it)."""

STATIC_RANGE_LIMIT = 1024
"""Most iterations `simt.static_range` unrolls (the code grows with each)."""

REGISTER_ARRAY_LIMIT = 1024
"""Local arrays up to this many elements start as register arrays (see `RegisterArrayValue`)."""


def _brace(text: str) -> str:
    """Literal text inside a `kernel.print` format (`{`/`}` doubled, as `str.format` wants)."""
    return text.replace("{", "{{").replace("}", "}}")
