"""`kernel` ops for warp-level tensor cores and asynchronous copies (the frontend's `simt.mma_sync`,
`simt.ldmatrix`, `simt.cp_async`, `simt.cp_async_commit`, `simt.cp_async_wait`).

Fragments are lists of scalars, as in the `nvgpu` dialect these lower to (`kernel-to-gpu`): the
frontend keeps a fragment's elements as variables, so branches and loops carry them like any value.

```mlir
%d:4 = kernel.mma_sync "m16n8k16" "f16" (%a0, ...) (%b0, ...) (%c0, %c1, %c2, %c3) : (f16, ...), (f16, ...), (f32, ...) -> (f32, ...)
%a:8 = kernel.ldmatrix %s[%r, %c] {numTiles = 4 : i32} : !kernel.shared<64x72xf16>, si64, si64 -> f16, ...
kernel.cp_async %s[%r, %c], %x[%i], 8 : !kernel.shared<64x72xf16>[si64, si64], !kernel.slice<f16>[si64]
kernel.cp_async_commit
kernel.cp_async_wait {numGroups = 1 : i32}
```
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, I64, IntegerAttr, StringAttr, UnitAttr, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)

from warpforge.dialects.kernel import AnySlice, SharedArrayType
from warpforge.dialects.nvgpu import MmaSyncBase


@irdl_op_definition
class MmaSyncOp(MmaSyncBase):
    """`simt.mma_sync(a, b, c)`: one warp's `mma.sync` D = A·B + C (lowered to `nvgpu.mma.sync`; shape and
    types as there, from the catalog's `MMA_SHAPES`; integer elements keep their signedness here)."""

    name = "kernel.mma_sync"



@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`simt.ldmatrix(s, row, col, num=4, trans=False)`: the warp's `ldmatrix` of `numTiles` 8×8
    matrices; this lane's `s[row, col]` starts one row (lowered to `nvgpu.ldmatrix`, indices checked)."""

    name = "kernel.ldmatrix"

    array = operand_def(SharedArrayType)
    indices = var_operand_def()
    res = var_result_def()
    numTiles = prop_def(IntegerAttr[I32])
    transpose = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$array `[` $indices `]` attr-dict `:` type($array) `,` type($indices) `->` type($res)"

    def __init__(self, array: SSAValue, indices: list[SSAValue], num_tiles: int, transpose: bool, elem: Attribute):
        props: dict[str, Attribute] = {"numTiles": IntegerAttr(num_tiles, i32)}
        if transpose:
            props["transpose"] = UnitAttr()
        super().__init__(operands=[array, indices], result_types=[[elem] * (2 * num_tiles)], properties=props)


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """`simt.cp_async(s, (row, col), x, i, n)`: copy `x[i : i + n]` to `s[row, col : col + n]` asynchronously
    (`cp.async`, 4/8/16 bytes); elements of `x` past its end are zero-filled (lowered to
    `nvgpu.device_async_copy` with `srcElements`)."""

    name = "kernel.cp_async"

    array = operand_def(SharedArrayType)
    indices = var_operand_def()
    src = operand_def(AnySlice)
    src_index = operand_def()
    elements = prop_def(IntegerAttr[I64])
    bypassL1 = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$array `[` $indices `]` `,` $src `[` $src_index `]` `,` $elements attr-dict `:` type($array) `[` type($indices) `]` `,` "
        "type($src) `[` type($src_index) `]`"
    )

    def __init__(self, array: SSAValue, indices: list[SSAValue], src: SSAValue, src_index: SSAValue, elements: int, bypass_l1: bool):
        props: dict[str, Attribute] = {"elements": IntegerAttr(elements, i64)}
        if bypass_l1:
            props["bypassL1"] = UnitAttr()
        super().__init__(operands=[array, indices, src, src_index], properties=props)


@irdl_op_definition
class CpAsyncCommitOp(IRDLOperation):
    """`simt.cp_async_commit()`: `cp.async.commit_group`."""

    name = "kernel.cp_async_commit"
    assembly_format = "attr-dict"


@irdl_op_definition
class CpAsyncWaitOp(IRDLOperation):
    """`simt.cp_async_wait(n)`: `cp.async.wait_group n` (n a compile-time int)."""

    name = "kernel.cp_async_wait"
    numGroups = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, n: int):
        super().__init__(properties={"numGroups": IntegerAttr(n, i32)})
