"""`tile-to-gpu` lowerings of shape ops: broadcast, reshape, permute, transpose (layout changes through
shared memory where registers cannot stay)."""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import tile
from warpforge.passes.kernel_to_gpu import Emitter
from warpforge.passes.tile_to_gpu.conversions import broadcast_slice
from warpforge.passes.tile_to_gpu.layouts import canonical_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering, _log2, lowers
from warpforge.passes.tile_to_gpu.elementwise import _tile_type



def _unravel(e: Emitter, f: SSAValue, shape: tuple[int, ...]) -> list[SSAValue]:
    """Row-major multi-index of flat index `f` (i64) in `shape` (powers of two)."""
    out = []
    rest = f
    for k in range(len(shape) - 1, -1, -1):
        n = shape[k]
        if k == 0:
            out.append(rest)
            break
        out.append(e(arith.AndIOp(rest, e.const(n - 1, i64))) if n > 1 else e.const(0, i64))
        rest = e(arith.ShRUIOp(rest, e.const(_log2(n), i64))) if n > 1 else rest
    if not shape:
        return []
    return list(reversed(out))


def _ravel(e: Emitter, idx: list[SSAValue], shape: tuple[int, ...]) -> SSAValue:
    f: SSAValue | None = None
    for i, n in zip(idx, shape):
        f = i if f is None else e(arith.AddiOp(e(arith.ShLIOp(f, e.const(_log2(n), i64))) if n > 1 else f, i))
    return f if f is not None else e.const(0, i64)


@lowers(tile.BroadcastOp)
def _broadcast(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.BroadcastOp)
    dst = _tile_type(op)
    free = broadcast_slice(fl.dist(op.input), dst.dims, fl.layout_of(op.results[0], op))  # a reduction's rows, back along its axis
    if free is not None:
        return free
    d = fl.canon(e, fl.dist(op.input))
    src_shape = d.layout.shape
    target = fl.layout_of(op.results[0], op)
    lead = len(dst.dims) - len(src_shape)

    def index(x: Emitter, f: SSAValue) -> SSAValue:
        idx = _unravel(x, f, dst.dims)[lead:]
        src_idx = [i if n > 1 else x.const(0, i64) for i, n in zip(idx, src_shape)]
        return _ravel(x, src_idx, src_shape)

    return fl.relayout(e, d, target, index, identity=prod(src_shape) == prod(dst.dims))


@lowers(tile.ReshapeOp)
def _reshape(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ReshapeOp)
    d = fl.canon(e, fl.dist(op.input))
    return fl.relayout(e, d, canonical_layout(_tile_type(op).dims, fl.threads), lambda x, f: f, identity=True)


def _permute(fl: _TileFunctionLowering, op: Operation, e: Emitter, perm: list[int]) -> Dist:
    d = fl.canon(e, fl.dist(op.operands[0]))
    dst = _tile_type(op)
    src_shape = d.layout.shape

    def index(x: Emitter, f: SSAValue) -> SSAValue:
        idx = _unravel(x, f, dst.dims)
        src_idx = [x.const(0, i64)] * len(src_shape)
        for out_axis, in_axis in enumerate(perm):
            src_idx[in_axis] = idx[out_axis]
        return _ravel(x, src_idx, src_shape)

    return fl.relayout(e, d, canonical_layout(dst.dims, fl.threads), index)


@lowers(tile.PermuteOp)
def _permute_op(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.PermuteOp)
    return _permute(fl, op, e, [p.data for p in op.permutation.data])


@lowers(tile.TransposeOp)
def _transpose(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    return _permute(fl, op, e, [1, 0])
