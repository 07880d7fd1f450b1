"""`tile-tma-ring`: on `sm_90a`, turn the `cp.async` ring of a wgmma K loop (`tile-pipeline`'s, with one
MMA group in flight) into a TMA + mbarrier ring (the scheme of MLIR's NVDSL GEMM tutorial, CUTLASS's
TMA multistage mainloop and Triton's MMAv3 pipeline; our own code).

Runs after `tile-pipeline`. A loop qualifies when its one `tile.dot` carries `tile.mma_in_flight = 1`
(so it will be a wgmma, `tile_dot_wgmma.py`), it sits directly in the kernel's body (the ring's
phases start once per kernel), and each operand ring's tensor can be described by a TMA descriptor
(`tma_box`): a contiguous 2-D tensor parameter of 16-bit floats, 16-byte aligned with rows a multiple
of 16 bytes (`tile.arg_info`, the launch-time specialization the `cp.async` ring already needs), and
a box of at most 256 rows whose inner row is the swizzle span wgmma reads (A: BM × BK, BK·2 bytes in
{32, 64, 128}; B: BK × P per column panel, P = min(BN, 64)). Otherwise the `cp.async` ring stays.

For `S` stages (pipeline `p`, one group in flight: the prologue fills S - 2 stages, step k refills
the slot of step k - 2 for step k + S - 2):

```
tile.tma_expect %s_j, %valid_j {bytes = A + B bytes}     ; tile.tma_copy %descA, ... ; tile.tma_copy %descB, ...   (j = 0 … S-3)
tile.tma_barrier
kernel.for %k ... iter_args(..., %slot = 0, %phase = 0, %prev = S) {
  tile.tma_expect %w, %k+S-2 < hi, %phase ^ (slot < 2)    // all: empty[w] released; producer: announce the bytes
  tile.tma_copy %descA, %viewA[...] into %w, ... ; tile.tma_copy %descB, ...
  tile.tma_wait %slot, %phase                              // every thread: full[slot] landed
  ... tile.ring_tile %slot ... tile.dot {tile.mma_in_flight = 1}   (wgmma; wait_group 1)
  tile.tma_release %prev                                    // the group of step k - 1 retired (S: a spare)
  kernel.yield ..., (slot + 1) mod S, slot == S-1 ? phase ^ 1 : phase, slot
}
tile.tma_ring_end                                          // wgmma.wait_group 0
```

The producer's parity for `empty[w]` is that of the slot's previous use (`phase ^ (slot < 2)`): on
the first S - 2 refills the slot was never used and parity 1 passes at once on a fresh barrier. No
copy is issued for a step past the loop's end, so none is outstanding when the CTA exits. Each
descriptor is a new kernel parameter (`!kernel.tensor_map`, appended after the kernel's own), and
`tile.tma_params` lists, per descriptor, the index of the tensor parameter the launch builds it from.

**Prefetch depth.** With one group in flight, S slots prefetch S - 2 steps ahead, the most they can:
while step k's group is issued, slot k - 1 is still read by the group of step k - 1 (retired only by
step k's `wait_group 1`, after that issue: no wgmma completion arrives on a barrier) and slot k by
step k's, so S - 2 slots are left for the steps after k. The refill of slot k - 1 (for step k + S - 1)
waits for that release, at the top of step k + 1 — the same point in the program as right after the
release. Triton's pipeliner does the same with the same memory: for an async wgmma it allocates
`num_stages` - 1 buffers plus one for the group in flight, and issues step k + S - 1's load in step
k after its `wait(1)` (S = `num_stages`; the end of step k is the top of step k + 1). A loop waiting on memory latency
(a skinny GEMM streaming B from HBM) wants 6 to 8 stages.

Option `group_m` (default 8): such a kernel gets `tile.group_m`, and `tile-to-gpu` maps its block ids
to tile coordinates in groups of that many tile rows (L2 reuse; `tile_to_gpu/program.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ArrayAttr, BFloat16Type, DictionaryAttr, Float16Type, FunctionType, IntegerAttr
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass

from warpforge.dialects import kernel, tile
from warpforge.dialects.kernel_hopper import TensorMapType
from warpforge.dialects.tile_dot import AsyncCommitOp, AsyncCopyOp, AsyncWaitOp, DotOp, RingTileOp
from warpforge.dialects.tile_tma import TmaBarrierOp, TmaCopyOp, TmaExpectOp, TmaReleaseOp, TmaRingEndOp, TmaWaitOp
from warpforge.passes.tile_pipeline import rebuild_loop

TMA_CHIPS = ("sm_90a",)
MAX_BOX = 256
SWIZZLES = {32: "32B", 64: "64B", 128: "128B"}
"""Swizzle span in bytes → the descriptor's swizzle (`CU_TENSOR_MAP_SWIZZLE_*`), the same XOR pattern
as the ring's (`tile_dot.swizzle_for`) and wgmma's descriptor modes."""


def _const(value: int) -> kernel.ConstantOp:
    return kernel.ConstantOp(IntegerAttr(value, kernel.SI64))


def tma_box(view: SSAValue, func: kernel.FuncOp, operand: str) -> tuple[int, tuple[int, int], int, str] | None:
    """(parameter index, box, panels, swizzle) of the TMA copies of a ring operand (`operand`: "a" or
    "b") loaded from `view`, or None when a descriptor cannot describe it (module doc)."""
    pv_op = view.owner
    if not isinstance(pv_op, tile.MakePartitionViewOp):
        return None
    pvt = pv_op.result.type
    assert isinstance(pvt, tile.PartitionViewType)
    dims = pvt.tile_type.dims
    tensor = pvt.tensor
    if len(dims) != 2 or tensor.rank != 2 or not tensor.contiguous or not isinstance(pvt.tile_type.element_type, Float16Type | BFloat16Type):
        return None
    entry = func.body.blocks.first
    if entry is None or pv_op.source not in entry.args:
        return None
    index = list(entry.args).index(pv_op.source)  # pyright: ignore[reportArgumentType]
    infos = func.attributes.get("tile.arg_info")
    info = infos.data[index] if isinstance(infos, builtin.ArrayAttr) and index < len(infos.data) else None
    if not isinstance(info, DictionaryAttr):
        return None
    align, div = info.data.get("align"), info.data.get("divisibility")
    last = tensor.dims[-1]
    row_div = last if last != builtin.DYNAMIC_INDEX else (div.get_values()[-1] if isinstance(div, builtin.DenseArrayBase) else 1)
    if not isinstance(align, IntegerAttr) or align.value.data < 16 or (2 * row_div) % 16:  # pyright: ignore[reportOperatorIssue]
        return None  # TMA: global address and row stride multiples of 16 bytes
    rows, cols = dims
    width = cols if operand == "a" else min(cols, 64)
    span = 2 * width
    if rows > MAX_BOX or span not in SWIZZLES or cols % width:
        return None
    return index, (rows, width), cols // width, SWIZZLES[span]


@dataclass
class _Ring:
    ring: int
    index: int
    box: tuple[int, int]
    panels: int
    swizzle: str
    desc: SSAValue | None = None


def _ring_loop(func: kernel.FuncOp, loop: kernel.ForOp, pipeline: int) -> bool:
    """Rewrite `loop` (module doc); False (nothing changed) when it does not qualify."""
    body = loop.body.block
    dots = [op for op in body.ops if isinstance(op, DotOp)]
    if len(dots) != 1 or not isinstance(dots[0].attributes.get("tile.mma_in_flight"), IntegerAttr):
        return False
    dot = dots[0]
    if dot.attributes["tile.mma_in_flight"].value.data != 1:  # pyright: ignore[reportAttributeAccessIssue]
        return False
    outer = loop.parent_block()
    if outer is None or loop.parent_op() is not func:
        return False
    after = loop.next_op
    if not isinstance(after, AsyncWaitOp) or "tile.mma_in_flight" not in after.attributes:
        return False
    ra, rb = dot.lhs.owner, dot.rhs.owner
    if not (isinstance(ra, RingTileOp) and isinstance(rb, RingTileOp)):
        return False
    stages = ra.stages.value.data
    slot_arg = ra.slot
    rings = {ra.ring.value.data: "a", rb.ring.value.data: "b"}
    copies = [op for op in func.walk() if isinstance(op, AsyncCopyOp) and op.ring.value.data in rings]
    found: dict[int, _Ring] = {}
    for c in copies:
        got = tma_box(c.view, func, rings[c.ring.value.data])
        if got is None:
            return False
        r = _Ring(c.ring.value.data, *got)
        if found.setdefault(r.ring, r) != r:
            return False
    if set(found) != set(rings):
        return False
    step = loop.step.owner
    if not isinstance(step, kernel.ConstantOp) or not isinstance(step.value, IntegerAttr):
        return False
    step_n = step.value.value.data
    nbytes = sum(2 * r.box[0] * r.box[1] * r.panels for r in found.values())

    # the descriptors: new parameters after the kernel's own
    entry = func.body.blocks.first
    assert entry is not None
    params = list(func.attributes["tile.tma_params"].data) if "tile.tma_params" in func.attributes else []  # pyright: ignore[reportAttributeAccessIssue]
    for r in found.values():
        elem = entry.args[r.index].type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        r.desc = entry.insert_arg(TensorMapType(r.box, elem, r.swizzle), len(entry.args))
        r.desc.name_hint = f"{entry.args[r.index].name_hint or 'arg'}_tma"
        params.append(IntegerAttr(r.index, 64))
    func.attributes["tile.tma_params"] = ArrayAttr(params)
    func.function_type = FunctionType.from_lists(list(entry.arg_types), list(func.function_type.outputs.data))

    def as_tma(c: AsyncCopyOp, slot: SSAValue, valid: SSAValue) -> None:
        r = found[c.ring.value.data]
        assert r.desc is not None
        new = TmaCopyOp(r.desc, c.view, list(c.coords), slot, valid, pipeline, r.ring, stages)
        new.location = c.location
        block = c.parent_block()
        assert block is not None
        block.insert_op_before(new, c)
        c.detach()
        c.erase()

    # prologue: the groups before the loop, one slot each
    group: list[AsyncCopyOp] = []
    j = 0
    for op in list(outer.ops):
        if op is loop:
            break
        if isinstance(op, AsyncCopyOp) and op.ring.value.data in rings:
            group.append(op)
        elif isinstance(op, AsyncCommitOp) and group:
            off = _const(j * step_n)
            iv = kernel.AddOp(loop.lower, off)
            valid = kernel.CmpOp("lt", iv, loop.upper)
            expect = TmaExpectOp(group[0].slot, valid.result, None, pipeline, stages, nbytes)
            outer.insert_ops_before([off, iv, valid, expect], group[0])
            for c in group:
                as_tma(c, c.slot, valid.result)
            op.detach()
            op.erase()
            group = []
            j += 1
    outer.insert_op_before(TmaBarrierOp(), loop)

    # the loop body
    iv = body.args[0]
    phase = body.insert_arg(kernel.SI64, len(body.args))
    phase.name_hint = "phase"
    first = body.first_op
    if isinstance(first, AsyncWaitOp):
        first.detach()
        first.erase()
    inner = [op for op in body.ops if isinstance(op, AsyncCopyOp) and op.ring.value.data in rings]
    commit = next((op for op in body.ops if isinstance(op, AsyncCommitOp)), None)
    if not inner or commit is None:
        raise AssertionError("tile-pipeline's loop has its refill copies and their commit")
    write = inner[0].slot
    ahead_off = _const((stages - 2) * step_n)
    ahead = kernel.AddOp(iv, ahead_off)
    refill = kernel.CmpOp("lt", ahead, loop.upper)
    one, zero, two = _const(1), _const(0), _const(2)
    fresh = kernel.CmpOp("lt", slot_arg, two)
    flip = kernel.SelectOp(fresh, one, zero)
    parity = kernel.XorOp(phase, flip)
    expect = TmaExpectOp(write, refill.result, parity.result, pipeline, stages, nbytes)
    body.insert_ops_before([ahead_off, ahead, refill, one, zero, two, fresh, flip, parity, expect], inner[0])
    for c in inner:
        as_tma(c, c.slot, refill.result)
    wait = TmaWaitOp(slot_arg, phase, pipeline, stages)
    body.insert_op_before(wait, commit)
    commit.detach()
    commit.erase()
    # the previous step's slot is carried (S, the spare barrier, on the first step: a test of k == lo
    # instead makes LLVM peel the first iteration, doubling the wgmma code)
    prev = body.insert_arg(kernel.SI64, len(body.args))
    prev.name_hint = "prev"
    last = _const(stages - 1)
    release = TmaReleaseOp(prev, None, pipeline, stages)
    body.insert_ops_after([last, release], dot)
    term = body.last_op
    assert isinstance(term, kernel.YieldOp)
    wraps = kernel.CmpOp("eq", slot_arg, last.result)
    flipped = kernel.XorOp(phase, one.result)
    next_phase = kernel.SelectOp(wraps, flipped.result, phase)
    body.insert_ops_before([wraps, flipped, next_phase], term)
    new_term = kernel.YieldOp([*term.operands, next_phase.result, slot_arg])
    body.insert_op_before(new_term, term)
    term.detach()
    term.erase()

    phase0, spare = _const(0), _const(stages)
    outer.insert_ops_before([phase0, spare], loop)
    rebuild_loop(loop, outer, [phase0.result, spare.result])
    end = TmaRingEndOp()
    end.location = after.location
    outer.insert_op_before(end, after)
    after.detach()
    after.erase()
    return True


def _loops(func: kernel.FuncOp) -> list[kernel.ForOp]:
    entry = func.body.blocks.first
    blocks: list[Block] = list(func.body.blocks) if entry is not None else []
    return [op for b in blocks for op in b.ops if isinstance(op, kernel.ForOp)]


@dataclass(frozen=True)
class TileTmaRingPass(ModulePass):
    """On sm_90a, feed a wgmma K loop's operand rings by TMA copies synchronized by mbarriers."""

    name = "tile-tma-ring"

    chip: str = "sm_90"
    """The target chip: only `sm_90a` has TMA and wgmma here; elsewhere the pass changes nothing."""
    group_m: int = 8
    """A kernel given a TMA ring walks its 2-D grid in groups of this many tile rows (`tile.group_m`,
    read by `tile-to-gpu`'s `tile.block_coord`: L2 reuse of the operand tiles); 1: row-major."""
    features: str = ""
    module: str = ""
    """(`features`, `module`: the target options every target pass takes; unused here.)"""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.chip not in TMA_CHIPS:
            return
        for f in op.ops:
            if not isinstance(f, kernel.FuncOp) or "tile" not in f.attributes:
                continue
            pipeline = 0
            for loop in _loops(f):
                if _ring_loop(f, loop, pipeline):
                    pipeline += 1
            if pipeline and self.group_m > 1 and "tile.group_m" not in f.attributes:
                f.attributes["tile.group_m"] = IntegerAttr(self.group_m, 64)

