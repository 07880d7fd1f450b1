"""`vectorize-global-access`: the consecutive global reads of a `simt.static_range` loop → one vector
load; its consecutive writes to an output → one vector store at the loop's end.

A SIMT thread that reads `N` consecutive elements of a slice (`for q in simt.static_range(4):
... a[base + q] ...`) issues `N` scalar `ld.global.nc.f32`. When the launch guarantees the slice's
pointer alignment (the gpu.func argument's `llvm.align`, in bytes: MLIR's argument attribute, set by
`kernel-to-gpu` for the launch-time specialization, see below) and `base` is provably a multiple of
16 bytes' worth of elements, the `N` elements are naturally aligned 16-byte blocks, read by
`ld.global.nc.v4` (one for 16 bytes; a `vector<8xf32>` is two, LLVM splitting it; 8-byte blocks and
`.v2` where only those fit; PTX ISA 9.7.9.8 `ld`: a vector access must be aligned to its full size)::

    ^pre:  ...                                     ^pre:  %v = vector.load %a[%base] {alignment = 16}
           cf.br ^hdr(%c0)                                cf.br ^hdr(%c0)
    ^hdr(%iv): %t = cmpi slt %iv, %c4              ^hdr(%iv): (unchanged)
           cf.cond_br %t, ^body(%iv), ^exit
    ^body(%q):                                     ^body(%q):
           %x = memref.load %a[%base + %q]                %x = vector.extract %v[%q]
           ...                                            ...
           cf.br ^hdr(%q + 1) {llvm.loop_unroll_full}

LLVM then unrolls the loop fully (`llvm.loop_unroll_full`), and each extract has a constant position.

What makes the rewrite safe:

- the loop is a `simt.static_range` loop as `lower-kernel-control-flow` leaves it (a latch branch
  marked `llvm.loop_unroll_full`, counting 0, 1, …, N-1 with a constant N ≥ 1 and step 1), and the
  load sits in the loop's body block itself (not inside an `scf.if`), so every iteration performs it:
  the vector load reads exactly the elements the loop reads, just earlier;
- the slice is read-only (`llvm.readonly`: a `simt.Slice`, which nothing writes during the kernel), so
  reading before the loop sees the same values;
- `base` is loop-invariant (it dominates the preheader, or the body computes it by side-effect-free
  ops from such values: they are recomputed before the loop) and a multiple of W = 16 / size(T) (or
  8 / size(T); `Divisibility`: constants, products and left shifts by a multiple, sums of multiples,
  integer arguments marked `warpforge.divisibility`, loop variables all of whose incoming values are
  multiples), and `N` elements fill whole 16- (8-) byte blocks, at most 64 bytes (`access_alignment`):
  with the pointer `llvm.align`-aligned, each block is aligned to its size;
- bounds: in checked mode only the loads of a check's fast path are unguarded, and `hoist-checks` /
  `fuse-checks` guard that path by the check of the last element `base + N - 1` (the loop's range is
  proven at once); checked loads still inside an `scf.if` are left alone, so the slow path re-checks
  element by element and reports the first bad index exactly as before.

Stores (`vectorize_stores`). A loop whose one store to an output `c` (a `DisjointSlice` or `RawSlice`
argument: `llvm.noalias`, not `llvm.readonly`, `llvm.align`) writes `c[base + q]` for q = 0 … N-1
(a row or tile view: `for j in simt.static_range(8): mine[i, j] = acc[i, j]`) carries the values in a
`vector<NxT>` through the loop (`vector.insert` at `q`) and stores them after it::

    ^tail: scf.if <every guard holds> { vector.store %v, %c[%base] {alignment = 16} }
           else { scf.for %k = 0 to N { scf.if <the guard at q = k> { memref.store %v[k], %c[%base + k] } } }

The guard is `kernel-to-gpu`'s "out of range: not written" `scf.if` (or none). "Every guard holds" is
computed at the loop's end from the guard's conjuncts: those that do not depend on `q` as they are,
an order comparison of `base' + q` with a loop-invariant bound at its hardest end (with
`0 <= base' <= 2^62`, so nothing wraps), any other for each `q`; it implies each guard, so the vector
store writes exactly what the scalar stores wrote, and a thread at the edge writes the elements its
guards let through, with their values. What makes moving the stores to the loop's end safe:

- nothing else in the loop reads or writes `c` (one store op; `memref.dim` aside), `c` aliases no
  other argument (`llvm.noalias`: the runtime refuses overlapping outputs), and the loop holds no
  barrier, fence, atomic, print or call but the error reporter (`_defer_safe`): no other thread can
  tell when within the loop the elements were written;
- the store sits in the loop's body block, or in a guard `scf.if` there with an empty else; a check
  that reports (a `RawSlice` write) only when `hoist-checks` made its condition `true` (the fast copy),
  so a write that can fail is reported element by element in order, exactly as before;
- `base` is a sum of loop-invariant values (`x + (y + q)`: a tile view's `row * n + (8 * col + j)`),
  each a multiple of W as for loads (`access_alignment`: `vector<8xf32>` is two `st.global.v4`).

The launch-time specialization: `llvm.align` on a slice argument and `warpforge.divisibility` on an
integer one are promises the launch keeps. The pass removes both from every argument it did not use, so what remains is exactly what the code
relies on; the compiled kernel records it (`ParamSpec.align`), a `SimtKernel` launch with a pointer
that is not aligned so runs its scalar specialization instead (compiled without the promise), and a
direct launch of the compiled kernel refuses it (`LaunchError`) rather than fault.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, cf, memref, scf, vector
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
    i1,
    i64,
)
from xdsl.dialects.func import CallOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from warpforge.dialects import gpu
from warpforge.passes.fuse_checks import REPORTER

ALIGN_ATTR = "llvm.align"
"""MLIR's argument attribute: the pointer is aligned to this many bytes (LLVM's `align` parameter attribute)."""

UNROLL_ATTR = "llvm.loop_unroll_full"
"""The mark `lower-kernel-control-flow` puts on a `simt.static_range` loop's latch branch."""

