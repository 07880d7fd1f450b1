"""Helpers shared by warpforge's rewrite patterns and lowering passes.

xDSL's `PatternRewriter.replace` does not carry `op.location` to the new ops; every warpforge pattern
goes through `replace_op` (or `insert_before`) so source locations survive every pass down to PTX
`.loc` lines. A pass that meets an op it cannot lower raises `LoweringError` (a located
`warpforge.diagnostics.IRDiagnosticError`), so `warpforge-opt` prints `file:line:col: error: '<op>' op
<message> (in pass '<pass>')` and exits 1 —
never a silently skipped op.
"""

from __future__ import annotations

import functools
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
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriterListener, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead
from xdsl.rewriter import InsertPoint
from xdsl.utils.worklist import _MISSING  # pyright: ignore[reportPrivateUsage]

from warpforge.diagnostics import IRDiagnosticError, diagnostic_at


def inherit_location(ops: Iterable[Operation], source: Operation) -> None:
    """Give every op in `ops` (and nested in them) without a location `source`'s location."""
    for op in ops:
        if isinstance(op.location, UnknownLoc):
            op.location = source.location
        if op.regions:
            inherit_location((inner for region in op.regions for block in region.blocks for inner in block.ops), source)


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


@functools.lru_cache(maxsize=8192)
def integer_attr(value: int, typ: IntegerType | IndexType) -> IntegerAttr:
    """`IntegerAttr(value, typ)`, one object per (value, type): attributes are immutable, and
    building and verifying a new one for each of a kernel's thousands of constants (indices, lane
    positions, extents) was a tenth of the lowering passes that make them. `value` is taken as an
    `int` (`True` and `1` are one cache key)."""
    return IntegerAttr(int(value), typ)


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
    `convert-*-to-llvm` passes offer every op of a kernel to a dozen patterns). A pattern that looks
    its op up in a table (`INT_OPS.get(type(op))`) declares the table's keys as a class attribute
    `OP_TYPES`. A pattern whose types cannot be read is offered every op."""

    def __post_init__(self) -> None:
        self._by_type: dict[type[Operation], list[RewritePattern]] = {}
        self._accepts = [_accepted_types(p) for p in self.rewrite_patterns]

    def patterns_for(self, op_type: type[Operation]) -> list[RewritePattern]:
        """The patterns that can match ops of `op_type`, in order (worked out once per type)."""
        patterns = self._by_type.get(op_type)
        if patterns is None:
            patterns = [p for p, types in zip(self.rewrite_patterns, self._accepts) if types is None or issubclass(op_type, types)]
            self._by_type[op_type] = patterns
        return patterns

    def takes(self, op: Operation) -> bool:
        """Whether offering `op` can do anything: a pattern takes its type, or (with `dce_enabled`)
        it is trivially dead. `OneSweepWalker` skips the ops this refuses."""
        return bool(self.patterns_for(type(op))) or (self.dce_enabled and is_dead(op))

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.folding_enabled:  # folding needs the upstream path; none of our passes folds
            return super().match_and_rewrite(op, rewriter)
        if self.dce_enabled and is_dead(op):
            rewriter.erase(op)
            return
        for pattern in self.patterns_for(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


_DEAD_IF_UNUSED: dict[type[Operation], bool | None] = {}
"""Op class -> xDSL's `would_be_trivially_dead` for every op of the class, where the class alone
decides it (see `dead_if_unused`); None where it depends on the op (e.g. effects of nested ops)."""


def _dead_if_unused_by_class(cls: type[Operation]) -> bool | None:
    from xdsl.dialects.builtin import UnregisteredOp
    from xdsl.traits import (
        IsTerminator,
        MemoryAllocEffect,
        MemoryEffect,
        MemoryEffectKind,
        MemoryFreeEffect,
        MemoryReadEffect,
        MemoryWriteEffect,
        NoMemoryEffect,
        SymbolOpInterface,
    )

    if issubclass(cls, UnregisteredOp):
        return None
    if cls.has_trait(IsTerminator, value_if_unregistered=False) or cls.has_trait(SymbolOpInterface, value_if_unregistered=False):
        return False
    constant = {c.get_effects.__func__: c for c in (NoMemoryEffect, MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect, MemoryFreeEffect)}  # pyright: ignore[reportFunctionMemberAccess]
    traits = cls.get_traits_of_type(MemoryEffect)
    if not traits:
        return False  # unknown effects: never dead
    kinds: set[MemoryEffectKind] = set()
    for trait in traits:
        effect_class = constant.get(getattr(type(trait).get_effects, "__func__", None))
        if effect_class is None:
            return None  # effects computed per op
        kinds |= {e.kind for e in effect_class.get_effects(None)}  # pyright: ignore[reportArgumentType]
    # an allocation without a value (these traits name none) is an observable effect, as in xDSL
    return kinds <= {MemoryEffectKind.READ}


def dead_if_unused(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead(op)` (dead once its results are unused: not a terminator or a
    symbol, no effect but reads), worked out once per op class where the class alone decides it."""
    cls = type(op)
    try:
        verdict = _DEAD_IF_UNUSED[cls]
    except KeyError:
        verdict = _DEAD_IF_UNUSED[cls] = _dead_if_unused_by_class(cls)
    return would_be_trivially_dead(op) if verdict is None else verdict


