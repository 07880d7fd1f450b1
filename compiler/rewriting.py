"""Helpers shared by warpforge's rewrite patterns and lowering passes.

xDSL's `PatternRewriter.replace` does not carry `op.location` to the new ops; every warpforge pattern
goes through `replace_op` (or `insert_before`) so source locations survive every pass down to PTX
`.loc` lines. A pass that meets an op it cannot lower raises `LoweringError` (a located
`warpforge.diagnostics.IRDiagnosticError`), so `warpforge-opt` prints `file:line:col: error: '<op>' op
<message> (in pass '<pass>')` and exits 1 —
never a silently skipped op.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from warpforge.diagnostics import IRDiagnosticError, diagnostic_at


def _all_ops(ops: Iterable[Operation]) -> Iterable[Operation]:
    for op in ops:
        yield op
        for region in op.regions:
            for block in region.blocks:
                yield from _all_ops(block.ops)


def inherit_location(ops: Iterable[Operation], source: Operation) -> None:
    """Give every op in `ops` (and nested in them) without a location `source`'s location."""
    for op in _all_ops(ops):
        if isinstance(op.location, UnknownLoc):
            op.location = source.location


def replace_op(
    rewriter: PatternRewriter,
    op: Operation,
    new_ops: Operation | Sequence[Operation],
    new_results: Sequence[SSAValue | None] | None = None,
) -> None:
    """`rewriter.replace`, after giving the new ops `op`'s source location."""
    ops = [new_ops] if isinstance(new_ops, Operation) else list(new_ops)
    inherit_location(ops, op)
    rewriter.replace(op, ops, new_results)


def insert_before(rewriter: PatternRewriter, anchor: Operation, new_ops: Operation | Sequence[Operation]) -> None:
    """Insert `new_ops` before `anchor`, giving them `anchor`'s location."""
    ops = [new_ops] if isinstance(new_ops, Operation) else list(new_ops)
    inherit_location(ops, anchor)
    rewriter.insert_op(ops, InsertPoint.before(anchor))


i64 = IntegerType(64)


class LoweringError(IRDiagnosticError):
    """An op a lowering pass cannot translate (unsupported op, type, layout or target): a located
    diagnostic (`warpforge.diagnostics`) naming the op; the driver adds the pass."""


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


def enclosing_op(op: Operation, accept: Callable[[Operation], bool]) -> Operation | None:
    """The nearest op around `op` (its parent, the parent's parent, …) that `accept` takes, else None."""
    parent = op.parent_op()
    while parent is not None and not accept(parent):
        parent = parent.parent_op()
    return parent


def dialect_of(op: Operation) -> str:
    """The dialect prefix of `op`'s name (`memref` for `memref.load`); works for unregistered ops too."""
    return op.name.split(".", 1)[0]


def fail(op: Operation, message: str) -> NoReturn:
    """Raise `LoweringError` for `op`: `file:line:col: error: '<op name>' op <message>`."""
    raise LoweringError(diagnostic_at(op, message), op)


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
