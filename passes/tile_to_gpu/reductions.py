"""`tile-to-gpu` lowering of `tile.reduce`: per-thread trees, warp shuffles, one shared-memory round."""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from warpforge.dialects import gpu, tile
from warpforge.passes.kernel_to_gpu import Emitter, signless, to_bits
from warpforge.passes.tile_to_gpu.layouts import Layout, distinct_warps, reduce_plan, slice_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering, _log2, lowers, reduce_accumulator
from warpforge.passes.tile_to_gpu.elementwise import _tile_type
from warpforge.passes.tile_to_gpu.shape import _ravel, _unravel


# --------------------------------------------------------------------------- reductions


def _combine(e: Emitter, kind: str, elem: Attribute, a: SSAValue, b: SSAValue) -> SSAValue:
    k = tile.kind_of(elem)
    if kind == "sum":
        return e(arith.AddfOp(a, b) if k == "f" else arith.AddiOp(a, b))
    if kind == "prod":
        return e(arith.MulfOp(a, b) if k == "f" else arith.MuliOp(a, b))
    if kind == "max":
        return e(arith.MaximumfOp(a, b) if k == "f" else arith.MaxSIOp(a, b) if k == "i" else arith.MaxUIOp(a, b))
    return e(arith.MinimumfOp(a, b) if k == "f" else arith.MinSIOp(a, b) if k == "i" else arith.MinUIOp(a, b))


