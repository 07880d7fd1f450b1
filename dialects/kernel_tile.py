"""The `kernel` dialect's tile-kernel part: a `@tile.kernel` as Python means it (ownership, not views).

A tile kernel's parameters are tensors as the host passed them: a borrowed, read-only
`!kernel.tensor<?x1024xf32>` (dimensions static after specialization, or `?`), or the tile block's
exclusive part of a partitioned tensor, `!kernel.partition<[128], !kernel.tensor<?xf32>>` (the
tensor, cut into tiles of the given shape; each tile block owns the tile at its own coordinates).
The ops below read and write them in those terms — "the tile of `x` lining up with my part of `z`",
"store into my part" — and `kernel-to-tile` turns them into explicit tensor views, partition views and
tile coordinates. Tiles themselves are `tile` values (`!tile.tile<128xf32>`) made and combined by
`tile` ops; scalars and control flow are ordinary `kernel` ops. The `kernel.func` carries `tile`
(unit) and `tile.grid` (the index of the partitioned parameter whose tiles are the grid).

```mlir
kernel.func @add(%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>)
    attributes {kernel, tile, tile.grid = 0 : i64} {
  %tx = kernel.load_tile_like %x, %z : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  kernel.part_store %tx, %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
  kernel.return
}
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import (
    StridedShapedType,
    int_array,
    int_tuple,
    parse_axis_query,
    parse_colon_types,
    parse_tile_shape_and_type,
    print_axis_query,
    print_tile_shape_and_type,
)
from warpforge.dialects.kernel import SI64, check_scalar, is_int_type
from warpforge.dialects.tile import MAX_TENSOR_RANK, TileType, check_tile_shape

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class TensorType(StridedShapedType):
    """`!kernel.tensor<?x1024xf32>`: a tensor parameter, row-major (rank 1 to 4). `strides = [?, ?, 1]`
    (in elements, printed only when given) marks a strided view: the memory of a non-contiguous
    array (e.g. torch's `q.transpose(1, 2)`) whose last axis is contiguous (stride 1)."""

    name = "kernel.tensor"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    strides: ArrayAttr[IntAttr]

    def verify(self) -> None:
        check_scalar(self.element_type, "the element type of !kernel.tensor")
        if not 1 <= len(self.dims) <= MAX_TENSOR_RANK:
            raise VerifyException(f"!kernel.tensor has rank 1 to {MAX_TENSOR_RANK}, got {len(self.dims)}")
        strides = int_tuple(self.strides)
        if strides:
            if len(strides) != len(self.dims):
                raise VerifyException(f"!kernel.tensor needs one stride per dimension: {len(self.dims)} dimensions, {len(strides)} strides")
            if strides[-1] != 1:
                raise VerifyException(f"the last stride of a !kernel.tensor must be 1 (the last axis is contiguous), got {strides[-1]}")


@irdl_attr_definition
class PartitionType(ParametrizedAttribute, TypeAttribute):
    """`!kernel.partition<[128], !kernel.tensor<?xf32>>`: this tile block's exclusive part of a tensor cut
    into tiles of a static power-of-two shape (the part is the tile at the block's own coordinates;
    past the tensor's end it is masked)."""

    name = "kernel.partition"

    tile_shape: ArrayAttr[IntAttr]
    tensor: TensorType

    def __init__(self, tile_shape: Sequence[int], tensor: TensorType):
        super().__init__(int_array(tile_shape), tensor)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        dims, tensor = parse_tile_shape_and_type(parser)
        parser.parse_punctuation(">")
        return [int_array(dims), tensor]

    def print_parameters(self, printer: Printer) -> None:
        print_tile_shape_and_type(printer, self.dims, self.tensor)
        printer.print_string(">")

    def verify(self) -> None:
        check_tile_shape(self.dims, "the tile shape of !kernel.partition")
        if len(self.dims) != self.tensor.rank:
            raise VerifyException(f"a partition's tile shape [{', '.join(map(str, self.dims))}] must have the tensor's rank {self.tensor.rank}")

    @property
    def dims(self) -> tuple[int, ...]:
        return int_tuple(self.tile_shape)

    @property
    def tile_type(self) -> TileType:
        return TileType(self.dims, self.tensor.element_type)


def _padding_ok(padding: Attribute | None, elem: Attribute) -> None:
    if padding is not None and (not isinstance(padding, IntegerAttr | FloatAttr) or padding.type != elem):
        raise VerifyException(f"the padding must be a constant of the element type {elem}, got {padding}")


# --------------------------------------------------------------------------- ops


@irdl_op_definition
class LoadTileLikeOp(IRDLOperation):
    """`%t = kernel.load_tile_like %x, %z : !kernel.tensor<?xf32>, !kernel.partition<[128], …> -> !tile.tile<128xf32>`:
    `tile.load_tile_like(x, z)` — the tile of `x` lining up with this tile block's part of `z` (the
    same tile shape and coordinates). Past `x`'s end the elements are `padding` (default 0)."""

    name = "kernel.load_tile_like"

    source = operand_def(TensorType)
    like = operand_def(PartitionType)
    padding = opt_prop_def(IntegerAttr | FloatAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$source `,` $like attr-dict `:` type($source) `,` type($like) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, like: SSAValue | Operation, padding: IntegerAttr | FloatAttr | None = None):
        st, lt = SSAValue.get(source).type, SSAValue.get(like).type
        assert isinstance(st, TensorType) and isinstance(lt, PartitionType)
        super().__init__(operands=[source, like], properties={"padding": padding} if padding is not None else {}, result_types=[TileType(lt.dims, st.element_type)])

    def verify_(self) -> None:
        st, lt = self.source.type, self.like.type
        assert isinstance(st, TensorType) and isinstance(lt, PartitionType)
        if st.rank != len(lt.dims):
            raise VerifyException(f"load_tile_like: a rank-{st.rank} tensor cannot line up with a rank-{len(lt.dims)} partition")
        if self.result.type != TileType(lt.dims, st.element_type):
            raise VerifyException(f"load_tile_like gives {TileType(lt.dims, st.element_type)}, not {self.result.type}")
        _padding_ok(self.padding, st.element_type)


@irdl_op_definition
class TensorLoadOp(IRDLOperation):
    """`%t = kernel.tensor_load %x[%i, %j] : !kernel.tensor<?x?xf32>, si64, si64 -> !tile.tile<1x1024xf32>`:
    `tile.load(x, index=(i, j), shape=(1, 1024))` — the tile at tile coordinates (i, j) of `x` cut into
    tiles of the result's shape; past the end, `padding` (default 0)."""

    name = "kernel.tensor_load"

    source = operand_def(TensorType)
    coords = var_operand_def()
    padding = opt_prop_def(IntegerAttr | FloatAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$source `[` $coords `]` attr-dict `:` type($source) `,` type($coords) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, coords: Sequence[SSAValue | Operation], result_type: TileType, padding: IntegerAttr | FloatAttr | None = None):
        super().__init__(operands=[source, coords], properties={"padding": padding} if padding is not None else {}, result_types=[result_type])

    def verify_(self) -> None:
        st, rt = self.source.type, self.result.type
        assert isinstance(st, TensorType) and isinstance(rt, TileType)
        if rt.rank != st.rank or len(self.coords) != st.rank:
            raise VerifyException(f"tensor_load from a rank-{st.rank} tensor needs {st.rank} coordinates and a rank-{st.rank} tile")
        if rt.element_type != st.element_type:
            raise VerifyException(f"tensor_load gives {st.element_type} elements, not {rt.element_type}")
        for c in self.coords:
            if c.type != SI64:
                raise VerifyException(f"tile coordinates are si64, got {c.type}")
        _padding_ok(self.padding, st.element_type)


@irdl_op_definition
class TensorGatherOp(IRDLOperation):
    """`%t = kernel.tensor_gather %x[%offsets], %mask, %pad : …`: `tile.gather(x, offsets, mask, padding)`
    — elements at row-major offsets; masked-off or out-of-range elements are `%pad`, unread."""

    name = "kernel.tensor_gather"

    source = operand_def(TensorType)
    offsets = operand_def(TileType)
    mask = operand_def(TileType)
    padding = operand_def()
    result = result_def(TileType)

    assembly_format = "$source `[` $offsets `]` `,` $mask `,` $padding attr-dict `:` type($source) `,` type($offsets) `,` type($mask) `,` type($padding) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, offsets: SSAValue | Operation, mask: SSAValue | Operation, padding: SSAValue | Operation):
        st, ot = SSAValue.get(source).type, SSAValue.get(offsets).type
        assert isinstance(st, TensorType) and isinstance(ot, TileType)
        super().__init__(operands=[source, offsets, mask, padding], result_types=[TileType(ot.dims, st.element_type)])

    def verify_(self) -> None:
        st, ot = self.source.type, self.offsets.type
        assert isinstance(st, TensorType) and isinstance(ot, TileType)
        if not is_int_type(ot.element_type):
            raise VerifyException(f"gather offsets are an integer tile, got {ot}")
        if self.padding.type != st.element_type:
            raise VerifyException(f"the padding is {st.element_type}, got {self.padding.type}")


@irdl_op_definition
class PartLoadOp(IRDLOperation):
    """`%t = kernel.part_load %z : !kernel.partition<[128], …> -> !tile.tile<128xf32>`: `z.load()` — this
    tile block's own part (past the tensor's end: 0)."""

    name = "kernel.part_load"

    part = operand_def(PartitionType)
    result = result_def(TileType)

    assembly_format = "$part attr-dict `:` type($part) `->` type($result)"

    def __init__(self, part: SSAValue | Operation):
        pt = SSAValue.get(part).type
        assert isinstance(pt, PartitionType)
        super().__init__(operands=[part], result_types=[pt.tile_type])


@irdl_op_definition
class PartStoreOp(IRDLOperation):
    """`kernel.part_store %t, %z : !tile.tile<128xf32>, !kernel.partition<[128], …>`: `z.store(t)` — write
    this tile block's own part (elements past the tensor's end are not written)."""

    name = "kernel.part_store"

    value = operand_def(TileType)
    part = operand_def(PartitionType)

    assembly_format = "$value `,` $part attr-dict `:` type($value) `,` type($part)"

    def __init__(self, value: SSAValue | Operation, part: SSAValue | Operation):
        super().__init__(operands=[value, part])

    def verify_(self) -> None:
        pt = self.part.type
        assert isinstance(pt, PartitionType)
        if self.value.type != pt.tile_type:
            raise VerifyException(f"storing into {pt} needs a {pt.tile_type}, got {self.value.type}")


@irdl_op_definition
class TensorDimOp(IRDLOperation):
    """`%n = kernel.tensor_dim %x[0] : !kernel.tensor<?xf32>`: `x.shape[0]` of a dynamic dimension (si64)."""

    name = "kernel.tensor_dim"

    source = operand_def(TensorType | PartitionType)
    axis = prop_def(IntAttr)
    result = result_def(SI64)

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue | Operation, axis: int):
        super().__init__(operands=[source], properties={"axis": IntAttr(axis)}, result_types=[SI64])

    def verify_(self) -> None:
        t = self.source.type
        rank = t.rank if isinstance(t, TensorType) else t.tensor.rank  # pyright: ignore[reportAttributeAccessIssue]
        if not 0 <= self.axis.data < rank:
            raise VerifyException(f"axis {self.axis.data} is out of range for rank {rank}")

    @classmethod
    def parse(cls, parser: Parser) -> TensorDimOp:
        v, axis, attrs = parse_axis_query(parser)
        op = cls(v, axis)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_axis_query(printer, self.source, self.axis.data, self.attributes)


