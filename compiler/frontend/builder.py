"""The core of the frontend: state, locations, diagnostics, and typed value helpers (NEP 50).

`FunctionCompiler` (assembled in `warpforge.frontend.compiler` from this base and the expression,
statement and call mixins) walks one kernel's AST and appends `kernel`-dialect ops to the current
block. Every op gets the `loc("file":line:col)` of the AST node it comes from, and every error is a
`CompileError` with that location and the source line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np
from xdsl.dialects.builtin import FileLineColLoc, FloatAttr, IntAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.errors import CompileError
from warpforge.frontend.values import Literal, LoopIndex, NeedsUnroll, Scalar, Undefined, UnrolledOnly, Value


@dataclass
class LoopContext:
    """The innermost loop: its carried variable names and their dtypes (what break/continue pass)."""

    carried: list[str]
    types: list[DType]
    weak: dict[str, DType] = field(default_factory=dict[str, DType])
    """Carried variables that started as a Python literal, with the type they were given."""
    static: frozenset[tuple[str, int, int]] | None = None
    """The site of a `simt.static_range` loop kept as a loop (None: a `range` or `while` loop)."""


@dataclass
class SourceInfo:
    """Where the kernel's source comes from: file, first line, the lines (for carets)."""

    filename: str
    first_line: int
    lines: list[str]
    col_offset: int = 0
    """Columns removed by dedenting (a kernel defined inside a function)."""


