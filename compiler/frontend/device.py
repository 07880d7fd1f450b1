"""`@simt.device` functions: ordinary Python functions a kernel calls, compiled per argument types and
inlined (`kernel.call` → `inline-device-functions`).

A call `f(a, b)` binds each argument to its parameter by the parameter's annotation:

- a dtype (`x: wf.f32`): a number that converts implicitly (NumPy's `same_kind`, literals adopt the
  type); anything else is a `CompileError` at the call site;
- a slice annotation (`s: simt.Slice[wf.f32]`, or bare `simt.Slice` for any dtype): a slice of that
  kind (a `DisjointSlice` is not a `Slice`: reading it anywhere would race with its writers);
- `wf.Constant[int]`: a compile-time constant (the function is specialized on its value);
- none: the argument's own type — a number (a literal takes its default type: bool, i64, f64), a
  slice, a shared/local array, a `ThreadIndex` or `BlockIndex`.

The body is compiled once per distinct binding into a non-kernel `kernel.func @<name>__<types>` in the
kernel's module, with the kernel's checks (errors inside it are reported at its own lines). The
return type is the annotation's (`-> wf.f32`) or the NEP 50 common type of every `return`'s value
(a literal adopts a typed value's type); a function returning nothing gives `None`. Recursion is a
`CompileError` (GPU code has no call stack here: everything is inlined).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, Region

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.errors import CompileError
from warpforge.frontend.annotations import SLICE_NAMES, ConstantAnnotation, Generic, SliceAnnotation, resolve_annotation
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.device_function import DeviceFunction, device
from warpforge.frontend.values import (
    ArrayValue,
    BlockIndexValue,
    IndexValue,
    Literal,
    LoopIndex,
    NeedsMemory,
    RegisterArrayValue,
    Scalar,
    SliceValue,
    Value,
)


@dataclass(frozen=True)
class DeviceFunctionRef(Value):
    """A `@simt.device` function named in a kernel, before it is called."""

    device: DeviceFunction

    def describe(self) -> str:
        return f"the device function {self.device.fn.__qualname__}"


@dataclass
class Unit:
    """What one kernel's compilation shares between the kernel and the device functions it calls."""

    functions: list[kernel.FuncOp] = field(default_factory=list[kernel.FuncOp])
    compiled: dict[tuple[Any, ...], tuple[str, DType | None]] = field(default_factory=dict[tuple[Any, ...], "tuple[str, DType | None]"])
    stack: list[str] = field(default_factory=list[str])
    symbols: set[str] = field(default_factory=set[str])


def _descriptor(value: Value) -> tuple[Any, ...]:
    """How a bound argument is specialized on (part of the function's cache key)."""
    if isinstance(value, Scalar):
        return ("scalar", value.dtype.name)
    if isinstance(value, SliceValue):
        return ("slice", value.kind, value.dtype.name)
    if isinstance(value, ArrayValue):
        return ("array", value.space, value.shape, value.dtype.name)
    if isinstance(value, IndexValue):
        return ("thread_index", value.dims)
    if isinstance(value, BlockIndexValue):
        return ("block_index",)
    if isinstance(value, Literal):
        return ("constant", type(value.value).__name__, value.value)
    raise TypeError(value)


def _type_of(value: Value) -> Attribute:
    if isinstance(value, Scalar):
        return value.dtype.mlir
    if isinstance(value, SliceValue):
        return {"slice": kernel.SliceType, "disjoint_slice": kernel.DisjointSliceType, "atomic_slice": kernel.AtomicSliceType, "raw_slice": kernel.RawSliceType}[value.kind](value.dtype.mlir)
    if isinstance(value, ArrayValue):
        ssa_type = value.ssa.type
        return ssa_type
    if isinstance(value, IndexValue):
        return kernel.ThreadIndexType()
    if isinstance(value, BlockIndexValue):
        return kernel.BlockIndexType()
    raise TypeError(value)


def _suffix(descriptors: list[tuple[Any, ...]]) -> str:
    parts = []
    for d in descriptors:
        if d[0] == "scalar":
            parts.append(d[1])
        elif d[0] == "slice":
            parts.append(f"{SLICE_NAMES[d[1]][0].lower()}{d[2]}")
        elif d[0] == "array":
            parts.append(f"{d[1][0]}{'x'.join('d' if n is None else str(n) for n in d[2])}{d[3]}")
        elif d[0] == "thread_index":
            parts.append(f"idx{d[1]}")
        elif d[0] == "block_index":
            parts.append("bidx")
        else:
            parts.append("c" + "".join(ch if ch.isalnum() else "_" for ch in repr(d[2])))
    return "_".join(parts) or "void"