VECTOR_BYTES = (8, 16)
"""The widths of `ld.global.v2/v4` (64- and 128-bit accesses) the pass forms."""


def _constant(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


DIVISIBILITY_ATTR = "warpforge.divisibility"
"""An integer argument's attribute: the launch passes a multiple of this (Triton's `tt.divisibility`)."""


@dataclass
class Divisibility:
    """Proves values multiples of a constant from their definitions: constants, products (one factor a
    multiple), left shifts, sums and differences of multiples, casts, `warpforge.divisibility`
    arguments of the kernel, and block arguments all of whose incoming values are multiples (a loop
    variable starting at a multiple and stepping by one: `range(0, k, 8)` is a multiple of 8)."""

    divisors: dict[BlockArgument, int]
    used: set[BlockArgument]

    def multiple_of(self, value: SSAValue, n: int, depth: int = 12, assumed: frozenset[SSAValue] = frozenset()) -> bool:
        c = _constant(value)
        if c is not None:
            return c % n == 0
        if value in assumed:
            return True
        if depth == 0:
            return False
        if isinstance(value, BlockArgument):
            d = self.divisors.get(value)
            if d is not None:
                if d % n == 0:
                    self.used.add(value)
                    return True
                return False
            incoming = _incoming(value)
            return bool(incoming) and all(self.multiple_of(v, n, depth - 1, assumed | {value}) for v in incoming)
        op = value.owner
        if isinstance(op, arith.MuliOp):
            return self.multiple_of(op.lhs, n, depth - 1, assumed) or self.multiple_of(op.rhs, n, depth - 1, assumed)
        if isinstance(op, arith.ShLIOp):
            k = _constant(op.rhs)
            return (k is not None and 0 <= k < 63 and (1 << k) % n == 0) or self.multiple_of(op.lhs, n, depth - 1, assumed)
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            return self.multiple_of(op.lhs, n, depth - 1, assumed) and self.multiple_of(op.rhs, n, depth - 1, assumed)
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
            return self.multiple_of(op.input, n, depth - 1, assumed)
        return False


def _incoming(arg: BlockArgument) -> list[SSAValue]:
    """The values every branch to `arg`'s block passes for it ([] when a predecessor is not a cf branch)."""
    block = arg.block
    region = block.parent
    if region is None or block is region.blocks.first:
        return []
    out: list[SSAValue] = []
    for pred in _predecessors(block):
        br = pred.last_op
        if isinstance(br, cf.BranchOp):
            out.append(br.arguments[arg.index])
        elif isinstance(br, cf.ConditionalBranchOp):
            if br.then_block is block:
                out.append(br.then_arguments[arg.index])
            if br.else_block is block:
                out.append(br.else_arguments[arg.index])
        else:
            return []
    return out


@dataclass
class StaticLoop:
    """A `simt.static_range` loop in `cf` form: `preheader` → `header(iv)` → `body(q)` → `header`."""

    preheader: Block
    header: Block
    body: Block
    trip_count: int
    dominators: dict[Block, set[Block]]
    invariant: dict[SSAValue, bool] = field(default_factory=dict[SSAValue, bool])
    """`_loop_invariant`'s answers (the body's values are asked again and again)."""

    @property
    def q(self) -> BlockArgument:
        return self.body.args[0]


def _predecessors(block: Block) -> list[Block]:
    region = block.parent
    assert region is not None
    return [b for b in region.blocks if b.last_op is not None and block in b.last_op.successors]


def static_loops(region_blocks: list[Block]) -> list[StaticLoop]:
    """The single-block `simt.static_range` loops among `region_blocks`."""
    loops: list[StaticLoop] = []
    dom: dict[Block, set[Block]] | None = None
    for body in region_blocks:
        latch = body.last_op
        if not isinstance(latch, cf.BranchOp) or UNROLL_ATTR not in latch.attributes:
            continue
        header = latch.successor
        ops = list(header.ops)
        if len(header.args) != 1 or len(ops) != 2 or len(body.args) != 1:
            continue
        cmp, br = ops
        if not (isinstance(cmp, arith.CmpiOp) and cmp.predicate.value.data == 2 and cmp.lhs is header.args[0]):  # slt
            continue
        if not (isinstance(br, cf.ConditionalBranchOp) and br.cond is cmp.result and br.then_block is body):
            continue
        if list(br.then_arguments) != [header.args[0]] or br.else_block is body:
            continue
        n = _constant(cmp.rhs)
        step = latch.arguments[0].owner if len(latch.arguments) == 1 else None
        if n is None or n < 1 or not isinstance(step, arith.AddiOp):
            continue
        if not ((step.lhs is body.args[0] and _constant(step.rhs) == 1) or (step.rhs is body.args[0] and _constant(step.lhs) == 1)):
            continue
        entries = [p for p in _predecessors(header) if p is not body]
        if len(entries) != 1 or not isinstance(entries[0].last_op, cf.BranchOp):
            continue
        entry_br = entries[0].last_op
        if len(entry_br.arguments) != 1 or _constant(entry_br.arguments[0]) != 0:
            continue
        if dom is None:
            assert body.parent is not None
            dom = dominators(body.parent)
        loops.append(StaticLoop(entries[0], header, body, n, dom))
    return loops


def _is_loop_position(value: SSAValue, loop: StaticLoop) -> bool:
    """`q` itself, or `q` clamped to [0, N-1] (`minsi(maxsi(q, 0), N-1)`, as the frontend indexes
    local arrays): both equal `q` inside the loop."""
    if value is loop.q:
        return True
    op = value.owner
    if isinstance(op, arith.MinSIOp):
        inner, hi = (op.lhs, op.rhs) if _constant(op.rhs) is not None else (op.rhs, op.lhs)
        mx = inner.owner
        if _constant(hi) == loop.trip_count - 1 and isinstance(mx, arith.MaxSIOp):
            q, lo = (mx.lhs, mx.rhs) if _constant(mx.rhs) is not None else (mx.rhs, mx.lhs)
            return q is loop.q and _constant(lo) == 0
    return False


def dominators(region: Region) -> dict[Block, set[Block]]:
    """Each block's dominators in `region`'s CFG (the iterative data-flow solution; regions are small)."""
    blocks = list(region.blocks)
    if not blocks:
        return {}
    preds: dict[Block, list[Block]] = {b: [] for b in blocks}
    for b in blocks:  # one pass over the branches (asking each block for its predecessors is quadratic)
        if b.last_op is not None:
            for succ in b.last_op.successors:
                if succ in preds and b not in preds[succ]:
                    preds[succ].append(b)
    every = set(blocks)
    dom: dict[Block, set[Block]] = {b: set(every) for b in blocks}
    dom[blocks[0]] = {blocks[0]}
    changed = True
    while changed:
        changed = False
        for b in blocks[1:]:
            ps = [dom[p] for p in preds[b] if p in dom]
            new = set.intersection(*ps) | {b} if ps else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def _dominates_preheader(value: SSAValue, loop: StaticLoop) -> bool:
    """Whether `value` is available at the end of the preheader: defined in a block of its region that
    dominates it, or in a block enclosing the region (values of enclosing blocks dominate nested ones)."""
    if isinstance(value, BlockArgument):
        where = value.block
    else:
        assert isinstance(value, OpResult)
        where = value.op.parent_block()
    if where is None or where in (loop.header, loop.body):
        return False
    if where in loop.dominators.get(loop.preheader, ()):
        return True
    region = loop.preheader.parent
    while region is not None:
        parent = region.parent_op()
        block = parent.parent_block() if parent is not None else None
        if block is None:
            return False
        if where is block or where is (block.parent.blocks.first if block.parent is not None else None):
            return True
        region = block.parent
    return False


def _loop_invariant(value: SSAValue, loop: StaticLoop, depth: int = 16) -> bool:
    """Whether `value` is available before the loop, or computed in the body by side-effect-free ops
    (no regions) from values that are: `_hoist` then recomputes it in the preheader."""
    known = loop.invariant.get(value)
    if known is not None:
        return known
    if _dominates_preheader(value, loop):
        loop.invariant[value] = True
        return True
    op = value.owner
    answer = (
        depth > 0
        and isinstance(op, Operation)
        and op.parent_block() is loop.body
        and not op.regions
        and is_side_effect_free(op)
        and all(_loop_invariant(v, loop, depth - 1) for v in op.operands)
    )
    loop.invariant[value] = answer  # a False from the depth limit only leaves a value scalar
    return answer


def _hoist(value: SSAValue, loop: StaticLoop, done: dict[SSAValue, SSAValue]) -> SSAValue:
    """`value` (`_loop_invariant`) as computed in the preheader (cloning body ops there, once)."""
    if _dominates_preheader(value, loop):
        return value
    if value in done:
        return done[value]
    op = value.owner
    assert isinstance(op, Operation) and isinstance(value, OpResult)
    operands = [_hoist(v, loop, done) for v in op.operands]
    clone = op.clone()
    for i, v in enumerate(operands):
        clone.operands[i] = v
    Rewriter.insert_op(clone, InsertPoint.before(loop.preheader.last_op))  # pyright: ignore[reportArgumentType]
    for old, new in zip(op.results, clone.results):
        done[old] = new
    return done[value]


def _split_index(value: SSAValue, loop: StaticLoop) -> tuple[SSAValue, SSAValue] | None:
    """(base, position) when `value` (a load's index) is `index_cast(base + position)`, `base`
    loop-invariant."""
    cast = value.owner
    if not isinstance(cast, arith.IndexCastOp):
        return None
    add = cast.input.owner
    if not isinstance(add, arith.AddiOp):
        return None
    for base, pos in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        if _is_loop_position(pos, loop) and _loop_invariant(base, loop):
            return base, pos
    return None


def _element_bytes(t: MemRefType) -> int | None:
    el = t.element_type
    width = getattr(el, "bitwidth", None) if not isinstance(el, IndexType) else None
    if not isinstance(width, int) or width % 8 or (isinstance(el, IntegerType) and width == 1):
        return None
    return width // 8


def _arg_facts(fn: gpu.FuncOp, key: str, keep: Callable[[BlockArgument, DictionaryAttr], bool] | None = None) -> dict[BlockArgument, int]:
    """The kernel's arguments carrying the integer attribute `key` (llvm.align or warpforge.divisibility),
    with its value; `keep` filters them by the argument and its attributes (default for `llvm.align`:
    the 1-D read-only inputs the loads rely on)."""
    if keep is None and key == ALIGN_ATTR:
        keep = lambda arg, attrs: _is_1d(arg) and "llvm.readonly" in attrs.data  # noqa: E731
    entry = fn.body.blocks.first
    if entry is None or fn.arg_attrs is None:
        return {}
    out: dict[BlockArgument, int] = {}
    for arg, attrs in zip(entry.args, fn.arg_attrs.data):
        fact = attrs.data.get(key)
        if isinstance(fact, IntegerAttr) and (keep is None or keep(arg, attrs)):
            out[arg] = fact.value.data
    return out


def _is_1d(arg: BlockArgument) -> bool:
    return isinstance(arg.type, MemRefType) and arg.type.get_num_dims() == 1


def vectorize_function(fn: gpu.FuncOp) -> set[BlockArgument]:
    """Vectorize `fn`'s static-range loop reads; the arguments whose alignment the new loads rely on."""
    aligned = _arg_facts(fn, ALIGN_ATTR)
    used: set[BlockArgument] = set()
    divisors = _arg_facts(fn, DIVISIBILITY_ATTR)
    regions = [r for op in fn.walk() for r in op.regions]
    written = _written_args(fn)
    if not aligned and not written:
        return used
    for region in regions:
        loops = static_loops(list(region.blocks))
        for loop in loops if aligned else ():
            groups: dict[tuple[SSAValue, SSAValue], list[tuple[memref.LoadOp, SSAValue]]] = {}
            for op in loop.body.ops:
                if not isinstance(op, memref.LoadOp) or op.memref not in aligned or len(op.indices) != 1:
                    continue
                split = _split_index(op.indices[0], loop)
                if split is not None:
                    groups.setdefault((op.memref, split[0]), []).append((op, split[1]))
            for (mem, base), loads in groups.items():
                assert isinstance(mem, BlockArgument) and isinstance(mem.type, MemRefType)
                proof = Divisibility(divisors, set())
                width = access_alignment(mem.type, loop.trip_count, aligned[mem], lambda w: proof.multiple_of(base, w))
                if width is None:
                    continue
                _rewrite(loop, mem, base, loads, width)
                used |= {mem, *proof.used}
        if written:
            used |= vectorize_stores(loops, written, divisors)
    return used


MAX_VECTOR_BYTES = 64
"""The most bytes one group of a loop's consecutive accesses becomes (a `vector<8xf32>` is two 16-byte
accesses, LLVM splitting it; every element is live from the load / until the store)."""


def access_alignment(t: MemRefType, n: int, align: int, base_multiple_of: Callable[[int], bool]) -> int | None:
    """The alignment in bytes (16 or 8, the widest that fits) of one access to `n` consecutive elements
    of `t` at a base `base_multiple_of(w)` proves a multiple of `w` elements, the pointer `align`-byte
    aligned: `n` elements fill whole accesses of that width, at most MAX_VECTOR_BYTES; None if none."""
    size = _element_bytes(t)
    if size is None or n < 2:
        return None
    nbytes = size * n
    for a in sorted(VECTOR_BYTES, reverse=True):
        if size <= a <= align and nbytes % a == 0 and nbytes <= MAX_VECTOR_BYTES and base_multiple_of(a // size):
            return a
    return None


def _rewrite(loop: StaticLoop, mem: BlockArgument, base: SSAValue, loads: list[tuple[memref.LoadOp, SSAValue]], width: int) -> None:
    assert isinstance(mem.type, MemRefType)
    element = mem.type.element_type
    vt = VectorType(element, [loop.trip_count])
    base = _hoist(base, loop, {})
    at = InsertPoint.before(loop.preheader.last_op)  # pyright: ignore[reportArgumentType]
    start = arith.IndexCastOp(base, IndexType())
    load = vector.LoadOp(mem, [start.result], vt)
    load.attributes["alignment"] = IntegerAttr(width, i64)
    first = loads[0][0]
    start.location = load.location = first.location
    Rewriter.insert_op([start, load], at)
    for op, pos in loads:
        if isinstance(pos.type, IndexType):
            index_ops: list[Operation] = []
            position = pos
        else:
            cast = arith.IndexCastOp(pos, IndexType())
            index_ops, position = [cast], cast.result
        extract = vector.ExtractOp(load.result, [position], element)
        for o in (*index_ops, extract):
            o.location = op.location
        Rewriter.replace_op(op, [*index_ops, extract], [extract.result])


# --------------------------------------------------------------------------- stores

def _written_args(fn: gpu.FuncOp) -> dict[BlockArgument, int]:
    """The kernel's 1-D outputs the launch promises aligned: `llvm.align` and `llvm.noalias` (the runtime
    refuses an output overlapping any other argument), not `llvm.readonly` (`DisjointSlice`, `RawSlice`)."""
    return _arg_facts(
        fn, ALIGN_ATTR, lambda arg, attrs: _is_1d(arg) and "llvm.noalias" in attrs.data and "llvm.readonly" not in attrs.data
    )


def _defer_safe(op: Operation) -> bool:
    """Whether `op` lets the loop's stores to an output move to the loop's end: it orders and observes no
    memory another thread could see (no barrier, fence, atomic, print or unknown call). Loads and
    stores of other memrefs are fine: the output aliases no other argument, and without a fence the
    order in which one thread's stores to different addresses become visible is not defined anyway
    (PTX ISA 8.6, the memory consistency model). The error reporter only writes the error record."""
    if isinstance(op, memref.LoadOp | memref.StoreOp | memref.DimOp | vector.LoadOp | vector.StoreOp | cf.BranchOp | scf.YieldOp):
        return True
    if isinstance(op, CallOp):
        return op.callee.root_reference.data == REPORTER
    if isinstance(op, scf.IfOp):
        return all(_defer_safe(o) for r in op.regions for b in r.blocks for o in b.ops)
    return not op.regions and is_side_effect_free(op)


def _split_affine(value: SSAValue, loop: StaticLoop, depth: int = 8) -> tuple[list[SSAValue], SSAValue] | None:
    """(parts, position) with `value == sum(parts) + position` (wrapping i64 addition is associative),
    every part loop-invariant: `a + q`, `x + (y + q)` (a tile view's `row * n + (8 * col + j)`)."""
    if _is_loop_position(value, loop):
        return [], value
    op = value.owner
    if depth and isinstance(op, arith.AddiOp):
        for inv, rest in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if _loop_invariant(inv, loop):
                sub = _split_affine(rest, loop, depth - 1)
                if sub is not None:
                    return [inv, *sub[0]], sub[1]
    return None


def _is_true(value: SSAValue) -> bool:
    op = value.owner
    return isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr) and op.result.type == i1 and op.value.value.data != 0


@dataclass
class StoreGroup:
    """The one store of a loop to output `mem`, at `sum(parts) + q`, `N` elements `align`-byte aligned.
    `guard`: the `scf.if` directly in the body around it (`kernel-to-gpu`'s "out of range: not
    written", or a check `hoist-checks` made `true`), `cond` its condition (None: always stored)."""

    mem: BlockArgument
    store: memref.StoreOp
    guard: scf.IfOp | None
    cond: SSAValue | None
    parts: list[SSAValue]
    pos: SSAValue
    align: int


def _store_group(loop: StaticLoop, mem: BlockArgument, align: int, users: list[Operation], proof: Divisibility) -> StoreGroup | None:
    stores = [u for u in users if isinstance(u, memref.StoreOp) and u.memref is mem]
    if len(stores) != 1 or any(not isinstance(u, memref.DimOp) for u in users if u is not stores[0]):
        return None  # one store op, N iterations: a second store (or a read) of mem would see the order change
    (st,) = stores
    if len(st.indices) != 1 or st.value is mem:
        return None
    guard: scf.IfOp | None = None
    cond: SSAValue | None = None
    if st.parent_block() is not loop.body:
        guard = st.parent_op()  # pyright: ignore[reportAssignmentType]
        if not isinstance(guard, scf.IfOp) or guard.parent_block() is not loop.body or guard.results:
            return None  # under a condition of the program's own (its own block), or deeper
        then_ops = list(guard.true_region.block.ops)
        if any(o is not st and not isinstance(o, scf.YieldOp) and (o.regions or not is_side_effect_free(o)) for o in then_ops):
            return None
        else_ops = list(guard.false_region.blocks.first.ops) if guard.false_region.blocks else []
        if all(isinstance(o, scf.YieldOp) for o in else_ops):
            cond = guard.cond  # out of range: not written
            if not _clonable(cond, loop):
                return None  # the end of the loop could not compute it again
        elif not _is_true(guard.cond):
            return None  # a check that can fail: its report stays in order, element by element
        value_op = st.value.owner
        if isinstance(value_op, Operation) and guard.is_ancestor(value_op):
            return None
    cast = st.indices[0].owner
    if not isinstance(cast, arith.IndexCastOp):
        return None
    split = _split_affine(cast.input, loop)
    assert isinstance(mem.type, MemRefType)
    if split is None:
        return None
    parts, pos = split
    width = access_alignment(mem.type, loop.trip_count, align, lambda w: all(proof.multiple_of(p, w) for p in parts))
    return None if width is None else StoreGroup(mem, st, guard, cond, parts, pos, width)


def vectorize_stores(loops: list[StaticLoop], written: dict[BlockArgument, int], divisors: dict[BlockArgument, int]) -> set[BlockArgument]:
    """Turn each static-range loop's consecutive stores to an aligned output into one vector store at
    the loop's end (`_rewrite_stores`); the arguments the new stores rely on. A rewrite adds a block
    between a loop's header and its exit, which leaves every other block's dominators as they were
    (the loops' `dominators` only miss the new block, which defines nothing the others use)."""
    used: set[BlockArgument] = set()
    for loop in loops:
        if not all(_defer_safe(o) for o in loop.body.ops):
            continue
        users: dict[BlockArgument, list[Operation]] = {}
        for top in loop.body.ops:
            for o in top.walk():
                for v in o.operands:
                    if v in written:
                        users.setdefault(v, []).append(o)  # pyright: ignore[reportArgumentType]
        groups: list[StoreGroup] = []
        for mem, ops in users.items():
            proof = Divisibility(divisors, set())
            group = _store_group(loop, mem, written[mem], ops, proof)
            if group is not None:
                groups.append(group)
                used |= {mem, *proof.used}
        if groups:
            _rewrite_stores(loop, groups)
    return used


def _zero(t: Attribute) -> arith.ConstantOp:
    if isinstance(t, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, t))
    return arith.ConstantOp(FloatAttr(0.0, t))  # pyright: ignore[reportArgumentType]


