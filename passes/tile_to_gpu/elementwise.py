"""`tile-to-gpu` lowerings of elementwise and constructor ops: each `tile.<op>` per register by
`kernel-to-gpu`'s scalar lowering; `tile.full`, `tile.iota`, `tile.splat`, `tile.extract`, casts."""

from __future__ import annotations

from xdsl.dialects import arith, builtin, math
from xdsl.dialects.builtin import i1, i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import kernel, tile
from warpforge.passes.kernel_to_gpu import Emitter, cast_value, signless
from warpforge.passes.tile_to_gpu.lowering import Dist, LOG2E, _TileFunctionLowering, lowers


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


_SCALAR_OPS: dict[str, type[Operation]] = {
    "kernel.add": kernel.AddOp, "kernel.sub": kernel.SubOp, "kernel.mul": kernel.MulOp, "kernel.truediv": kernel.TrueDivOp,
    "kernel.floordiv": kernel.FloorDivOp, "kernel.mod": kernel.ModOp, "kernel.pow": kernel.PowOp, "kernel.and": kernel.AndOp,
    "kernel.or": kernel.OrOp, "kernel.xor": kernel.XorOp, "kernel.lshift": kernel.LShiftOp, "kernel.rshift": kernel.RShiftOp,
    "kernel.max": kernel.MaxOp, "kernel.min": kernel.MinOp, "kernel.neg": kernel.NegOp, "kernel.abs": kernel.AbsOp,
    "kernel.invert": kernel.InvertOp, "kernel.not": kernel.NotOp,
}  # fmt: skip
"""The `SCALAR` names of the elementwise tile ops → the `kernel` op whose lowering gives their semantics."""

_MATH_OPS: dict[str, type[Operation]] = {
    "math.exp": math.ExpOp, "math.exp2": math.Exp2Op, "math.log": math.LogOp, "math.log2": math.Log2Op,
    "math.sqrt": math.SqrtOp, "math.rsqrt": math.RsqrtOp, "math.sin": math.SinOp, "math.cos": math.CosOp,
    "math.tanh": math.TanhOp, "math.floor": math.FloorOp, "math.ceil": math.CeilOp,
}  # fmt: skip


@lowers(*tile.ELEMENTWISE_BINARY)
def _binary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ElementwiseBinaryOp)
    a, b = _operand(fl, e, op.lhs, op), _operand(fl, e, op.rhs, op)
    make = _SCALAR_OPS[op.SCALAR]
    regs = [fl.scalar(e, make, [a.elem, b.elem], [x, y]) for x, y in zip(a.regs, b.regs)]
    return Dist(a.layout, regs, a.elem)


@lowers(*tile.ELEMENTWISE_UNARY)
def _unary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ElementwiseUnaryOp)
    a = _operand(fl, e, op.operand, op)
    if op.SCALAR in _SCALAR_OPS:
        make = _SCALAR_OPS[op.SCALAR]
        return Dist(a.layout, [fl.scalar(e, make, [a.elem], [x]) for x in a.regs], a.elem)
    if isinstance(op, tile.ExpOp) and a.elem == builtin.f32:
        # exp(x) = 2^(x·log2 e): ex2.approx (libdevice exp2f), the accuracy of CUDA's __expf
        k = e.const(LOG2E, builtin.f32)
        return Dist(a.layout, [e(math.Exp2Op(e(arith.MulfOp(x, k)))) for x in a.regs], a.elem)
    make = _MATH_OPS[op.SCALAR]
    return Dist(a.layout, [e(make(x)) for x in a.regs], a.elem)


@lowers(tile.CmpOp)
def _cmp(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.CmpOp)
    a, b = _operand(fl, e, op.lhs, op), _operand(fl, e, op.rhs, op)
    pred = op.predicate.data
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