def is_dead(op: Operation) -> bool:
    """xDSL's `is_trivially_dead(op)`: no result used, and `dead_if_unused(op)`."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return dead_if_unused(op)


def _accepted_types(pattern: RewritePattern) -> tuple[type, ...] | None:
    """The op types `pattern` matches: its class's `OP_TYPES` (a table-driven pattern names its
    table's keys there), else those of its `@op_type_rewrite_pattern` signature, else None."""
    declared = getattr(type(pattern), "OP_TYPES", None)
    if declared is not None:
        return tuple(declared)
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
class FastRewriteWalker(PatternRewriteWalker):
    """xDSL's `PatternRewriteWalker` (the same ops offered to the pattern in the same order, walks
    repeated until one changes nothing), with cheaper bookkeeping per op: the worklist filled in one
    loop, the rewriter pointed at each op without re-validating the insertion point, and, for a
    `TypedPatternApplier`, ops that no pattern takes and that are not dead skipped unoffered."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        """xDSL's order (the stack pops ops in `walk()` order: an op before the ops of its regions),
        built with one loop over the blocks instead of a chain of nested generators, when the
        worklist is empty (as at the start of every sweep); otherwise xDSL's push per op."""
        worklist = self._worklist
        if worklist._stack or self.walk_reverse or self.walk_regions_first:  # pyright: ignore[reportPrivateUsage]
            return super()._populate_worklist(op)
        ops = walk_ops(op)
        ops.reverse()
        worklist._stack = ops  # pyright: ignore[reportPrivateUsage]
        worklist._map = {item: index for index, item in enumerate(ops)}  # pyright: ignore[reportPrivateUsage]

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        """xDSL's loop (pop an op, point the rewriter before it, offer it to the pattern), less its
        per-op costs: the insertion point is built without `InsertPoint.before`'s validation (the op
        was just popped from its block, so the check cannot fail), and for a `TypedPatternApplier`
        an op no pattern takes and that is not trivially dead is skipped before the rewriter is
        reset for it (offering it would do nothing)."""
        worklist = self._worklist
        if not worklist:
            return False
        pattern = self.pattern
        typed = pattern if isinstance(pattern, TypedPatternApplier) and not pattern.folding_enabled else None
        rewriter = PatternRewriter(worklist._stack[-1])  # pyright: ignore[reportPrivateUsage, reportArgumentType]
        rewriter.extend_from_listener(listener)
        changed = False
        new_point = InsertPoint.__new__
        stack, index = worklist._stack, worklist._map  # pyright: ignore[reportPrivateUsage]
        by_type = typed._by_type if typed is not None else None  # pyright: ignore[reportPrivateUsage]
        dce = typed is not None and typed.dce_enabled
        while stack:
            # `Worklist.pop` inlined (the handlers of the rewriter's listener push to and remove from
            # the same stack and map): removed entries are `_MISSING` and skipped
            op = stack.pop()
            if op is _MISSING:
                continue
            del index[op]
            if by_type is not None:
                patterns = by_type.get(type(op))
                if patterns is None:
                    patterns = typed.patterns_for(type(op))  # pyright: ignore[reportOptionalMemberAccess]
                if not patterns and not (dce and is_dead(op)):
                    continue  # `typed.takes(op)` is false: offering it would do nothing
            block = op.parent_block()
            if block is None:
                raise ValueError("Operation insertion point must have a parent block")
            rewriter.has_done_action = False
            rewriter._current_operation = op  # pyright: ignore[reportPrivateUsage]
            point = new_point(InsertPoint)  # a frozen dataclass: its fields set as its __init__ would
            fields = point.__dict__
            fields["block"] = block
            fields["insert_before"] = op
            rewriter.insertion_point = point
            rewriter.name_hint = None
            try:
                pattern.match_and_rewrite(op, rewriter)
            except Exception as err:
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            changed |= rewriter.has_done_action
        return changed


@dataclass(eq=False, repr=False)
class OneSweepWalker(FastRewriteWalker):
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


def ops_of_dialect(root: Operation, dialect: str) -> list[Operation]:
    """The ops nested in `root` (itself included) whose name's dialect prefix is `dialect`
    (`dialect_of(op) == dialect`), in `root.walk()` order: what a conversion pass left unlowered.
    One loop over the blocks, not `walk()`'s chain of nested generators."""
    prefix = dialect + "."
    return [op for op in walk_ops(root) if op.name.startswith(prefix) or op.name == dialect]


def walk_ops(root: Operation | Region | Block) -> list[Operation]:
    """Every op nested in `root` (and `root` itself, for an op) in `root.walk()` order: an op, then
    its regions' ops in order. A list made by one recursive loop over the blocks: 3-5x cheaper than
    iterating xDSL's `walk()` (a generator per op and per nesting level), for passes that read the
    IR; a pass that changes the IR while it iterates must take care, as with a `list(walk())`."""
    out: list[Operation] = []
    append = out.append

    def block_ops(block: Block) -> None:
        for op in block.ops:
            append(op)
            if op.regions:
                for region in op.regions:
                    for inner in region.blocks:
                        block_ops(inner)

    if isinstance(root, Operation):
        append(root)
        for region in root.regions:
            for block in region.blocks:
                block_ops(block)
    elif isinstance(root, Region):
        for block in root.blocks:
            block_ops(block)
    else:
        block_ops(root)
    return out
