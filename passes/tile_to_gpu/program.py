"""`tile-to-gpu` lowerings of the program-id and view ops: `tile.block_id`, `tile.num_blocks`,
`tile.dim`, `tile.num_tiles`, `tile.block_coord`, `tile.make_partition_view`, `tile.make_tensor_view`."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith, builtin
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation, SSAValue

from warpforge.diagnostics import error_at
from warpforge.dialects import gpu, tile
from warpforge.passes.kernel_to_gpu import Emitter
from warpforge.passes.tile_to_gpu.lowering import PView, View, _TileFunctionLowering, _log2, _static_divisor, lowers


# --------------------------------------------------------------------------- ids, views, sizes


@lowers(tile.BlockIdOp)
def _block_id(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert fl.bid is not None
    return fl.bid


@lowers(tile.NumBlocksOp)
def _num_blocks(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    return fl.at_entry("num_blocks", lambda b: b(arith.IndexCastOp(b(gpu.GridDimOp("x")), i64)))


@lowers(tile.DimOp)
def _dim(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.DimOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    return view.dims[op.axis.data]


def _num_tiles(e: Emitter, pv: PView, axis: int) -> SSAValue:
    t = pv.tile[axis]
    static = pv.view.static[axis]
    if static is not None:
        return e.const(-(-static // t), i64)
    dim = pv.view.dims[axis]
    if t == 1:
        return dim
    summed = e(arith.AddiOp(dim, e.const(t - 1, i64)))
    return e(arith.ShRUIOp(summed, e.const(_log2(t), i64)))


@lowers(tile.NumTilesOp)
def _num_tiles_op(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.NumTilesOp)
    pv = fl.values[op.view]
    assert isinstance(pv, PView)
    return _num_tiles(e, pv, op.axis.data)


def _traced(fl: _TileFunctionLowering, op: Operation, operand: SSAValue, kind: type) -> Any:
    """What the pass made of `operand` (a `View`/`PView` traced to a kernel parameter), or a located
    error: IR where a view is not made from a parameter in the entry block cannot be lowered."""
    value = fl.values.get(operand)
    if not isinstance(value, kind):
        raise error_at(op, f"cannot be lowered: its {'partition' if kind is PView else 'tensor'} view operand is not made (in the entry block) from a kernel parameter")
    return value


@lowers(tile.BlockCoordOp)
def _block_coord(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.BlockCoordOp)
    if fl.bid is None:
        raise error_at(op, "cannot be lowered: the function is not a tile kernel with a grid partition")
    pv = _traced(fl, op, op.view, PView)
    rank = len(pv.tile)
    axis = op.axis.data
    if rank == 1:
        return fl.bid
    bid = fl.bid
    group = fl.src.attributes.get("tile.group_m")
    if rank == 2 and isinstance(group, builtin.IntegerAttr) and group.value.data > 1:
        return fl.at_entry(("coord", id(pv.view), pv.tile, axis), lambda b: _grouped_coord(b, bid, pv, axis, group.value.data))

    def build(b: Emitter) -> SSAValue:
        # row-major delinearization: coord[a] = (bid / prod(tiles[a+1:])) % tiles[a] (axis 0: no modulo)
        q = bid
        if axis < rank - 1:
            inner = _num_tiles(b, pv, axis + 1)
            for k in range(axis + 2, rank):
                inner = b(arith.MuliOp(inner, _num_tiles(b, pv, k)))
            q = b(arith.DivUIOp(bid, inner))
        return q if axis == 0 else b(arith.RemUIOp(q, _num_tiles(b, pv, axis)))

    return fl.at_entry(("coord", id(pv.view), pv.tile, axis), build)


def _grouped_coord(b: Emitter, bid: SSAValue, pv: PView, axis: int, g: int) -> SSAValue:
    """Coordinate `axis` of tile block `bid` in grouped order (`tile.group_m` = g, set by
    `tile-tma-ring`): blocks walk g rows of tiles column by column, then the next g rows — the order
    of Triton's matmul tutorial ("L2 cache optimizations"), so the tiles of A and B that consecutive
    blocks read stay in L2. A bijection: the last group has min(g, rows - first) rows."""
    rows, cols = _num_tiles(b, pv, 0), _num_tiles(b, pv, 1)
    per_group = b(arith.MuliOp(cols, b.const(g, i64)))
    first = b(arith.MuliOp(b(arith.DivUIOp(bid, per_group)), b.const(g, i64)))
    size = b(arith.MinUIOp(b(arith.SubiOp(rows, first)), b.const(g, i64)))
    within = b(arith.RemUIOp(bid, per_group))
    if axis == 0:
        return b(arith.AddiOp(first, b(arith.RemUIOp(within, size))))
    return b(arith.DivUIOp(within, size))


@lowers(tile.MakePartitionViewOp)
def _make_partition_view(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> PView:
    assert isinstance(op, tile.MakePartitionViewOp)
    view = _traced(fl, op, op.source, View)
    pt = op.result.type
    assert isinstance(pt, tile.PartitionViewType)
    return PView(view, pt.dims, pt.padding)


@lowers(tile.MakeTensorViewOp)
def _make_tensor_view(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> View:
    assert isinstance(op, tile.MakeTensorViewOp)
    src = _traced(fl, op, op.source, View)
    rt = op.result.type
    assert isinstance(rt, tile.TensorViewType)
    sizes = iter(op.sizes)
    dims, static = [], []
    for d in rt.dims:
        if d == builtin.DYNAMIC_INDEX:
            dims.append(fl.v(next(sizes)))
            static.append(None)
        else:
            dims.append(e.const(d, i64))
            static.append(d)
    if src.strides is not None:
        raise error_at(op, "tile.make_tensor_view reinterprets contiguous tensor views only, this one is strided")
    limit = src.dims[0]
    for d in src.dims[1:]:
        limit = e(arith.MuliOp(limit, d))
    if src.limit is not None:
        limit = src.limit
    div = tuple(_static_divisor(s) if s is not None else 1 for s in static)
    return View(src.memref, dims, tuple(static), None, div, src.align, src.elem, limit, src.base_dims)
