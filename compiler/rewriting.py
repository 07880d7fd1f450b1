"""Helpers shared by warpforge's rewrite patterns and lowering passes.

xDSL's `PatternRewriter.replace` does not carry `op.location` to the new ops; every warpforge pattern
goes through `replace_op` (or `insert_before`) so source locations survive every pass down to PTX
`.loc` lines. A pass that meets an op it cannot lower raises `LoweringError` (a located
`warpforge.diagnostics.IRDiagnosticError`), so `warpforge-opt` prints `file:line:col: error: '<op>' op
<message> (in pass '<pass>')` and exits 1 —
never a silently skipped op.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import NoReturn, Union, get_args, get_origin

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
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead
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


_LOCATED = re.compile(r"(?P<file>[^\n]+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)", re.S)


def as_compile_error(e: Exception) -> Exception:
    """A pass's `DiagnosticException` (`LoweringError`, a verifier's `VerifyException`) as the
    `wf.CompileError` users see: `file:line:col` taken from the message's `<file:line:col>: ` prefix
    (as `fail` writes it), with the source line and a caret."""
    import linecache

    from warpforge.errors import CompileError

    from warpforge.diagnostics import IRDiagnosticError

    if isinstance(e, IRDiagnosticError):  # located already: keep its structure
        d = e.diagnostic
        if d.loc is None:
            return CompileError(d.full_message)
        source = linecache.getline(d.loc.filename, d.loc.line) or None
        return CompileError(d.full_message, filename=d.loc.filename, line=d.loc.line, col=d.loc.col, source_line=source)
    text = str(e)
    m = _LOCATED.match(text)
    if m is None:
        return CompileError(text)
    filename, line, col = m.group("file"), int(m.group("line")), int(m.group("col"))
    source = linecache.getline(filename, line) or None
    return CompileError(m.group("message"), filename=filename, line=line, col=col, source_line=source)


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


@dataclass(eq=False, repr=False)
class TypedPatternApplier(GreedyRewritePatternApplier):
    """xDSL's `GreedyRewritePatternApplier` (dead ops erased first, then the patterns in order until
    one rewrites), but each op is offered only to the patterns that can match its type: a pattern
    written with `@op_type_rewrite_pattern` declares the op types it takes in its signature, and for
    each op type the applier keeps the list of patterns that accept it. Same rewrites, same order;
    without the hundreds of thousands of calls that only test an op's type and return (the
    `convert-*-to-llvm` passes offer every op of a kernel to a dozen patterns). A pattern whose types
    cannot be read is offered every op."""

    def __post_init__(self) -> None:
        self._by_type: dict[type[Operation], list[RewritePattern]] = {}
        self._accepts = [_accepted_types(p) for p in self.rewrite_patterns]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.folding_enabled:  # folding needs the upstream path; none of our passes folds
            return super().match_and_rewrite(op, rewriter)
        if self.dce_enabled and is_trivially_dead(op):
            rewriter.erase(op)
            return
        patterns = self._by_type.get(type(op))
        if patterns is None:
            patterns = [p for p, types in zip(self.rewrite_patterns, self._accepts) if types is None or issubclass(type(op), types)]
            self._by_type[type(op)] = patterns
        for pattern in patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def _accepted_types(pattern: RewritePattern) -> tuple[type, ...] | None:
    """The op types `pattern.match_and_rewrite` (an `@op_type_rewrite_pattern`) matches, or None."""
    impl = type(pattern).match_and_rewrite
    code = getattr(impl, "__code__", None)
    if code is None or "expected_type" not in code.co_freevars or impl.__closure__ is None:
        return None
    expected = impl.__closure__[code.co_freevars.index("expected_type")].cell_contents
    types = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
    if not types or not all(isinstance(t, type) and issubclass(t, Operation) for t in types):
        return None
    return tuple(types)


@dataclass(eq=False, repr=False)
class OneSweepWalker(PatternRewriteWalker):
    """xDSL's `PatternRewriteWalker` (each op of the region offered to the pattern once; ops a rewrite
    inserts or modifies, and the users of results it replaces, offered as they appear), without the
    fixpoint: xDSL walks the whole region again after any change, until a walk changes nothing. A
    conversion pass whose patterns only rewrite ops of the dialects they lower, into ops of another,
    changed nothing on that second walk (counted for the kernels of examples/vecadd, sgemm, matmul
    and softmax; every example's PTX is the same with either walker), which still costs a walk of the
    module and a visit of every op. Passes that canonicalize (where one rewrite enables another far
    away) keep xDSL's walker."""

    def rewrite_region(self, region: Region) -> bool:
        listener = self._get_rewriter_listener()
        self._populate_worklist(region)
        changed = self._process_worklist(listener)
        if self.post_walk_func is not None:
            changed |= self.post_walk_func(region, listener)
        return changed
