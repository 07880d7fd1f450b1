"""`tile-to-gpu`'s lowering of the TMA + mbarrier ring ops (`dialects/tile_tma.py`, built by
`tile-tma-ring`); registered into its `@lowers` table when `tile_dot` loads.

**Barriers.** Pipeline p of S stages keeps 2·S + 1 mbarriers (8 bytes each) in the launch's dynamic
shared memory, next to the rings: `full[s]` at byte 8·s, `empty[s]` at 8·(S + s) (s ≤ S: `empty[S]` is
the spare a first step releases). At the end of the entry
block thread 0 initializes `full[s]` to 1 arrival and `empty[s]` to one arrival per warp
(`mbarrier.init`, PTX ISA §9.7.13.15.9), then `fence.proxy.async.shared::cta` (the TMA unit's
complete-tx sees the initialized barriers) and a CTA barrier (every thread sees them).

| op | becomes |
|---|---|
| `tile.tma_expect` | every thread: `nvvm.mbarrier.wait.parity` on `empty[slot]` (when a parity is given; outside the producer's branch, see below); then thread 0, when valid: `nvgpu.mbarrier.arrive.expect_tx` on `full[slot]` with the stage's bytes |
| `tile.tma_copy` | thread 0, when valid: `nvgpu.tma.async.load` of the box at element coordinates (row·R, col·C + panel·P) into the ring slot's panel (a `memref.view` of R×P), on `full[slot]` |
| `tile.tma_wait` | every thread: `nvvm.mbarrier.wait.parity` on `full[slot]` with the phase's parity |
| `tile.tma_release` | lane 0 of every warp (when valid): `nvgpu.mbarrier.arrive` on `empty[slot]` |
| `tile.tma_barrier` | `gpu.barrier` |
| `tile.tma_ring_end` | `nvvm.wgmma.wait.group.sync.aligned 0` |

No wait loop sits in a divergent path: ptxas serializes every wgmma of a kernel that has one
(warning C7520, "compiler-inserted WG.AR in divergent path"), so the producer's `empty` wait runs in
every thread (the slot's readers released it one step earlier, so it seldom waits), and the wait
loops branch with `bra.uni` (every lane of a warp sees the same phase).

The ring slots are the wgmma rings of `tile_dot._ring` (1024-byte aligned, slot s of ring r at
s·R·C·2 bytes, B's column panels of R×P one after another): the TMA's 128/64/32-byte swizzle
(`CU_TENSOR_MAP_SWIZZLE_*`: 16-byte chunk c of 128-byte line l at c ^ (l mod 8), from the address
bits) is the ring's `swizzle_for` and the wgmma descriptors' mode, because each box starts at a
multiple of its swizzle's 1024/512/256-byte period.
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, i1, i32, i64
from xdsl.ir import Operation, SSAValue

from warpforge.diagnostics import error_at
from warpforge.dialects import gpu, kernel, nvgpu_hopper, nvvm
from warpforge.dialects.tile_tma import TmaBarrierOp, TmaCopyOp, TmaExpectOp, TmaReleaseOp, TmaRingEndOp, TmaWaitOp
from warpforge.passes.kernel_to_gpu import SHARED, Emitter, cast_value, signless
from warpforge.passes.lowerings.tile_dot import MAX_DYNAMIC_SHARED, RING_ALIGN, _ring, copied_view, element_bytes  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.lowering import _TileFunctionLowering, lowers  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.memory import _coords64  # pyright: ignore[reportPrivateUsage]

BARRIER = MemRefType(IntegerType(64), [1], memory_space=SHARED)
"""One mbarrier: 8 bytes of shared memory (PTX ISA §9.7.13.15.3), as `nvgpu`'s mbarrier ops take it."""


def _raw(fl: _TileFunctionLowering) -> SSAValue:
    return fl.at_entry(("dynamic_shared",), lambda x: x(gpu.DynamicSharedMemoryOp()))


def _leader(fl: _TileFunctionLowering) -> SSAValue:
    tid = fl.tid
    assert tid is not None
    return fl.at_entry(("tma_leader",), lambda x: x(arith.CmpiOp(tid, x.const(0, i64), "eq")))


