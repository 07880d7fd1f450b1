"""`tile-pipeline`: software-pipeline the operand loads of `tile.dot` in K loops through a shared-memory
ring of `cp.async` copies (the scheme of Triton's `tritongpu-pipeline` and of CUTLASS's multistage
mainloop; our own code).

A `kernel.for` (constant step > 0, no `break`/`continue`) whose body has a `tile.dot` with an operand
`tile.load %view[coords]` used only there (or only by a `tile.transpose` that is the operand: the ring
holds the loaded tile, the dot reads it transposed; a rank-3/4 load of a (1, 1, R, C) tile may sit
under a `tile.reshape` to (R, C), which the ring tile then replaces) is rewritten, for `S = num_stages` ≥ 2:

```
tile.async_copy %view[coords(lo + j·step)] into j ... ; tile.async_commit     j = 0 … S-2 (prologue)
kernel.for %k = %lo to %hi step %step iter_args(..., %slot = 0) {
  tile.async_wait {pending = S-2}                         // tile (k) has landed; slot (k-1) is free
  tile.async_copy %view[coords(k + (S-1)·step)] into (slot - 1) mod S ; tile.async_commit
  %a = tile.ring_tile %slot                               // the dot reads slot k by ldmatrix
  ... tile.dot %a, ...
  kernel.yield ..., (slot + 1) mod S
}
tile.async_wait {pending = 0}
```

so the copies of step k + S - 1 overlap the MMAs of step k, with one barrier per step. Each operand
gets its own ring (`ring` = 0, 1, … per kernel); a later loop of the same block whose rings would hold
the same tiles reuses the earlier loop's rings (the wait after that loop has drained them:
`_reuse_rings`; attention's unmasked and masked loops share one K and one V ring). The coordinates must be loop-invariant or computed
from the induction variable by pure scalar ops in the body (they are recomputed for the steps ahead).
Copies past the loop's end read zeros or in-bounds data nobody uses; past the tensor's edge they
zero-fill (the padding). An operand qualifies when `cp.async` can fetch it: a 2-D tile of f16/bf16
from a contiguous tensor parameter whose pointer is 16-byte aligned and whose rows are a multiple of
8 elements (`tile.arg_info`), padding 0. Other loops and operands are left as they are.

Option `num_stages`: 0 (default) takes the kernel's `tile.num_stages` attribute (`@tile.kernel(
num_stages=...)`), else 3; 1 turns pipelining off.

On `sm_90a` (option `chip`), a loop whose one dot will be a wgmma (`_in_flight`: the conditions of
`tile_dot_wgmma.wgmma_shape`, both operands ringed, the accumulator used only as the next step's)
with S ≥ 3 keeps one wgmma group in flight (d = 1): the prologue copies steps 0 … S-3, each iteration
waits with `pending = S-3` and copies step k + S - 2 into slot (slot - 2) mod S — the slot of step
k - 2, whose group every warpgroup retired (`wgmma.wait_group 1` at the end of step k - 1) before
this step's barrier; the dot and the wait after the loop carry `tile.mma_in_flight = 1`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import BFloat16Type, DenseArrayBase, DictionaryAttr, FloatAttr, Float16Type, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import Pure

from warpforge.dialects import kernel, tile
from warpforge.dialects.tile_dot import AsyncCommitOp, AsyncCopyOp, AsyncWaitOp, DotOp, RingTileOp, ring_tile_shape

DEFAULT_STAGES = 3


def rebuild_loop(loop: kernel.ForOp, outer: Block, extra_inits: list[SSAValue]) -> kernel.ForOp:
    """Replace `loop` (in `outer`) by a `kernel.for` with the same body, bounds, attributes and
    location and `extra_inits` appended to its loop-carried values (the body's block arguments and
    yield must already carry them); uses of the old results go to the new loop's first results."""
    region = loop.detach_region(loop.body)
    new_loop = kernel.ForOp(loop.lower, loop.upper, loop.step, [*loop.inits, *extra_inits], region)
    new_loop.attributes.update(loop.attributes)
    new_loop.location = loop.location
    outer.insert_op_before(new_loop, loop)
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    return new_loop


