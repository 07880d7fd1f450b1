"""Helpers shared by warpforge's rewrite patterns.

xDSL's `PatternRewriter.replace` does not carry `op.location` to the new ops; every warpforge pattern
goes through `replace_op` (or `insert_before`) so source locations survive every pass down to PTX
`.loc` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint


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