class _TailBuilder:
    """Builds values at the loop's end (a block after the header, or a region inside it): loop-invariant
    values hoisted before the loop (`_hoist`), the guard's computation cloned with `q` a constant."""

    def __init__(self, loop: StaticLoop, location):
        self.loop = loop
        self.location = location
        self.hoisted: dict[SSAValue, SSAValue] = {}

    def add(self, block: Block, op: Operation) -> SSAValue:
        op.location = self.location
        block.add_op(op)
        return op.results[0]

    def invariant(self, value: SSAValue) -> SSAValue:
        return _hoist(value, self.loop, self.hoisted)

    def at(self, value: SSAValue, k: int | SSAValue, block: Block, memo: dict[SSAValue, SSAValue]) -> SSAValue:
        """`value` as the iteration `q = k` computes it (`_clonable` values only), in `block`; `k` a
        constant or a value (another loop's variable)."""
        if value is self.loop.q:
            if value not in memo:
                memo[value] = k if isinstance(k, SSAValue) else self.add(block, arith.ConstantOp(IntegerAttr(k, value.type)))  # pyright: ignore[reportArgumentType]
            return memo[value]
        if _loop_invariant(value, self.loop):
            return self.invariant(value)
        if value in memo:
            return memo[value]
        op = value.owner
        assert isinstance(op, Operation) and isinstance(value, OpResult)
        clone = op.clone()
        for i, v in enumerate(op.operands):
            clone.operands[i] = self.at(v, k, block, memo)
        self.add(block, clone)
        for old, new in zip(op.results, clone.results):
            memo[old] = new
        return memo[value]