def _const(value: int) -> kernel.ConstantOp:
    return kernel.ConstantOp(IntegerAttr(value, kernel.SI64))


def _divisor(n: int) -> int:
    d = 1
    while n and n % (d * 2) == 0 and d < 1 << 20:
        d *= 2
    return d


def _async_copyable(load: tile.LoadOp, func: kernel.FuncOp) -> bool:
    """`cp.async` (16 B, zero-fill) can fetch the tile: see the module doc."""
    pv_op = load.view.owner
    if not isinstance(pv_op, tile.MakePartitionViewOp):
        return False
    pvt = pv_op.result.type
    assert isinstance(pvt, tile.PartitionViewType)
    tt = pvt.tile_type
    if ring_tile_shape(tt.dims) is None or tt.dims[-1] < 8 or not isinstance(tt.element_type, Float16Type | BFloat16Type):
        return False
    pad = pvt.padding
    if not isinstance(pad, FloatAttr) or pad.value.data != 0.0:
        return False
    src = pv_op.source
    entry = func.body.blocks.first
    if not pvt.tensor.contiguous or entry is None or src not in entry.args:
        return False
    infos = func.attributes.get("tile.arg_info")
    index = list(entry.args).index(src)  # pyright: ignore[reportArgumentType]
    info = infos.data[index] if isinstance(infos, builtin.ArrayAttr) and index < len(infos.data) else None
    if not isinstance(info, DictionaryAttr):
        return False
    align, div = info.data.get("align"), info.data.get("divisibility")
    if not isinstance(align, IntegerAttr) or align.value.data < 16:
        return False
    last = pvt.tensor.dims[-1]
    row_div = _divisor(last) if last > 0 else (div.get_values()[-1] if isinstance(div, DenseArrayBase) else 1)
    return row_div >= 8 and row_div % 8 == 0  # pyright: ignore[reportOperatorIssue]


def _transpose_2d(op: Operation | Block) -> bool:
    """A rank-2 `tile.transpose` or `tile.permute [1, 0]`."""
    if isinstance(op, tile.PermuteOp):
        return [p.data for p in op.permutation.data] == [1, 0]
    return isinstance(op, tile.TransposeOp)


def _slice(values: list[SSAValue], loop: kernel.ForOp) -> list[Operation] | None:
    """The body ops (in order) computing `values` from the induction variable and loop invariants, or
    None when one of them is not a pure scalar op of the body."""
    body = loop.body.block
    iv = body.args[0]
    needed: set[Operation] = set()

    def visit(v: SSAValue) -> bool:
        if v is iv:
            return True
        owner = v.owner
        if isinstance(owner, Block):
            return owner is not body and not _inside(owner.parent_op(), loop)
        if not _inside(owner, loop):
            return True
        if owner.parent_block() is not body or not owner.has_trait(Pure) or owner.regions or isinstance(owner.results[0].type, tile.TileType):
            return False
        if owner in needed:
            return True
        needed.add(owner)
        return all(visit(o) for o in owner.operands)

    if not all(visit(v) for v in values):
        return None
    return [op for op in body.ops if op in needed]


def _inside(op: Operation | None, loop: Operation) -> bool:
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


@dataclass
class _Candidate:
    load: tile.LoadOp
    ring: int
    reshape: tile.ReshapeOp | None = None
    """The reshape of a rank-3/4 load to its last two dimensions: the ring tile replaces it."""


def _clone_coords(load: tile.LoadOp, ops: list[Operation], iv: SSAValue, iv_value: SSAValue, before: Operation) -> list[SSAValue]:
    block = before.parent_block()
    assert block is not None
    mapping: dict[SSAValue, SSAValue] = {iv: iv_value}
    for op in ops:
        new = op.clone(value_mapper=mapping)
        block.insert_op_before(new, before)
    return [mapping.get(c, c) for c in load.coords]


