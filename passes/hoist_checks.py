"""`hoist-checks`: prove a kernel's bounds checks once, at its entry, and run a copy without them.

A checked read inside control flow or a loop costs a branch each time it runs, and each branch to the
error reporter keeps ptxas from predicating or batching the loads around it. Most indices are affine
in values fixed for the whole launch: `a[row * k + col]` under the guard `row < m and col < k` (SGEMM's
tile loads), `u[i + cols]` under `0 < r < rows - 1` (the stencil), `data[k]` in `while k < n` (the
histogram's grid-stride loop). For each such check this pass derives a condition on the kernel's
entry values (arguments, lengths, block and thread ids) that implies it, for example
`m * k - 1 < len(a)`, and versions the kernel:

    entry:  P = <every hoisted check's condition>  and  <the assumptions they rest on>
            cf.cond_br P, ^fast, ^checked
    ^fast:     the body, with the hoisted checks' conditions replaced by `true` (canonicalize drops them)
    ^checked:  the original body, every check in place

A thread for which `P` fails runs the original code, so it reports the first failing access exactly
as before (kernel, file:line:col, index, length, block, thread); a thread for which `P` holds cannot
fail a hoisted check, so nothing it would have reported is lost. A check this pass cannot prove stays
in both copies. This is MLIR/LLVM loop versioning (`LoopVersioningLICM`) applied to the whole kernel
with bounds conditions, and the "range check elimination" of JVMs (one check of the range's ends).

How a condition is derived (`Bounds.of`): every integer value gets an inclusive lower and upper bound
as a polynomial in *symbols* (values computable at the entry: kernel arguments, `memref.dim` of
kernel arguments, thread/block ids and pure `arith` on those) plus a numeric interval. Bounds come from
- the comparisons that dominate the check (`cf.cond_br` and `scf.if` conditions, through the
  short-circuit `and` the frontend lowers to a block argument; `x < X` bounds `x` by `X - 1`);
- the defining op (`addi`, `subi`, `muli` of non-negative values, casts, `remsi` by a constant), when
  its result cannot wrap (every operation's exact result interval must fit its type);
- a loop-carried block argument that starts at `c` and only grows by non-negative steps without
  wrapping (`for k0 in range(0, k, 8)`): at least `c`;
- `gpu.block_id d`: at most `gpu.grid_dim d - 1` (a symbol the host knows at launch, `["grid", d]`),
  so the global thread index `blockIdx.x * blockDim.x + threadIdx.x` is at most
  `(gridDim.x - 1) * blockDim.x + 255` for a 256-thread block, the same for every thread;
- a symbol itself (exact).
`x ult n` holds when `lower(x) >= 0` and `upper(x) < lower(n)`; a difference that is a constant is
decided here, any other becomes a term of `P` (`n - upper(x) > 0`, computed in i64). Kernel arguments
and lengths that enter a bound are assumed to be in `[0, 2^31 - 1]` (a term of `P`, `ule`), which
keeps every product of two of them, and every emitted computation, free of overflow: a launch with
larger values simply runs the checked copy.

Runs on gpu-level IR (after `kernel-to-gpu` and `int-range-optimizations`, before `fuse-checks`), on
every `gpu.func … kernel`. Checks in the entry block are hoisted too (vecadd's `a[i]`, `b[i]` become
`(gridDim.x - 1) * blockDim.x + 255 < len(a)` and the same for `b`): the fast body then has no diamond
at all, and ptxas no reconvergence barrier (`BSSY`/`BSYNC`) around the reporter's call. Every reported
check is a candidate (`is_reported_check`: loads, stores and atomics alike), since only its condition
changes in the fast copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, cf, memref, scf
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, IntegerType, ModuleOp, StringAttr, i1, i32, i64
from xdsl.dialects.func import CallOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from warpforge.dialects import gpu
from warpforge.passes.convert_cf_to_llvm import BRANCH_WEIGHTS
from warpforge.passes.fuse_checks import REPORTER
from warpforge.passes.int_range_optimizations import _NEGATE, _SWAP, RangeAnalysis, block_bound

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
ASSUMED_MAX = 2**31 - 1
"""Kernel arguments and lengths that a hoisted condition uses are assumed to lie in `[0, ASSUMED_MAX]`."""

FAST_PATH_WEIGHTS = (1 << 20, 1)
"""`branch_weights` of the versioning branch: the fast body is the likely one, laid out as the fall-through."""

SMALL = 2**24
"""Numeric intervals inside `(-SMALL, SMALL)` are offered as constant bounds (lane and thread offsets);
wider ones (a global thread index's `2^39`) would only make an entry condition that never holds."""

MARK = "hoist_checks.hoisted"
"""Temporary attribute on the checks being hoisted, to find their copies in the fast body."""

_SLT, _SLE, _SGT, _SGE, _ULT, _ULE = 2, 3, 4, 5, 6, 7

Monomial = tuple[int, ...]
"""Sorted symbol numbers; `()` is the constant term."""


@dataclass(frozen=True)
class Poly:
    """An integer polynomial in the symbols (exact integer coefficients)."""

    terms: tuple[tuple[Monomial, int], ...]

    @staticmethod
    def make(d: dict[Monomial, int]) -> Poly:
        return Poly(tuple(sorted((m, c) for m, c in d.items() if c != 0)))

    @staticmethod
    def const(c: int) -> Poly:
        return Poly.make({(): c})

    @staticmethod
    def sym(s: int) -> Poly:
        return Poly.make({(s,): 1})

    def __add__(self, other: Poly) -> Poly:
        d = dict(self.terms)
        for m, c in other.terms:
            d[m] = d.get(m, 0) + c
        return Poly.make(d)

    def __neg__(self) -> Poly:
        return Poly(tuple((m, -c) for m, c in self.terms))

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        d: dict[Monomial, int] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                d[m] = d.get(m, 0) + c1 * c2
        return Poly.make(d)

    def constant(self) -> int | None:
        """The value, when the polynomial has no symbol."""
        if not self.terms:
            return 0
        if len(self.terms) == 1 and self.terms[0][0] == ():
            return self.terms[0][1]
        return None


Interval = tuple[int, int]


def _mul_iv(x: Interval, y: Interval) -> Interval:
    p = (x[0] * y[0], x[0] * y[1], x[1] * y[0], x[1] * y[1])
    return (min(p), max(p))


def _fits(iv: Interval) -> bool:
    return I64_MIN <= iv[0] and iv[1] <= I64_MAX


@dataclass
class Bound:
    """What is known of one integer value at one place: inclusive symbolic bounds (None: unknown) and
    a numeric interval, with the symbols whose assumed range the interval relies on."""

    lo: Poly | None
    hi: Poly | None
    nlo: int
    nhi: int
    assumes: frozenset[int] = frozenset()


def _width(t: Attribute) -> int | None:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def _type_range(t: Attribute) -> Interval:
    w = _width(t) or 64
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if w > 1 else (0, 1)


_EV_OPS = (
    arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivSIOp, arith.DivUIOp, arith.RemSIOp,
    arith.RemUIOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp,
    arith.MaxSIOp, arith.MinSIOp, arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp,
    arith.CmpiOp, arith.SelectOp, gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp, gpu.LaneIdOp,
    memref.DimOp,
)
"""Ops whose result is the same wherever it is computed in a kernel, given the same operands (so a copy
at the kernel's entry computes it): pure integer arithmetic, the launch's ids and extents, lengths."""


def _total(op: Operation) -> bool:
    """Whether `op` is defined for every operand value, so a copy at the entry (where the guards that
    protected it have not run) is harmless: a division or remainder only by a constant other than 0
    and -1, a shift only by a constant below the width (LLVM: undefined behaviour, poison)."""
    if isinstance(op, arith.DivSIOp | arith.DivUIOp | arith.RemSIOp | arith.RemUIOp | arith.ShLIOp | arith.ShRSIOp | arith.ShRUIOp):
        k = op.operands[1].op if isinstance(op.operands[1], OpResult) else None
        if not (isinstance(k, arith.ConstantOp) and isinstance(k.value, IntegerAttr)):
            return False
        c = k.value.value.data
        if isinstance(op, arith.ShLIOp | arith.ShRSIOp | arith.ShRUIOp):
            return 0 <= c < (_width(op.operands[0].type) or 0)
        return c not in (0, -1)
    return True


_THREAD_DEPENDENT = (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.LaneIdOp)


class KernelFacts:
    """The CFG facts of one kernel: canonical values, dominance, and the comparisons known per block."""

    def __init__(self, func: gpu.FuncOp):
        self.func = func
        self.region = func.body
        self.entry = self.region.blocks.first
        self.dom = DominanceInfo(self.region)
        self._facts: dict[Block, tuple[tuple[int, SSAValue, SSAValue], ...]] = {}
        self._idom: dict[Block, Block | None] = {}
        self._ev_memo: dict[SSAValue, object] = {}
        # `preds` and `canon` answers while the analysis runs (the CFG does not change until `forget`):
        # sgemm's checks ask `canon` ~17k times, each walking a block's uses for its predecessors
        self._memo_on = True
        self._preds_memo: dict[Block, list[Block]] = {}
        self._canon_memo: dict[SSAValue, SSAValue] = {}

    def forget(self) -> None:
        """Stop remembering `preds` and `canon` (the caller is about to change the CFG)."""
        self._memo_on = False
        self._preds_memo.clear()
        self._canon_memo.clear()

    # ---------------------------------------------------------------- values

    def preds(self, block: Block) -> list[Block]:
        if self._memo_on:
            memo = self._preds_memo.get(block)
            if memo is None:
                memo = self._preds_memo[block] = list(dict.fromkeys(block.predecessors()))
            return memo
        return list(dict.fromkeys(block.predecessors()))

    def incoming(self, block: Block, index: int) -> list[tuple[Block, SSAValue]] | None:
        """(predecessor, value passed for argument `index`) for every edge into `block`, or None when
        an edge is not a `cf.br`/`cf.cond_br` (or passes the argument both ways)."""
        out: list[tuple[Block, SSAValue]] = []
        for p in self.preds(block):
            term = p.last_op
            if isinstance(term, cf.BranchOp):
                out.append((p, term.arguments[index]))
            elif isinstance(term, cf.ConditionalBranchOp):
                if term.then_block is block:
                    out.append((p, term.then_arguments[index]))
                if term.else_block is block:
                    out.append((p, term.else_arguments[index]))
            else:
                return None
        return out

    def canon(self, v: SSAValue) -> SSAValue:
        """`v`, seen through arguments of blocks with one incoming edge (the value that edge passes)."""
        if self._memo_on:
            memo = self._canon_memo.get(v)
            if memo is None:
                memo = self._canon_memo[v] = self._canon(v)
            return memo
        return self._canon(v)

    def _canon(self, v: SSAValue) -> SSAValue:
        seen: set[SSAValue] = set()
        while isinstance(v, BlockArgument) and v not in seen:
            seen.add(v)
            block = v.block
            if block.parent is not self.region or block is self.entry:
                return v
            edges = self.incoming(block, v.index)
            if edges is None or len(edges) != 1 or edges[0][0] is block:
                return v
            v = edges[0][1]
        return v

    def is_entry_value(self, v: SSAValue) -> bool:
        """Whether `v` can be recomputed at the kernel's entry (see `_EV_OPS`)."""
        return self._ev_key(self.canon(v)) is not None

    def _ev_key(self, v: SSAValue) -> object | None:
        memo = self._ev_memo
        if v in memo:
            return memo[v]
        memo[v] = None  # cycles are not entry values
        key: object | None = None
        if isinstance(v, BlockArgument):
            if v.block is self.entry:
                key = ("arg", v.index)
        elif isinstance(v, OpResult) and isinstance(v.op, _EV_OPS) and not v.op.regions and _total(v.op):
            operand_keys = [self._ev_key(self.canon(o)) for o in v.op.operands]
            if all(k is not None for k in operand_keys):
                op = v.op
                key = (op.name, str(op.properties), str(dict(op.attributes)), tuple(operand_keys), v.index, str(v.type))
        memo[v] = key
        return key

    def same(self, a: SSAValue, b: SSAValue) -> bool:
        a, b = self.canon(a), self.canon(b)
        if a is b:
            return True
        ka, kb = self._ev_key(a), self._ev_key(b)
        return ka is not None and ka == kb

    # ---------------------------------------------------------------- dominance and facts

    def idom(self, block: Block) -> Block | None:
        if block not in self._idom:
            strict = [d for d in self.region.blocks if d is not block and self.dom.dominates(d, block)]
            self._idom[block] = max(strict, key=lambda d: sum(self.dom.dominates(e, d) for e in strict), default=None)
        return self._idom[block]

    def _defined_before(self, v: SSAValue, block: Block) -> bool:
        """Whether `v` is defined in a block of the kernel region that strictly dominates `block` (or
        outside the region), so its value cannot change on the way from its definition to `block`."""
        owner = v.block if isinstance(v, BlockArgument) else v.op.parent_block()  # pyright: ignore[reportAttributeAccessIssue]
        while owner is not None and owner.parent is not self.region:
            op = owner.parent.parent if owner.parent is not None else None
            owner = op.parent_block() if isinstance(op, Operation) else None
        if owner is None or self.is_entry_value(v):  # an entry value is the same wherever it is computed
            return True
        return owner is not block and self.dom.dominates(owner, block)

    def facts(self, block: Block) -> tuple[tuple[int, SSAValue, SSAValue], ...]:
        """The comparisons `(predicate, lhs, rhs)` that hold whenever control is in `block`."""
        if block in self._facts:
            return self._facts[block]
        self._facts[block] = ()  # a cycle knows nothing
        region = block.parent
        owner = region.parent if region is not None else None
        result: tuple[tuple[int, SSAValue, SSAValue], ...] = ()
        if region is not self.region:
            if isinstance(owner, Operation) and owner.parent_block() is not None:
                outer = self.facts(owner.parent_block())  # pyright: ignore[reportArgumentType]
                if isinstance(owner, scf.IfOp):
                    result = outer + self.cond_facts(owner.cond, region is owner.true_region, owner.parent_block())  # pyright: ignore[reportArgumentType]
                else:
                    result = outer
        elif block is not self.entry:
            preds = self.preds(block)
            if len(preds) == 1 and preds[0] is not block:
                result = self.facts(preds[0]) + self.edge_facts(preds[0], block)
            else:
                dom = self.idom(block)
                result = self.facts(dom) if dom is not None else ()
        self._facts[block] = result
        return result

    def edge_facts(self, pred: Block, block: Block) -> tuple[tuple[int, SSAValue, SSAValue], ...]:
        term = pred.last_op
        if isinstance(term, cf.ConditionalBranchOp) and term.then_block is not term.else_block:
            return self.cond_facts(term.cond, term.then_block is block, pred)
        return ()

    def cond_facts(self, c: SSAValue, truth: bool, at: Block, depth: int = 0) -> tuple[tuple[int, SSAValue, SSAValue], ...]:
        """What `c == truth` says, where `c` is used in block `at`."""
        if depth > 8:
            return ()
        c = self.canon(c)
        op = c.op if isinstance(c, OpResult) else None
        if isinstance(op, arith.CmpiOp):
            pred = op.predicate.value.data
            return ((pred if truth else _NEGATE[pred], self.canon(op.lhs), self.canon(op.rhs)),)
        if isinstance(op, arith.AndIOp) and truth or isinstance(op, arith.OrIOp) and not truth:
            return self.cond_facts(op.lhs, truth, at, depth + 1) + self.cond_facts(op.rhs, truth, at, depth + 1)
        if isinstance(op, arith.XOrIOp):
            for x, y in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
                k = y.op if isinstance(y, OpResult) else None
                if isinstance(k, arith.ConstantOp) and isinstance(k.value, IntegerAttr) and k.value.value.data & 1:
                    return self.cond_facts(x, not truth, at, depth + 1)
            return ()
        if isinstance(c, BlockArgument) and c.block.parent is self.region and c.block is not self.entry:
            return self._phi_facts(c, truth, depth)
        return ()

    def _phi_facts(self, c: BlockArgument, truth: bool, depth: int) -> tuple[tuple[int, SSAValue, SSAValue], ...]:
        """`c` is a join's block argument (the short-circuit `and`/`or`): the facts of the one incoming
        edge on which `c` can be `truth`, kept where their operands are defined before the join."""
        join = c.block
        edges = self.incoming(join, c.index)
        if edges is None:
            return ()
        feasible: list[tuple[tuple[int, SSAValue, SSAValue], ...]] = []
        for pred, w in edges:
            term = pred.last_op
            k = w.op if isinstance(w, OpResult) else None
            if isinstance(k, arith.ConstantOp) and isinstance(k.value, IntegerAttr) and bool(k.value.value.data & 1) != truth:
                continue
            if isinstance(term, cf.ConditionalBranchOp) and term.then_block is not term.else_block and self.same(term.cond, w):
                if (term.then_block is join) != truth:
                    continue  # `w` is the branch condition, and this edge is taken when it is not `truth`
            feasible.append(self.facts(pred) + self.edge_facts(pred, join) + self.cond_facts(w, truth, pred, depth + 1))
        if not feasible:
            return ()
        common = [f for f in feasible[0] if all(f in other for other in feasible[1:])]
        return tuple(f for f in common if self._defined_before(f[1], join) and self._defined_before(f[2], join))


@dataclass
class Bounds:
    """Symbolic and numeric bounds of a kernel's integer values (see the module doc)."""

    kf: KernelFacts
    ranges: RangeAnalysis
    assume: bool
    """Whether leaves (kernel arguments, lengths) are assumed to lie in `[0, ASSUMED_MAX]`."""
    symbols: list[SSAValue] = field(default_factory=list[SSAValue])
    leaves: set[int] = field(default_factory=set[int])
    _sym_index: dict[object, int] = field(default_factory=dict[object, int])
    _memo: dict[tuple[SSAValue, Block], Bound] = field(default_factory=dict[tuple[SSAValue, Block], Bound])
    _busy: set[tuple[SSAValue, Block]] = field(default_factory=set[tuple[SSAValue, Block]])
    _grids: dict[str, SSAValue] = field(default_factory=dict[str, SSAValue])
    _cut: int = 0
    """How many times a query met itself (a cycle through facts or loops) and answered "unknown"."""
    _budget: int = 50_000
    """Queries left for this kernel; past it every answer is "unknown" (bounds the work on huge kernels)."""

    def grid_dim(self, dim: str) -> SSAValue:
        """A `gpu.grid_dim` of axis `dim`, made once and left unattached (a symbol: only its copy at the
        entry is emitted), its interval from the range analysis."""
        if dim not in self._grids:
            grid = gpu.GridDimOp(dim)
            self.ranges.visit(grid)
            self._grids[dim] = grid.result
        return self._grids[dim]

    def symbol(self, v: SSAValue) -> int:
        key = self.kf._ev_key(v)  # pyright: ignore[reportPrivateUsage]
        if key not in self._sym_index:
            self._sym_index[key] = len(self.symbols)
            self.symbols.append(v)
            if isinstance(v, BlockArgument) or isinstance(v, OpResult) and isinstance(v.op, memref.DimOp):
                self.leaves.add(len(self.symbols) - 1)
        return self._sym_index[key]

    def sym_range(self, s: int) -> Interval:
        if self.assume and s in self.leaves:
            return (0, ASSUMED_MAX)
        v = self.symbols[s]
        return self.ranges.get(v) if _width(v.type) else _type_range(v.type)

    def eval(self, p: Poly) -> Interval | None:
        """The interval of `p`, or None when computing it (monomial by monomial, left to right) could
        leave i64."""
        total: Interval = (0, 0)
        for mono, coef in p.terms:
            iv: Interval = (coef, coef)
            for s in mono:
                iv = _mul_iv(iv, self.sym_range(s))
                if not _fits(iv):
                    return None
            total = (total[0] + iv[0], total[1] + iv[1])
            if not _fits(total):
                return None
        return total

    def varies(self, p: Poly) -> bool:
        """Whether `p` depends on the thread (a symbol computed from a thread, block or lane id)."""
        return any(self._varies(self.symbols[s]) for mono, _ in p.terms for s in mono)

    def _varies(self, v: SSAValue, depth: int = 0) -> bool:
        v = self.kf.canon(v)
        if not isinstance(v, OpResult) or depth > 32:
            return False
        return isinstance(v.op, _THREAD_DEPENDENT) or any(self._varies(o, depth + 1) for o in v.op.operands)

    def assumed(self, p: Poly | None) -> frozenset[int]:
        if p is None or not self.assume:
            return frozenset()
        return frozenset(s for mono, _ in p.terms for s in mono if s in self.leaves)

    def of(self, v: SSAValue, at: Block) -> Bound:
        """The bounds of `v` wherever control is in block `at`."""
        v = self.kf.canon(v)
        key = (v, at)
        if key in self._memo:
            return self._memo[key]
        full = _type_range(v.type)
        self._budget -= 1
        if key in self._busy or _width(v.type) is None or self._budget < 0:
            self._cut += 1
            return Bound(None, None, *full)
        cut = self._cut
        self._busy.add(key)
        try:
            result = self._compute(v, at)
        finally:
            self._busy.discard(key)
        if self._cut == cut:  # an answer cut short by a cycle is sound but not the best: asked again later
            self._memo[key] = result
        return result

    def _compute(self, v: SSAValue, at: Block) -> Bound:
        cands: list[Bound] = []
        op = v.op if isinstance(v, OpResult) else None
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            c = op.value.value.data
            return Bound(Poly.const(c), Poly.const(c), c, c)
        facts = list(self._from_facts(v, at))
        if self.kf.is_entry_value(v):
            s = self.symbol(v)
            lo, hi = self.sym_range(s)
            exact = Bound(Poly.sym(s), Poly.sym(s), lo, hi, self.assumed(Poly.sym(s)))
            if s in self.leaves:  # a kernel argument or a length is its own best bound: facts only narrow its interval
                return Bound(exact.lo, exact.hi, max([lo, *(f.nlo for f in facts)]), min([hi, *(f.nhi for f in facts)]),
                             exact.assumes.union(*(f.assumes for f in facts)))
            cands.append(exact)
        cands[:0] = facts
        structural = self._structural(v, op, at)
        if structural is not None:
            cands.append(structural)
        rlo, rhi = self.ranges.get(v)
        nlo = max([rlo, *(c.nlo for c in cands)])
        nhi = min([rhi, *(c.nhi for c in cands)])
        if nhi < SMALL and nlo > -SMALL:  # a small interval (`tid % 4`) is a bound the same for every thread
            cands.append(Bound(Poly.const(nlo), Poly.const(nhi), nlo, nhi))
        # the same for every thread first (no divergence at the grid's edges), then symbolic (a bound that
        # follows the arguments, `k - 1`, over a number), then what the guards say (`i < len(out)`) over
        # the symbol itself over the defining op, then the tightest
        ranked = [(c, rank) for rank, group in enumerate((facts, cands[len(facts):])) for c in group]
        his = [(c, r) for c, r in ranked if c.hi is not None]
        los = [(c, r) for c, r in ranked if c.lo is not None]
        hi = min(his, key=lambda cr: (self.varies(cr[0].hi), cr[0].hi.constant() is not None, cr[1], cr[0].nhi))[0].hi if his else None  # pyright: ignore[reportArgumentType]
        lo = min(los, key=lambda cr: (self.varies(cr[0].lo), cr[0].lo.constant() is not None, cr[1], -cr[0].nlo))[0].lo if los else None  # pyright: ignore[reportArgumentType]
        assumes = frozenset().union(*(c.assumes for c in cands))
        if hi is not None and (iv := self.eval(hi)) is not None:
            nhi = min(nhi, iv[1])
        if lo is not None and (iv := self.eval(lo)) is not None:
            nlo = max(nlo, iv[0])
        if hi is None and nhi < 2**62:
            hi = Poly.const(nhi)
        if lo is None and nlo > -(2**62):
            lo = Poly.const(nlo)
        return Bound(lo, hi, nlo, nhi, assumes)

    def _from_facts(self, v: SSAValue, at: Block) -> Iterator[Bound]:
        for pred, lhs, rhs in self.kf.facts(at):
            if self.kf.same(lhs, v):
                other = rhs
            elif self.kf.same(rhs, v):
                other, pred = lhs, _SWAP[pred]
            else:
                continue
            if self.kf.same(other, v):
                continue
            ob = self.of(other, at)
            lo_full, hi_full = _type_range(v.type)
            if pred in (_SLT, _SLE) or pred in (_ULT, _ULE) and ob.nlo >= 0:
                strict = 1 if pred in (_SLT, _ULT) else 0
                hi = None if ob.hi is None else ob.hi - Poly.const(strict)
                nlo = 0 if pred in (_ULT, _ULE) else lo_full
                yield Bound(Poly.const(0) if nlo == 0 else None, hi, nlo, ob.nhi - strict, ob.assumes | self.assumed(hi))
            elif pred in (_SGT, _SGE):
                strict = 1 if pred == _SGT else 0
                lo = None if ob.lo is None else ob.lo + Poly.const(strict)
                yield Bound(lo, None, ob.nlo + strict, hi_full, ob.assumes | self.assumed(lo))
            elif pred == 0:  # eq
                yield Bound(ob.lo, ob.hi, ob.nlo, ob.nhi, ob.assumes)

    def _structural(self, v: SSAValue, op: Operation | None, at: Block) -> Bound | None:
        full = _type_range(v.type)
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            a, b = self.of(op.operands[0], at), self.of(op.operands[1], at)
            assumes = a.assumes | b.assumes
            if isinstance(op, arith.AddiOp):
                iv = (a.nlo + b.nlo, a.nhi + b.nhi)
                lo = a.lo + b.lo if a.lo is not None and b.lo is not None else None
                hi = a.hi + b.hi if a.hi is not None and b.hi is not None else None
            elif isinstance(op, arith.SubiOp):
                iv = (a.nlo - b.nhi, a.nhi - b.nlo)
                lo = a.lo - b.hi if a.lo is not None and b.hi is not None else None
                hi = a.hi - b.lo if a.hi is not None and b.lo is not None else None
            else:
                if a.nlo < 0 or b.nlo < 0:
                    return None
                iv = (a.nlo * b.nlo, a.nhi * b.nhi)
                lo = a.lo * b.lo if a.lo is not None and b.lo is not None else None
                hi = a.hi * b.hi if a.hi is not None and b.hi is not None else None
            if not (full[0] <= iv[0] and iv[1] <= full[1]):
                return None  # the op may wrap: its exact bounds say nothing
            return Bound(lo, hi, iv[0], iv[1], assumes)
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            b = self.of(op.operands[0], at)
            if not (full[0] <= b.nlo and b.nhi <= full[1]):
                return None
            return b
        if isinstance(op, arith.ExtUIOp):
            b = self.of(op.operands[0], at)
            return b if b.nlo >= 0 else None
        if isinstance(op, arith.RemSIOp | arith.RemUIOp):
            a, b = self.of(op.operands[0], at), self.of(op.operands[1], at)
            if a.nlo >= 0 and b.nlo > 0:
                return Bound(Poly.const(0), None if b.hi is None else b.hi - Poly.const(1), 0, min(a.nhi, b.nhi - 1), b.assumes)
            return None
        if isinstance(op, gpu.BlockIdOp):  # blockIdx.d <= gridDim.d - 1: uniform, decided at launch
            grid = self.symbol(self.grid_dim(op.dim))
            return Bound(Poly.const(0), Poly.sym(grid) - Poly.const(1), 0, self.ranges.get(v)[1])
        if isinstance(v, BlockArgument) and v.block.parent is self.kf.region and v.block is not self.kf.entry:
            return self._induction(v)
        return None

    def _induction(self, x: BlockArgument) -> Bound | None:
        """A join's or loop header's argument: the hull of what its edges pass, where an edge that
        passes `x + s` (`s >= 0`, no wrap) keeps the lower bound (a counting-up loop variable)."""
        edges = self.kf.incoming(x.block, x.index)
        if not edges:
            return None
        los: list[int] = []
        his: list[int] = []
        grows = False
        assumes: frozenset[int] = frozenset()
        for pred, w in edges:
            w = self.kf.canon(w)
            if w is x:
                continue
            op = w.op if isinstance(w, OpResult) else None
            if isinstance(op, arith.AddiOp):
                step = next((o for o, other in ((op.rhs, op.lhs), (op.lhs, op.rhs)) if self.kf.canon(other) is x), None)
                if step is not None:
                    # no wrap: what the facts at the increment (the loop's condition) bound `x` by, plus the step
                    sb = self.of(step, pred)
                    xf = list(self._from_facts(x, pred))
                    x_hi = min((f.nhi for f in xf), default=_type_range(x.type)[1])
                    if sb.nlo < 0 or x_hi + sb.nhi > I64_MAX:
                        return None
                    grows = True
                    assumes = assumes.union(sb.assumes, *(f.assumes for f in xf))
                    continue
            b = self.of(w, pred)
            los.append(b.nlo)
            his.append(b.nhi)
            assumes |= b.assumes
        if not los:
            return None
        lo_full, hi_full = _type_range(x.type)
        nlo, nhi = min(los), (hi_full if grows else max(his))
        return Bound(Poly.const(nlo) if nlo > -(2**62) else None, Poly.const(nhi) if nhi < 2**62 else None, nlo, nhi, assumes)


Term = tuple[str, Poly, Poly]
"""`("lt", a, b)`: a < b; `("le", a, b)`: a <= b; `("assume", sym, 0)`: the symbol is in [0, ASSUMED_MAX]."""


def _leaves(check: scf.IfOp) -> list[SSAValue] | None:
    """The `cmpi ult` comparisons whose conjunction is the check's condition, or None."""
    out: list[SSAValue] = []
    work = [check.cond]
    while work:
        c = work.pop()
        op = c.op if isinstance(c, OpResult) else None
        if isinstance(op, arith.AndIOp):
            work.extend((op.lhs, op.rhs))
        elif isinstance(op, arith.CmpiOp) and op.predicate.value.data == _ULT:
            out.append(c)
        else:
            return None
    return out


def derive(bounds: Bounds, check: scf.IfOp) -> list[Term] | None:
    """Conditions on entry values that imply `check`'s condition, or None when none were found."""
    leaves = _leaves(check)
    block = check.parent_block()
    if leaves is None or block is None:
        return None
    terms: list[Term] = []
    for leaf in leaves:
        cmp = leaf.op  # pyright: ignore[reportAttributeAccessIssue]
        x, n = bounds.of(cmp.lhs, block), bounds.of(cmp.rhs, block)
        n_itself = bounds.kf.is_entry_value(cmp.rhs) and n.lo == Poly.sym(bounds.symbol(bounds.kf.canon(cmp.rhs)))
        assumes = x.assumes | (frozenset() if n_itself else n.assumes)  # `n` compared as it is: no assumption
        if x.nlo < 0:
            if x.lo is None or bounds.eval(x.lo) is None:
                return None
            terms.append(("le", Poly.const(0), x.lo))
            assumes |= bounds.assumed(x.lo)
        if x.nhi >= n.nlo:  # not decided by the intervals
            if x.hi is None or n.lo is None:
                return None
            const = (n.lo - x.hi).constant()
            if const is not None and const <= 0:
                return None
            if const is None:
                if bounds.eval(x.hi) is None or bounds.eval(n.lo) is None:
                    return None
                terms.append(("lt", x.hi, n.lo))
                assumes |= bounds.assumed(x.hi) | (frozenset() if n_itself else bounds.assumed(n.lo))
        terms.extend(("assume", Poly.sym(s), Poly.const(0)) for s in sorted(assumes))
    return terms


class _Emitter:
    """Builds the entry values and the condition `P` at the end of the kernel's entry block."""

    def __init__(self, bounds: Bounds, block: Block, location):
        self.bounds = bounds
        self.block = block
        self.location = location
        self.values: dict[object, SSAValue] = {}
        self._consts: dict[int, SSAValue] = {}

    def add(self, op: Operation) -> SSAValue:
        op.location = self.location
        self.block.add_op(op)
        return op.results[0]

    def const(self, c: int, t: Attribute = i64) -> SSAValue:
        if (c, t) not in self._consts:  # pyright: ignore[reportOperatorIssue]
            self._consts[(c, t)] = self.add(arith.ConstantOp(IntegerAttr(c, t)))  # pyright: ignore[reportArgumentType]
        return self._consts[(c, t)]  # pyright: ignore[reportArgumentType]

    def entry_value(self, v: SSAValue) -> SSAValue:
        """A copy of `v`'s computation at the entry (memoized by structure)."""
        kf = self.bounds.kf
        v = kf.canon(v)
        key = kf._ev_key(v)  # pyright: ignore[reportPrivateUsage]
        if key in self.values:
            return self.values[key]
        if isinstance(v, BlockArgument):
            result = v
        else:
            op = v.op  # pyright: ignore[reportAttributeAccessIssue]
            operands = [self.entry_value(o) for o in op.operands]
            clone = op.clone()
            clone.operands = operands
            clone.location = self.location
            self.block.add_op(clone)
            result = clone.results[v.index]  # pyright: ignore[reportAttributeAccessIssue]
        self.values[key] = result
        return result

    def as_i64(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return self.add(arith.IndexCastOp(v, i64))
        w = _width(v.type)
        if w is not None and w < 64:
            return self.add(arith.ExtSIOp(v, i64))
        return v

    def poly(self, p: Poly) -> SSAValue:
        total: SSAValue | None = None
        for mono, coef in p.terms:
            value: SSAValue | None = None
            for s in mono:
                x = self.as_i64(self.entry_value(self.bounds.symbols[s]))
                value = x if value is None else self.add(arith.MuliOp(value, x))
            if value is None:
                value = self.const(coef)
            elif coef != 1:
                value = self.add(arith.MuliOp(self.const(coef), value))
            total = value if total is None else self.add(arith.AddiOp(total, value))
        return total if total is not None else self.const(0)

    def term(self, t: Term) -> SSAValue:
        kind, a, b = t
        if kind == "assume":
            return self.add(arith.CmpiOp(self.poly(a), self.const(ASSUMED_MAX), "ule"))
        return self.add(arith.CmpiOp(self.poly(a), self.poly(b), "slt" if kind == "lt" else "sle"))


def _uniform(bounds: Bounds, terms: list[Term]) -> bool:
    """Whether the terms are the same for every thread of the launch (no thread or block id in them)."""
    return not any(bounds.varies(p) for _, a, b in terms for p in (a, b))


def _subsume(bounds: Bounds, terms: list[Term]) -> list[Term]:
    """The terms without repeats and without `a' < b` where a kept `a < b` has `a >= a'` for every value
    of the symbols (the stencil's five reads of `u` need only `rows * cols - 1 < len(u)`). The symbol
    ranges used are the ones `P` itself assumes, so dropping a term never weakens `P`."""
    unique = list(dict.fromkeys(terms))
    kept: list[Term] = []
    for t in unique:
        kind, a, b = t
        if kind != "lt":
            kept.append(t)
            continue
        def at_least(x: Poly, y: Poly) -> bool:  # x >= y for every value of the symbols
            d = bounds.eval(x - y)
            return d is not None and d[0] >= 0

        rivals = [u for u in unique if u is not t and u[0] == "lt" and u[2] == b and at_least(u[1], a)]
        # dropped when a rival is at least as strong; of two equally strong ones the first stays
        if not any(not at_least(a, u[1]) or unique.index(u) < unique.index(t) for u in rivals):
            kept.append(t)
    return kept


def is_reported_check(op: Operation) -> bool:
    """Whether `op` is a check as `kernel-to-gpu` emits it: `scf.if %ok { access } else { report }`.
    The access may be anything (a load, a store, an atomic: the histogram's `atomic_add(hist, t, c)`):
    hoisting only replaces `%ok` by `true` in the fast copy and moves nothing, unlike `fuse-checks`,
    which gathers the loads of several checks (`fuse_checks.is_check`)."""
    if not isinstance(op, scf.IfOp) or len(op.false_region.blocks) != 1 or len(op.true_region.blocks) != 1:
        return False
    return any(isinstance(o, CallOp) and o.callee.root_reference.data == REPORTER for o in op.false_region.block.ops)


def hoist_function(func: gpu.FuncOp) -> int:
    """Version one kernel (see the module doc); returns how many checks were hoisted."""
    region = func.body
    if not region.blocks:
        return 0
    kf = KernelFacts(func)
    ranges = RangeAnalysis(block_bound(func), {}, {})
    for o in func.walk():
        ranges.visit(o)
    exact, assuming = Bounds(kf, ranges, assume=False), Bounds(kf, ranges, assume=True)
    hoisted: list[tuple[scf.IfOp, list[Term], Bounds]] = []
    for o in func.walk():
        if isinstance(o, scf.IfOp) and is_reported_check(o):
            found = [(terms, b) for b in (exact, assuming) if (terms := derive(b, o)) is not None]
            # the same for every thread beats per-thread (no divergence at the grid's edges); then fewer assumptions
            found.sort(key=lambda tb: not _uniform(tb[1], tb[0]))
            if found:
                hoisted.append((o, *found[0]))
    entry = kf.entry
    if not hoisted:
        return 0
    kf.forget()

    # the entry keeps the static allocas (shared by both copies); the rest moves to the checked body
    checked = Block()
    for o in list(entry.ops):
        if not (isinstance(o, memref.AllocaOp) and not o.operands):
            o.detach()
            checked.add_op(o)
    region.insert_block_after(checked, entry)
    for check, _, _ in hoisted:
        check.attributes[MARK] = StringAttr("")
    body = Region()
    for b in list(region.blocks)[1:]:
        region.detach_block(b)
        body.add_block(b)
    fast_body = Region()
    body.clone_into(fast_body)
    fast_entry = fast_body.blocks.first
    assert fast_entry is not None
    fast_blocks = set(fast_body.blocks)
    for b in [*fast_body.blocks, *body.blocks]:  # the fast body first: the layout LLVM and ptxas start from
        b.parent.detach_block(b)  # pyright: ignore[reportOptionalMemberAccess]
        region.add_block(b)

    emitters = {id(b): _Emitter(b, entry, func.location) for b in (exact, assuming)}
    keys: dict[object, SSAValue] = {}
    for bounds in (exact, assuming):
        for t in _subsume(bounds, [t for _, terms, b in hoisted if b is bounds for t in terms]):
            keys[(id(bounds), t)] = emitters[id(bounds)].term(t)
    conds = list(keys.values())
    p = conds[0] if conds else emitters[id(exact)].const(1, i1)
    for c in conds[1:]:
        p = emitters[id(exact)].add(arith.AndIOp(p, c))
    condition = launch_condition(p, entry) if all(_uniform(b, terms) for _, terms, b in hoisted) else None
    if condition is not None:
        # the same for every thread: the host can decide it at launch (warpforge.runtime.launch_condition)
        func.attributes[LAUNCH_CONDITION] = StringAttr(json.dumps(condition))
        if HOLDS_AT_LAUNCH in func.attributes:  # the specialization launched only when it holds
            p = emitters[id(exact)].const(1, i1)
    branch = cf.ConditionalBranchOp(p, fast_entry, [], checked, [])
    branch.attributes[BRANCH_WEIGHTS] = DenseArrayBase.from_list(i32, FAST_PATH_WEIGHTS)
    branch.location = func.location
    entry.add_op(branch)

    for o in list(region.walk()):
        if MARK not in o.attributes:
            continue
        del o.attributes[MARK]
        if _in_blocks(o, fast_blocks):
            true = arith.ConstantOp(IntegerAttr(1, i1))
            true.location = o.location
            Rewriter.insert_op(true, InsertPoint.before(o))
            o.operands = (true.result, *o.operands[1:])
    return len(hoisted)


LAUNCH_CONDITION = "hoist_checks.launch_condition"
"""The entry condition `P` as an expression over the kernel's arguments (JSON, see `launch_condition`),
recorded when `P` is the same for every thread."""

HOLDS_AT_LAUNCH = "kernel.checks_hold_at_launch"
"""On a kernel compiled for launches whose `P` the host has found true: the pass takes `P` as true, so
the kernel has no entry branch (and canonicalize drops the checked copy)."""

_CONDITION_OPS: dict[type[Operation], str] = {
    arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul", arith.AndIOp: "and", arith.OrIOp: "or",
}  # fmt: skip
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def launch_condition(p: SSAValue, entry: Block) -> list | None:  # pyright: ignore[reportMissingTypeArgument]
    """`p` as a JSON-able expression over the kernel's arguments, or None when it uses anything else:
    `["arg", i]` (scalar argument i), `["len", i]` (`memref.dim` 0 of argument i), `["const", c]`,
    `["grid", d]` / `["block", d]` (`gpu.grid_dim` / `gpu.block_dim` of axis d),
    `["add"|"sub"|"mul"|"and"|"or", x, y]` (i64 or i1, wrapping), `["cmp", predicate, x, y]`
    (`arith.cmpi`'s predicates), and casts are transparent."""

    def walk(v: SSAValue, depth: int) -> list | None:  # pyright: ignore[reportMissingTypeArgument]
        if depth > 64:
            return None
        if isinstance(v, BlockArgument):
            return ["arg", v.index] if v.block is entry and isinstance(v.type, IntegerType) else None
        op = v.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            value = op.value.value.data
            return ["const", int(bool(value)) if op.result.type == i1 else value]
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            return walk(op.input, depth + 1)
        if isinstance(op, memref.DimOp):
            index = op.index.owner
            src = op.source
            if isinstance(src, BlockArgument) and src.block is entry and isinstance(index, arith.ConstantOp):
                if isinstance(index.value, IntegerAttr) and index.value.value.data == 0:
                    return ["len", src.index]
            return None
        if isinstance(op, gpu.GridDimOp | gpu.BlockDimOp):
            return ["grid" if isinstance(op, gpu.GridDimOp) else "block", "xyz".index(op.dim)]
        if isinstance(op, arith.CmpiOp):
            x, y = walk(op.lhs, depth + 1), walk(op.rhs, depth + 1)
            return None if x is None or y is None else ["cmp", _PREDICATES[op.predicate.value.data], x, y]
        name = _CONDITION_OPS.get(type(op))
        if name is not None:
            x, y = walk(op.operands[0], depth + 1), walk(op.operands[1], depth + 1)
            return None if x is None or y is None else [name, x, y]
        return None

    return walk(p, 0)


def _in_blocks(op: Operation, blocks: set[Block]) -> bool:
    block = op.parent_block()
    while block is not None and block not in blocks:
        parent = block.parent.parent if block.parent is not None else None
        block = parent.parent_block() if isinstance(parent, Operation) else None
    return block is not None


@dataclass(frozen=True)
class HoistChecksPass(ModulePass):
    """Prove bounds checks once at the kernel's entry; run a copy without them when that holds.

    A kernel whose checks have entry-level sufficient conditions (affine indices under dominating
    guards and counting loops) becomes `cond_br P, ^fast, ^checked`: the fast body has those checks
    removed, the checked body is the original, so errors are reported exactly as before."""

    name = "hoist-checks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in list(op.walk()):
            if isinstance(func, gpu.FuncOp) and func.body.blocks:
                hoist_function(func)