def _barriers(fl: _TileFunctionLowering, op: Operation, pipeline: int, stages: int) -> SSAValue:
    """The byte shift (index) of pipeline `pipeline`'s first barrier from the dynamic shared memory's
    start; places and initializes the 2·S barriers at their first use (module doc)."""
    key = ("tma_barriers", pipeline)
    if key in fl.cache:
        return fl.cache[key]
    reserved = RING_ALIGN if ("ring_align",) in fl.cache else 0
    offset = -(-(fl.dynamic_shared - reserved) // 8) * 8
    fl.dynamic_shared = offset + reserved + 8 * (2 * stages + 1)
    if fl.dynamic_shared > MAX_DYNAMIC_SHARED:
        raise error_at(op, f"the TMA ring of this kernel needs {fl.dynamic_shared} bytes of shared memory, more than the {MAX_DYNAMIC_SHARED} a CTA can have; use fewer stages (num_stages) or smaller tiles")
    from warpforge.passes.lowerings.tile_dot_wgmma import aligned_shift  # (tile_dot_wgmma imports tile_dot, which imports this module)

    raw = _raw(fl)
    leader = _leader(fl)
    warps = fl.threads // 32

    def build(x: Emitter) -> SSAValue:
        shift = aligned_shift(fl, x, raw, offset)

        def init(b: Emitter) -> None:
            for s in range(2 * stages + 1):
                bar = b(memref.ViewOp(raw, b(arith.AddiOp(shift, b.const(8 * s, IndexType()))), [], BARRIER))
                b(nvgpu_hopper.MBarrierInitOp(bar, b.const(1 if s < stages else warps, i32)))
            b(nvvm.op("nvvm.fence.proxy.async.shared.cta")())  # pyright: ignore[reportCallIssue]

        fl.when(x, leader, init)
        x(gpu.BarrierOp())
        return shift

    return fl.at_entry(key, build)


def _slot(fl: _TileFunctionLowering, e: Emitter, slot: SSAValue) -> SSAValue:
    return cast_value(e, fl.v(slot), slot.type, kernel.SI64)


def _barrier_shift(fl: _TileFunctionLowering, e: Emitter, op: Operation, slot: SSAValue, empty: bool) -> SSAValue:
    pipeline, stages = op.properties["pipeline"].value.data, op.properties["stages"].value.data  # pyright: ignore[reportAttributeAccessIssue]
    base = _barriers(fl, op, pipeline, stages)
    s = _slot(fl, e, slot)
    if empty:
        s = e(arith.AddiOp(s, e.const(stages, i64)))
    return e(arith.AddiOp(base, e(arith.IndexCastOp(e(arith.ShLIOp(s, e.const(3, i64))), IndexType()))))


def _barrier(fl: _TileFunctionLowering, e: Emitter, op: Operation, slot: SSAValue, empty: bool) -> SSAValue:
    return e(memref.ViewOp(_raw(fl), _barrier_shift(fl, e, op, slot, empty), [], BARRIER))


def _barrier_address(fl: _TileFunctionLowering, e: Emitter, op: Operation, slot: SSAValue, empty: bool) -> SSAValue:
    """The i32 shared-window address of the barrier (what `nvvm.mbarrier.wait.parity` takes)."""
    from warpforge.passes.lowerings.tile_dot_wgmma import shared_address

    shift = _barrier_shift(fl, e, op, slot, empty)
    addr = e(arith.AddiOp(shared_address(fl, _raw(fl)), e(arith.IndexCastOp(shift, i64))))
    return e(arith.TruncIOp(addr, i32))


def _parity(fl: _TileFunctionLowering, e: Emitter, v: SSAValue) -> SSAValue:
    return e(arith.TruncIOp(e(arith.AndIOp(_slot(fl, e, v), e.const(1, i64))), i32))


def _when_leader(fl: _TileFunctionLowering, e: Emitter, valid: SSAValue) -> SSAValue:
    v = fl.v(valid)
    assert v.type == i1
    return e(arith.AndIOp(_leader(fl), v))


@lowers(TmaExpectOp)
def _expect(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, TmaExpectOp)

    if op.parity is not None:
        # every thread, outside the producer's branch: a wait loop in a divergent path makes ptxas
        # serialize the wgmma (C7520); the slot's readers released it a step ago, so it rarely waits
        e(nvvm.MBarrierWaitParityOp(_barrier_address(fl, e, op, op.slot, True), _parity(fl, e, op.parity)))
    fl.when(e, _when_leader(fl, e, op.valid), lambda b: b(nvgpu_hopper.MBarrierArriveExpectTxOp(_barrier(fl, b, op, op.slot, False), b.const(op.bytes.value.data, i32))))  # pyright: ignore[reportArgumentType]


@lowers(TmaCopyOp)
def _copy(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, TmaCopyOp)
    pv = copied_view(fl, op)
    ring = op.ring.value.data
    if ring not in fl.ring_panels:
        raise error_at(op, f"tile.tma_copy: ring {ring} is not read by wgmma (its slots would not have the TMA's swizzled layout)")
    rows, cols = pv.tile[-2], pv.tile[-1]
    elem = signless(pv.view.elem)
    buf, _, panel = _ring(fl, op, (rows, cols), pv.view.elem)  # pyright: ignore[reportArgumentType]
    view_op = buf.owner
    assert isinstance(view_op, memref.ViewOp)
    ring_shift = view_op.byte_shift
    width = panel[1] if panel is not None else cols
    nbytes = element_bytes(elem)
    box = MemRefType(elem, [rows, width], memory_space=SHARED)
    desc = fl.v(op.desc)
    tile_r, tile_c = _coords64(fl, e, op.coords)
    row0 = e(arith.MuliOp(tile_r, e.const(rows, i64)))
    col0 = e(arith.MuliOp(tile_c, e.const(cols, i64)))

    def body(b: Emitter) -> None:
        full = _barrier(fl, b, op, op.slot, False)
        slot_off = b(arith.MuliOp(_slot(fl, b, op.slot), b.const(rows * cols * nbytes, i64)))
        base = b(arith.AddiOp(ring_shift, b(arith.IndexCastOp(slot_off, IndexType()))))
        row = b(arith.TruncIOp(row0, i32))
        for p in range(cols // width):
            shift = b(arith.AddiOp(base, b.const(p * rows * width * nbytes, IndexType()))) if p else base
            dst = b(memref.ViewOp(_raw(fl), shift, [], box))
            col = b(arith.TruncIOp(b(arith.AddiOp(col0, b.const(p * width, i64))) if p else col0, i32))
            b(nvgpu_hopper.TmaAsyncLoadOp(desc, [row, col], full, dst))

    fl.when(e, _when_leader(fl, e, op.valid), body)


@lowers(TmaWaitOp)
def _wait(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, TmaWaitOp)
    e(nvvm.MBarrierWaitParityOp(_barrier_address(fl, e, op, op.slot, False), _parity(fl, e, op.phase)))


@lowers(TmaReleaseOp)
def _release(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, TmaReleaseOp)
    tid = fl.tid
    assert tid is not None
    lane0 = fl.at_entry(("lane0",), lambda x: x(arith.CmpiOp(x(arith.AndIOp(tid, x.const(31, i64))), x.const(0, i64), "eq")))
    cond = e(arith.AndIOp(lane0, fl.v(op.valid))) if op.valid is not None else lane0
    fl.when(e, cond, lambda b: b(nvgpu_hopper.MBarrierArriveOp(_barrier(fl, b, op, op.slot, True))))  # pyright: ignore[reportArgumentType]


@lowers(TmaBarrierOp)
def _barrier_op(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    e(gpu.BarrierOp())


@lowers(TmaRingEndOp)
def _ring_end(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    e(nvvm.op("nvvm.wgmma.wait.group.sync.aligned")(n=0))  # pyright: ignore[reportCallIssue]
    fl.cache[("rings_drained",)] = True  # no copy in flight: a later tile store may stage through the rings' space