def _tree(e: Emitter, kind: str, elem: Attribute, values: list[SSAValue]) -> SSAValue:
    """Combine `values` pairwise (a balanced tree: more independent operations in flight)."""
    vals = list(values)
    while len(vals) > 1:
        nxt = [_combine(e, kind, elem, vals[i], vals[i + 1]) for i in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    return vals[0]


def _shuffle_xor(e: Emitter, x: SSAValue, offset: int, elem: Attribute) -> SSAValue:
    shuffle_op = getattr(gpu, "ShuffleOp", None)
    if shuffle_op is None:
        raise DiagnosticException("tile-to-gpu: reductions across threads need gpu.shuffle, which this checkout's gpu dialect lacks")
    payload, back = to_bits(e, x, signless(elem))
    sh = shuffle_op("xor", payload, e.const(offset, i32), e.const(32, i32))
    e(sh)
    return back(e, sh.results[0])


@lowers(tile.ReduceOp)
def _reduce(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ReduceOp)
    d = fl.canon(e, fl.dist(op.input))
    acc = reduce_accumulator(op.kind.data, d.elem)
    if acc == d.elem:
        return _reduce_dist(fl, op, e, d)
    wide = _reduce_dist(fl, op, e, Dist(d.layout, [e(arith.ExtFOp(r, acc)) for r in d.regs], acc))
    narrow: dict[SSAValue, SSAValue] = {}  # a splat stays one value
    for r in wide.regs:
        if r not in narrow:
            narrow[r] = e(arith.TruncFOp(r, d.elem))
    return Dist(wide.layout, [narrow[r] for r in wide.regs], d.elem)


def _reduce_dist(fl: _TileFunctionLowering, op: tile.ReduceOp, e: Emitter, d: Dist) -> Dist:
    """`op` over `d` (canonical layout), combining in `d.elem`."""
    kind, axis = op.kind.data, op.axis.data
    result_type = _tile_type(op)
    shape = d.layout.shape
    target = fl.layout_of(result_type, op)  # #tile.slice from tile-assign-layouts; canonical without an encoding
    plan = reduce_plan(shape, axis, fl.threads, result_type.dims, target)
    layout, elem = d.layout, d.elem
    assert isinstance(layout, Layout)
    natural = slice_layout(layout, axis, result_type.dims)  # where each thread's partials are
    if plan.path == "rows":
        c = shape[-1]
        per_row = c // (layout.owners * layout.vec)  # reps per output row
        k_out = layout.reps // per_row
        partials = []
        for q in range(k_out):
            regs = d.regs[q * per_row * layout.vec : (q + 1) * per_row * layout.vec]
            p = _tree(e, kind, elem, regs)
            off = layout.replicas
            while off < 32 and off < layout.replicas * layout.owners:
                p = _combine(e, kind, elem, p, _shuffle_xor(e, p, off, elem))
                off *= 2
            partials.append(p)
        wd = distinct_warps(layout, fl.threads)
        if wd == 1 and k_out == 1:
            return Dist(target, [partials[0]] * target.slots, elem)
        in_rows = natural.same_placement(target)  # register q holds row q in every thread
        if wd == 1 and in_rows:
            return Dist(target, partials, elem)
        region = fl.fresh_region(e, elem, k_out * wd)  # in the entry block: no barrier before the write
        if region is None:
            buf, start = fl.scratch(elem, k_out * wd), 0
            fl.war_barrier(e, elem)
        else:
            buf, start = region
        assert fl.tid is not None
        tid = fl.tid
        warp_step = max(1, layout.replicas // 32)

        def write(x: Emitter) -> None:
            warp = x(arith.ShRUIOp(tid, x.const(5, i64)))
            wi = warp if warp_step == 1 else x(arith.ShRUIOp(warp, x.const(_log2(warp_step), i64)))
            for q, p in enumerate(partials):
                at = wi if q * wd + start == 0 else x(arith.AddiOp(wi, x.const(q * wd + start, i64)))
                x(memref.StoreOp.get(p, buf, [x(arith.IndexCastOp(at, IndexType()))]))

        lane0 = e(arith.CmpiOp(e(arith.AndIOp(tid, e.const(32 * warp_step - 1, i64))), e.const(0, i64), "eq"))
        fl.when(e, lane0, write)
        e(gpu.BarrierOp())
        regs = []
        for k in range(target.slots):
            q = e.const(k, i64) if in_rows else fl.element(e, target, k) if not target.uniform else e.const(0, i64)
            base = q if wd == 1 else e(arith.MuliOp(q, e.const(wd, i64)))
            loads = []
            for w in range(wd):
                at = base if w + start == 0 else e(arith.AddiOp(base, e.const(w + start, i64)))
                loads.append(e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(at, IndexType()))])))
            regs.append(_tree(e, kind, elem, loads))
        return Dist(target, regs, elem)
    if plan.path == "groups":
        group = plan.group
        regs = []
        for r in range(layout.reps):
            p = _tree(e, kind, elem, d.regs[r * layout.vec : (r + 1) * layout.vec])
            off = layout.replicas
            while off < layout.replicas * group:
                p = _combine(e, kind, elem, p, _shuffle_xor(e, p, off, elem))
                off *= 2
            regs.append(p)
        return fl.convert(e, Dist(natural, regs, elem), target)
    # through shared memory: each output element reads its row/column
    buf = fl.scratch(elem, d.layout.numel)
    fl.write_shared(e, d, buf)
    extent = shape[axis]
    stride = prod(shape[axis + 1 :])
    regs = []
    for slot in range(target.slots):
        f = fl.element(e, target, slot)
        kidx = _unravel(e, f, result_type.dims)
        if op.keepdims is None:
            kidx = kidx[:axis] + [e.const(0, i64)] + kidx[axis:]
        else:
            kidx = kidx[:axis] + [e.const(0, i64)] + kidx[axis + 1 :]
        base = _ravel(e, kidx, shape)
        first = e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(base, IndexType()))]))
        lb = e.const(1, IndexType())
        ub = e.const(extent, IndexType())
        step = e.const(1, IndexType())
        body = Block(arg_types=[IndexType(), signless(elem)])
        be = Emitter(body, e.source)
        k64 = be(arith.IndexCastOp(body.args[0], i64))
        at = be(arith.AddiOp(base, be(arith.MuliOp(k64, be.const(stride, i64)))))
        x = be(memref.LoadOp.get(buf, [be(arith.IndexCastOp(at, IndexType()))]))
        be(scf.YieldOp(_combine(be, kind, elem, body.args[1], x)))
        loop = scf.ForOp(lb, ub, step, [first], Region(body))
        e(loop)
        regs.append(loop.results[0])
    return Dist(target, regs, elem)
