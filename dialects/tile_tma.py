"""The TMA + mbarrier ring of a wgmma K loop (`tile-tma-ring`): tile-level ops, lowered by `tile-to-gpu`
(`passes/lowerings/tile_tma.py`) on `sm_90a`.

A ring pipeline `p` of `S` stages has two mbarriers per stage in shared memory (PTX ISA §9.7.13.15):
`full[s]` (1 arrival: the producer's `arrive.expect_tx`; completes when the stage's TMA bytes have
landed) and `empty[s]` (one arrival per warp: every warp's wgmma group that read slot `s` has retired),
plus a spare `empty[S]`.
One thread (the producer, thread 0) issues the copies; every thread waits on `full` (and on `empty`
before a refill, so that no wait loop is in a divergent path).

```mlir
tile.tma_expect %slot, %valid, %parity {pipeline = 0 : i64, stages = 3 : i64, bytes = 32768 : i64} : si64, i1, si64
tile.tma_copy %desc, %view[%i, %k] into %slot, %valid {pipeline = 0 : i64, ring = 0 : i64, stages = 3 : i64} : !kernel.tensor_map<128x64xf16, "128B">, !tile.partition_view<...>, si64, i1, si64, si64
tile.tma_barrier
tile.tma_wait %slot, %phase {pipeline = 0 : i64, stages = 3 : i64} : si64, si64
tile.tma_release %prev {pipeline = 0 : i64, stages = 3 : i64} : si64
tile.tma_ring_end
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, opt_operand_def, prop_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.kernel_hopper import TensorMapType
from warpforge.dialects.tile import PartitionViewType


def _props(pipeline: int, stages: int, **more: int) -> dict[str, IntegerAttr]:
    out = {"pipeline": IntegerAttr(pipeline, i64), "stages": IntegerAttr(stages, i64)}
    out.update({k: IntegerAttr(v, i64) for k, v in more.items()})
    return out


class _RingOp(IRDLOperation):
    """An op of ring pipeline `pipeline` with `stages` (at least 2) slots: the two properties every
    ring op carries, in its attribute dictionary."""

    pipeline = prop_def(IntegerAttr)
    stages = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        stages = self.properties["stages"]
        assert isinstance(stages, IntegerAttr)
        if stages.value.data < 2:
            raise VerifyException(f"a TMA ring has at least 2 stages, got {stages.value.data}")


@irdl_op_definition
class TmaExpectOp(_RingOp):
    """`tile.tma_expect %slot, %valid[, %parity] {pipeline, stages, bytes}`: when `%parity` is given,
    every thread first waits until `empty[slot]` completed the phase of that parity (the slot's
    previous readers retired; a fresh barrier passes parity 1 at once: PTX ISA §9.7.13.15.16, the
    phase before phase 0 counts as complete); then, when `%valid`, the producer thread announces
    `bytes` (all the stage's copies) on `full[slot]` with `mbarrier.arrive.expect_tx` (§9.7.13.15.12)."""

    name = "tile.tma_expect"

    slot = operand_def()
    valid = operand_def()
    parity = opt_operand_def()
    bytes = prop_def(IntegerAttr)

    assembly_format = "$slot `,` $valid (`,` $parity^)? attr-dict `:` type($slot) `,` type($valid) (`,` type($parity)^)?"

    def __init__(self, slot: SSAValue, valid: SSAValue, parity: SSAValue | None, pipeline: int, stages: int, nbytes: int):
        super().__init__(operands=[slot, valid, [parity] if parity is not None else []], properties=_props(pipeline, stages, bytes=nbytes))


@irdl_op_definition
class TmaCopyOp(_RingOp):
    """`tile.tma_copy %desc, %view[%coords] into %slot, %valid {pipeline, ring, stages}`: when `%valid`,
    the producer thread copies the tile at tile coordinates `coords` of the 2-D partition view into
    slot `%slot` of ring `ring` with `cp.async.bulk.tensor` (PTX ISA §9.7.9.25.5.1) through the TMA
    descriptor `%desc` (a kernel parameter the launch builds for the view's tensor), completing on
    `full[slot]` of the pipeline; a ring read by wgmma as B (`ring_panels`) takes one copy per column
    panel. Elements past the tensor's edges are zero-filled by the TMA unit."""

    name = "tile.tma_copy"

    desc = operand_def(TensorMapType)
    view = operand_def(PartitionViewType)
    coords = var_operand_def()
    slot = operand_def()
    valid = operand_def()
    ring = prop_def(IntegerAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)  # and _RingOp's ParsePropInAttrDict
    assembly_format = "$desc `,` $view `[` $coords `]` `into` $slot `,` $valid attr-dict `:` type($desc) `,` type($view) `,` type($slot) `,` type($valid) `,` type($coords)"

    def __init__(self, desc: SSAValue, view: SSAValue, coords: Sequence[SSAValue], slot: SSAValue, valid: SSAValue, pipeline: int, ring: int, stages: int):
        super().__init__(operands=[desc, view, list(coords), slot, valid], properties=_props(pipeline, stages, ring=ring))

    def verify_(self) -> None:
        super().verify_()
        vt = self.view.type
        assert isinstance(vt, PartitionViewType)
        if len(vt.tile_type.dims) != 2 or len(self.coords) != 2:
            raise VerifyException(f"tile.tma_copy copies 2-D tiles at 2 coordinates, got a {vt.tile_type} tile and {len(self.coords)} coordinates")


@irdl_op_definition
class TmaBarrierOp(IRDLOperation):
    """`tile.tma_barrier`: a CTA barrier after the prologue's copies, so no thread waits on a stage
    whose bytes the producer has not announced yet."""

    name = "tile.tma_barrier"
    assembly_format = "attr-dict"


@irdl_op_definition
class TmaWaitOp(_RingOp):
    """`tile.tma_wait %slot, %phase {pipeline, stages}`: every thread waits until `full[slot]`
    completed the phase of parity `%phase` (`mbarrier.try_wait.parity` in a loop, PTX ISA
    §9.7.13.15.16): the slot's copies have landed and are visible to wgmma."""

    name = "tile.tma_wait"

    slot = operand_def()
    phase = operand_def()

    assembly_format = "$slot `,` $phase attr-dict `:` type($slot) `,` type($phase)"

    def __init__(self, slot: SSAValue, phase: SSAValue, pipeline: int, stages: int):
        super().__init__(operands=[slot, phase], properties=_props(pipeline, stages))


@irdl_op_definition
class TmaReleaseOp(_RingOp):
    """`tile.tma_release %slot[, %valid] {pipeline, stages}`: (when `%valid`) lane 0 of every warp
    arrives on `empty[slot]` (`mbarrier.arrive`, PTX ISA §9.7.13.15.13); placed after the `tile.dot`
    whose `wgmma.wait_group` retired the group that read the slot. Slot S is a spare barrier nobody
    waits on (the release of a step that has no predecessor)."""

    name = "tile.tma_release"

    slot = operand_def()
    valid = opt_operand_def()

    assembly_format = "$slot (`,` $valid^)? attr-dict `:` type($slot) (`,` type($valid)^)?"

    def __init__(self, slot: SSAValue, valid: SSAValue | None, pipeline: int, stages: int):
        super().__init__(operands=[slot, [valid] if valid is not None else []], properties=_props(pipeline, stages))


@irdl_op_definition
class TmaRingEndOp(IRDLOperation):
    """`tile.tma_ring_end`: after the K loop, `wgmma.wait_group 0` (the last group in flight retires
    before the accumulator is read); no copy is outstanding (the copies past the loop's end are not
    issued)."""

    name = "tile.tma_ring_end"
    assembly_format = "attr-dict"


TILE_TMA_OPS = (TmaBarrierOp, TmaCopyOp, TmaExpectOp, TmaReleaseOp, TmaRingEndOp, TmaWaitOp)
