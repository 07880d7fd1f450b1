"""`int-range-optimizations`: fold integer comparisons that value ranges decide (MLIR's pass of that name).

An interval `[lo, hi]` (signed, exact Python integers) is computed for every integer or `index` value
whose definition the analysis understands; a `arith.cmpi` whose result the intervals decide is
replaced by a constant, and `canonicalize` then removes the branch it guarded. This is how a bounds
check that control flow or the launch contract already implies disappears: `shared[ty * 8 + i]` with
`ty < 16` from the kernel's exact block (`known_block_size`, PTX `.reqntid`, enforced before launch)
and `i < 8` from an unrolled `simt.static_range` needs no check against a 128-element array.

Sources of ranges:
- constants; `gpu.thread_id` (`[0, known_block_size - 1]` of the enclosing `gpu.func`, else the
  `nvvm.maxntid` bound, else the hardware's 1024/1024/64 threads per block, CUDA C Programming Guide
  "Compute Capabilities"), `gpu.block_dim`, `gpu.block_id`/`gpu.grid_dim` (`< 2^31`), `gpu.lane_id`;
  `memref.dim` (`[0, 2^63 - 1]`).
- `arith` integer ops evaluated on intervals: add/sub/mul, div/rem and shifts by non-negative
  ranges, and/or/xor of non-negative values, min/max, select, the casts, and `cmpi` itself. A result
  that could wrap (leave its type's range) gets the full range of its type: wrapping arithmetic is
  never assumed not to wrap.
Anything else (block arguments, loads, calls, region results) is unknown: the full range of its type.
The analysis is a single walk in dominance order, so it needs no fixpoint and cannot be fooled by
loops: a loop-carried value is a block argument, hence unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, cf, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i1
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from warpforge.dialects import gpu
from warpforge.dialects.element_types import bit_width

Range = tuple[int, int]

Fact = tuple[int, SSAValue, SSAValue]
"""`(predicate, lhs, rhs)` of an `arith.cmpi` known to hold (MLIR's predicate numbers)."""

_NEGATE = {0: 1, 1: 0, 2: 5, 3: 4, 4: 3, 5: 2, 6: 9, 7: 8, 8: 7, 9: 6}
_SWAP = {0: 0, 1: 1, 2: 4, 3: 5, 4: 2, 5: 3, 6: 8, 7: 9, 8: 6, 9: 7}

_HW_BLOCK = {"x": 1024, "y": 1024, "z": 64}
"""Maximum threads per block along each axis (every compute capability warpforge targets)."""

_MAX_GRID = 2**31 - 1


def _width(t: Attribute) -> int | None:
    """Bits of an integer or `index` value (the values this analysis bounds); None for others."""
    return bit_width(t) if isinstance(t, IntegerType | IndexType) else None


def _full(width: int) -> Range:
    if width == 1:
        return (0, 1)  # i1 as an unsigned truth value: false = 0, true = 1
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1)


def _fits(r: Range, width: int) -> Range:
    """`r` if every value of it is representable, else the full range (the op may wrap)."""
    lo, hi = _full(width)
    return r if lo <= r[0] and r[1] <= hi else (lo, hi)


def _hull(*vals: int) -> Range:
    return (min(vals), max(vals))


def _unsigned_view(r: Range, width: int) -> Range | None:
    """The range as unsigned values, when it does not straddle the sign boundary."""
    if r[0] >= 0:
        return r
    if r[1] < 0 and width > 1:
        return (r[0] + (1 << width), r[1] + (1 << width))
    return None


@dataclass
class RangeAnalysis:
    """Intervals of the integer values of one function, computed in one walk over its ops."""

    block_bound: dict[str, int]
    ranges: dict[SSAValue, Range]
    facts: dict[Block, tuple[Fact, ...]] = field(default_factory=dict[Block, "tuple[Fact, ...]"])
    """For each block: the comparisons that hold on entry (from the branches that dominate it)."""

    def facts_at(self, op: Operation) -> tuple[Fact, ...]:
        block = op.parent_block()
        return () if block is None else self.facts.get(block, ())

    def get(self, value: SSAValue) -> Range:
        width = _width(value.type)
        assert width is not None
        return self.ranges.get(value, _full(width))

    def visit(self, op: Operation) -> None:
        if len(op.results) != 1:
            return
        width = _width(op.results[0].type)
        if width is None:
            return
        rule = _RULES.get(type(op))
        if width == 1 and type(op) not in _I1_RULES:  # i1 arithmetic (add = xor, ...): left unknown
            rule = None
        r = rule(self, op, width) if rule is not None else None
        if r is not None:
            self.ranges[op.results[0]] = _fits(r, width)