class DeviceCallMixin(FunctionCompilerBase):
    """`f(args)` for a `@simt.device` f: bind, compile (cached per binding), emit `kernel.call`."""

    def call_device(self, dev: DeviceFunction, node: ast.Call, args: list[Value]) -> Value:
        from warpforge.frontend.compiler import FunctionCompiler, _globals_of, get_source, symbol_name

        fn = dev.fn
        name = fn.__qualname__
        fdef, source = get_source(fn)
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            self.error(node, f"device function {name} must take plain positional parameters (no defaults, *args, **kwargs)")
        params = [p.arg for p in a.args]
        bound: dict[str, Value] = dict(zip(params, args))
        if len(args) > len(params):
            self.error(node, f"{name}() takes {len(params)} argument(s), got {len(args)}")
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in params:
                self.error(node, f"{name}() has no parameter '{kw.arg}' (parameters: {', '.join(params)})")
            if kw.arg in bound:
                self.error(node, f"{name}() got the argument '{kw.arg}' twice")
            bound[kw.arg] = self.visit_expr(kw.value)  # pyright: ignore[reportAttributeAccessIssue]
        missing = [p for p in params if p not in bound]
        if missing:
            self.error(node, f"{name}() is missing the argument(s) {', '.join(repr(m) for m in missing)}")
        hints = dict(getattr(fn, "__annotations__", {}))
        fglobals = _globals_of(fn)

        values: list[Value] = []  # what each parameter is inside the body (SSA-typed or a constant)
        for p in params:
            values.append(self._bind(name, p, self._annotation(hints.get(p), fglobals, name, p, node), bound[p], node))
        runtime = [(p, v) for p, v in zip(params, values) if not isinstance(v, Literal)]
        descriptors = [_descriptor(v) for v in values]
        key = (id(fn), tuple(descriptors))
        unit: Unit = self.unit  # pyright: ignore[reportAttributeAccessIssue]
        if key not in unit.compiled:
            symbol = f"{symbol_name(fn)}__{_suffix(descriptors)}"
            if symbol in unit.stack or any(s.startswith(symbol_name(fn) + "__") for s in unit.stack):
                self.error(node, f"{name} calls itself (directly or through other device functions): recursion is not supported in GPU code")
            ret = self._return_annotation(fn, fdef, fglobals, node)
            unit.stack.append(symbol)
            try:
                if ret is None and _returns_value(fdef):
                    probe = self._compile_body(FunctionCompiler, fdef, source, fglobals, params, values, symbol, None, probe=True)
                    ret = probe.merged_return_dtype(fdef)  # pyright: ignore[reportAttributeAccessIssue]
                compiler = self._compile_body(FunctionCompiler, fdef, source, fglobals, params, values, symbol, ret, probe=False)
            finally:
                unit.stack.pop()
            unit.compiled[key] = (symbol, ret)
            self.index_dims |= compiler.index_dims
            self.uses_warp_collectives |= compiler.uses_warp_collectives
            self.uses_dynamic_shared |= compiler.uses_dynamic_shared
        symbol, ret = unit.compiled[key]
        call = kernel.CallOp(symbol, [v.ssa for _, v in runtime], [ret.mlir] if ret is not None else [])  # pyright: ignore[reportAttributeAccessIssue]
        self.emit(call, node)
        if ret is None:
            return Literal(None)  # pyright: ignore[reportArgumentType]
        return Scalar(call.res[0], ret)

    # ------------------------------------------------------------------ binding

    def _annotation(self, ann: Any, fglobals: dict[str, Any], name: str, param: str, node: ast.AST) -> Any:
        if ann is None:
            return Generic()
        if isinstance(ann, str):
            try:
                ann = eval(ann, fglobals)  # noqa: S307 - the user's own annotation expression
            except Exception as e:
                self.error(node, f"{name}: parameter '{param}': cannot evaluate the annotation {ann!r}: {e}")
        resolved = resolve_annotation(ann)
        if resolved is None:
            self.error(node, f"{name}: parameter '{param}': {ann!r} is not a parameter type warpforge knows")
        return resolved

    def _bind(self, name: str, param: str, ann: Any, arg: Value, node: ast.AST) -> Value:
        """The argument as the parameter sees it, or a `CompileError` at the call site."""
        where = f"argument '{param}' of {name}()"
        if isinstance(ann, DType):
            if not isinstance(arg, Literal | Scalar):
                self.error(node, f"{where} is a {ann.name}, got {arg.describe()}")
            return self.implicit(arg, ann, node, where)
        if isinstance(ann, ConstantAnnotation):
            if not isinstance(arg, Literal):
                self.error(node, f"{where} is a wf.Constant: pass a compile-time constant, got {arg.describe()}")
            why = ann.check(arg.value)
            if why is not None:
                self.error(node, f"{where} {why}")
            return arg
        if isinstance(ann, SliceAnnotation):
            if not isinstance(arg, SliceValue) or arg.kind != ann.kind or (ann.dtype is not None and arg.dtype != ann.dtype):
                self.error(node, f"{where} is {ann!r}, got {arg.describe()}")
            return arg
        # no annotation: the argument's own type
        if isinstance(arg, RegisterArrayValue):
            raise NeedsMemory(arg.site)  # an array passed on lives in memory
        if isinstance(arg, LoopIndex):  # as an int literal argument: i64
            return self.loop_index_as(arg, dtypes.i64, node)
        if isinstance(arg, Literal):
            if arg.value is None:  # pyright: ignore[reportUnnecessaryComparison]
                self.error(node, f"{where}: got a call that returns nothing")
            # a constant inside the body, weak as any literal (NEP 50): `wrap(x, 10)` computes in x's
            # dtype as the same code written in the kernel does (the function is compiled per value)
            return arg
        if isinstance(arg, Scalar | SliceValue | ArrayValue | IndexValue | BlockIndexValue):
            return arg
        self.error(node, f"{where}: {arg.describe()} cannot be passed to a device function")

    def _return_annotation(self, fn: Any, fdef: ast.FunctionDef, fglobals: dict[str, Any], node: ast.AST) -> DType | None:
        ann = getattr(fn, "__annotations__", {}).get("return")
        if ann is None:
            return None
        if isinstance(ann, str):
            ann = eval(ann, fglobals)  # noqa: S307
        resolved = resolve_annotation(ann)
        if not isinstance(resolved, DType):
            self.error(node, f"{fn.__qualname__}: the return annotation must be a dtype such as wf.f32, got {ann!r}")
        return resolved

    def _compile_body(self, cls: Any, fdef: ast.FunctionDef, source: Any, fglobals: dict[str, Any], params: list[str],
                      values: list[Value], symbol: str, ret: DType | None, *, probe: bool) -> Any:  # fmt: skip
        compiler = cls(source=source, globals=fglobals)
        compiler.unit = self.unit  # pyright: ignore[reportAttributeAccessIssue]
        compiler.memory_arrays = self.memory_arrays
        compiler.unrolled_loops = self.unrolled_loops
        compiler.device_return = ret
        compiler.in_device = True
        compiler.probe_returns = [] if probe else None
        inputs: list[Attribute] = []
        runtime_values = [v for v in values if not isinstance(v, Literal)]
        for v in runtime_values:
            inputs.append(_type_of(v) if not isinstance(v, Scalar) else v.dtype.mlir)
        block = Block(arg_types=inputs)
        args = iter(block.args)
        for p, v in zip(params, values):
            if isinstance(v, Literal):
                compiler.vars[p] = v
                continue
            arg = next(args)
            arg.name_hint = p
            if isinstance(v, Scalar):
                compiler.vars[p] = Scalar(arg, v.dtype)
            elif isinstance(v, SliceValue):
                compiler.vars[p] = SliceValue(arg, v.dtype, v.kind, p)
            elif isinstance(v, ArrayValue):
                compiler.vars[p] = ArrayValue(arg, v.dtype, v.shape, v.space)
            elif isinstance(v, IndexValue):
                compiler.vars[p] = IndexValue(arg, v.dims)
            elif isinstance(v, BlockIndexValue):
                compiler.vars[p] = BlockIndexValue(arg)
        with compiler.in_block(block):
            compiler.visit_body(fdef.body)
            if not compiler.terminated:
                if ret is not None and not probe:
                    compiler.error(fdef, f"{fdef.name} can reach its end without returning a value (it returns {ret.name} elsewhere)")
                compiler.emit(kernel.ReturnOp(), fdef.body[-1] if fdef.body else fdef)
        if probe:
            return compiler
        func = kernel.FuncOp(symbol, FunctionType.from_lists(inputs, [ret.mlir] if ret is not None else []), Region(block))
        func.location = compiler.loc(fdef)
        self.unit.functions.append(func)  # pyright: ignore[reportAttributeAccessIssue]
        return compiler


def _returns_value(fdef: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fdef))


def merged_return_dtype(values: list[Value], node: ast.AST, error: Any) -> DType | None:
    """The NEP 50 common type of the returned values (literals weak)."""
    strong = [v.dtype for v in values if isinstance(v, Scalar)]
    weak = [v.value for v in values if isinstance(v, Literal)]
    if not strong and not weak:
        return None
    if strong:
        result = strong[0]
        for d in strong[1:]:
            try:
                result = dtypes.promote(result, d)
            except TypeError as e:
                error(node, f"the returned values have no common type: {e}")
        for w in weak:
            result = dtypes.promote_weak(result, w)
        return result
    kinds = {type(w) for w in weak}
    if float in kinds:
        return dtypes.f64
    if int in kinds:
        return dtypes.i64
    return dtypes.bool_


_ = (CompileError, functools)
