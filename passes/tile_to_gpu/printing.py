"""`tile-to-gpu` lowering of `kernel.print` with tile operands (one line per element, from its holder)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Attribute, Operation, SSAValue

from warpforge.dialects import kernel, tile
from warpforge.passes.kernel_to_gpu import Emitter, PrintPiece, build_printf
from warpforge.passes.tile_to_gpu.lowering import UNIFORM, _TileFunctionLowering, lowers
from warpforge.passes.tile_to_gpu.shape import _unravel



@lowers(kernel.PrintOp)
def _print(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    """`kernel.print` in a tile kernel. Inside a `tile.map` body (a `@simt.device` function applied to
    tiles) it prints once per element, from the thread holding it. Otherwise, without a tile of rank > 0
    it prints once per tile block, from thread 0 of the CTA (a rank-0 tile, e.g. `t.sum()`, prints its value). With one, every element
    prints its own line: the tile's field becomes `[i] value` (`[i, j] value` for rank 2, indices in the
    tile, row-major), printed by the thread holding the element (its first replica). Lines of one
    tile block come in no particular order, as on the GPU."""
    assert isinstance(op, kernel.PrintOp)
    fields = op.fields()
    tiled_arg: SSAValue | None = None
    for a in op.args:
        if isinstance(a.type, tile.TileType) and a.type.dims:
            tiled_arg = a

    tiles = {a: fl.canon(e, fl.dist(a)) for a in op.args if isinstance(a.type, tile.TileType)}  # any relayout before the guard

    def operand(a: SSAValue, k: int) -> tuple[Attribute, SSAValue]:
        if a in tiles:
            d = tiles[a]
            return d.elem, d.regs[k if a is tiled_arg else 0]
        return a.type, fl.v(a)

    def pieces(k: int, index: list[SSAValue]) -> list[PrintPiece]:
        out: list[PrintPiece] = []
        operands = iter(op.args)
        for literal, spec in fields:
            out.append(literal)
            if spec is None:
                continue
            a = next(operands)
            if a is tiled_arg:
                out.append("[")
                for n, i in enumerate(index):
                    out += [", "] if n else []
                    out.append(("", kernel.SI64, i))
                out.append("] ")
            t, v = operand(a, k)
            out.append((spec, t, v))
        return out

    if tiled_arg is None and fl.reporting is not None and fl.reporting is not UNIFORM:
        # inside a `tile.map` body (a device function applied to tiles): this register's element, one
        # line from the thread that holds it, none for padding past a loaded tensor's end
        guard = fl.is_writer(fl.reporting)  # pyright: ignore[reportArgumentType]
        if fl.reporting_inside is not None:
            guard = fl.reporting_inside if guard is None else e(arith.AndIOp(guard, fl.reporting_inside))
        fl.when(e, guard, lambda b: build_printf(b, pieces(0, [])))
        return None
    if tiled_arg is None:
        assert fl.tid is not None
        tid = fl.tid
        first = e(arith.CmpiOp(tid, e.const(0, i64), "eq"))
        fl.when(e, first, lambda b: build_printf(b, pieces(0, [])))
        return None
    typ = tiled_arg.type
    assert isinstance(typ, tile.TileType)
    layout = tiles[tiled_arg].layout
    shape = tuple(typ.dims)

    def body(b: Emitter) -> None:
        for r in range(layout.reps):
            for v in range(layout.vec):
                index = _unravel(b, fl.flat(b, layout, r, v), shape)
                build_printf(b, pieces(r * layout.vec + v, index))

    fl.when(e, fl.is_first_replica(layout), body)
    return None
