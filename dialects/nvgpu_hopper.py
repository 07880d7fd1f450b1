"""`nvgpu` ops for Hopper mbarriers and TMA copies, on memrefs — named as MLIR's NVGPU dialect
(`nvgpu.mbarrier.init`, `nvgpu.mbarrier.arrive.expect_tx`, `nvgpu.mbarrier.try_wait.parity`,
`nvgpu.tma.async.load`, `nvgpu.tma.async.store`, `!nvgpu.tensormap.descriptor`).

```mlir
nvgpu.mbarrier.init %bar, %count : memref<1xi64, 3 : i32>, i32
nvgpu.mbarrier.arrive %bar : memref<1xi64, 3 : i32>
nvgpu.mbarrier.arrive.expect_tx %bar, %bytes : memref<1xi64, 3 : i32>, i32
%done = nvgpu.mbarrier.try_wait.parity %bar, %parity : memref<1xi64, 3 : i32>, i32
nvgpu.tma.async.load %desc[%row, %col], %bar to %tile : !nvgpu.tensormap.descriptor<32x64xf16, "none">[i32, i32], memref<1xi64, 3 : i32>, memref<32x64xf16, 3 : i32>
nvgpu.tma.async.store %tile to %desc[%row, %col] : memref<32x64xf16, 3 : i32>, !nvgpu.tensormap.descriptor<32x64xf16, "none">, i32, i32
```

Differences from MLIR's NVGPU, on purpose: a barrier is a `memref<1xi64, 3>` (MLIR: an
`!nvgpu.mbarrier.group` indexed by a barrier number), so the simulator and the memref lowering see
ordinary shared memory; `try_wait.parity` tries once and returns whether the phase completed (MLIR's
op loops until it has: here the loop is explicit in the IR, `simt.mbarrier_wait`); coordinates are
outermost first, as the memref's dimensions (PTX takes them innermost first: the lowering reverses
them); the descriptor type spells only the box, element type and swizzle (no L2 promotion, OOB fill
or interleave: warpforge's descriptors use L2 128-byte promotion, zero fill, no interleave).
`convert-nvgpu-to-nvvm` lowers them to the `nvvm` catalog rows (PTX ISA §9.7.13.15, §9.7.9.25.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import TypeVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerType, MemRefType, StringAttr, i1
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import IRDLAttrConstraint, IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, result_def, var_operand_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import int_array, int_tuple
from warpforge.dialects.element_types import byte_size

_Op = TypeVar("_Op", bound=IRDLOperation)

SHARED_SPACE = 3
SWIZZLES = ("none", "32B", "64B", "128B")
"""TMA shared-memory swizzle modes (`CUtensorMapSwizzle`), as `warpforge.runtime.tma` names them."""

MAX_TMA_RANK = 5
MAX_BOX = 256
"""A tensor map's box: rank 1..5, extents 1..256 (PTX ISA §9.7.9.25.5, `cuTensorMapEncodeTiled`)."""


