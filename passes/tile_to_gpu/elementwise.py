"""`tile-to-gpu` lowerings of elementwise and constructor ops: each `tile.<op>` per register by
`kernel-to-gpu`'s scalar lowering; `tile.full`, `tile.iota`, `tile.splat`, `tile.extract`, casts."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i1, i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import kernel, tile
from warpforge.passes.kernel_to_gpu import Emitter, cast_value, signless
from warpforge.passes.tile_to_gpu.layouts import canonical_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering, lowers
from warpforge.passes.tile_to_gpu.memory import padding_bits


# --------------------------------------------------------------------------- making tiles


def _tile_type(op: Operation) -> tile.TileType:
    t = op.results[0].type
    assert isinstance(t, tile.TileType)
    return t


def _operand(fl: _TileFunctionLowering, e: Emitter, value: SSAValue, op: Operation) -> Dist:
    """An elementwise operand in the layout of the op's result (its encoding; per register after that)."""
    return fl.convert(e, fl.dist(value), fl.layout_of(op.results[0], op))


@lowers(tile.FullOp)
def _full(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.FullOp)
    t = _tile_type(op)
    layout = fl.layout_of(op.results[0], op)
    value = op.value
    c = e.const(value.value.data, signless(t.element_type))  # pyright: ignore[reportArgumentType]
    return Dist(layout, [c] * layout.slots, t.element_type)


@lowers(tile.IotaOp)
def _iota(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    t = _tile_type(op)
    layout = fl.layout_of(op.results[0], op)
    elem = signless(t.element_type)
    regs = []
    for k in range(layout.slots):
        f = fl.element(e, layout, k)
        regs.append(f if elem == i64 else e(arith.TruncIOp(f, elem)))
    return Dist(layout, regs, t.element_type)


@lowers(tile.SplatOp)
def _splat(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.SplatOp)
    t = _tile_type(op)
    layout = fl.layout_of(op.results[0], op)
    return Dist(layout, [fl.v(op.input)] * layout.slots, t.element_type)


@lowers(tile.ExtractOp)
def _extract(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.ExtractOp)
    d = fl.dist(op.input)
    assert d.layout.uniform
    return d.regs[0]


# --------------------------------------------------------------------------- elementwise


@lowers(*tile.ELEMENTWISE_BINARY)
def _binary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ElementwiseBinaryOp)
    a, b = _operand(fl, e, op.lhs, op), _operand(fl, e, op.rhs, op)
    inside = padding_bits(fl, e, op, a.layout, len(a.regs))  # elements past a loaded tensor's end report nothing
    regs: list[SSAValue] = []
    with fl.registers_of(a.layout):
        for k, (x, y) in enumerate(zip(a.regs, b.regs)):
            fl.reporting_inside = inside[k] if inside is not None else None
            regs.append(fl.scalar(e, op.SCALAR, [a.elem, b.elem], [x, y]))
        fl.reporting_inside = None
    return Dist(a.layout, regs, a.elem)


@lowers(*tile.ELEMENTWISE_UNARY)
def _unary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    """Per register by the scalar op's lowering, or by the catalog's faster form for one element type
    (`tile.exp` on f32: exp(x) = 2^(x·log2 e), `ex2.approx`: libdevice exp2f, the accuracy of `__expf`)."""
    assert isinstance(op, tile.ElementwiseUnaryOp)
    a = _operand(fl, e, op.operand, op)
    approx = op.BUILTIN.tile_approx if op.BUILTIN is not None else None
    if approx is not None and a.elem == approx.elem:
        k = e.const(approx.scale, a.elem)
        return Dist(a.layout, [e(approx.op(e(arith.MulfOp(x, k)))) for x in a.regs], a.elem)
    with fl.registers_of(a.layout):
        return Dist(a.layout, [fl.scalar(e, op.SCALAR, [a.elem], [x]) for x in a.regs], a.elem)


@lowers(tile.CmpOp)
def _cmp(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.CmpOp)
    a, b = _operand(fl, e, op.lhs, op), _operand(fl, e, op.rhs, op)
    pred = op.predicate.data
    with fl.registers_of(a.layout):
        regs = [fl.scalar(e, lambda x, y: kernel.CmpOp(pred, x, y), [a.elem, b.elem], [x, y]) for x, y in zip(a.regs, b.regs)]
    return Dist(a.layout, regs, i1)


@lowers(tile.WhereOp)
def _where(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.WhereOp)
    c = _operand(fl, e, op.cond, op)
    a, b = _operand(fl, e, op.true_value, op), _operand(fl, e, op.false_value, op)
    regs = [e(arith.SelectOp(x, y, z)) for x, y, z in zip(c.regs, a.regs, b.regs)]
    return Dist(a.layout, regs, a.elem)


@lowers(tile.CastOp)
def _cast(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.CastOp)
    a = _operand(fl, e, op.input, op)
    to = _tile_type(op).element_type
    return Dist(a.layout, [cast_value(e, x, a.elem, to) for x in a.regs], to)