def _clonable(value: SSAValue, loop: StaticLoop, depth: int = 24) -> bool:
    """Whether `value` is a side-effect-free function of `q` and loop-invariant values (a guard the
    loop's end can compute again for each `q`)."""
    if value is loop.q or _loop_invariant(value, loop):
        return True
    op = value.owner
    return (
        depth > 0
        and isinstance(op, Operation)
        and op.parent_block() is loop.body
        and not op.regions
        and is_side_effect_free(op)
        and all(_clonable(v, loop, depth - 1) for v in op.operands)
    )


_UPPER = {"slt": True, "sle": True, "ult": True, "ule": True, "sgt": False, "sge": False, "ugt": False, "uge": False}
"""`x P y` with `x` growing: whether it is hardest at the last `q` (an upper bound) or at the first."""
_PREDICATE_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
SMALL_BASE = 2**62
"""A base in `[0, SMALL_BASE]` plus `q < N` wraps neither signed nor unsigned: comparisons are monotone in `q`."""


def _all_guards(tb: _TailBuilder, cond: SSAValue, block: Block) -> SSAValue:
    """A condition, computed in `block`, that implies the guard `cond` for every `q` of the loop: each
    conjunct that does not depend on `q` as it is; `base + q P y` (or `y P base + q`, P an order) at
    the `q` where it is hardest, with `0 <= base <= 2^62` so that nothing wraps; any other conjunct
    for every `q`. A condition weaker than "every guard holds" would be wrong; a stronger one only
    sends more threads to the element-by-element stores."""
    loop = tb.loop
    n = loop.trip_count
    terms: list[SSAValue] = []
    small: dict[tuple[SSAValue, ...], SSAValue] = {}
    work = [cond]
    while work:
        c = work.pop()
        op = c.owner
        if isinstance(op, arith.AndIOp) and op.parent_block() is loop.body:
            work += [op.lhs, op.rhs]
            continue
        if _loop_invariant(c, loop):
            terms.append(tb.invariant(c))
            continue
        if isinstance(op, arith.CmpiOp):
            name = _PREDICATE_NAMES[op.predicate.value.data]
            for side in (0, 1):
                x, y = (op.lhs, op.rhs) if side == 0 else (op.rhs, op.lhs)
                split = _split_affine(x, loop) if name in _UPPER and _loop_invariant(y, loop) else None
                if split is None:
                    continue
                parts = split[0]
                base = tb.invariant(parts[0]) if parts else tb.add(block, arith.ConstantOp(IntegerAttr(0, i64)))
                for p in parts[1:]:
                    base = tb.add(block, arith.AddiOp(base, tb.invariant(p)))
                key = tuple(parts)
                if key not in small:
                    lo = tb.add(block, arith.CmpiOp(tb.add(block, arith.ConstantOp(IntegerAttr(0, i64))), base, "sle"))
                    hi = tb.add(block, arith.CmpiOp(base, tb.add(block, arith.ConstantOp(IntegerAttr(SMALL_BASE, i64))), "sle"))
                    small[key] = tb.add(block, arith.AndIOp(lo, hi))
                    terms.append(small[key])
                last = _UPPER[name] == (side == 0)  # x grows: an upper bound on it is hardest at the last q
                end = base if not last else tb.add(block, arith.AddiOp(base, tb.add(block, arith.ConstantOp(IntegerAttr(n - 1, i64)))))
                lhs, rhs = (end, tb.invariant(y)) if side == 0 else (tb.invariant(y), end)
                terms.append(tb.add(block, arith.CmpiOp(lhs, rhs, name)))
                break
            else:
                terms += [tb.at(c, k, block, {}) for k in range(n)]
            continue
        terms += [tb.at(c, k, block, {}) for k in range(n)]
    out = terms[0]
    for t in terms[1:]:
        out = tb.add(block, arith.AndIOp(out, t))
    return out