def _in_flight(loop: kernel.ForOp, func: kernel.FuncOp, cands: list[tuple[_Candidate, list[Operation]]], stages: int, chip: str) -> int:
    """1 when the loop's one `tile.dot` will be a wgmma (`tile_dot_wgmma.wgmma_shape`: sm_90a, whole
    warpgroups, M = 16 x warps, N a power of two in [16, 256], K in {16, 32, 64}, f16/bf16 -> f32, both
    operands from rings) whose accumulator is only carried to the next step (so its group may stay in
    flight across the loop's back edge), and the ring has at least 3 stages; else 0."""
    from xdsl.dialects.builtin import Float32Type

    from warpforge.passes.lowerings.tile_dot_wgmma import WGMMA_CHIPS

    dots = [op for op in loop.body.block.ops if isinstance(op, DotOp)]
    warps = func.attributes.get("tile.num_warps")
    if chip not in WGMMA_CHIPS or stages < 3 or len(dots) != 1 or len(cands) != 2 or not isinstance(warps, IntegerAttr):
        return 0
    dot = dots[0]
    if {c.load.result for c, _ in cands} != {dot.lhs, dot.rhs}:
        return 0
    (m, k), (_, n) = dot.lhs.type.dims, dot.rhs.type.dims  # pyright: ignore[reportAttributeAccessIssue]
    w = warps.value.data
    et = dot.lhs.type.element_type  # pyright: ignore[reportAttributeAccessIssue]
    if w % 4 or m != 16 * w or n & (n - 1) or not 16 <= n <= 256 or k not in (16, 32, 64) or not isinstance(et, Float16Type | BFloat16Type):
        return 0
    if not isinstance(dot.result.type.element_type, Float32Type) or type(dot.rhs.type.element_type) is not type(et):  # pyright: ignore[reportAttributeAccessIssue]
        return 0
    body = loop.body.block
    term = body.last_op
    uses = list(dot.result.uses)
    if len(uses) != 1 or uses[0].operation is not term:
        return 0
    arg = body.args[1 + uses[0].index]  # the accumulator's block argument (args[0] is the induction variable)
    if dot.acc is not arg or len(list(arg.uses)) != 1:
        return 0
    return 1


