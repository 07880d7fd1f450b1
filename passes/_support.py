"""Helpers shared by the `gpu` → `llvm` lowering passes: diagnostics and small type utilities.

A pass that meets an op it cannot lower raises `LoweringError` (an xDSL `DiagnosticException`), so
`warpforge-opt` prints `error: <file:line:col>: <message>` and exits 1, and `run_pipeline` callers
get an exception naming the op and its source location — never a silently skipped op.
"""

from __future__ import annotations

from typing import NoReturn

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException

i64 = IntegerType(64)


class LoweringError(DiagnosticException):
    """An op a lowering pass cannot translate (unsupported op, type, layout or target)."""


def where(op: Operation) -> str:
    """`file:line:col` of `op`, else the enclosing function (`in @name`), else `<unknown location>`."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    parent = op.parent_op()
    while parent is not None:
        name = parent.properties.get("sym_name")
        if isinstance(name, StringAttr) and parent.name != "builtin.module":
            return f"in @{name.data}"
        parent = parent.parent_op()
    return "<unknown location>"


def dialect_of(op: Operation) -> str:
    """The dialect prefix of `op`'s name (`memref` for `memref.load`); works for unregistered ops too."""
    return op.name.split(".", 1)[0]


def fail(op: Operation, message: str) -> NoReturn:
    """Raise `LoweringError` for `op`: `<where>: '<op name>' <message>`."""
    raise LoweringError(f"{where(op)}: '{op.name}' {message}")


def llvm_fastmath(flags: arith.FastMathFlagsAttr | None) -> llvm.FastMathAttr:
    """arith/math fast-math flags as the `llvm` dialect's (the same LLVM flag set)."""
    return llvm.FastMathAttr(flags.data if flags is not None else None)


def intrinsic_suffix(typ: Attribute) -> str:
    """LLVM's overload suffix for `typ`: `f32`, `bf16`, `i64`, `v4f32`."""
    if isinstance(typ, VectorType):
        return f"v{typ.get_shape()[0]}{intrinsic_suffix(typ.element_type)}"
    if isinstance(typ, BFloat16Type):
        return "bf16"
    if isinstance(typ, Float16Type | Float32Type | Float64Type):
        return f"f{typ.bitwidth}"
    if isinstance(typ, IntegerType):
        return f"i{typ.width.data}"
    raise ValueError(f"no LLVM intrinsic suffix for {typ}")