@dataclass
class FunctionCompilerBase:
    source: SourceInfo
    globals: dict[str, Any]
    block: Block = field(default_factory=Block)
    vars: dict[str, Value] = field(default_factory=dict[str, Value])
    loops: list[LoopContext] = field(default_factory=list[LoopContext])
    terminated: bool = False
    index_dims: set[int] = field(default_factory=set[int])
    """Which ThreadIndex kinds the kernel makes (1, 2): the runtime's launch-shape requirement."""
    static_shared_bytes: int = 0
    """Static shared memory so far (each `simt.shared_array` rounded up to 16 bytes)."""
    uses_dynamic_shared: bool = False
    unit: Any = None
    """The `warpforge.frontend.device.Unit` shared with the device functions this kernel calls."""
    in_device: bool = False
    """Compiling a `@simt.device` function (a `return` may carry a value)."""
    device_return: DType | None = None
    """A device function's return dtype (None: returns nothing, or not known yet while probing)."""
    unrolled_loops: set[tuple[str, int, int]] = field(default_factory=set[tuple[str, int, int]])
    """`simt.static_range` loop sites (file, line, col) the frontend unrolls (their variable is needed
    as a constant after the loop); the others are tried as loops first."""
    memory_arrays: set[tuple[str, int, int]] = field(default_factory=set[tuple[str, int, int]])
    """`simt.local_array` sites (file, line, col) kept in local memory (indexed at run time somewhere)."""
    probe_returns: list[Value] | None = None
    """While probing a device function's return type: the values its `return`s give."""
    static_loops: list[int] = field(default_factory=list[int])
    """Ids of the `simt.static_range` loops being compiled as loops around the current statement."""
    uses_warp_collectives: bool = False
    """The kernel shuffles, votes or reduces over warps: every lane of each warp must exist, so the
    runtime launches it only with blocks of a multiple of 32 threads."""

    def merged_return_dtype(self, node: ast.AST) -> DType | None:
        """After a probe: the NEP 50 common type of every returned value."""
        from warpforge.frontend.device import merged_return_dtype

        return merged_return_dtype(self.probe_returns or [], node, self.error)

    # ------------------------------------------------------------------ locations and errors

    def loc(self, node: ast.AST) -> FileLineColLoc:
        line = getattr(node, "lineno", 1) + self.source.first_line - 1
        col = getattr(node, "col_offset", 0) + 1 + self.source.col_offset
        return FileLineColLoc(StringAttr(self.source.filename), IntAttr(line), IntAttr(col))

    def error(self, node: ast.AST | None, message: str) -> NoReturn:
        if node is None or not hasattr(node, "lineno"):
            raise CompileError(message, filename=self.source.filename, line=self.source.first_line, col=1)
        rel = node.lineno  # pyright: ignore[reportAttributeAccessIssue]
        line = rel + self.source.first_line - 1
        col = node.col_offset + 1 + self.source.col_offset  # pyright: ignore[reportAttributeAccessIssue]
        text = self.source.lines[rel - 1] if 0 < rel <= len(self.source.lines) else None
        if text is not None and self.source.col_offset:
            text = " " * self.source.col_offset + text
        raise CompileError(message, filename=self.source.filename, line=line, col=col, source_line=text)

    def text_of(self, node: ast.AST) -> str:
        """The source text of `node` (for error-site messages), or ''."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # pyright: ignore[reportAttributeAccessIssue]
            start, end = node.col_offset, node.end_col_offset  # pyright: ignore[reportAttributeAccessIssue]
            lines = self.source.lines
            if first == last:
                return lines[first].encode()[start:end].decode()
            parts = [lines[first].encode()[start:].decode(), *lines[first + 1 : last], lines[last].encode()[:end].decode()]
            return "\n".join(parts)
        except Exception:
            return ""

    # ------------------------------------------------------------------ emitting

    def emit(self, op: Operation, node: ast.AST) -> SSAValue:
        """Append `op` (located at `node`) to the current block; returns its first result, if any."""
        op.location = self.loc(node)
        self.block.add_op(op)
        return op.results[0] if op.results else None  # pyright: ignore[reportReturnType]

    @contextmanager
    def in_block(self, block: Block) -> Iterator[None]:
        saved, saved_term = self.block, self.terminated
        self.block, self.terminated = block, False
        try:
            yield
        finally:
            self.block, self.terminated = saved, saved_term

    # ------------------------------------------------------------------ constants and casts

    def const(self, value: bool | int | float, dtype: DType, node: ast.AST) -> Scalar:
        """A `kernel.constant` of `dtype`; a value out of `dtype`'s range is a `CompileError`."""
        if dtype.is_float:
            attr: Attribute = FloatAttr(float(value), dtype.mlir)  # pyright: ignore[reportArgumentType]
        else:
            if isinstance(value, float):
                if not value.is_integer():
                    self.error(node, f"the constant {value!r} is not an integer, but {dtype.name} is needed here")
                value = int(value)
            v = int(value)
            if dtype.is_bool:
                v = int(bool(v))
            elif not dtype.min <= v <= dtype.max:
                self.error(node, f"the constant {value!r} does not fit {dtype.name} ({dtype.min}..{dtype.max})")
            attr = IntegerAttr(v, dtype.mlir)  # pyright: ignore[reportArgumentType]
        return Scalar(self.emit(kernel.ConstantOp(attr), node), dtype)  # pyright: ignore[reportArgumentType]

    def cast(self, value: Scalar, dtype: DType, node: ast.AST) -> Scalar:
        """Convert with NumPy semantics (`kernel.cast`); no-op when the dtype already matches."""
        if value.dtype == dtype:
            return value
        return Scalar(self.emit(kernel.CastOp(value.ssa, dtype.mlir), node), dtype)

    def materialize(self, value: Value, node: ast.AST, dtype: DType | None = None) -> Scalar:
        """A run-time scalar for `value`: literals become constants (default bool/i64/f64, or `dtype`),
        scalars are converted to `dtype` when given."""
        if isinstance(value, Literal):
            return self.const(value.value, dtype or dtypes.literal_dtype(value.value), node)
        if isinstance(value, LoopIndex):
            if dtype is None:  # its type is decided by the other operand, as a literal's: not here
                raise NeedsUnroll(value.loops)
            return self.loop_index_as(value, dtype, node)
        if isinstance(value, Scalar):
            return self.cast(value, dtype, node) if dtype is not None else value
        if isinstance(value, Undefined):
            self.error(node, f"'{value.name}' {value.reason}")
        if type(value).__name__ == "TupleValue":
            self.error(node, "a tuple is not a number; tuples are only shapes, indices (a[i, j]) and swaps (a, b = b, a)")
        self.error(node, f"expected a number here, got {value.describe()}")

    def loop_index_as(self, value: LoopIndex, dtype: DType, node: ast.AST) -> Scalar:
        """`value` converted to `dtype` as `const` converts the int it stands for: every value it takes
        must fit an integer `dtype` (else `NeedsUnroll`: unrolled, `const` reports the one that does not)."""
        if dtype.is_int and not dtype.is_bool and not (dtype.min <= value.lo and value.hi <= dtype.max):
            raise NeedsUnroll(value.loops)
        return self.cast(Scalar(value.iv, dtypes.i64), dtype, node)

    def implicit(self, value: Value, dtype: DType, node: ast.AST, what: str) -> Scalar:
        """Convert `value` to `dtype` where Python code expects that type (a store, a carried variable):
        literals adopt the type (range-checked); typed values convert only within NumPy's 'same_kind'
        casting (no float→int, no signed→unsigned)."""
        if isinstance(value, Literal):
            if dtype.is_int and isinstance(value.value, float):
                self.error(node, f"{what}: the float constant {value.value!r} cannot become {dtype.name} implicitly; use {dtype!r}(...)")
            return self.const(value.value, dtype, node)
        if isinstance(value, LoopIndex):  # adopts the type, as an int literal
            return self.loop_index_as(value, dtype, node)
        scalar = self.materialize(value, node)
        if scalar.dtype == dtype:
            return scalar
        if not np.can_cast(scalar.dtype.np, dtype.np, casting="same_kind") and not (scalar.dtype.is_bool):
            self.error(node, f"{what}: {scalar.dtype.name} does not convert implicitly to {dtype.name}; convert explicitly with {dtype!r}(...)")
        return self.cast(scalar, dtype, node)

    def truthy(self, value: Value, node: ast.AST) -> Scalar:
        """Python truthiness as a bool scalar (`x != 0`; NaN is true)."""
        if isinstance(value, Literal):
            return self.const(bool(value.value), dtypes.bool_, node)
        scalar = self.materialize(value, node)
        return self.cast(scalar, dtypes.bool_, node)

    # ------------------------------------------------------------------ NEP 50 promotion

    def result_dtype(self, a: Value, b: Value, node: ast.AST) -> DType | None:
        """The common dtype of two operands (None when both are literals, folded in Python)."""
        if isinstance(a, Literal) and isinstance(b, Literal):
            return None
        for weak, strong in ((a, b), (b, a)):
            if isinstance(weak, LoopIndex):  # weak like the int literal it stands for
                if not isinstance(strong, Scalar):  # with another int: Python arithmetic (binary())
                    raise NeedsUnroll(weak.loops)
                return dtypes.promote_weak(strong.dtype, 0)
        if isinstance(a, Literal) or isinstance(b, Literal):
            strong, weak = (b, a) if isinstance(a, Literal) else (a, b)
            assert isinstance(strong, Scalar) and isinstance(weak, Literal)
            return dtypes.promote_weak(strong.dtype, weak.value)
        sa, sb = self.materialize(a, node), self.materialize(b, node)
        try:
            return dtypes.promote(sa.dtype, sb.dtype)
        except TypeError as e:
            self.error(node, str(e))

    def coerce_pair(self, a: Value, b: Value, node: ast.AST, dtype: DType | None = None) -> tuple[Scalar, Scalar, DType]:
        """Both operands as scalars of their common dtype (or `dtype`)."""
        dt = dtype or self.result_dtype(a, b, node)
        assert dt is not None
        return self.materialize(a, node, dt), self.materialize(b, node, dt), dt

    # ------------------------------------------------------------------ variables

    def lookup(self, name: str, node: ast.AST) -> Value:
        from warpforge.frontend.globals import resolve_global

        if name in self.vars:
            value = self.vars[name]
            if isinstance(value, UnrolledOnly):
                raise NeedsUnroll(value.loops)  # the kernel is compiled again with those loops unrolled
            if isinstance(value, Undefined):
                self.error(node, f"'{name}' {value.reason}")
            return value
        if name in self.globals:
            resolved = resolve_global(self.globals[name])
            if resolved is None:
                self.error(node, f"'{name}' ({type(self.globals[name]).__name__}) cannot be used inside a kernel")
            return resolved
        import builtins

        if hasattr(builtins, name):
            resolved = resolve_global(getattr(builtins, name))
            if resolved is not None:
                return resolved
            self.error(node, f"the builtin '{name}' is not supported inside kernels")
        self.error(node, f"name '{name}' is not defined")
