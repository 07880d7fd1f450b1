"""`tile-to-gpu` lowerings of `tile.cumsum` (an inclusive scan) and `tile.argmax`/`tile.argmin`.

**`tile.cumsum`** along the last axis runs in the registers of the canonical layout (a row of C
elements is C / vec chunks of vec contiguous elements, chunk `r * owners + o` held by owner o):

1. *in-thread*: each thread's chunk, a sequential prefix over its `vec` registers;
2. *warp shuffles*: the chunk totals of the owners of one row that share a warp, a Hillis–Steele
   scan with `gpu.shuffle up` (offsets 1, 2, 4 … owners, times the replica count), then one more
   `shuffle up` for the exclusive prefix;
3. *cross-warp*: when a row spans several warps or several register reps, each warp group's total
   goes to shared memory (`barrier; write; barrier`) and every thread adds the totals of the groups
   (and reps) before its own.

Another axis is moved last through shared memory (a permutation), scanned, and moved back.

**`tile.argmax`/`tile.argmin`** go through shared memory: the tile is written once, and each output
element walks its row in increasing index order keeping (best value, first index): a later element
replaces the best only when strictly greater (smaller) — so ties keep the first index — or when it
is a NaN and the best is not (NumPy returns the first NaN's index).
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from warpforge.dialects import gpu, tile
from warpforge.dialects.tile_scan import ArgMaxOp, ArgMinOp, ArgReduceOp, CumSumOp
from warpforge.passes.kernel_to_gpu import Emitter, signless, to_bits
from warpforge.passes.tile_to_gpu.layouts import Layout, canonical_layout
from warpforge.passes.tile_to_gpu.lowering import SCRATCH_PLANNERS, Dist, _TileFunctionLowering, _log2, lowers
from warpforge.passes.tile_to_gpu.shape import _ravel, _unravel


# --------------------------------------------------------------------------- plans


def _scan_geometry(layout: Layout) -> tuple[int, int, int, int, int]:
    """(seg, gsz, gps, rpr, ng) of a scan along the last axis: owners per row segment within one rep,
    owners per in-warp group, groups per segment, reps per row, groups per rep."""
    c = layout.shape[-1]
    cpr = c // layout.vec  # chunks per row (vec divides the last extent)
    seg = min(cpr, layout.owners)
    rpr = max(1, cpr // layout.owners)
    opw = max(1, 32 // layout.replicas) if layout.replicas <= 32 else 1
    gsz = min(seg, opw)
    return seg, gsz, seg // gsz, rpr, layout.owners // gsz


def _scan_scratch(shape: tuple[int, ...], axis: int, threads: int) -> int:
    n = prod(shape)
    moved = n if axis != len(shape) - 1 else 0
    last_shape = tuple(d for i, d in enumerate(shape) if i != axis) + (shape[axis],)
    layout = canonical_layout(last_shape, threads)
    _, _, gps, rpr, ng = _scan_geometry(layout)
    shared = layout.reps * ng if (gps > 1 or rpr > 1) else 0
    return max(moved, shared)


def _plan_cumsum(fl: _TileFunctionLowering, op: Operation) -> list[tuple[Attribute, int]]:
    t = op.operands[0].type
    assert isinstance(t, tile.TileType)
    if t.dims[op.axis.data] == 1:  # pyright: ignore[reportAttributeAccessIssue]
        return []
    return [(t.element_type, _scan_scratch(t.dims, op.axis.data, fl.threads))]  # pyright: ignore[reportAttributeAccessIssue]


def _plan_arg(fl: _TileFunctionLowering, op: Operation) -> list[tuple[Attribute, int]]:
    t = op.operands[0].type
    assert isinstance(t, tile.TileType)
    return [(t.element_type, t.numel)]


SCRATCH_PLANNERS[CumSumOp] = _plan_cumsum
SCRATCH_PLANNERS[ArgMaxOp] = _plan_arg
SCRATCH_PLANNERS[ArgMinOp] = _plan_arg


# --------------------------------------------------------------------------- helpers


def _add(e: Emitter, elem: Attribute, a: SSAValue, b: SSAValue) -> SSAValue:
    return e(arith.AddfOp(a, b) if tile.kind_of(elem) == "f" else arith.AddiOp(a, b))


def _zero(e: Emitter, elem: Attribute) -> SSAValue:
    return e.const(0.0 if tile.kind_of(elem) == "f" else 0, signless(elem))


def _shuffle_up(e: Emitter, x: SSAValue, lanes: int, elem: Attribute) -> SSAValue:
    payload, back = to_bits(e, x, signless(elem))
    sh = gpu.ShuffleOp("up", payload, e.const(lanes, i32), e.const(32, i32))
    e(sh)
    return back(e, sh.results[0])


def _permuted(fl: _TileFunctionLowering, e: Emitter, d: Dist, perm: list[int]) -> Dist:
    """`d` with result axis i = source axis perm[i], in the canonical layout (through shared memory)."""
    src = d.layout.shape
    dst = tuple(src[p] for p in perm)

    def index(x: Emitter, f: SSAValue) -> SSAValue:
        idx = _unravel(x, f, dst)
        out = [x.const(0, i64)] * len(src)
        for i, p in enumerate(perm):
            out[p] = idx[i]
        return _ravel(x, out, src)

    return fl.relayout(e, d, canonical_layout(dst, fl.threads), index)


# --------------------------------------------------------------------------- tile.cumsum


def _scan_last(fl: _TileFunctionLowering, e: Emitter, d: Dist) -> Dist:
    layout, elem = d.layout, d.elem
    vec = layout.vec
    seg, gsz, gps, rpr, ng = _scan_geometry(layout)
    assert fl.tid is not None
    owner = fl.owner(layout)
    # 1. in-thread: prefix over each chunk's vec registers
    pre: list[list[SSAValue]] = []
    for r in range(layout.reps):
        row = [d.regs[r * vec]]
        for v in range(1, vec):
            row.append(_add(e, elem, row[-1], d.regs[r * vec + v]))
        pre.append(row)
    totals = [row[-1] for row in pre]
    # 2. warp shuffles: inclusive scan of chunk totals across the gsz owners of a group, then exclusive
    excl: list[SSAValue | None] = [None] * layout.reps
    incl = list(totals)
    if gsz > 1:
        pos = e(arith.AndIOp(owner, e.const(gsz - 1, i64)))  # the owner's place in its group
        zero = _zero(e, elem)
        step = 1
        while step < gsz:
            take = e(arith.CmpiOp(pos, e.const(step, i64), "uge"))
            for r in range(layout.reps):
                y = _shuffle_up(e, incl[r], step * layout.replicas, elem)
                incl[r] = e(arith.SelectOp(take, _add(e, elem, incl[r], y), incl[r]))
            step *= 2
        first = e(arith.CmpiOp(pos, e.const(0, i64), "eq"))
        for r in range(layout.reps):
            y = _shuffle_up(e, incl[r], layout.replicas, elem)
            excl[r] = e(arith.SelectOp(first, zero, y))
    # 3. cross-warp (and cross-rep): group totals through shared memory
    carry: list[SSAValue | None] = [None] * layout.reps
    if gps > 1 or rpr > 1:
        buf = fl.scratch(elem, layout.reps * ng)
        group = e(arith.ShRUIOp(owner, e.const(_log2(gsz), i64))) if gsz > 1 else owner
        e(gpu.BarrierOp())  # the scratch may still be read by an earlier layout change
        last = e(arith.CmpiOp(e(arith.AndIOp(owner, e.const(gsz - 1, i64))), e.const(gsz - 1, i64), "eq")) if gsz > 1 else None
        first_replica = fl.is_first_replica(layout)
        cond = last if first_replica is None else first_replica if last is None else e(arith.AndIOp(last, first_replica))

        def write(x: Emitter) -> None:
            for r in range(layout.reps):
                at = group if r == 0 else x(arith.AddiOp(group, x.const(r * ng, i64)))
                x(memref.StoreOp.get(incl[r], buf, [x(arith.IndexCastOp(at, IndexType()))]))

        fl.when(e, cond, write)
        e(gpu.BarrierOp())

        def load(at: SSAValue) -> SSAValue:
            return e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(at, IndexType()))]))

        zero = _zero(e, elem)
        rowtot: dict[int, SSAValue] = {}
        if gps > 1:
            gpos = e(arith.AndIOp(group, e.const(gps - 1, i64)))
            gstart = e(arith.SubiOp(group, gpos))
        for r in range(layout.reps):
            c: SSAValue | None = None
            if gps > 1:
                for k in range(gps - 1):
                    at = e(arith.AddiOp(gstart, e.const(r * ng + k, i64)))
                    v = e(arith.SelectOp(e(arith.CmpiOp(e.const(k, i64), gpos, "ult")), load(at), zero))
                    c = v if c is None else _add(e, elem, c, v)
            for rp in range(r - r % rpr, r):  # earlier reps of the same row: their whole totals
                if rp not in rowtot:
                    t: SSAValue | None = None
                    for g in range(ng):
                        v = load(e.const(rp * ng + g, i64))
                        t = v if t is None else _add(e, elem, t, v)
                    assert t is not None
                    rowtot[rp] = t
                c = rowtot[rp] if c is None else _add(e, elem, c, rowtot[rp])
            carry[r] = c
    regs: list[SSAValue] = []
    for r in range(layout.reps):
        base: SSAValue | None = excl[r]
        if carry[r] is not None:
            base = carry[r] if base is None else _add(e, elem, carry[r], base)  # pyright: ignore[reportArgumentType]
        for v in range(vec):
            regs.append(pre[r][v] if base is None else _add(e, elem, base, pre[r][v]))
    return Dist(layout, regs, elem)


@lowers(CumSumOp)
def _cumsum(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, CumSumOp)
    d = fl.canon(e, fl.dist(op.input))
    shape, axis = d.layout.shape, op.axis.data
    if shape[axis] == 1:
        return d
    last = len(shape) - 1
    if axis == last:
        return _scan_last(fl, e, d)
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    moved = _scan_last(fl, e, _permuted(fl, e, d, perm))
    inverse = [perm.index(i) for i in range(len(shape))]
    return _permuted(fl, e, moved, inverse)


# --------------------------------------------------------------------------- tile.argmax / tile.argmin


@lowers(ArgMaxOp, ArgMinOp)
def _argreduce(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, ArgReduceOp)
    d = fl.canon(e, fl.dist(op.input))
    shape, axis, elem = d.layout.shape, op.axis.data, d.elem
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    target = canonical_layout(rt.dims, fl.threads)
    buf = fl.scratch(elem, d.layout.numel)
    fl.write_shared(e, d, buf)
    kind = tile.kind_of(elem)
    greater = isinstance(op, ArgMaxOp)
    extent, stride = shape[axis], prod(shape[axis + 1 :])
    regs = []
    for r in range(target.reps):
        for v in range(target.vec):
            f = fl.flat(e, target, r, v) if not target.uniform else e.const(0, i64)
            kidx = _unravel(e, f, rt.dims)
            kidx = kidx[:axis] + [e.const(0, i64)] + (kidx[axis:] if op.keepdims is None else kidx[axis + 1 :])
            base = _ravel(e, kidx, shape)
            first = e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(base, IndexType()))]))
            body = Block(arg_types=[IndexType(), signless(elem), i64])
            be = Emitter(body, e.source)
            k64 = be(arith.IndexCastOp(body.args[0], i64))
            at = be(arith.AddiOp(base, be(arith.MuliOp(k64, be.const(stride, i64)))))
            x = be(memref.LoadOp.get(buf, [be(arith.IndexCastOp(at, IndexType()))]))
            best, idx = body.args[1], body.args[2]
            if kind == "f":
                better = be(arith.CmpfOp(x, best, "ogt" if greater else "olt"))
                x_nan = be(arith.CmpfOp(x, x, "uno"))
                best_num = be(arith.CmpfOp(best, best, "ord"))
                take = be(arith.OrIOp(better, be(arith.AndIOp(x_nan, best_num))))
            else:
                pred = ("sgt" if greater else "slt") if kind == "i" else ("ugt" if greater else "ult")
                take = be(arith.CmpiOp(x, best, pred))
            be(scf.YieldOp(be(arith.SelectOp(take, x, best)), be(arith.SelectOp(take, k64, idx))))
            loop = scf.ForOp(e.const(1, IndexType()), e.const(extent, IndexType()), e.const(1, IndexType()), [first, e.const(0, i64)], Region(body))
            e(loop)
            regs.append(loop.results[1])
    return Dist(target, regs, rt.element_type)