def _rewrite_stores(loop: StaticLoop, groups: list[StoreGroup]) -> None:
    """Carry each group's elements through the loop in a vector and store it at the loop's end::

        ^pre:  %v0 = vector.broadcast 0; cf.br ^hdr(%c0, %v0)
        ^hdr(%iv, %v):  cond_br %more, ^body(%iv), ^tail
        ^body(%q): ...  %v' = vector.insert %x, %v[%q];  cf.br ^hdr(%q + 1, %v')
        ^tail: scf.if <every guard holds> { vector.store %v, %c[%base] }
               else { scf.for %k = 0 to N { scf.if <the guard at q = k> { memref.store %v[k], %c[%base + k] } } }
               cf.br ^exit

    so every element is written with the value and under the guard the scalar store had; when every
    guard holds (the usual case) one aligned vector store writes them. The guards are computed again
    at the end (`_all_guards`, and per element in the rare path), so the loop carries no predicates."""
    header, body = loop.header, loop.body
    region = header.parent
    assert region is not None
    pre_br, latch, hdr_br = loop.preheader.last_op, body.last_op, header.last_op
    assert isinstance(pre_br, cf.BranchOp) and isinstance(latch, cf.BranchOp) and isinstance(hdr_br, cf.ConditionalBranchOp)
    n = loop.trip_count
    at_pre = InsertPoint.before(pre_br)
    inits: list[SSAValue] = []
    latch_values: list[SSAValue] = []
    tail = Block()
    for g in groups:
        assert isinstance(g.mem.type, MemRefType)
        element = g.mem.type.element_type
        loc = g.store.location
        tb = _TailBuilder(loop, loc)
        vt = VectorType(element, [n])
        zero = _zero(element)
        init = vector.BroadcastOp(zero, vt)
        for o in (zero, init):
            o.location = loc
        Rewriter.insert_op([zero, init], at_pre)
        v_arg = header.insert_arg(vt, len(header.args))
        inits.append(init.vector)
        # the body: insert instead of storing
        anchor = g.guard if g.guard is not None else g.store
        body_ops: list[Operation] = []
        position = g.pos
        if not isinstance(position.type, IndexType):
            cast = arith.IndexCastOp(position, IndexType())
            body_ops.append(cast)
            position = cast.result
        ins = vector.InsertOp(g.store.value, v_arg, [position])
        body_ops.append(ins)
        latch_values.append(ins.result)
        for o in body_ops:
            o.location = loc
        Rewriter.insert_op(body_ops, InsertPoint.before(anchor))
        # the tail: one vector store (or, when a guard fails, the elements it lets through)
        base = tb.invariant(g.parts[0]) if g.parts else tb.add(tail, arith.ConstantOp(IntegerAttr(0, i64)))
        for p in g.parts[1:]:
            base = tb.add(tail, arith.AddiOp(base, tb.invariant(p)))
        start = tb.add(tail, arith.IndexCastOp(base, IndexType()))
        vstore = vector.StoreOp(v_arg, g.mem, [start])
        vstore.attributes["alignment"] = IntegerAttr(g.align, i64)
        vstore.location = loc
        if g.cond is None:
            tail.add_op(vstore)
        else:
            every = _all_guards(tb, g.cond, tail)
            # the rare path, one element a step: scf.for %k { scf.if <guard at q = k> { c[base + k] = v[k] } }
            rare, step = Block(), Block(arg_types=[i64])
            k = step.args[0]
            ok = tb.at(g.cond, k, step, {})
            one = Block()
            x = tb.add(one, vector.ExtractOp(v_arg, [tb.add(one, arith.IndexCastOp(k, IndexType()))], element))
            at = tb.add(one, arith.AddiOp(base, k))
            st = memref.StoreOp.get(x, g.mem, [tb.add(one, arith.IndexCastOp(at, IndexType()))])
            st.location = loc
            one.add_op(st)
            one.add_op(scf.YieldOp())
            inner = scf.IfOp(ok, [], Region(one))
            inner.location = loc
            step.add_op(inner)
            step.add_op(scf.YieldOp())
            bounds = [tb.add(rare, arith.ConstantOp(IntegerAttr(b, i64))) for b in (0, n, 1)]
            each = scf.ForOp(*bounds, [], Region(step))
            each.location = loc
            rare.add_op(each)
            rare.add_op(scf.YieldOp())
            fast = Block([vstore, scf.YieldOp()])
            outer = scf.IfOp(every, [], Region(fast), Region(rare))
            outer.location = loc
            tail.add_op(outer)
        if g.guard is not None:
            g.guard.detach()
            g.guard.erase()
        else:
            g.store.detach()
            g.store.erase()
    # the branches: carry the vectors around the loop, leave through the tail
    new_pre_br = cf.BranchOp(header, *pre_br.arguments, *inits)
    new_latch = cf.BranchOp(header, *latch.arguments, *latch_values)
    new_hdr_br = cf.ConditionalBranchOp(hdr_br.cond, hdr_br.then_block, hdr_br.then_arguments, tail, [])
    exit_br = cf.BranchOp(hdr_br.else_block, *hdr_br.else_arguments)
    for old, new in ((pre_br, new_pre_br), (latch, new_latch), (hdr_br, new_hdr_br)):
        new.attributes.update(old.attributes)
        new.location = old.location
        Rewriter.replace_op(old, new)
    exit_br.location = hdr_br.location
    tail.add_op(exit_br)
    region.insert_block_after(tail, body)

def _drop_unused_facts(fn: gpu.FuncOp, used: set[BlockArgument]) -> None:
    entry = fn.body.blocks.first
    if entry is None or fn.arg_attrs is None:
        return
    new = []
    changed = False
    for arg, attrs in zip(entry.args, fn.arg_attrs.data):
        if arg not in used and (ALIGN_ATTR in attrs.data or DIVISIBILITY_ATTR in attrs.data):
            attrs = DictionaryAttr({k: v for k, v in attrs.data.items() if k not in (ALIGN_ATTR, DIVISIBILITY_ATTR)})
            changed = True
        new.append(attrs)
    if changed:
        from xdsl.dialects.builtin import ArrayAttr

        fn.arg_attrs = ArrayAttr(new)


@dataclass(frozen=True)
class VectorizeGlobalAccessPass(ModulePass):
    """Read (write) the consecutive elements of a simt.static_range loop with one 64/128-bit vector load (store) where the argument's llvm.align allows."""

    name = "vectorize-global-access"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [o for o in op.walk() if isinstance(o, gpu.FuncOp)]:
            _drop_unused_facts(fn, vectorize_function(fn))