def _pipeline(loop: kernel.ForOp, func: kernel.FuncOp, stages: int, next_ring: list[int], chip: str = "sm_90") -> None:
    body = loop.body.block
    term = body.last_op
    if not isinstance(term, kernel.YieldOp) or any(isinstance(o, kernel.BreakOp | kernel.ContinueOp) for o in loop.walk()):
        return
    step = loop.step.owner
    if not isinstance(step, kernel.ConstantOp) or not isinstance(step.value, IntegerAttr) or step.value.value.data <= 0:
        return
    step_n = step.value.value.data
    cands: list[tuple[_Candidate, list[Operation]]] = []
    for op in body.ops:
        if not isinstance(op, DotOp):
            continue
        for operand in (op.lhs, op.rhs):
            if len(list(operand.uses)) != 1:
                continue
            if _transpose_2d(operand.owner):  # `tile.dot(a, b.T)`: the ring holds b, the dot reads it transposed
                operand = operand.owner.operands[0]  # pyright: ignore[reportAttributeAccessIssue]
            reshape = operand.owner if isinstance(operand.owner, tile.ReshapeOp) and len(list(operand.uses)) == 1 else None
            if reshape is not None:  # a (1, 1, R, C) tile of a rank-4 tensor, reshaped to (R, C)
                operand = reshape.input
            load = operand.owner
            if not isinstance(load, tile.LoadOp) or load.parent_block() is not body or len(list(operand.uses)) != 1:
                continue
            if not _async_copyable(load, func) or (reshape is not None and ring_tile_shape(load.result.type.dims) != tuple(reshape.result.type.dims)):  # pyright: ignore[reportAttributeAccessIssue]
                continue
            ops = _slice(list(load.coords), loop)
            if ops is None:
                continue
            cands.append((_Candidate(load, next_ring[0], reshape), ops))
            next_ring[0] += 1
    if not cands:
        return
    # d = 1: the wgmma of step k may still run while step k + 1 issues its copies, so those go into the
    # slot of step k - 1 (read by the group retired by step k's wait_group 1), S - 2 steps ahead
    d = _in_flight(loop, func, cands, stages, chip)
    if d:
        dot = next(op for op in body.ops if isinstance(op, DotOp))
        dot.attributes["tile.mma_in_flight"] = IntegerAttr(d, 64)
    iv = body.args[0]
    outer = loop.parent_block()
    assert outer is not None

    # prologue: steps 0 … S-2-d into slots 0 … S-2-d
    for j in range(stages - 1 - d):
        if j == 0:
            iv_j = loop.lower
        else:
            off = _const(j * step_n)
            add = kernel.AddOp(loop.lower, off)
            outer.insert_ops_before([off, add], loop)
            iv_j = add.result
        slot = _const(j)
        outer.insert_op_before(slot, loop)
        for c, ops in cands:
            coords = _clone_coords(c.load, ops, iv, iv_j, loop)
            outer.insert_op_before(AsyncCopyOp(c.load.view, coords, slot.result, c.ring, stages), loop)
        outer.insert_op_before(AsyncCommitOp(), loop)

    # the loop carries the slot it reads
    zero = _const(0)
    outer.insert_op_before(zero, loop)
    slot_arg = body.insert_arg(kernel.SI64, len(body.args))
    slot_arg.name_hint = "slot"
    first = body.first_op
    assert first is not None
    wait = AsyncWaitOp(stages - 2 - d)
    body.insert_op_before(wait, first)
    ahead_off = _const((stages - 1 - d) * step_n)
    ahead = kernel.AddOp(iv, ahead_off)
    last_slot, one, zero_in = _const(stages - 1), _const(1), _const(0)
    if d == 0:
        is_first = kernel.CmpOp("eq", slot_arg, zero_in)
        prev = kernel.SubOp(slot_arg, one)
        write = kernel.SelectOp(is_first, last_slot, prev)
        head = [ahead_off, ahead, last_slot, one, zero_in, is_first, prev, write]
    else:  # write slot (slot - 1 - d) mod S
        back, wrap = _const(1 + d), _const(stages - 1 - d)
        is_first = kernel.CmpOp("lt", slot_arg, back)
        prev = kernel.SubOp(slot_arg, back)
        wrapped = kernel.AddOp(slot_arg, wrap)
        write = kernel.SelectOp(is_first, wrapped, prev)
        head = [ahead_off, ahead, last_slot, one, zero_in, back, wrap, is_first, prev, wrapped, write]
    for o in head:
        body.insert_op_before(o, first)
    for c, ops in cands:
        coords = _clone_coords(c.load, ops, iv, ahead.result, first)
        body.insert_op_before(AsyncCopyOp(c.load.view, coords, write.result, c.ring, stages), first)
    body.insert_op_before(AsyncCommitOp(), first)
    for c, _ in cands:
        replaced = c.reshape if c.reshape is not None else c.load
        ring_tile = RingTileOp(slot_arg, c.ring, stages, replaced.results[0].type)  # pyright: ignore[reportArgumentType]
        body.insert_op_before(ring_tile, c.load)
        replaced.results[0].replace_all_uses_with(ring_tile.result)
        for dead in (c.reshape, c.load):
            if dead is not None:
                dead.detach()
                dead.erase()
    is_last = kernel.CmpOp("eq", slot_arg, last_slot.result)
    inc = kernel.AddOp(slot_arg, one.result)
    nxt = kernel.SelectOp(is_last, zero_in.result, inc.result)
    body.insert_ops_before([is_last, inc, nxt], term)
    new_term = kernel.YieldOp([*term.operands, nxt.result])
    body.insert_op_before(new_term, term)
    term.detach()
    term.erase()

    new_loop = rebuild_loop(loop, outer, [zero.result])
    done = AsyncWaitOp(0)
    if d:  # the accumulator is read after the loop: its last wgmma group retires here
        done.attributes["tile.mma_in_flight"] = IntegerAttr(d, 64)
    outer.insert_op_after(done, new_loop)


