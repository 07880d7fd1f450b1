"""`kernel` ops and types for Hopper's asynchronous copies: mbarriers and TMA (the frontend's
`simt.mbarrier`, `simt.mbarrier_*`, `simt.tma_load`, `simt.tma_store`; `simt.TensorMap` parameters).

An mbarrier lives in shared memory: at this level it is a `!kernel.shared<1xui64>` made by
`kernel.shared_array` (the frontend's typed handle guarantees that nothing else reads or writes it).
A TMA descriptor parameter has the type `!kernel.tensor_map<32x64xf16, "none">`: the box (outermost
first, as NumPy's), the element type and the shared-memory swizzle the host descriptor must have
(the runtime checks it at launch). All of it lowers (`kernel-to-gpu`) to the `nvgpu` ops of
`warpforge.dialects.nvgpu_hopper`.

```mlir
kernel.mbarrier_init %bar, %count : !kernel.shared<1xui64>, si32
kernel.mbarrier_arrive_expect_tx %bar, %bytes : !kernel.shared<1xui64>, si32
%ok = kernel.mbarrier_try_wait_parity %bar, %parity : !kernel.shared<1xui64>, si32
kernel.tma_load %tile, %desc[%row, %col], %bar : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "none">[si32, si32], !kernel.shared<1xui64>
kernel.tma_store %tile, %desc[%row, %col] : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "none">, si32, si32
```

Sources: PTX ISA §9.7.13.15 (mbarrier), §9.7.9.25.5 (`cp.async.bulk.tensor`); MLIR's NVGPU dialect
(`nvgpu.mbarrier.*`, `nvgpu.tma.async.load/store`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerType, StringAttr, i1
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, result_def, var_operand_def
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.kernel import SharedArrayType, check_scalar
from warpforge.dialects.nvgpu_hopper import TensorMapSyntax, mbarrier_op


@irdl_attr_definition
class TensorMapType(TensorMapSyntax, ParametrizedAttribute, TypeAttribute):
    """`!kernel.tensor_map<32x64xf16, "128B">`: a TMA descriptor (CUDA tensor map) parameter, passed
    `__grid_constant__`; one copy moves a box of this shape (outermost first) and element type,
    stored in shared memory with this swizzle. Box extents 1..256, rank 1..5 (PTX ISA §9.7.9.25.5)."""

    name = "kernel.tensor_map"

    box: ArrayAttr[IntAttr]
    element_type: Attribute
    swizzle: StringAttr


    def verify(self) -> None:
        check_scalar(self.element_type, "the element type of a tensor map")
        super().verify()


def _check_mbarrier(op: IRDLOperation, value: SSAValue) -> None:
    t = value.type
    if not (isinstance(t, SharedArrayType) and t.dims == (1,) and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 64):
        raise VerifyException(f"needs an mbarrier (a !kernel.shared<1xui64>), got {t}")


def _check_integer(op: IRDLOperation, value: SSAValue, what: str) -> None:
    if not isinstance(value.type, IntegerType) or value.type == i1:
        raise VerifyException(f"{what} must be an integer, got {value.type}")


class _MbarrierOp(IRDLOperation):
    """Base of the mbarrier ops: `$barrier` (their first operand) is the shared 8-byte mbarrier."""

    def verify_(self) -> None:
        _check_mbarrier(self, self.operands[0])
        for v in self.operands[1:]:
            _check_integer(self, v, "the count")


MbarrierInitOp = mbarrier_op(
    _MbarrierOp, "MbarrierInitOp", "kernel.mbarrier_init",
    """`simt.mbarrier_init(bar, count)`: `mbarrier.init.shared.b64` — phase 0, `count` arrivals per
    phase (PTX ISA §9.7.13.15.9).""",
    SharedArrayType, ("count", Attribute),
)
MbarrierArriveOp = mbarrier_op(
    _MbarrierOp, "MbarrierArriveOp", "kernel.mbarrier_arrive",
    """`simt.mbarrier_arrive(bar)`: `mbarrier.arrive.shared.b64`, one arrival of this thread
    (PTX ISA §9.7.13.15.13).""",
    SharedArrayType,
)
MbarrierArriveExpectTxOp = mbarrier_op(
    _MbarrierOp, "MbarrierArriveExpectTxOp", "kernel.mbarrier_arrive_expect_tx",
    """`simt.mbarrier_arrive_expect_tx(bar, nbytes)`: `mbarrier.arrive.expect_tx.shared.b64` — announce
    `nbytes` of asynchronous transactions (TMA loads) for the current phase, then arrive (PTX ISA
    §9.7.13.15.12).""",
    SharedArrayType, ("tx_count", Attribute),
)
MbarrierTryWaitParityOp = mbarrier_op(
    _MbarrierOp, "MbarrierTryWaitParityOp", "kernel.mbarrier_try_wait_parity",
    """`simt.mbarrier_try_wait(bar, parity)`: `mbarrier.try_wait.parity.shared.b64` — true when the
    phase of parity `parity` (0 or 1) has completed (PTX ISA §9.7.13.15.16). `simt.mbarrier_wait`
    loops on it (a `kernel.while`).""",
    SharedArrayType, ("parity", Attribute), tests_phase=True,
)


class _TmaOp(IRDLOperation):
    """Base of the TMA copies: `$tile` the shared box, `$desc` the descriptor, `$coords` the box's
    first element (outermost first; i32; out-of-bounds boxes are zero-filled on load, clipped on store)."""

    def verify_(self) -> None:
        t, d = self.tile.type, self.desc.type
        assert isinstance(t, SharedArrayType) and isinstance(d, TensorMapType)
        if t.dims != d.dims or t.element_type != d.element_type:
            raise VerifyException(f"the shared array {t} must have the descriptor's box and element type ({d})")
        if len(self.coords) != len(d.dims):
            raise VerifyException(f"a rank-{len(d.dims)} descriptor takes {len(d.dims)} coordinates, got {len(self.coords)}")
        for c in self.coords:
            _check_integer(self, c, "a coordinate")


@irdl_op_definition
class TmaLoadOp(_TmaOp):
    """`simt.tma_load(tile, desc, coords, bar)`: `cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.
    mbarrier::complete_tx::bytes` — copy the box at `coords` into `tile`; its bytes complete as
    transactions on `bar` (PTX ISA §9.7.9.25.5.1)."""

    name = "kernel.tma_load"
    tile = operand_def(SharedArrayType)
    desc = operand_def(TensorMapType)
    coords = var_operand_def()
    barrier = operand_def(SharedArrayType)
    assembly_format = (
        "$tile `,` $desc `[` $coords `]` `,` $barrier attr-dict `:` type($tile) `,` type($desc) `[` type($coords) `]` `,` type($barrier)"
    )

    def __init__(self, tile: SSAValue, desc: SSAValue, coords: Sequence[SSAValue], barrier: SSAValue):
        super().__init__(operands=[tile, desc, list(coords), barrier])

    def verify_(self) -> None:
        super().verify_()
        _check_mbarrier(self, self.barrier)


@irdl_op_definition
class TmaStoreOp(_TmaOp):
    """`simt.tma_store(tile, desc, coords)`: `cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group`
    — copy `tile` to the box at `coords` (elements outside the tensor are not written), tracked by this
    thread's bulk async-group (PTX ISA §9.7.9.25.5.2)."""

    name = "kernel.tma_store"
    tile = operand_def(SharedArrayType)
    desc = operand_def(TensorMapType)
    coords = var_operand_def()
    assembly_format = "$tile `,` $desc `[` $coords `]` attr-dict `:` type($tile) `,` type($desc) `,` type($coords)"

    def __init__(self, tile: SSAValue, desc: SSAValue, coords: Sequence[SSAValue]):
        super().__init__(operands=[tile, desc, list(coords)])


@irdl_op_definition
class ElectSyncOp(IRDLOperation):
    """`%leader = kernel.elect_sync : i1`: `simt.elect_sync()`, `elect.sync` over the full warp — true in
    exactly one lane of the warp (the lowest active one) (PTX ISA §9.7.13.12). Every lane must call it."""

    name = "kernel.elect_sync"
    result = result_def(i1)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[i1])


KERNEL_HOPPER_OPS = (ElectSyncOp, MbarrierInitOp, MbarrierArriveOp, MbarrierArriveExpectTxOp, MbarrierTryWaitParityOp, TmaLoadOp, TmaStoreOp)
KERNEL_HOPPER_TYPES = (TensorMapType,)