def _binary(fn: Callable[[Range, Range, int], Range | None]):
    def rule(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
        return fn(a.get(op.operands[0]), a.get(op.operands[1]), width)

    return rule


def _mul(x: Range, y: Range, width: int) -> Range:
    return _hull(x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1])


def _div(x: Range, y: Range, width: int) -> Range | None:
    if y[0] <= 0 or x[0] < 0:  # only non-negative by positive: truncation = floor, no overflow
        return None
    return (x[0] // y[1], x[1] // y[0])


def _rem(x: Range, y: Range, width: int) -> Range | None:
    if y[0] <= 0 or x[0] < 0:
        return None
    return (0, min(x[1], y[1] - 1))


def _bits(x: Range, y: Range) -> Range | None:
    """or/xor of non-negative values: below the next power of two of the larger bound."""
    if x[0] < 0 or y[0] < 0:
        return None
    return (0, (1 << max(x[1], y[1]).bit_length()) - 1)


def _and(x: Range, y: Range, width: int) -> Range | None:
    if width == 1:
        return (x[0] & y[0], x[1] & y[1])
    if x[0] >= 0 and y[0] >= 0:
        return (0, min(x[1], y[1]))
    if x[0] >= 0:
        return (0, x[1])
    if y[0] >= 0:
        return (0, y[1])
    return None


def _or(x: Range, y: Range, width: int) -> Range | None:
    if width == 1:
        return (x[0] | y[0], x[1] | y[1])
    if x[0] >= 0 and y[0] >= 0:
        return (max(x[0], y[0]), _bits(x, y)[1])  # pyright: ignore[reportOptionalSubscript]
    return None


def _xor(x: Range, y: Range, width: int) -> Range | None:
    if width == 1:
        if x[0] == x[1] and y[0] == y[1]:
            return (x[0] ^ y[0],) * 2  # pyright: ignore[reportReturnType]
        return (0, 1)
    return _bits(x, y)


def _shl(x: Range, y: Range, width: int) -> Range | None:
    if y[0] < 0 or y[1] >= width:
        return None
    return _hull(x[0] << y[0], x[0] << y[1], x[1] << y[0], x[1] << y[1])


def _shr(x: Range, y: Range, width: int) -> Range | None:
    if y[0] < 0 or y[1] >= width or x[0] < 0:  # non-negative: logical and arithmetic shifts agree
        return None
    return (x[0] >> y[1], x[1] >> y[0])


def _cmp(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
    assert isinstance(op, arith.CmpiOp)
    lhs, rhs = op.lhs, op.rhs
    w = _width(lhs.type)
    assert w is not None
    x, y = a.get(lhs), a.get(rhs)
    pred = op.predicate.value.data
    if w == 1 and 2 <= pred <= 5:  # signed i1: true is -1
        x, y = (-x[1], -x[0]), (-y[1], -y[0])
    # 0 eq, 1 ne, 2 slt, 3 sle, 4 sgt, 5 sge, 6 ult, 7 ule, 8 ugt, 9 uge (MLIR's arith.cmpi predicates)
    implied = _implied(a, op, pred, lhs, rhs, x)
    if implied is not None:
        return (int(implied), int(implied))
    if pred >= 6:
        ux, uy = _unsigned_view(x, w), _unsigned_view(y, w)
        if ux is None or uy is None:
            return None
        x, y, pred = ux, uy, pred - 4
    if pred in (0, 1):
        if x[0] == x[1] == y[0] == y[1]:
            decided = True
        elif x[1] < y[0] or y[1] < x[0]:
            decided = False
        else:
            return None
        truth = decided if pred == 0 else not decided
        return (int(truth), int(truth))
    less = {2: (x[1] < y[0], x[0] >= y[1]), 3: (x[1] <= y[0], x[0] > y[1]),
            4: (x[0] > y[1], x[1] <= y[0]), 5: (x[0] >= y[1], x[1] < y[0])}[pred]
    if less[0]:
        return (1, 1)
    if less[1]:
        return (0, 0)
    return None


def _same(a: SSAValue, b: SSAValue) -> bool:
    """The same value: one SSA value, or the same pure computation (`memref.dim` of one memref and
    dimension, casts of the same value) that CSE did not merge because it sits in another block."""
    if a is b:
        return True
    da, db = getattr(a, "op", None), getattr(b, "op", None)
    if not isinstance(da, Operation) or not isinstance(db, Operation) or type(da) is not type(db):
        return False
    if not isinstance(da, memref.DimOp | arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.ConstantOp):
        return False
    if da.properties != db.properties or da.attributes != db.attributes or da.result_types != db.result_types:
        return False
    return len(da.operands) == len(db.operands) and all(_same(p, q) for p, q in zip(da.operands, db.operands))


def _implied(a: RangeAnalysis, op: Operation, pred: int, lhs: SSAValue, rhs: SSAValue, x: Range) -> bool | None:
    """Whether a fact that holds where `op` is decides `lhs pred rhs`: the same comparison (or its
    negation), or `lhs slt rhs` for `lhs ult rhs` when `lhs` is non-negative (a guard `if i < len(a)`
    before the check of `a[i]`)."""
    for fpred, flhs, frhs in a.facts_at(op):
        if _same(flhs, rhs) and _same(frhs, lhs):
            fpred, flhs, frhs = _SWAP[fpred], frhs, flhs
        if not (_same(flhs, lhs) and _same(frhs, rhs)):
            continue
        if fpred == pred:
            return True
        if _NEGATE[fpred] == pred:
            return False
        if x[0] >= 0 and (fpred, pred) in ((2, 6), (3, 7)):  # 0 <= lhs < rhs (signed) implies lhs < rhs (unsigned)
            return True
    return None


def _constant(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    if not isinstance(value, IntegerAttr):
        return None
    v = value.value.data
    if width == 1:
        v = v & 1
    return (v, v)


def _cast(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
    src = op.operands[0]
    w = _width(src.type)
    if w is None:
        return None
    r = a.get(src)
    if isinstance(op, arith.ExtUIOp):  # any w-bit value zero-extends into [0, 2^w - 1]
        return (_unsigned_view(r, w) or (0, (1 << w) - 1)) if w > 1 else r
    if w == 1:  # extsi of i1: true becomes -1
        return (-r[1], -r[0])
    if isinstance(op, arith.TruncIOp):
        return r  # _fits() gives the full range if it does not fit
    return r  # index_cast, extsi: the value is kept (sign-extended)


def _select(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
    assert isinstance(op, arith.SelectOp)
    c = a.get(op.cond)
    t, f = a.get(op.lhs), a.get(op.rhs)
    if c == (1, 1):
        return t
    if c == (0, 0):
        return f
    return _hull(*t, *f)


def _dimension_op(a: RangeAnalysis, op: Operation, width: int) -> Range | None:
    assert isinstance(op, gpu._DimensionOp)  # pyright: ignore[reportPrivateUsage]
    if isinstance(op, gpu.ThreadIdOp):
        return (0, a.block_bound[op.dim] - 1)
    if isinstance(op, gpu.BlockDimOp):
        return (1, a.block_bound[op.dim])
    if isinstance(op, gpu.BlockIdOp):
        return (0, _MAX_GRID - 1)
    if isinstance(op, gpu.GridDimOp):
        return (1, _MAX_GRID)
    return None


_RULES: dict[type[Operation], Callable[[RangeAnalysis, Operation, int], Range | None]] = {
    arith.ConstantOp: _constant,
    arith.AddiOp: _binary(lambda x, y, w: (x[0] + y[0], x[1] + y[1])),
    arith.SubiOp: _binary(lambda x, y, w: (x[0] - y[1], x[1] - y[0])),
    arith.MuliOp: _binary(_mul),
    arith.DivSIOp: _binary(_div),
    arith.DivUIOp: _binary(_div),
    arith.RemSIOp: _binary(_rem),
    arith.RemUIOp: _binary(_rem),
    arith.AndIOp: _binary(_and),
    arith.OrIOp: _binary(_or),
    arith.XOrIOp: _binary(_xor),
    arith.ShLIOp: _binary(_shl),
    arith.ShRUIOp: _binary(_shr),
    arith.ShRSIOp: _binary(_shr),
    arith.MaxSIOp: _binary(lambda x, y, w: (max(x[0], y[0]), max(x[1], y[1]))),
    arith.MinSIOp: _binary(lambda x, y, w: (min(x[0], y[0]), min(x[1], y[1]))),
    arith.MaxUIOp: _binary(lambda x, y, w: (max(x[0], y[0]), max(x[1], y[1])) if x[0] >= 0 and y[0] >= 0 else None),
    arith.MinUIOp: _binary(lambda x, y, w: (min(x[0], y[0]), min(x[1], y[1])) if x[0] >= 0 and y[0] >= 0 else None),
    arith.CmpiOp: _cmp,
    arith.IndexCastOp: _cast,
    arith.ExtSIOp: _cast,
    arith.ExtUIOp: _cast,
    arith.TruncIOp: _cast,
    arith.SelectOp: _select,
    gpu.ThreadIdOp: _dimension_op,
    gpu.BlockDimOp: _dimension_op,
    gpu.BlockIdOp: _dimension_op,
    gpu.GridDimOp: _dimension_op,
    gpu.LaneIdOp: lambda a, op, w: (0, 31),
    memref.DimOp: lambda a, op, w: (0, 2**63 - 1),
}


_I1_RULES = (arith.ConstantOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.CmpiOp, arith.SelectOp, arith.TruncIOp)
"""The ops whose i1 results the analysis tracks (as truth values 0/1)."""


def block_bound(func: Operation) -> dict[str, int]:
    """Threads per block along each axis that a launch of `func` can have (upper bounds)."""
    known = func.attributes.get("known_block_size") or getattr(func, "known_block_size", None)
    if known is not None:
        values = known.get_values()  # pyright: ignore[reportAttributeAccessIssue]
        return dict(zip("xyz", (int(v) for v in values)))
    bound = dict(_HW_BLOCK)
    maxntid = func.attributes.get("nvvm.maxntid")
    if maxntid is not None:
        total = 1
        for v in maxntid.get_values():  # pyright: ignore[reportAttributeAccessIssue]
            total *= int(v)
        bound = {d: min(b, total) for d, b in bound.items()}  # x*y*z <= maxntid total
    return bound


def _condition_fact(cond: SSAValue, truth: bool) -> tuple[Fact, ...]:
    cmp = getattr(cond, "op", None)
    if not isinstance(cmp, arith.CmpiOp):
        return ()
    pred = cmp.predicate.value.data
    return ((pred if truth else _NEGATE[pred], cmp.lhs, cmp.rhs),)


def block_facts(func: Operation) -> dict[Block, tuple[Fact, ...]]:
    """The comparisons known on entry to each block of `func`.

    A block of the function's CFG whose only predecessor ends in `cf.cond_br %c` inherits that block's
    facts plus `%c` (true on the `then` edge, negated on the `else` edge); a block reached by `cf.br`
    from its only predecessor inherits its facts; a block with several predecessors (a join, a loop
    header) knows nothing. A nested region inherits the facts of its op's block, plus the condition of
    an `scf.if` (true in `then`, false in `else`)."""
    facts: dict[Block, tuple[Fact, ...]] = {}

    def of(block: Block) -> tuple[Fact, ...]:
        if block in facts:
            return facts[block]
        facts[block] = ()  # a cycle of single-predecessor blocks is unreachable: nothing is known there
        region = block.parent
        owner = region.parent if region is not None else None
        result: tuple[Fact, ...] = ()
        if isinstance(owner, scf.IfOp) and owner.parent_block() is not None:
            outer = of(owner.parent_block())  # pyright: ignore[reportArgumentType]
            result = outer + _condition_fact(owner.cond, region is owner.true_region)
        elif owner is not None and owner is not func and owner.parent_block() is not None and region.blocks.first is block:
            result = of(owner.parent_block())  # pyright: ignore[reportArgumentType]
        elif owner is func or owner is not None:
            preds = list(block.predecessors())
            if len(preds) == 1 and preds[0] is not block:
                term = preds[0].last_op
                if isinstance(term, cf.ConditionalBranchOp) and term.then_block is not term.else_block:
                    result = of(preds[0]) + _condition_fact(term.cond, term.then_block is block)
                elif isinstance(term, cf.BranchOp):
                    result = of(preds[0])
        facts[block] = result
        return result

    for op in func.walk():
        for region in op.regions:
            for block in region.blocks:
                of(block)
    return facts


def fold_decided_comparisons(func: Operation) -> int:
    """Replace the `arith.cmpi` ops of `func` whose ranges or dominating conditions decide them by
    constants; returns how many."""
    analysis = RangeAnalysis(block_bound(func), {}, block_facts(func))
    decided: list[tuple[arith.CmpiOp, int]] = []
    for op in func.walk():  # pre-order: a definition is visited before the uses it dominates
        analysis.visit(op)
        if isinstance(op, arith.CmpiOp):
            r = analysis.ranges.get(op.result)
            if r is not None and r[0] == r[1]:
                decided.append((op, r[0]))
    for op, value in decided:
        const = arith.ConstantOp(IntegerAttr(value, i1))
        const.location = op.location
        Rewriter.replace_op(op, const)
    return len(decided)


@dataclass(frozen=True)
class IntRangeOptimizationsPass(ModulePass):
    """Fold integer comparisons that value ranges decide (thread ids bounded by the launch contract).

    Run `canonicalize` afterwards to remove the branches (bounds checks) that became constant."""

    name = "int-range-optimizations"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in op.walk():
            if isinstance(func, gpu.FuncOp):
                fold_decided_comparisons(func)