def _ring_types(func: kernel.FuncOp, ids: list[int]) -> list[tuple[int, Attribute]] | None:
    """(ring id, slot tile type) of rings `ids` from their `tile.ring_tile`s (None when one has none
    or two types)."""
    types: dict[int, Attribute] = {}
    for op in func.walk():
        if isinstance(op, RingTileOp) and op.ring.value.data in ids:
            if types.setdefault(op.ring.value.data, op.result.type) != op.result.type:
                return None
    return [(i, types[i]) for i in ids] if len(types) == len(ids) else None


def _reuse_rings(func: kernel.FuncOp, block: Block, ids: list[int], done: list[tuple[Block, list[tuple[int, Attribute]]]], next_ring: list[int]) -> None:
    """The loop just pipelined (its rings `ids`) in `block` takes the rings of an earlier loop of the
    same block whose rings hold the same tiles, in order (attention's unmasked and masked loops): the
    earlier loop ends with `tile.async_wait {pending = 0}` and its barrier, so every copy into its rings
    has landed and every read of them is done before this loop's prologue copies. Otherwise `ids` are
    recorded for the loops after. Halves the dynamic shared memory of such kernels."""
    found = _ring_types(func, ids)
    if found is None:
        return
    sig = [t for _, t in found]
    for earlier_block, earlier in done:
        if earlier_block is block and [t for _, t in earlier] == sig:
            remap = {new: old for (new, _), (old, _) in zip(found, earlier)}
            for op in func.walk():
                if isinstance(op, AsyncCopyOp | RingTileOp) and op.ring.value.data in remap:
                    op.properties["ring"] = IntegerAttr(remap[op.ring.value.data], op.ring.type)
            next_ring[0] = ids[0]
            return
    done.append((block, found))


@dataclass(frozen=True)
class TilePipelinePass(ModulePass):
    """Pipeline tile.dot operand loads of K loops through a cp.async shared-memory ring."""

    name = "tile-pipeline"

    num_stages: int = 0
    """Ring depth; 0: the kernel's `tile.num_stages` attribute, else 3; 1: no pipelining."""
    OPTION_VALUES: ClassVar[dict[str, range]] = {"num_stages": range(0, 9)}
    """What each option takes (checked when the pipeline is built): 0, or 1–8 as `@tile.kernel(num_stages=)`."""
    chip: str = "sm_90"
    """The target chip: on `sm_90a` a wgmma dot keeps one MMA group in flight (module doc)."""
    features: str = ""
    module: str = ""
    """(`features`, `module`: the target options every target pass takes; unused here.)"""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in op.ops:
            if not isinstance(f, kernel.FuncOp) or "tile" not in f.attributes:
                continue
            attr = f.attributes.get("tile.num_stages")
            stages = self.num_stages or (attr.value.data if isinstance(attr, IntegerAttr) else DEFAULT_STAGES)
            if stages < 2:
                continue
            next_ring = [0]
            loops = [o for o in f.walk() if isinstance(o, kernel.ForOp)]
            done: list[tuple[Block, list[tuple[int, Attribute]]]] = []
            for loop in loops:
                if not any(isinstance(o, kernel.ForOp) for o in loop.body.walk()):  # innermost loops
                    first, block = next_ring[0], loop.parent_block()
                    _pipeline(loop, f, stages, next_ring, self.chip)
                    if next_ring[0] > first and block is not None:
                        _reuse_rings(f, block, list(range(first, next_ring[0])), done, next_ring)