class TensorMapSyntax:
    """The construction and syntax `<32x64xf16, "128B">` (box, outermost first; element type; swizzle) of
    the two tensor-map types, `!nvgpu.tensormap.descriptor` and `!kernel.tensor_map`. Methods only: each
    type declares its own parameters `box`, `element_type`, `swizzle`; `verify` checks the box's rank
    and extents and the swizzle's name."""

    box: ArrayAttr[IntAttr]
    element_type: Attribute
    swizzle: StringAttr

    def __init__(self, box: Sequence[int], element_type: Attribute, swizzle: str = "none"):
        super().__init__(int_array(box), element_type, StringAttr(swizzle))

    @property
    def dims(self) -> tuple[int, ...]:
        return int_tuple(self.box)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        dims, elem = parser.parse_ranked_shape()
        parser.parse_punctuation(",")
        swizzle = parser.parse_str_literal()
        parser.parse_punctuation(">")
        return [int_array(dims), elem, StringAttr(swizzle)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{d}x" for d in self.dims))
        printer.print_attribute(self.element_type)
        printer.print_string(f', "{self.swizzle.data}">')

    def verify(self) -> None:
        if not 1 <= len(self.dims) <= MAX_TMA_RANK:
            raise VerifyException(f"a tensor map box has rank 1 to {MAX_TMA_RANK}, got {len(self.dims)}")
        if any(not 1 <= d <= MAX_BOX for d in self.dims):
            raise VerifyException(f"tensor map box extents must be in [1, {MAX_BOX}], got {list(self.dims)}")
        if self.swizzle.data not in SWIZZLES:
            raise VerifyException(f"unknown tensor map swizzle {self.swizzle.data!r} (one of {', '.join(SWIZZLES)})")

    def box_bytes(self) -> int:
        """Bytes one copy of the box moves (what `mbarrier.arrive.expect_tx` announces)."""
        return prod(self.dims) * byte_size(self.element_type)


@irdl_attr_definition
class TensorMapDescriptorType(TensorMapSyntax, ParametrizedAttribute, TypeAttribute):
    """`!nvgpu.tensormap.descriptor<32x64xf16, "128B">`: a TMA descriptor kernel parameter (a
    `__grid_constant__` 128-byte `CUtensorMap`, lowered to `ptr byval([128 x i8]) align 64`): boxes of
    this shape (outermost first) and element type, swizzled in shared memory as named."""

    name = "nvgpu.tensormap.descriptor"

    box: ArrayAttr[IntAttr]
    element_type: Attribute
    swizzle: StringAttr


def _shared(t: Attribute) -> bool:
    if not isinstance(t, MemRefType):
        return False
    space = t.memory_space
    return getattr(space, "value", None) is not None and space.value.data == SHARED_SPACE  # pyright: ignore[reportAttributeAccessIssue]


def _check_barrier(op: IRDLOperation, value: SSAValue) -> None:
    t = value.type
    if not (_shared(t) and t.get_shape() == (1,) and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 64):  # pyright: ignore[reportAttributeAccessIssue]
        raise VerifyException(f"needs an mbarrier, a memref<1xi64, 3 : i32>; got {t}")


class _MBarrierOp(IRDLOperation):
    def verify_(self) -> None:
        _check_barrier(self, self.operands[0])


def mbarrier_op(
    base: type[_Op], class_name: str, name: str, doc: str, barrier: IRDLAttrConstraint,
    value: tuple[str, IRDLAttrConstraint] | None = None, *, tests_phase: bool = False,
) -> type[_Op]:
    """One mbarrier op class, of either level: `$barrier` (constrained by `barrier`), then the optional
    `value` operand (its field name and constraint: the arrival count, the transaction bytes, the phase
    parity), and an `i1` `result` when `tests_phase`; the syntax `$barrier, $value : T1, T2`; the
    constructor `Op(barrier[, value])`. `base` gives the verifier (what a barrier is at that level) and
    the module the class belongs to. The `nvgpu.mbarrier.*` ops below and `kernel.mbarrier_*` ops of
    `warpforge.dialects.kernel_hopper` are made by it: the two levels differ in names (MLIR's `txcount`,
    `phaseParity` here), the barrier's type and the value's constraint, not in shape."""
    fields: dict[str, object] = {"__doc__": doc, "__module__": base.__module__, "__qualname__": class_name, "name": name}
    fields["barrier"] = operand_def(barrier)
    operands, types = "$barrier", "type($barrier)"
    if value is not None:
        field, constraint = value
        fields[field] = operand_def(constraint)
        operands, types = f"{operands} `,` ${field}", f"{types} `,` type(${field})"
    if tests_phase:
        fields["result"] = result_def(i1)
    fields["assembly_format"] = f"{operands} attr-dict `:` {types}"

    def __init__(self: IRDLOperation, barrier: SSAValue, *value: SSAValue) -> None:
        IRDLOperation.__init__(self, operands=[barrier, *value], result_types=[i1] if tests_phase else [])

    fields["__init__"] = __init__
    return irdl_op_definition(type(class_name, (base,), fields))


MBarrierInitOp = mbarrier_op(
    _MBarrierOp, "MBarrierInitOp", "nvgpu.mbarrier.init", "`mbarrier.init.shared.b64 [bar], count` (PTX ISA §9.7.13.15.9).",
    MemRefType, ("count", IntegerType),
)
MBarrierArriveOp = mbarrier_op(
    _MBarrierOp, "MBarrierArriveOp", "nvgpu.mbarrier.arrive", "`mbarrier.arrive.shared.b64 _, [bar]` (PTX ISA §9.7.13.15.13).", MemRefType
)
MBarrierArriveExpectTxOp = mbarrier_op(
    _MBarrierOp, "MBarrierArriveExpectTxOp", "nvgpu.mbarrier.arrive.expect_tx",
    "`mbarrier.arrive.expect_tx.shared.b64 _, [bar], tx_count` (PTX ISA §9.7.13.15.12).", MemRefType, ("txcount", IntegerType),
)
MBarrierTryWaitParityOp = mbarrier_op(
    _MBarrierOp, "MBarrierTryWaitParityOp", "nvgpu.mbarrier.try_wait.parity",
    "`mbarrier.try_wait.parity.shared.b64 p, [bar], parity` → `p` (PTX ISA §9.7.13.15.16).", MemRefType,
    ("phaseParity", IntegerType), tests_phase=True,
)


def _check_tma(op: IRDLOperation, tile: SSAValue, desc: SSAValue, coords: Sequence[SSAValue]) -> None:
    t, d = tile.type, desc.type
    assert isinstance(d, TensorMapDescriptorType)
    if not _shared(t) or t.get_shape() != d.dims or t.element_type != d.element_type:  # pyright: ignore[reportAttributeAccessIssue]
        raise VerifyException(f"the shared memref must have the descriptor's box and element type ({d}), got {t}")
    if len(coords) != len(d.dims):
        raise VerifyException(f"a rank-{len(d.dims)} descriptor takes {len(d.dims)} coordinates, got {len(coords)}")
    if any(c.type != IntegerType(32) for c in coords):
        raise VerifyException("coordinates are i32")


@irdl_op_definition
class TmaAsyncLoadOp(IRDLOperation):
    """`cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst],
    [desc, {coords}], [bar]` (PTX ISA §9.7.9.25.5.1): the box at `coords` (out-of-bounds elements
    zero-filled) into `dst`; its bytes complete on `bar`."""

    name = "nvgpu.tma.async.load"
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(IntegerType)
    barrier = operand_def(MemRefType)
    dst = operand_def(MemRefType)
    assembly_format = (
        "$tensorMapDescriptor `[` $coordinates `]` `,` $barrier `to` $dst attr-dict `:` type($tensorMapDescriptor) `[` "
        "type($coordinates) `]` `,` type($barrier) `,` type($dst)"
    )

    def __init__(self, desc: SSAValue, coords: Sequence[SSAValue], barrier: SSAValue, dst: SSAValue):
        super().__init__(operands=[desc, list(coords), barrier, dst])

    def verify_(self) -> None:
        _check_tma(self, self.dst, self.tensorMapDescriptor, list(self.coordinates))
        _check_barrier(self, self.barrier)


@irdl_op_definition
class TmaAsyncStoreOp(IRDLOperation):
    """`cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group [desc, {coords}], [src]` (PTX ISA
    §9.7.9.25.5.2): `src` to the box at `coords` (elements outside the tensor are not written)."""

    name = "nvgpu.tma.async.store"
    src = operand_def(MemRefType)
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(IntegerType)
    assembly_format = (
        "$src `to` $tensorMapDescriptor `[` $coordinates `]` attr-dict `:` type($src) `,` type($tensorMapDescriptor) `,` type($coordinates)"
    )

    def __init__(self, src: SSAValue, desc: SSAValue, coords: Sequence[SSAValue]):
        super().__init__(operands=[src, desc, list(coords)])

    def verify_(self) -> None:
        _check_tma(self, self.src, self.tensorMapDescriptor, list(self.coordinates))


NVGPU_HOPPER_OPS = (MBarrierInitOp, MBarrierArriveOp, MBarrierArriveExpectTxOp, MBarrierTryWaitParityOp, TmaAsyncLoadOp, TmaAsyncStoreOp)
NVGPU_HOPPER_TYPES = (TensorMapDescriptorType,)
