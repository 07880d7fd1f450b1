"""`tile-to-gpu` lowering of layout changes: `tile.convert_layout` (free where the placements agree,
warp shuffles where every element stays in its warp, else shared memory: barrier; write; barrier;
read), and the free broadcast of a reduction's `#tile.slice` result back along its dimension."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Operation

from warpforge.dialects import gpu, tile
from warpforge.passes.kernel_to_gpu import Emitter, signless, to_bits
from warpforge.passes.tile_to_gpu.layouts import Layout, SliceLayout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering, _log2, lowers


def shuffle_plan(src: Layout, dst: Layout | SliceLayout) -> list[int] | None:
    """For a conversion from the blocked layout `src` that warp shuffles can do: for each register of
    `dst`, the register of `src` every lane reads it from (one `shuffle idx` per register); None when
    some element would cross a warp or lie in different registers for different lanes."""
    if src.threads != dst.threads or src.numel != dst.numel:
        return None
    need = dst.placement  # [thread, k] → element
    chunk = need // src.vec
    owner = chunk % src.owners
    reg = (chunk // src.owners) * src.vec + need % src.vec
    lane_from = owner * src.replicas  # the first replica holding it
    threads = np.arange(dst.threads)[:, None]
    if not np.array_equal(lane_from // 32, np.broadcast_to(threads // 32, lane_from.shape)):
        return None
    if not np.all(reg == reg[0:1, :]):
        return None
    return [int(j) for j in reg[0]]


def shuffle_convert(fl: _TileFunctionLowering, e: Emitter, d: Dist, target: Layout | SliceLayout, plan: list[int]) -> Dist:
    """`d` in `target` by `gpu.shuffle idx`: lane t reads register plan[k] of the lane holding its element."""
    src = d.layout
    assert isinstance(src, Layout)
    regs = []
    for k, j in enumerate(plan):
        f = fl.element(e, target, k)
        chunk = f if src.vec == 1 else e(arith.ShRUIOp(f, e.const(_log2(src.vec), i64)))
        owner = e(arith.AndIOp(chunk, e.const(src.owners - 1, i64))) if src.owners > 1 else e.const(0, i64)
        thread = owner if src.replicas == 1 else e(arith.ShLIOp(owner, e.const(_log2(src.replicas), i64)))
        lane = e(arith.TruncIOp(e(arith.AndIOp(thread, e.const(31, i64))), i32))
        payload, back = to_bits(e, d.regs[j], signless(d.elem))
        sh = gpu.ShuffleOp("idx", payload, lane, e.const(32, i32))
        e(sh)
        regs.append(back(e, sh.results[0]))
    return Dist(target, regs, d.elem)


def conversion_scratch(src: Layout | SliceLayout, dst: Layout | SliceLayout) -> int:
    """Shared-memory elements converting `src` to `dst` needs (0: free or shuffles)."""
    if src.same_placement(dst) or src.uniform:
        return 0
    if isinstance(src, Layout) and isinstance(dst, Layout | SliceLayout) and shuffle_plan(src, dst) is not None:
        return 0
    return src.numel


@lowers(tile.ConvertLayoutOp)
def _convert_layout(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ConvertLayoutOp)
    d = fl.dist(op.input)
    target = fl.layout_of(op.result.type, op)
    if not d.layout.same_placement(target) and not d.layout.uniform and isinstance(d.layout, Layout) and isinstance(target, Layout | SliceLayout):
        plan = shuffle_plan(d.layout, target)
        if plan is not None:
            return shuffle_convert(fl, e, d, target, plan)
    return fl.convert(e, d, target)


def broadcast_slice(d: Dist, dst_shape: tuple[int, ...], target: Layout | SliceLayout) -> Dist | None:
    """The broadcast of `d` (in a `#tile.slice` layout) to `dst_shape` in `target`, when it is the
    slice's parent stretched back along the sliced dimension: each parent register copies the
    register of its row. None otherwise (the caller goes through shared memory)."""
    s = d.layout
    if not isinstance(s, SliceLayout) or not isinstance(target, Layout):
        return None
    p = s.parent
    if (target.vec, target.owners, target.replicas, target.reps) != (p.vec, p.owners, p.replicas, p.reps):
        return None
    src_shape = s.shape
    n_dst = int(np.prod(dst_shape)) if dst_shape else 1
    n_src = int(np.prod(src_shape)) if src_shape else 1
    source = np.broadcast_to(np.arange(n_src).reshape(src_shape), dst_shape).ravel()
    f = np.arange(n_dst)
    if not np.array_equal(source, (f // (s.extent * s.low)) * s.low + f % s.low):
        return None
    regs = [d.regs[s.index_of(r, v)] for r in range(p.reps) for v in range(p.vec)]
    return Dist(target, regs, d.elem)


