"""The `nvgpu` dialect: warp-level tensor-core access and asynchronous copies at the `gpu` level, on
memrefs — named as MLIR's NVGPU dialect (https://mlir.llvm.org/docs/Dialects/NVGPU/), which plays
the same part between `gpu` and `nvvm`.

```mlir
%a:8 = nvgpu.ldmatrix %smem[%r, %c] {numTiles = 4 : i32} : memref<64x72xf16, 3 : i32> -> f16, f16, ...
%d:4 = nvgpu.mma.sync "m16n8k16" "f16" (%a#0, ...) (%b#0, ...) (%c0, %c1, %c2, %c3) : (f16, ...), (f16, ...), (f32, ...) -> (f32, ...)
nvgpu.device_async_copy %src[%i], %dst[%r, %c], 8, %n {bypassL1} : memref<?xf16, 1 : i32> to memref<64x72xf16, 3 : i32>
nvgpu.device_async_create_group
nvgpu.device_async_wait {numGroups = 1 : i32}
```

Differences from MLIR's NVGPU, on purpose:
- fragments are lists of scalars, one per element a lane holds (MLIR: `vector<4x2xf16>`): our LLVM
  exporter knows only 1-D vectors, and scalar elements are what the SIMT frontend and the simulator
  hold; `convert-nvgpu-to-nvvm` packs them into the registers of the `nvvm` catalog row;
- `device_async_copy` / `create_group` return no token (PTX tracks the groups per thread; the
  token only orders IR in MLIR).

Which element of which lane is which matrix entry is `warpforge.dialects.nvvm_catalog.fragment_layout`
(PTX ISA §9.7.14.5.8–.11). Shapes and types come from the catalog's `MMA_SHAPES`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I32,
    I64,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    ParsePropInAttrDict,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import lazy_dialect_table
from warpforge.dialects.element_types import byte_size
from warpforge.dialects.nvvm_catalog import MMA_SHAPES, MMAShape, mma_shape

SHARED_SPACE = 3
GLOBAL_SPACE = 1


def element_ptx_type(t: Attribute, *, unsigned: bool = False, tf32: bool = False) -> str | None:
    """The PTX type name of an MMA element type: f16, bf16, f32 (or tf32), s8/u8, s32."""
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float32Type):
        return "tf32" if tf32 else "f32"
    if isinstance(t, IntegerType) and t.width.data == 8:
        return "u8" if unsigned else "s8"
    if isinstance(t, IntegerType) and t.width.data == 32:
        return "s32"
    return None


def _space(t: Attribute) -> int | None:
    if not isinstance(t, MemRefType):
        return None
    space = t.memory_space
    return space.value.data if isinstance(space, IntegerAttr) else 0


class MmaSyncBase(IRDLOperation):
    """The operands, properties, syntax and builder `nvgpu.mma.sync` and `kernel.mma_sync` share:
    `shape` and `a_type` name a catalog `MMA_SHAPES` row; `a`, `b`, `c` are this lane's elements of
    each operand, `d` the result's (the accumulator's types)."""

    a = var_operand_def()
    b = var_operand_def()
    c = var_operand_def()
    d = var_result_def()
    shape = prop_def(StringAttr)
    a_type = prop_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$shape $a_type `(` $a `)` `(` $b `)` `(` $c `)` attr-dict `:` `(` type($a) `)` `,` `(` type($b) `)` `,` "
        "`(` type($c) `)` `->` `(` type($d) `)`"
    )

    def __init__(self, shape: str, a_type: str, a: list[SSAValue], b: list[SSAValue], c: list[SSAValue]):
        super().__init__(
            operands=[a, b, c],
            result_types=[[x.type for x in c]],
            properties={"shape": StringAttr(shape), "a_type": StringAttr(a_type)},
        )


@irdl_op_definition
class MmaSyncOp(MmaSyncBase):
    """`mma.sync.aligned.<shape>.row.col` over one warp: D = A·B + C (PTX ISA §9.7.14.5.14; MLIR's
    `nvgpu.mma.sync`).

    `shape` (`"m16n8k16"`, `"m16n8k8"`, `"m16n8k32"`) and `a_type` (the PTX input type: `f16`,
    `bf16`, `tf32`, `s8`, `u8`) with the accumulator's element type pick a catalog `MMA_SHAPES` row;
    `a`, `b`, `c` are the elements this lane holds of each operand (`MMAShape.elements`), `d` the
    result's. Element types: f16/bf16 as such, tf32 as f32, s8/u8 as i8, the s32 accumulator as i32.
    Every lane of the warp must execute it together (`.aligned`)."""

    name = "nvgpu.mma.sync"


    @property
    def row(self) -> MMAShape:
        """This op's `MMA_SHAPES` row (the verifier guarantees there is one)."""
        row = mma_shape(self.shape.data, self.a_type.data, element_ptx_type(self.c[0].type) or "")
        assert row is not None
        return row

    def verify_(self) -> None:
        if not self.c:
            raise VerifyException("nvgpu.mma.sync needs the accumulator's elements")
        acc = element_ptx_type(self.c[0].type)
        row = mma_shape(self.shape.data, self.a_type.data, acc or "")
        if row is None:
            known = ", ".join(f"{r.shape} {r.a}->{r.c}" for r in MMA_SHAPES)
            raise VerifyException(
                f"no mma.sync {self.shape.data} with {self.a_type.data} inputs and a {self.c[0].type} accumulator (PTX has: {known})"
            )
        in_type = {"f16": "f16", "bf16": "bf16", "tf32": "f32", "s8": "i8", "u8": "i8"}[row.a]
        for operand, values in (("a", self.a), ("b", self.b), ("c", self.c), ("d", self.d)):
            want = row.elements(operand)
            if len(values) != want:
                raise VerifyException(f"{row.shape} {row.a}: each lane holds {want} elements of {operand.upper()}, got {len(values)}")
            expected = in_type if operand in "ab" else str(self.c[0].type)
            for v in values:
                if str(v.type) != expected:
                    raise VerifyException(f"{row.shape} {row.a}: the elements of {operand.upper()} are {expected}, got {v.type}")


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`ldmatrix.sync.aligned.m8n8.x<numTiles>[.trans].shared.b16` (PTX ISA §9.7.14.5.15; MLIR's
    `nvgpu.ldmatrix`): a warp loads `numTiles` (1, 2, 4) 8×8 matrices of 16-bit elements from shared
    memory. This lane's `memref[indices]` is the start of one row (8 contiguous elements, 16-byte
    aligned): lanes 8j..8j+7 give matrix j's rows 0..7 (lanes past 8·numTiles are ignored). Each lane
    gets 2 elements per matrix: row lane/4, columns 2(lane%4) and 2(lane%4)+1 — with `transpose`,
    of the transposed matrix (column lane/4, rows 2(lane%4), 2(lane%4)+1)."""

    name = "nvgpu.ldmatrix"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    res = var_result_def()
    numTiles = prop_def(IntegerAttr[I32])
    transpose = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$memref `[` $indices `]` attr-dict `:` type($memref) `->` type($res)"

    def __init__(self, memref: SSAValue, indices: list[SSAValue], num_tiles: int, transpose: bool = False):
        typ = memref.type
        assert isinstance(typ, MemRefType)
        props: dict[str, Attribute] = {"numTiles": IntegerAttr(num_tiles, i32)}
        if transpose:
            props["transpose"] = UnitAttr()
        super().__init__(operands=[memref, indices], result_types=[[typ.element_type] * (2 * num_tiles)], properties=props)

    def verify_(self) -> None:
        typ = self.memref.type
        assert isinstance(typ, MemRefType)
        n = self.numTiles.value.data
        if n not in (1, 2, 4):
            raise VerifyException(f"ldmatrix loads 1, 2 or 4 matrices, not {n}")
        if _space(typ) != SHARED_SPACE:
            raise VerifyException(f"ldmatrix reads shared memory (address space 3), got {typ}")
        elem = typ.element_type
        if not (isinstance(elem, Float16Type | BFloat16Type) or (isinstance(elem, IntegerType) and elem.width.data == 16)):
            raise VerifyException(f"ldmatrix loads 16-bit elements (f16, bf16, i16), got {elem}")
        if len(self.indices) != len(typ.get_shape()):
            raise VerifyException(f"{len(self.indices)} indices for a {len(typ.get_shape())}-d memref")
        if len(self.res) != 2 * n or any(r.type != elem for r in self.res):
            raise VerifyException(f"ldmatrix .x{n} gives {2 * n} elements of {elem} per lane")


@irdl_op_definition
class DeviceAsyncCopyOp(IRDLOperation):
    """`cp.async.{ca,cg}.shared.global [dst], [src], bytes[, src_size]` (PTX ISA §9.7.9.25.3.1; MLIR's
    `nvgpu.device_async_copy`): copy `dstElements` contiguous elements (4, 8 or 16 bytes) from global
    `src[srcIndices]` to shared `dst[dstIndices]`, asynchronously. With `srcElements`, only that many
    are read and the rest of the destination is zero-filled (0 reads nothing). `bypassL1` gives
    `.cg` (16 bytes only), otherwise `.ca`. The copy is complete after a
    `nvgpu.device_async_wait` that covers the group it was committed in."""

    name = "nvgpu.device_async_copy"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    srcElements = opt_operand_def(IndexType)
    dstElements = prop_def(IntegerAttr[I64])
    bypassL1 = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` `,` $dstElements (`,` $srcElements^)? attr-dict `:` type($src) `to` type($dst)"
    )

    def __init__(self, src: SSAValue, src_indices: list[SSAValue], dst: SSAValue, dst_indices: list[SSAValue],
                 elements: int, src_elements: SSAValue | None = None, bypass_l1: bool = False):  # fmt: skip
        props: dict[str, Attribute] = {"dstElements": IntegerAttr(elements, i64)}
        if bypass_l1:
            props["bypassL1"] = UnitAttr()
        super().__init__(operands=[src, src_indices, dst, dst_indices, [src_elements] if src_elements else []], properties=props)

    def byte_count(self) -> int:
        typ = self.dst.type
        assert isinstance(typ, MemRefType)
        return self.dstElements.value.data * byte_size(typ.element_type)

    def verify_(self) -> None:
        src, dst = self.src.type, self.dst.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if _space(src) != GLOBAL_SPACE:
            raise VerifyException(f"cp.async copies from global memory (address space 1), got {src}")
        if _space(dst) != SHARED_SPACE:
            raise VerifyException(f"cp.async copies to shared memory (address space 3), got {dst}")
        if src.element_type != dst.element_type:
            raise VerifyException(f"cp.async copies between memrefs of one element type, got {src.element_type} and {dst.element_type}")
        if len(self.srcIndices) != len(src.get_shape()) or len(self.dstIndices) != len(dst.get_shape()):
            raise VerifyException("cp.async needs one index per dimension of each memref")
        nbytes = self.byte_count()
        if nbytes not in (4, 8, 16):
            raise VerifyException(f"cp.async copies 4, 8 or 16 bytes, got {self.dstElements.value.data} x {dst.element_type} = {nbytes} bytes")
        if self.bypassL1 is not None and nbytes != 16:
            raise VerifyException(f"cp.async.cg (bypassL1) copies 16 bytes only, got {nbytes}")


@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """`cp.async.commit_group` (PTX ISA §9.7.9.25.3.2; MLIR's `nvgpu.device_async_create_group`): this
    thread's copies issued since the last commit form one group."""

    name = "nvgpu.device_async_create_group"
    assembly_format = "attr-dict"


@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """`cp.async.wait_group numGroups` (PTX ISA §9.7.9.25.3.3; MLIR's `nvgpu.device_async_wait`): wait
    until at most `numGroups` of this thread's newest committed groups are still pending. It orders
    only this thread's copies: a barrier must follow before other threads read the data."""

    name = "nvgpu.device_async_wait"
    numGroups = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, num_groups: int):
        super().__init__(properties={"numGroups": IntegerAttr(num_groups, i32)})

    def verify_(self) -> None:
        if self.numGroups.value.data < 0:
            raise VerifyException(f"cp.async.wait_group takes a count >= 0, got {self.numGroups.value.data}")


def _dialect() -> Dialect:
    """The whole `nvgpu` dialect, sorted by class name (`tests/test_dialect_tables.py` checks it): the
    ops here and Hopper's mbarrier and TMA ops and the TMA descriptor type (`nvgpu_hopper.py`, imported
    when the table is first needed)."""
    from warpforge.dialects.nvgpu_hopper import NVGPU_HOPPER_OPS, NVGPU_HOPPER_TYPES

    ops = sorted({MmaSyncOp, LdMatrixOp, DeviceAsyncCopyOp, DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp, *NVGPU_HOPPER_OPS}, key=lambda op: op.__name__)
    return Dialect("nvgpu", ops, sorted(NVGPU_HOPPER_TYPES, key=lambda t: t.__name__))


__getattr__ = lazy_dialect_table(__name__, "NVGPU", _dialect)  # `nvgpu.NVGPU`: the table, built once on first use
