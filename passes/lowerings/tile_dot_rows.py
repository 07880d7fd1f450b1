"""Row reductions of a `tile.dot` accumulator in registers (`tile-to-gpu`, registered into its `@lowers`
table after `tile_dot.py`): the online softmax of flash attention without a shared-memory round trip.

**The layout.** In the `mma.sync` m16n8 accumulator (`MmaLayout`, PTX ISA §9.7.14.5.9, C/D fragment:
lane l holds rows g = l/4 and g + 8 of each m16 tile, columns 2t, 2t + 1 of each n8 tile, t = l%4)
with the warps splitting M only (wn = 1: each warp owns whole rows, the layout attention's P·V chain
already has; `WgmmaLayout`, whose warps hold wgmma's m64 rows the same way, included), a row lives in
the 4 lanes of one quad (lanes 4g … 4g + 3). `MmaRowsLayout` is the slice "rows of #tile.mma": an M
(or M×1) tile of which thread (warp w, lane l) holds, in register 2i + h, the element of row
`w·M/wm + 16i + 8h + l/4` — every lane of the quad the same value.

**The reduction** (`tile.reduce` along axis 1 of such an accumulator, `tile.max(s, axis=1)`,
`tile.sum(p, axis=1)`): per row register, a tree over the thread's 2·tn values of the row, then two
`shfl.sync.bfly` steps (xor 1, xor 2) across the quad; no barrier, no shared memory. f16/bf16 sums
accumulate in f32 (`reduce_accumulator`).

**Free uses.** Elementwise ops of such values (the running max and sum, `alpha = exp2(m - m_new)`),
block arguments they flow into (loop-carried `m`, `l`), splats, `tile.convert_layout` and the reshape
M ↔ M×1 keep the layout register for register; the broadcast of an M×1 value back over the
accumulator's columns (`s - m[:, None]`, `acc * alpha[:, None]`) copies register 2i + h into the
accumulator registers 4(i·tn + j) + 2h + v. Any other use converts through shared memory as before.

**The store of a rank-4 output** (`o.store(acc.reshape((1, 1, M, d)))`): a reshape of an accumulator
that only adds unit leading dimensions, stored into a contiguous parameter, keeps the MMA layout and
`MmaLayout.store_tile` writes each thread's 2-column chunks at (b, h, row, col) from the registers
(`assign_mma_store_layouts`), instead of a round trip through M×N elements of shared scratch.

**Which values** (`choose_row_layouts`): optimistically every M / M×1 value reachable from such a
reduction through the free ops above, then pruned until each one's operands (and a block argument's
incoming values) are in the set too. `tile-assign-layouts` writes that choice into the IR as the rows
slice `#tile.slice<dim = 1, extent = N, parent = #tile.mma<…> | #tile.wgmma<…>>` (its
`assign_row_encodings`), which `layout_of` reads as `MmaRowsLayout`; `assign_mma_row_layouts` (a
`LAYOUT_ANALYSES` entry, after the MMA and wgmma ones) makes the same choice only for IR without any
rows slice (`encoded_row_layouts`), e.g. written by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from warpforge.dialects import tile
from warpforge.dialects.tile_layout import SliceEncodingAttr
from warpforge.passes.kernel_to_gpu import Emitter
from warpforge.passes.lowerings.tile_dot import _ELEMENTWISE, MmaLayout, _add, _edges, _log2  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.lowering import LAYOUT_ANALYSES, _TILE_LOWERINGS, Dist, _TileFunctionLowering, lowers, reduce_accumulator  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.reductions import _combine, _shuffle_xor, _tree  # pyright: ignore[reportPrivateUsage]

_PASS_THROUGH = (*_ELEMENTWISE, tile.ConvertLayoutOp, tile.ReshapeOp)
"""Ops whose result keeps the rows layout of their tile operands."""


@dataclass(frozen=True)
class MmaRowsLayout:
    """The rows of an M×N accumulator in an MMA layout whose `wm` warps split M only (module doc): an M
    or M×1 tile, register 2i + h of thread (warp w, lane l) holding row w·M/wm + 16i + 8h + l/4."""

    shape: tuple[int, ...]
    m: int
    wm: int
    warps: int

    vec = 1
    uniform = False

    @property
    def tm(self) -> int:
        """m16 tiles per warp."""
        return self.m // self.wm // 16

    @property
    def slots(self) -> int:
        return 2 * self.tm

    @property
    def reps(self) -> int:
        return self.slots

    @property
    def numel(self) -> int:
        return self.m

    @property
    def threads(self) -> int:
        return 32 * self.warps

    @property
    def replicas(self) -> int:
        return self.warps // self.wm

    @cached_property
    def placement(self) -> np.ndarray:
        """[thread, register] → element (row)."""
        t = np.arange(self.threads)[:, None]
        k = np.arange(self.slots)[None, :]
        return ((t // 32) % self.wm) * (self.m // self.wm) + 16 * (k // 2) + 8 * (k % 2) + (t % 32) // 4

    def same_placement(self, other: object) -> bool:
        return isinstance(other, MmaRowsLayout) and (other.m, other.wm, other.warps) == (self.m, self.wm, self.warps)

    def first_replica(self, fl: _TileFunctionLowering) -> SSAValue | None:
        """i1: this thread's warp is not a replica (None when no warp is). The 4 lanes of a quad hold
        one row's value: they all write it, the same value to the same element."""
        if self.replicas == 1:
            return None
        tid, limit = fl.tid, 32 * self.wm
        assert tid is not None
        return fl.at_entry(("mma_first", limit), lambda e: e(arith.CmpiOp(tid, e.const(limit, i64), "ult")))

    def flat_index(self, fl: _TileFunctionLowering, e: Emitter, r: int, v: int = 0) -> SSAValue:
        """The row (i64) register `r` of this thread holds."""
        i, h = divmod(r, 2)
        base = fl.at_entry(("mma_rows_base", self.m, self.wm, self.warps), lambda x: self._base(fl, x))
        return _add(e, base, 16 * i + 8 * h)

    def _base(self, fl: _TileFunctionLowering, e: Emitter) -> SSAValue:
        """w·M/wm + l/4 for this thread (warp w mod wm, lane l)."""
        assert fl.tid is not None
        warp = e(arith.ShRUIOp(fl.tid, e.const(5, i64)))
        if self.replicas > 1:
            warp = e(arith.AndIOp(warp, e.const(self.wm - 1, i64)))
        g = e(arith.ShRUIOp(e(arith.AndIOp(fl.tid, e.const(31, i64))), e.const(2, i64)))
        if self.wm == 1:
            return g
        return e(arith.AddiOp(e(arith.ShLIOp(warp, e.const(_log2(self.m // self.wm), i64))), g))


def rows_of(lay: object) -> MmaRowsLayout | None:
    """The rows layout of an accumulator in `lay`: an `MmaLayout` (or `WgmmaLayout`) with one warp
    along N; None for any other layout."""
    if not isinstance(lay, MmaLayout) or lay.wn != 1:
        return None
    return MmaRowsLayout((lay.shape[0],), lay.shape[0], lay.wm, lay.warps)


def _reduced_rows(known: Mapping[SSAValue, object], op: Operation) -> MmaRowsLayout | None:
    """The rows layout of `op`'s result when it is a `tile.reduce` along axis 1 of an accumulator
    whose MMA layout (in `known`) has whole rows per warp; else None."""
    if not isinstance(op, tile.ReduceOp) or op.axis.data != 1:
        return None
    t = op.input.type
    if not isinstance(t, tile.TileType) or t.rank != 2:
        return None
    return rows_of(known.get(op.input))


def choose_row_layouts(func: Operation, known: Mapping[SSAValue, object]) -> dict[SSAValue, tuple[MmaRowsLayout, tuple[tile.ReduceOp, ...]]]:
    """The values of kernel `func` that get the rows layout (`MmaRowsLayout`, module doc), given the
    MMA accumulator layouts `known` (and any other value already given a layout there, which keeps
    it): the row reductions of such accumulators and the values that keep their registers for free.
    Each value with the reductions of its group (the seeds sharing its (M, warps along M, warps)),
    first in walk order first. The one choice `tile-assign-layouts` writes into the IR as
    `#tile.slice<dim = 1, …, parent = #tile.mma<…>>` and `tile-to-gpu` makes itself for IR without it."""
    ops = list(func.walk())
    seeds: dict[SSAValue, MmaRowsLayout] = {}
    seed_ops: dict[SSAValue, tile.ReduceOp] = {}
    for op in ops:
        rows = _reduced_rows(known, op)
        if rows is not None and op.results[0] not in known:
            assert isinstance(op, tile.ReduceOp)
            seeds[op.results[0]] = rows
            seed_ops[op.results[0]] = op
    out: dict[SSAValue, tuple[MmaRowsLayout, tuple[tile.ReduceOp, ...]]] = {}
    keys = list(dict.fromkeys((r.m, r.wm, r.warps) for r in seeds.values()))
    for key in keys:
        m = key[0]
        shapes = ((m,), (m, 1))

        def shaped(v: SSAValue) -> bool:
            return isinstance(v.type, tile.TileType) and tuple(v.type.dims) in shapes and v not in known

        incoming: dict[SSAValue, list[SSAValue]] = {}
        cand: set[SSAValue] = {v for v, r in seeds.items() if (r.m, r.wm, r.warps) == key}
        group = tuple(seed_ops[v] for v in seeds if v in cand)
        for op in ops:
            for src, arg in _edges(op):
                incoming.setdefault(arg, []).append(src)
            if isinstance(op, _PASS_THROUGH + (tile.FullOp, tile.SplatOp)) and op.results and shaped(op.results[0]):
                cand.add(op.results[0])
        for op in ops:
            for region in op.regions:
                for block in region.blocks:
                    cand |= {a for a in block.args if shaped(a) and a in incoming}
        changed = True
        while changed:
            changed = False
            for v in list(cand):
                if isinstance(v.owner, Block):
                    ok = all(s in cand for s in incoming.get(v, []))
                elif isinstance(v.owner, _PASS_THROUGH):
                    ok = all(o in cand for o in v.owner.operands if isinstance(o.type, tile.TileType))
                else:
                    ok = True  # a seed reduction, a splat
                if not ok:
                    cand.discard(v)
                    changed = True
        # values that hold only splats (no reduction reaches them) stay as they were: nothing to gain
        reached: set[SSAValue] = {v for v in cand if v in seeds}
        grow = True
        while grow:
            grow = False
            for v in cand - reached:
                srcs = incoming.get(v, []) if isinstance(v.owner, Block) else list(v.owner.operands)  # pyright: ignore[reportAttributeAccessIssue]
                if any(s in reached for s in srcs):
                    reached.add(v)
                    grow = True
        for v in reached:
            out[v] = (MmaRowsLayout(tuple(v.type.dims), *key), group)  # pyright: ignore[reportAttributeAccessIssue]
    return out


def encoded_row_layouts(fl: _TileFunctionLowering) -> bool:
    """Whether some value of the kernel carries the rows slice `#tile.slice<dim = 1, …, parent =
    #tile.mma|#tile.wgmma<…>>` (set by `tile-assign-layouts`; `layout_of` reads it from the type)."""
    for op in fl.src.walk():
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            t = v.type
            if isinstance(t, tile.TileType) and isinstance(t.encoding, SliceEncodingAttr) and t.encoding.rows_of_mma:
                return True
    return False


def assign_mma_row_layouts(fl: _TileFunctionLowering) -> None:
    """The rows layouts of the kernel: read from the types where `tile-assign-layouts` wrote them
    (`encoded_row_layouts`), else chosen here (`choose_row_layouts`, into `fl.layout_hints`)."""
    if encoded_row_layouts(fl):
        return
    for v, (rows, _) in choose_row_layouts(fl.src, fl.layout_hints).items():
        fl.layout_hints[v] = rows


def _stored_from_registers(fl: _TileFunctionLowering, op: Operation) -> bool:
    """`op` is a `tile.reshape` of an MMA accumulator (M, N) to (1, …, 1, M, N) whose every use is the
    value of a `tile.store` into a contiguous kernel parameter: `MmaLayout.store_tile` writes such a
    tile straight from the registers (attention's `o.store(acc.reshape((1, 1, M, d)))`)."""
    if not isinstance(op, tile.ReshapeOp) or not isinstance(fl.layout_hints.get(op.operands[0]), MmaLayout):
        return False
    src, dst = op.operands[0].type, op.results[0].type
    if not (isinstance(src, tile.TileType) and isinstance(dst, tile.TileType)) or dst.rank <= 2:
        return False
    if tuple(dst.dims) != (1,) * (dst.rank - 2) + tuple(src.dims):
        return False
    for use in op.results[0].uses:
        store = use.operation
        if not isinstance(store, tile.StoreOp) or use.index != 0:
            return False
        view = store.view.owner
        if not isinstance(view, tile.MakePartitionViewOp) or not isinstance(view.source, BlockArgument) or not view.source.type.contiguous:  # pyright: ignore[reportAttributeAccessIssue]
            return False
    return bool(op.results[0].uses)


def assign_mma_store_layouts(fl: _TileFunctionLowering) -> None:
    """A reshape `_stored_from_registers` keeps its input's MMA layout (no conversion before the store)."""
    for op in fl.src.walk():
        if _stored_from_registers(fl, op):
            fl.layout_hints[op.results[0]] = fl.layout_hints[op.operands[0]]


LAYOUT_ANALYSES.append(assign_mma_row_layouts)
LAYOUT_ANALYSES.append(assign_mma_store_layouts)


# --------------------------------------------------------------------------- the lowerings

_register_reduce = _TILE_LOWERINGS[tile.ReduceOp]
_register_reshape = _TILE_LOWERINGS[tile.ReshapeOp]
_register_convert = _TILE_LOWERINGS[tile.ConvertLayoutOp]
_register_broadcast = _TILE_LOWERINGS[tile.BroadcastOp]


@lowers(tile.ReduceOp)
def _reduce_rows(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    """Along the rows of an MMA accumulator: per row register a tree over the thread's 2·tn values,
    then `shfl.sync.bfly` xor 1 and xor 2 across the quad (module doc)."""
    assert isinstance(op, tile.ReduceOp)
    target = fl.layout_of(op.result, op)  # the rows slice of its type, or tile-to-gpu's choice
    d = fl.values.get(op.input)
    if not isinstance(target, MmaRowsLayout) or not isinstance(d, Dist) or not target.same_placement(rows_of(d.layout)):
        return _register_reduce(fl, op, e)  # pyright: ignore[reportReturnType]
    lay = d.layout
    assert isinstance(lay, MmaLayout)
    kind = op.kind.data
    acc = reduce_accumulator(kind, d.elem)
    regs = d.regs if acc == d.elem else [e(arith.ExtFOp(r, acc)) for r in d.regs]
    out = []
    for i in range(lay.tm):
        for h in range(2):
            row = [regs[4 * (i * lay.tn + j) + 2 * h + v] for j in range(lay.tn) for v in range(2)]
            p = _tree(e, kind, acc, row)
            for offset in (1, 2):  # the quad: lanes 4g + t, t = 0..3
                p = _combine(e, kind, acc, p, _shuffle_xor(e, p, offset, acc))
            out.append(p if acc == d.elem else e(arith.TruncFOp(p, d.elem)))
    return Dist(target, out, d.elem)


def _keeps_rows(fl: _TileFunctionLowering, op: Operation) -> Dist | None:
    """The operand's registers as the result's, when both are in one rows layout (reshape M ↔ M×1,
    a layout conversion tile-assign-layouts inserted)."""
    target = fl.layout_of(op.results[0], op)
    d = fl.values.get(op.operands[0])
    if isinstance(target, MmaRowsLayout) and isinstance(d, Dist) and target.same_placement(d.layout):
        return Dist(target, d.regs, d.elem)
    return None


@lowers(tile.ReshapeOp)
def _reshape_rows(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> object:
    kept = _keeps_rows(fl, op)
    if kept is None and _stored_from_registers(fl, op):
        d = fl.dist(op.operands[0])
        kept = Dist(d.layout, d.regs, d.elem)  # the (M, N) registers, stored as the (1, .., 1, M, N) tile
    return kept if kept is not None else _register_reshape(fl, op, e)


@lowers(tile.ConvertLayoutOp)
def _convert_rows(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> object:
    kept = _keeps_rows(fl, op)
    return kept if kept is not None else _register_convert(fl, op, e)


@lowers(tile.BroadcastOp)
def _broadcast_rows(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> object:
    """An M×1 rows value over the N columns of an accumulator in the MMA layout it came from: register
    4(i·tn + j) + 2h + v of the result is register 2i + h of the input."""
    assert isinstance(op, tile.BroadcastOp)
    d = fl.values.get(op.input)
    target = fl.layout_of(op.result, op)
    if isinstance(d, Dist) and isinstance(d.layout, MmaRowsLayout) and tuple(d.layout.shape) == (d.layout.m, 1) and d.layout.same_placement(rows_of(target)):
        assert isinstance(target, MmaLayout)
        regs = [d.regs[2 * i + h] for i in range(target.tm) for _ in range(target.tn) for h in range(2) for _ in range(2)]
        return Dist(target, regs, d.elem)
    return _register_broadcast(fl, op, e)