class _GridQueryOp(IRDLOperation):
    """`%r = kernel.<op> <axis> : si64` about the launch grid (the `tile.grid` partition's tiles)."""

    axis = prop_def(IntAttr)
    result = result_def(SI64)

    traits = traits_def(Pure())

    def __init__(self, axis: int):
        super().__init__(properties={"axis": IntAttr(axis)}, result_types=[SI64])

    @classmethod
    def parse(cls, parser: Parser):
        axis = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parse_colon_types(parser, 1)
        op = cls(axis)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.axis.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : si64")


@irdl_op_definition
class TileIdOp(_GridQueryOp):
    """`%i = kernel.tile_id 0 : si64`: `tile.bid(0)`, this tile block's coordinate along axis 0 of the grid."""

    name = "kernel.tile_id"


@irdl_op_definition
class TileCountOp(_GridQueryOp):
    """`%n = kernel.tile_count 0 : si64`: `tile.num_tiles(0)`, the grid's extent along axis 0."""

    name = "kernel.tile_count"


@irdl_op_definition
class TensorAtomicOp(IRDLOperation):
    """`kernel.tensor_atomic add %x[%offsets], %values, %mask : …`: `tile.atomic_add(x, offsets, values,
    mask)` on a `tile.AtomicTensor` parameter (also `max`, `min`)."""

    name = "kernel.tensor_atomic"

    kind = prop_def(StringAttr)
    source = operand_def(TensorType)
    offsets = operand_def(TileType)
    values = operand_def(TileType)
    mask = operand_def(TileType)

    assembly_format = "$kind $source `[` $offsets `]` `,` $values `,` $mask attr-dict `:` type($source) `,` type($offsets) `,` type($values) `,` type($mask)"

    def __init__(self, kind: str, source: SSAValue | Operation, offsets: SSAValue | Operation, values: SSAValue | Operation, mask: SSAValue | Operation):
        super().__init__(operands=[source, offsets, values, mask], properties={"kind": StringAttr(kind)})
