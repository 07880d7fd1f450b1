"""The `tile` dialect: what one tile block computes, on whole tiles (the model of cutile-rs, cuTile, Triton).

A **tile** (`!tile.tile<128x64xf32>`) is an immutable value of static shape whose dimensions are powers
of two (a rank-0 tile `!tile.tile<f32>` is one value); `tile-to-gpu` decides how the threads of a CTA
carry it (layouts, vector widths, shuffles). A **tensor view** (`!tile.tensor_view<?x1024xf32>`) is
global memory seen as a row-major tensor whose dimensions may be dynamic (`?`); `strides = [?, 1]`
spells the strides when they are not the contiguous ones (the last stride must be 1). A **partition
view** (`!tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>`) cuts a tensor
view into tiles of the given shape, indexed by tile coordinates; elements past the tensor's end read
as the padding value and are never written (tails are masked from the tensor's shape).

Element types are those of the `kernel` dialect (`si32`, `ui8`, `i1`, `f32`…): signedness is kept and
every op has NumPy 2 semantics, exactly as the scalar `kernel` ops (`tile.floordiv` rounds toward −∞,
`tile.maximum` propagates NaN, `tile.cast` from float to int saturates); `tile-to-gpu` makes them
explicit per element with `kernel-to-gpu`'s scalar lowering. Elementwise ops take tiles of one shape
(the frontend inserts `tile.broadcast`/`tile.splat` per NumPy's broadcasting rules).

```mlir
kernel.func @add(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %bid = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %tx = tile.load %xp[%bid] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32> -> !tile.tile<128xf32>
  %s = tile.add %tx, %tx : !tile.tile<128xf32>
  tile.store %s, %zp[%bid] : !tile.tile<128xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  kernel.return
}
```

Functions, scalars and control flow stay in the `kernel` dialect (`kernel.func`, `kernel.add` on
`si64`, `kernel.for`); a tile kernel's `kernel.func` carries the `tile` unit attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
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
    COMPARE_PREDICATES,  # noqa: F401 (re-exported: tile.COMPARE_PREDICATES)
    SameTypeBinaryOp,
    SameTypeUnaryOp,
    SelectLikeOp,
    ShapedType,
    StridedShapedType,
    check_compare_predicate,
    int_array,
    int_tuple,
    lazy_dialect_table,
    parse_axis_query,
    parse_compare,
    parse_shape_and_type,
    parse_tile_shape_and_type,
    print_axis_query,
    print_compare,
    print_tile_shape_and_type,
    shape_text,
)
from warpforge.dialects.tile_layout import LAYOUT_ATTRS, LayoutEncodingAttr
from warpforge.dialects import kernel
from warpforge.dialects.element_types import kind_letter
from warpforge.dialects.kernel import SI64, check_scalar, is_float_type, is_int_type, is_signed
from warpforge.dialects.math_catalog import ALLOWED_KINDS, TILE_FORMS, Builtin

# --------------------------------------------------------------------------- helpers


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


from warpforge.limits import MAX_TILE_ELEMENTS  # noqa: E402  (defined without xDSL: the runtime reads it too)


MAX_TENSOR_RANK = 4
"""The highest rank of a tensor view and of a tile: (batch, heads, sequence, head dim), as attention needs."""


def check_tile_shape(shape: Sequence[int], what: str = "a tile", spelled: str | None = None) -> None:
    """Raise `VerifyException` unless every dimension is static and a power of two, and the tile has at
    most `MAX_TILE_ELEMENTS` elements."""
    spelled = spelled or f"[{', '.join('?' if d == DYNAMIC_INDEX else str(d) for d in shape)}]"
    if len(shape) > MAX_TENSOR_RANK:
        raise VerifyException(f"{what} {spelled} has rank {len(shape)}; tiles have rank 0 to {MAX_TENSOR_RANK}")
    for d in shape:
        if d == DYNAMIC_INDEX:
            raise VerifyException(f"{what} has a dynamic dimension '?' in {spelled}: tile shapes are static")
        if not is_power_of_two(d):
            raise VerifyException(f"{what} has dimension {d} in {spelled}: tile dimensions must be powers of two (1, 2, 4, …)")
    if prod(shape) > MAX_TILE_ELEMENTS:
        raise VerifyException(f"{what} {spelled} has {prod(shape)} elements; a tile has at most {MAX_TILE_ELEMENTS} (MAX_TILE_ELEMENTS)")


kind_of = kind_letter
"""`b` (bool), `i` (signed), `u` (unsigned) or `f` (float): `element_types.kind_letter`."""


# --------------------------------------------------------------------------- types


@irdl_attr_definition
class TileType(ShapedType):
    """`!tile.tile<128x64xf32>`: an immutable tile of static, power-of-two shape (`!tile.tile<f32>`: rank 0).

    An optional last parameter is its layout encoding (`!tile.tile<128x64xf32, #tile.blocked<vec = 4,
    owners = 128, replicas = 1>>`, `warpforge.dialects.tile_layout`): how the CTA's threads hold it.
    Without one (`encoding` is `NoneAttr`) no layout is assigned yet. Verifiers of ops that relate
    shapes compare types without their encodings (`plain`); elementwise ops need equal types, so
    their operands agree in layout as well."""

    name = "tile.tile"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute, encoding: Attribute | None = None):
        ParametrizedAttribute.__init__(self, int_array(shape), element_type, encoding if encoding is not None else NoneAttr())

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        dims, elem = parse_shape_and_type(parser)
        encoding: Attribute = NoneAttr()
        if parser.parse_optional_punctuation(",") is not None:
            encoding = parser.parse_attribute()
        parser.parse_punctuation(">")
        return [int_array(dims), elem, encoding]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        if self.dims:
            printer.print_string(shape_text(self.dims) + "x")
        printer.print_attribute(self.element_type)
        if self.has_encoding:
            printer.print_string(", ")
            printer.print_attribute(self.encoding)
        printer.print_string(">")

    def verify(self) -> None:
        check_tile_shape(self.dims, "!tile.tile", f"{shape_text(self.dims)}x{self.element_type}")
        check_scalar(self.element_type, "the element type of !tile.tile")
        if self.has_encoding:
            if not isinstance(self.encoding, LayoutEncodingAttr):
                raise VerifyException(f"the encoding of !tile.tile is a #tile layout (blocked, slice, mma, dot_operand, shared), got {self.encoding}")
            self.encoding.verify_shape(self.dims)

    @property
    def numel(self) -> int:
        return prod(self.dims)

    @property
    def has_encoding(self) -> bool:
        return not isinstance(self.encoding, NoneAttr)

    @property
    def plain(self) -> TileType:
        """The same tile type without its encoding."""
        return TileType(self.dims, self.element_type) if self.has_encoding else self

    def with_encoding(self, encoding: Attribute | None) -> TileType:
        """The same shape and element type with `encoding` (None: without one)."""
        return TileType(self.dims, self.element_type, encoding)


def plain(t: Attribute) -> Attribute:
    """`t` without its layout encoding (a non-tile type unchanged): what shape verifiers compare."""
    return t.plain if isinstance(t, TileType) else t


@irdl_attr_definition
class TensorViewType(StridedShapedType):
    """`!tile.tensor_view<?x1024xf32>`: global memory as a row-major tensor; dimensions may be dynamic.

    `strides = [?, 1]` (in elements) is printed only when the strides are not the contiguous ones; the
    last stride is 1. Ranks 1 to 4 (batch, heads, sequence, head dim; the kernel ABI passes a pointer
    and one i64 per dimension, then one i64 per stride but the last when the view is strided).
    """

    name = "tile.tensor_view"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    strides: ArrayAttr[IntAttr]

    def verify(self) -> None:
        check_scalar(self.element_type, "the element type of !tile.tensor_view")
        if not 1 <= len(self.dims) <= MAX_TENSOR_RANK:
            raise VerifyException(f"!tile.tensor_view has rank 1 to {MAX_TENSOR_RANK}, got rank {len(self.dims)}")
        if any(d < 0 and d != DYNAMIC_INDEX for d in self.dims):
            raise VerifyException(f"!tile.tensor_view dimensions are sizes or '?', got {list(self.dims)}")
        if self.strides.data:
            if len(self.stride_values) != len(self.dims):
                raise VerifyException(f"!tile.tensor_view needs one stride per dimension: {len(self.dims)} dimensions, {len(self.stride_values)} strides")
            if self.stride_values[-1] != 1:
                raise VerifyException(f"the last stride of a !tile.tensor_view must be 1 (rows are contiguous), got {self.stride_values[-1]}")

    @property
    def contiguous(self) -> bool:
        return not self.strides.data


@irdl_attr_definition
class PartitionViewType(ParametrizedAttribute, TypeAttribute):
    """`!tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>`: a tensor view cut
    into tiles of a static power-of-two shape, indexed by tile coordinates. Reads past the tensor's end
    give `padding` (of the element type); writes there do nothing."""

    name = "tile.partition_view"

    tile_shape: ArrayAttr[IntAttr]
    tensor: TensorViewType
    padding: Attribute

    def __init__(self, tile_shape: Sequence[int], tensor: TensorViewType, padding: Attribute | None = None):
        if padding is None:
            padding = zero_attr(tensor.element_type)
        super().__init__(int_array(tile_shape), tensor, padding)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        dims, tensor = parse_tile_shape_and_type(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("padding")
        parser.parse_punctuation("=")
        padding = parser.parse_attribute()
        parser.parse_punctuation(">")
        return [int_array(dims), tensor, padding]

    def print_parameters(self, printer: Printer) -> None:
        print_tile_shape_and_type(printer, self.dims, self.tensor)
        printer.print_string(", padding = ")
        printer.print_attribute(self.padding)
        printer.print_string(">")

    def verify(self) -> None:
        check_tile_shape(self.dims, "the tile shape of !tile.partition_view")
        if len(self.dims) != self.tensor.rank:
            raise VerifyException(
                f"a partition view's tile shape [{', '.join(map(str, self.dims))}] must have the tensor's rank {self.tensor.rank}"
            )
        if not isinstance(self.padding, IntegerAttr | FloatAttr) or self.padding.type != self.tensor.element_type:
            raise VerifyException(f"the padding value must be a constant of the element type {self.tensor.element_type}, got {self.padding}")

    @property
    def dims(self) -> tuple[int, ...]:
        return int_tuple(self.tile_shape)

    @property
    def element_type(self) -> Attribute:
        return self.tensor.element_type

    @property
    def tile_type(self) -> TileType:
        return TileType(self.dims, self.tensor.element_type)


def zero_attr(t: Attribute) -> IntegerAttr | FloatAttr:
    """The constant 0 (or false) of element type `t`."""
    if is_float_type(t):
        return FloatAttr(0.0, t)  # pyright: ignore[reportArgumentType]
    return IntegerAttr(0, t)  # pyright: ignore[reportArgumentType]


# --------------------------------------------------------------------------- ids and sizes


class _LaunchQueryOp(IRDLOperation):
    """`%r = tile.<op> : si64`: a fact about the launch's tile blocks."""

    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[SI64])


@irdl_op_definition
class BlockIdOp(_LaunchQueryOp):
    """`%b = tile.block_id : si64`: this tile block's linear id (0 … `tile.num_blocks` − 1). One tile
    block is one CTA; ids are linear on `grid.x`, so there is no 65535 limit."""

    name = "tile.block_id"


@irdl_op_definition
class NumBlocksOp(_LaunchQueryOp):
    """`%n = tile.num_blocks : si64`: the number of tile blocks of the launch."""

    name = "tile.num_blocks"


class _AxisQueryOp(IRDLOperation):
    """`%n = tile.<op> %view[axis] : <view type>` giving an si64."""

    view = operand_def()
    axis = prop_def(IntAttr)
    result = result_def(SI64)

    traits = traits_def(Pure())

    def __init__(self, view: SSAValue | Operation, axis: int):
        super().__init__(operands=[view], properties={"axis": IntAttr(axis)}, result_types=[SI64])

    def _rank(self) -> int:
        raise NotImplementedError

    def verify_(self) -> None:
        rank = self._rank()
        if not 0 <= self.axis.data < rank:
            raise VerifyException(f"axis {self.axis.data} is out of range for a rank-{rank} {self.view.type.name}")  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def parse(cls, parser: Parser):
        v, axis, attrs = parse_axis_query(parser)
        op = cls(v, axis)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_axis_query(printer, self.view, self.axis.data, self.attributes)


@irdl_op_definition
class DimOp(_AxisQueryOp):
    """`%n = tile.dim %tv[1] : !tile.tensor_view<?x?xf32>`: a tensor view's extent along `axis` (si64)."""

    name = "tile.dim"

    view = operand_def(TensorViewType)

    def _rank(self) -> int:
        t = self.view.type
        assert isinstance(t, TensorViewType)
        return t.rank


@irdl_op_definition
class NumTilesOp(_AxisQueryOp):
    """`%n = tile.num_tiles %pv[0] : !tile.partition_view<…>`: tiles along `axis`, ceil(dim / tile) (si64)."""

    name = "tile.num_tiles"

    view = operand_def(PartitionViewType)

    def _rank(self) -> int:
        t = self.view.type
        assert isinstance(t, PartitionViewType)
        return len(t.dims)


@irdl_op_definition
class BlockCoordOp(_AxisQueryOp):
    """`%c = tile.block_coord %pv[1] : !tile.partition_view<…>`: this tile block's tile coordinate along
    `axis` when the launch's tile blocks are the tiles of `%pv`: `tile.block_id` delinearized row-major
    by `%pv`'s tile counts (si64)."""

    name = "tile.block_coord"

    view = operand_def(PartitionViewType)

    def _rank(self) -> int:
        t = self.view.type
        assert isinstance(t, PartitionViewType)
        return len(t.dims)


# --------------------------------------------------------------------------- views


@irdl_op_definition
class MakeTensorViewOp(IRDLOperation):
    """`%v = tile.make_tensor_view %t (%rows, %cols) : !tile.tensor_view<?xf32> -> !tile.tensor_view<?x?xf32>`:
    the same contiguous memory seen with another shape (one si64 operand per dynamic result dimension).
    Elements past the source's end are out of the new view too (loads and stores stay masked by both)."""

    name = "tile.make_tensor_view"

    source = operand_def(TensorViewType)
    sizes = var_operand_def(SI64)
    result = result_def(TensorViewType)

    traits = traits_def(Pure())

    assembly_format = "$source (`(` $sizes^ `)`)? attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, sizes: Sequence[SSAValue | Operation], result_type: TensorViewType):
        super().__init__(operands=[source, sizes], result_types=[result_type])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, TensorViewType) and isinstance(res, TensorViewType)
        if src.element_type != res.element_type:
            raise VerifyException(f"tile.make_tensor_view keeps the element type: {src.element_type} vs {res.element_type}")
        if not src.contiguous or not res.contiguous:
            raise VerifyException("tile.make_tensor_view reinterprets contiguous tensor views only")
        dynamic = sum(1 for d in res.dims if d == DYNAMIC_INDEX)
        if len(self.sizes) != dynamic:
            raise VerifyException(f"tile.make_tensor_view needs one size per dynamic dimension of the result: {dynamic}, got {len(self.sizes)}")
        for s in self.sizes:
            if s.type != SI64:
                raise VerifyException(f"sizes are si64, got {s.type}")


@irdl_op_definition
class MakePartitionViewOp(IRDLOperation):
    """`%p = tile.make_partition_view %t : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], …>`:
    the tensor view cut into tiles of the result type's tile shape and padding."""

    name = "tile.make_partition_view"

    source = operand_def(TensorViewType)
    result = result_def(PartitionViewType)

    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, result_type: PartitionViewType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        res = self.result.type
        assert isinstance(res, PartitionViewType)
        if res.tensor != self.source.type:
            raise VerifyException(f"the partition view is of {res.tensor}, but the source is {self.source.type}")


def _check_coords(coords: Sequence[SSAValue], rank: int, what: str) -> None:
    if len(coords) != rank:
        raise VerifyException(f"{what} needs {rank} tile coordinate(s), got {len(coords)}")
    for c in coords:
        if not is_int_type(c.type):
            raise VerifyException(f"tile coordinates are integers, got {c.type}")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%t = tile.load %p[%i, %j] : !tile.partition_view<[64, 128], …> -> !tile.tile<64x128xf32>`:
    the tile at tile coordinates (i, j); elements past the tensor's end are the padding value."""

    name = "tile.load"

    view = operand_def(PartitionViewType)
    coords = var_operand_def()
    result = result_def(TileType)

    assembly_format = "$view `[` $coords `]` attr-dict `:` type($view) `,` type($coords) `->` type($result)"

    def __init__(self, view: SSAValue | Operation, coords: Sequence[SSAValue | Operation]):
        vt = SSAValue.get(view).type
        assert isinstance(vt, PartitionViewType)
        super().__init__(operands=[view, coords], result_types=[vt.tile_type])

    def verify_(self) -> None:
        vt = self.view.type
        assert isinstance(vt, PartitionViewType)
        _check_coords(self.coords, len(vt.dims), "tile.load")
        if plain(self.result.type) != vt.tile_type:
            raise VerifyException(f"tile.load of {vt} gives {vt.tile_type}, not {self.result.type}")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`tile.store %t, %p[%i] : !tile.tile<128xf32>, !tile.partition_view<[128], …>, si64`: write the tile
    at tile coordinates (i, …); elements past the tensor's end are not written."""

    name = "tile.store"

    value = operand_def(TileType)
    view = operand_def(PartitionViewType)
    coords = var_operand_def()

    assembly_format = "$value `,` $view `[` $coords `]` attr-dict `:` type($value) `,` type($view) `,` type($coords)"

    def __init__(self, value: SSAValue | Operation, view: SSAValue | Operation, coords: Sequence[SSAValue | Operation]):
        super().__init__(operands=[value, view, coords])

    def verify_(self) -> None:
        vt = self.view.type
        assert isinstance(vt, PartitionViewType)
        _check_coords(self.coords, len(vt.dims), "tile.store")
        if plain(self.value.type) != vt.tile_type:
            raise VerifyException(f"tile.store into {vt} needs a {vt.tile_type}, got {self.value.type}")


@irdl_op_definition
class LoadTileLikeOp(IRDLOperation):
    """`%t = tile.load_tile_like %x, %p[%i] : !tile.tensor_view<?xf32>, !tile.partition_view<[128], …>, si64 -> !tile.tile<128xf32>`:
    the tile of `%x` that lines up with tile (i, …) of the partition `%p` (same tile shape and
    coordinates, `%x`'s own extents and `%p`'s padding value)."""

    name = "tile.load_tile_like"

    source = operand_def(TensorViewType)
    like = operand_def(PartitionViewType)
    coords = var_operand_def()
    result = result_def(TileType)

    assembly_format = "$source `,` $like `[` $coords `]` attr-dict `:` type($source) `,` type($like) `,` type($coords) `->` type($result)"

    def __init__(self, source: SSAValue | Operation, like: SSAValue | Operation, coords: Sequence[SSAValue | Operation]):
        st = SSAValue.get(source).type
        lt = SSAValue.get(like).type
        assert isinstance(st, TensorViewType) and isinstance(lt, PartitionViewType)
        super().__init__(operands=[source, like, coords], result_types=[TileType(lt.dims, st.element_type)])

    def verify_(self) -> None:
        st, lt = self.source.type, self.like.type
        assert isinstance(st, TensorViewType) and isinstance(lt, PartitionViewType)
        if st.rank != len(lt.dims):
            raise VerifyException(f"tile.load_tile_like: a rank-{st.rank} tensor cannot line up with a rank-{len(lt.dims)} partition")
        _check_coords(self.coords, st.rank, "tile.load_tile_like")
        expected = TileType(lt.dims, st.element_type)
        if plain(self.result.type) != expected:
            raise VerifyException(f"tile.load_tile_like gives {expected}, not {self.result.type}")


@irdl_op_definition
class LoadMaskedOp(IRDLOperation):
    """`%t = tile.load_masked %v[%offsets], %mask, %pad : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>`:
    a gather at element offsets (row-major) of the tensor view; where `%mask` is false or the offset is
    outside the tensor, the element is `%pad` and nothing is read."""

    name = "tile.load_masked"

    view = operand_def(TensorViewType)
    offsets = operand_def(TileType)
    mask = operand_def(TileType)
    padding = operand_def()
    result = result_def(TileType)

    assembly_format = "$view `[` $offsets `]` `,` $mask `,` $padding attr-dict `:` type($view) `,` type($offsets) `,` type($mask) `,` type($padding) `->` type($result)"

    def __init__(self, view: SSAValue | Operation, offsets: SSAValue | Operation, mask: SSAValue | Operation, padding: SSAValue | Operation):
        vt = SSAValue.get(view).type
        ot = SSAValue.get(offsets).type
        assert isinstance(vt, TensorViewType) and isinstance(ot, TileType)
        super().__init__(operands=[view, offsets, mask, padding], result_types=[TileType(ot.dims, vt.element_type)])

    def verify_(self) -> None:
        vt, ot, mt = self.view.type, self.offsets.type, self.mask.type
        assert isinstance(vt, TensorViewType) and isinstance(ot, TileType) and isinstance(mt, TileType)
        _check_masked(vt, ot, mt, self.padding.type, "tile.load_masked")
        if plain(self.result.type) != TileType(ot.dims, vt.element_type):
            raise VerifyException(f"tile.load_masked gives {TileType(ot.dims, vt.element_type)}, not {self.result.type}")


def _check_masked(vt: TensorViewType, ot: TileType, mt: TileType, value_t: Attribute, what: str) -> None:
    if not is_int_type(ot.element_type):
        raise VerifyException(f"{what}: offsets are an integer tile, got {ot}")
    if plain(mt) != TileType(ot.dims, i1):
        raise VerifyException(f"{what}: the mask must be {TileType(ot.dims, i1)}, got {mt}")
    if value_t != vt.element_type and plain(value_t) != TileType(ot.dims, vt.element_type):
        raise VerifyException(f"{what}: the value must be {vt.element_type} elements shaped like the offsets, got {value_t}")


@irdl_op_definition
class StoreMaskedOp(IRDLOperation):
    """`tile.store_masked %t, %v[%offsets], %mask : !tile.tile<128xf32>, !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>`:
    a scatter at element offsets; nothing is written where `%mask` is false or the offset is outside
    the tensor. (The frontend allows it only inside the tile block's own part of a partitioned tensor.)"""

    name = "tile.store_masked"

    value = operand_def(TileType)
    view = operand_def(TensorViewType)
    offsets = operand_def(TileType)
    mask = operand_def(TileType)

    assembly_format = "$value `,` $view `[` $offsets `]` `,` $mask attr-dict `:` type($value) `,` type($view) `,` type($offsets) `,` type($mask)"

    def __init__(self, value: SSAValue | Operation, view: SSAValue | Operation, offsets: SSAValue | Operation, mask: SSAValue | Operation):
        super().__init__(operands=[value, view, offsets, mask])

    def verify_(self) -> None:
        vt, ot, mt = self.view.type, self.offsets.type, self.mask.type
        assert isinstance(vt, TensorViewType) and isinstance(ot, TileType) and isinstance(mt, TileType)
        _check_masked(vt, ot, mt, self.value.type, "tile.store_masked")


ATOMIC_KINDS = ("add", "max", "min")


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`tile.atomic_rmw add %v[%offsets], %values, %mask : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>`:
    for each element where `%mask` is true and the offset is inside the tensor, atomically combine the
    value into the tensor (add, max, min; device scope, relaxed order). Float `max`/`min` propagate
    NaN, as `tile.maximum` (`memref.atomic_rmw maximumf`: a compare-and-swap loop on sm_90)."""

    name = "tile.atomic_rmw"

    kind = prop_def(StringAttr)
    view = operand_def(TensorViewType)
    offsets = operand_def(TileType)
    values = operand_def(TileType)
    mask = operand_def(TileType)

    def __init__(self, kind: str, view: SSAValue | Operation, offsets: SSAValue | Operation, values: SSAValue | Operation, mask: SSAValue | Operation):
        super().__init__(operands=[view, offsets, values, mask], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        if self.kind.data not in ATOMIC_KINDS:
            raise VerifyException(f"unknown atomic kind '{self.kind.data}', expected one of {', '.join(ATOMIC_KINDS)}")
        vt, ot, mt = self.view.type, self.offsets.type, self.mask.type
        assert isinstance(vt, TensorViewType) and isinstance(ot, TileType) and isinstance(mt, TileType)
        _check_masked(vt, ot, mt, self.values.type, "tile.atomic_rmw")
        if kind_of(vt.element_type) == "b":
            raise VerifyException("tile.atomic_rmw is not defined on bool tensors")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        kind = parser.parse_keyword_in(ATOMIC_KINDS, " (atomic kind)")
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offsets = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        values = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        mask = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in range(3):
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        operands = parser.resolve_operands([view, offsets, values, mask], types, parser.pos)
        op = cls(kind, *operands)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.view)
        printer.print_string("[")
        printer.print_operand(self.offsets)
        printer.print_string("], ")
        printer.print_operand(self.values)
        printer.print_string(", ")
        printer.print_operand(self.mask)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((o.type for o in self.operands), printer.print_attribute)


# --------------------------------------------------------------------------- making tiles


@irdl_op_definition
class FullOp(IRDLOperation):
    """`%t = tile.full 0.000000e+00 : f32 -> !tile.tile<128xf32>`: every element `value` (zeros, ones, …)."""

    name = "tile.full"

    value = prop_def(IntegerAttr | FloatAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "$value attr-dict `->` type($result)"

    def __init__(self, value: IntegerAttr | FloatAttr, result_type: TileType):
        super().__init__(properties={"value": value}, result_types=[result_type])

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        if self.value.type != rt.element_type:
            raise VerifyException(f"tile.full: the value {self.value} must have the element type {rt.element_type}")


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`%t = tile.iota : !tile.tile<128xsi32>`: 0, 1, …, N − 1 (a rank-1 integer tile)."""

    name = "tile.iota"

    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TileType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        if rt.rank != 1 or not is_int_type(rt.element_type):
            raise VerifyException(f"tile.iota makes a rank-1 integer tile, got {rt}")
        limit = 1 << (rt.element_type.width.data - (1 if is_signed(rt.element_type) else 0))  # pyright: ignore[reportAttributeAccessIssue]
        if rt.numel > limit:
            raise VerifyException(f"tile.iota: {rt.numel} elements do not fit {rt.element_type}")


@irdl_op_definition
class SplatOp(IRDLOperation):
    """`%t = tile.splat %s : f32 -> !tile.tile<128xf32>`: a scalar in every element."""

    name = "tile.splat"

    input = operand_def()
    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, value: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, TileType)
        if self.input.type != rt.element_type:
            raise VerifyException(f"tile.splat of {self.input.type} cannot make {rt}")


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """`%s = tile.extract %t : !tile.tile<1xf32> -> f32`: the value of a one-element tile."""

    name = "tile.extract"

    input = operand_def(TileType)
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, tile: SSAValue | Operation):
        t = SSAValue.get(tile).type
        assert isinstance(t, TileType)
        super().__init__(operands=[tile], result_types=[t.element_type])

    def verify_(self) -> None:
        t = self.input.type
        assert isinstance(t, TileType)
        if t.numel != 1:
            raise VerifyException(f"tile.extract needs a one-element tile, got {t}")
        if self.result.type != t.element_type:
            raise VerifyException(f"tile.extract gives {t.element_type}, not {self.result.type}")


def broadcastable(src: Sequence[int], dst: Sequence[int]) -> bool:
    """NumPy broadcasting of shape `src` to `dst` (leading dimensions added, size-1 dimensions stretched)."""
    if len(src) > len(dst):
        return False
    for s, d in zip(reversed(src), reversed(dst)):
        if s != d and s != 1:
            return False
    return True


class _RearrangeOp(IRDLOperation):
    """`%t = tile.<op> %x : !tile.tile<…> -> !tile.tile<…>`: the same elements in another shape or order."""

    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, tile: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[tile], result_types=[result_type])


@irdl_op_definition
class BroadcastOp(_RearrangeOp):
    """`%t = tile.broadcast %x : !tile.tile<1x128xf32> -> !tile.tile<64x128xf32>`: NumPy broadcasting
    (leading dimensions added, size-1 dimensions repeated)."""

    name = "tile.broadcast"

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.element_type != dst.element_type:
            raise VerifyException("tile.broadcast keeps the element type")
        if not broadcastable(src.dims, dst.dims):
            raise VerifyException(f"cannot broadcast shape ({', '.join(map(str, src.dims))}) to ({', '.join(map(str, dst.dims))})")


@irdl_op_definition
class ReshapeOp(_RearrangeOp):
    """`%t = tile.reshape %x : !tile.tile<8x16xf32> -> !tile.tile<128xf32>`: the same elements in
    row-major order, another shape."""

    name = "tile.reshape"

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.element_type != dst.element_type or src.numel != dst.numel:
            raise VerifyException(f"tile.reshape keeps the element type and the number of elements: {src} -> {dst}")


@irdl_op_definition
class PermuteOp(IRDLOperation):
    """`%t = tile.permute %x [1, 0] : !tile.tile<8x16xf32> -> !tile.tile<16x8xf32>`: result dimension i
    is input dimension `permutation[i]` (numpy.transpose's axes)."""

    name = "tile.permute"

    input = operand_def(TileType)
    permutation = prop_def(ArrayAttr[IntAttr])
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, tile: SSAValue | Operation, permutation: Sequence[int]):
        t = SSAValue.get(tile).type
        assert isinstance(t, TileType)
        dims = [t.dims[p] for p in permutation]
        super().__init__(operands=[tile], properties={"permutation": int_array(permutation)}, result_types=[TileType(dims, t.element_type)])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        perm = int_tuple(self.permutation)
        if sorted(perm) != list(range(src.rank)):
            raise VerifyException(f"{list(perm)} is not a permutation of the {src.rank} dimensions")
        if plain(dst) != TileType([src.dims[p] for p in perm], src.element_type):
            raise VerifyException(f"tile.permute {list(perm)} of {src} gives {TileType([src.dims[p] for p in perm], src.element_type)}, not {dst}")

    @classmethod
    def parse(cls, parser: Parser) -> PermuteOp:
        operand = parser.parse_unresolved_operand()
        perm = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        parser.parse_type()
        (v,) = parser.resolve_operands([operand], [t], parser.pos)
        op = cls(v, perm)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(" [" + ", ".join(str(p) for p in int_tuple(self.permutation)) + "]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class TransposeOp(_RearrangeOp):
    """`%t = tile.transpose %x : !tile.tile<8x16xf32> -> !tile.tile<16x8xf32>`: a rank-2 tile's transpose."""

    name = "tile.transpose"

    def __init__(self, tile: SSAValue | Operation):
        t = SSAValue.get(tile).type
        assert isinstance(t, TileType)
        super().__init__(tile, TileType(tuple(reversed(t.dims)), t.element_type))

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.rank != 2 or plain(dst) != TileType(tuple(reversed(src.dims)), src.element_type):
            raise VerifyException(f"tile.transpose takes a rank-2 tile and swaps its dimensions, got {src} -> {dst}")


@irdl_op_definition
class ConvertLayoutOp(IRDLOperation):
    """`%t = tile.convert_layout %x : !tile.tile<64x1xf32, #tile.slice<…>> -> !tile.tile<64x1xf32, #tile.blocked<…>>`:
    the same tile in another layout encoding (Triton's `ttg.convert_layout`). Source and result
    differ only in their encodings; `tile-to-gpu` moves registers through shared memory (barrier;
    write; barrier; read), by warp shuffles where the change stays within each warp, or not at all
    where both layouts place every element in the same register of the same thread."""

    name = "tile.convert_layout"

    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, tile: SSAValue | Operation, result_type: TileType):
        super().__init__(operands=[tile], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.plain != dst.plain:
            raise VerifyException(f"tile.convert_layout changes only the encoding: {src.plain} vs {dst.plain}")
        if not dst.has_encoding:
            raise VerifyException(f"tile.convert_layout needs a result encoding, got {dst}")


# --------------------------------------------------------------------------- elementwise


def _check_allowed(op: IRDLOperation, t: Attribute, allowed: str) -> None:
    assert isinstance(t, TileType)
    kind = kind_of(t.element_type)
    if kind in "iu":
        kind = "i"
    if kind not in allowed:
        what = {"b": "bool", "i": "integer", "f": "float"}[kind]
        raise VerifyException(f"{op.name} is not defined on {what} tiles ({t})")


class _Elementwise:
    """What the elementwise bases (`ElementwiseBinaryOp`, `ElementwiseUnaryOp`) share: the scalar op
    and catalog record behind a tile op, and the verifier (the result is a tile whose element kind is
    in `ALLOWED`; `TAKES` names the operands in the refusal)."""

    ALLOWED: ClassVar[str] = "bif"
    TAKES: ClassVar[str] = "tiles"
    SCALAR: ClassVar[type[Operation]]
    """The `kernel` or `math` scalar op with the same semantics per element (`tile-to-gpu` applies
    `kernel-to-gpu`'s lowering of it to each register)."""
    BUILTIN: ClassVar[Builtin | None] = None
    """The catalog record of a builtin's tile op (`warpforge.dialects.math_catalog`), None for operators."""

    def verify_(self) -> None:
        t = self.result.type  # pyright: ignore[reportAttributeAccessIssue]  (the op's result)
        if not isinstance(t, TileType):
            raise VerifyException(f"{self.name} takes {self.TAKES}, got {t}")  # pyright: ignore[reportAttributeAccessIssue]
        _check_allowed(self, t, self.ALLOWED)  # pyright: ignore[reportArgumentType]


class ElementwiseBinaryOp(_Elementwise, SameTypeBinaryOp):
    """`%r = tile.<op> %lhs, %rhs : !tile.tile<…xT>`: both operands and the result have one tile type;
    the semantics per element are those of the scalar op `SCALAR` (a class)."""


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """`+`; integers wrap."""

    name = "tile.add"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.AddOp


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """`-`; integers wrap."""

    name = "tile.sub"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.SubOp


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """`*`; integers wrap."""

    name = "tile.mul"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.MulOp


@irdl_op_definition
class TrueDivOp(ElementwiseBinaryOp):
    """`/` on floats (IEEE, correctly rounded)."""

    name = "tile.truediv"
    ALLOWED: ClassVar[str] = "f"
    SCALAR: ClassVar[type[Operation]] = kernel.TrueDivOp


@irdl_op_definition
class FloorDivOp(ElementwiseBinaryOp):
    """`//` rounding toward −∞ (Python); integer division by zero is a checked error with result 0."""

    name = "tile.floordiv"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.FloorDivOp


@irdl_op_definition
class ModOp(ElementwiseBinaryOp):
    """`%` with the divisor's sign (Python); integer modulo by zero is a checked error with result 0."""

    name = "tile.mod"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.ModOp


@irdl_op_definition
class PowOp(ElementwiseBinaryOp):
    """`**` on floats (libdevice `pow`)."""

    name = "tile.pow"
    ALLOWED: ClassVar[str] = "f"
    SCALAR: ClassVar[type[Operation]] = kernel.PowOp


@irdl_op_definition
class AndOp(ElementwiseBinaryOp):
    """`&` (logical on bool)."""

    name = "tile.and"
    ALLOWED: ClassVar[str] = "bi"
    SCALAR: ClassVar[type[Operation]] = kernel.AndOp


@irdl_op_definition
class OrOp(ElementwiseBinaryOp):
    """`|` (logical on bool)."""

    name = "tile.or"
    ALLOWED: ClassVar[str] = "bi"
    SCALAR: ClassVar[type[Operation]] = kernel.OrOp


@irdl_op_definition
class XorOp(ElementwiseBinaryOp):
    """`^` (logical on bool)."""

    name = "tile.xor"
    ALLOWED: ClassVar[str] = "bi"
    SCALAR: ClassVar[type[Operation]] = kernel.XorOp


@irdl_op_definition
class LShiftOp(ElementwiseBinaryOp):
    """`<<`; a count ≥ the width gives 0."""

    name = "tile.lshift"
    ALLOWED: ClassVar[str] = "i"
    SCALAR: ClassVar[type[Operation]] = kernel.LShiftOp


@irdl_op_definition
class RShiftOp(ElementwiseBinaryOp):
    """`>>` (arithmetic when signed); a count ≥ the width gives 0 or the sign fill."""

    name = "tile.rshift"
    ALLOWED: ClassVar[str] = "i"
    SCALAR: ClassVar[type[Operation]] = kernel.RShiftOp


@irdl_op_definition
class MaximumOp(ElementwiseBinaryOp):
    """`numpy.maximum`: NaN-propagating for floats."""

    name = "tile.maximum"
    ALLOWED: ClassVar[str] = "bif"
    SCALAR: ClassVar[type[Operation]] = kernel.MaxOp


@irdl_op_definition
class MinimumOp(ElementwiseBinaryOp):
    """`numpy.minimum`: NaN-propagating for floats."""

    name = "tile.minimum"
    ALLOWED: ClassVar[str] = "bif"
    SCALAR: ClassVar[type[Operation]] = kernel.MinOp


class ElementwiseUnaryOp(_Elementwise, SameTypeUnaryOp):
    """`%r = tile.<op> %x : !tile.tile<…xT>`."""

    ALLOWED: ClassVar[str] = "f"
    TAKES: ClassVar[str] = "a tile"


@irdl_op_definition
class NegOp(ElementwiseUnaryOp):
    """Unary `-` (integers wrap)."""

    name = "tile.neg"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.NegOp


@irdl_op_definition
class AbsOp(ElementwiseUnaryOp):
    """`abs`; `abs(INT_MIN)` wraps."""

    name = "tile.abs"
    ALLOWED: ClassVar[str] = "if"
    SCALAR: ClassVar[type[Operation]] = kernel.AbsOp


@irdl_op_definition
class InvertOp(ElementwiseUnaryOp):
    """`~` (logical not on bool, as NumPy)."""

    name = "tile.invert"
    ALLOWED: ClassVar[str] = "bi"
    SCALAR: ClassVar[type[Operation]] = kernel.InvertOp


@irdl_op_definition
class NotOp(ElementwiseUnaryOp):
    """Logical not of a bool tile."""

    name = "tile.not"
    ALLOWED: ClassVar[str] = "b"
    SCALAR: ClassVar[type[Operation]] = kernel.NotOp


def _builtin_op(b: Builtin) -> type[ElementwiseUnaryOp | ElementwiseBinaryOp]:
    """The tile op of catalog record `b`: `tile.<mnemonic>`, elementwise by `b.op`."""
    base = ElementwiseUnaryOp if b.arity == 1 else ElementwiseBinaryOp
    mnemonic = b.mnemonic or b.name
    cls_name = "".join(part.capitalize() for part in mnemonic.split("_")) + "Op"
    doc = f"`{b.tile_op_name}`: {b.doc}" + (f" {b.tile_approx.doc}" if b.tile_approx is not None else "")
    doc += f"\n\nThe tile form of the builtin `{b.name}` (`warpforge.dialects.math_catalog`), per element `{b.op.name}`."
    namespace = {
        "name": b.tile_op_name,
        "ALLOWED": ALLOWED_KINDS[b.rule],
        "SCALAR": b.op,
        "BUILTIN": b,
        "__doc__": doc,
        "__module__": __name__,
        "__qualname__": cls_name,
        "__annotations__": {"ALLOWED": ClassVar[str], "SCALAR": ClassVar[type[Operation]], "BUILTIN": ClassVar[Builtin | None]},
    }
    return irdl_op_definition(type(cls_name, (base,), namespace))


BUILTIN_OPS: dict[Builtin, type[ElementwiseUnaryOp | ElementwiseBinaryOp]] = {b: _builtin_op(b) for b in TILE_FORMS}
"""The tile op of every catalog record with a tile form (`tile.exp`, `tile.ceildiv`, …)."""
globals().update({op.__name__: op for op in BUILTIN_OPS.values()})  # tile.ExpOp, tile.CeildivOp, …


@irdl_op_definition
class CmpOp(IRDLOperation):
    """`%m = tile.cmp lt, %a, %b : !tile.tile<128xf32> -> !tile.tile<128xi1>`: elementwise comparison
    (unsigned types compare unsigned; floats ordered except `ne`, as `kernel.cmp`)."""

    name = "tile.cmp"

    T: ClassVar = VarConstraint("T", AnyAttr())
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, predicate: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        t = SSAValue.get(lhs).type
        assert isinstance(t, TileType)
        super().__init__(operands=[lhs, rhs], result_types=[TileType(t.dims, i1, t.encoding)], properties={"predicate": StringAttr(predicate)})

    def verify_(self) -> None:
        check_compare_predicate(self.predicate.data)
        t = self.lhs.type
        if not isinstance(t, TileType):
            raise VerifyException(f"tile.cmp takes tiles, got {t}")
        if self.result.type != TileType(t.dims, i1, t.encoding):
            raise VerifyException(f"tile.cmp gives {TileType(t.dims, i1)}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pred, lhs, rhs, attrs, t = parse_compare(parser)
        parser.parse_punctuation("->")
        parser.parse_type()
        lhs_v, rhs_v = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        op = cls(pred, lhs_v, rhs_v)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_compare(printer, self.predicate.data, self.lhs, self.rhs, self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class WhereOp(SelectLikeOp):
    """`%r = tile.where %c, %a, %b : !tile.tile<128xi1>, !tile.tile<128xf32>`: `numpy.where`."""

    name = "tile.where"

    cond = operand_def(TileType)

    assembly_format = "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, TileType):
            raise VerifyException(f"tile.where takes tiles, got {t}")
        if self.cond.type != TileType(t.dims, i1, t.encoding):
            raise VerifyException(f"tile.where needs a condition {TileType(t.dims, i1)}, got {self.cond.type}")


@irdl_op_definition
class CastOp(IRDLOperation):
    """`%r = tile.cast %x : !tile.tile<128xsi32> to !tile.tile<128xf32>`: NumPy conversion per element
    (as `kernel.cast`: ints wrap, float→int truncates and saturates, NaN → 0)."""

    name = "tile.cast"

    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, tile: SSAValue | Operation, element_type: Attribute):
        t = SSAValue.get(tile).type
        assert isinstance(t, TileType)
        super().__init__(operands=[tile], result_types=[TileType(t.dims, element_type, t.encoding)])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.dims != dst.dims:
            raise VerifyException(f"tile.cast keeps the shape: {src} to {dst}")
        if src.encoding != dst.encoding:
            raise VerifyException(f"tile.cast keeps the layout: {src} to {dst} (tile.convert_layout changes it)")


# --------------------------------------------------------------------------- reductions


REDUCE_KINDS = ("sum", "prod", "max", "min")


def parse_axis_operand(parser: Parser) -> tuple[SSAValue, int, bool, dict[str, Attribute], Attribute]:
    """`%t [axis] (keepdims)? attr-dict : type -> type`, the syntax after the keyword of the ops that work
    along one axis (`tile.reduce`, `tile.argmax/argmin`, `tile.cumsum`): (operand, axis, keepdims, attrs,
    result type)."""
    operand = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    axis = parser.parse_integer()
    parser.parse_punctuation("]")
    keep = parser.parse_optional_keyword("keepdims") is not None
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    parser.parse_punctuation("->")
    r = parser.parse_type()
    (value,) = parser.resolve_operands([operand], [t], parser.pos)
    return value, axis, keep, attrs, r


def print_axis_operand(op: IRDLOperation, printer: Printer, operand: SSAValue, axis: int, keep: bool) -> None:
    """Prints what `parse_axis_operand` reads."""
    printer.print_string(" ")
    printer.print_operand(operand)
    printer.print_string(f" [{axis}]")
    if keep:
        printer.print_string(" keepdims")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(operand.type)
    printer.print_string(" -> ")
    printer.print_attribute(op.results[0].type)


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """`%r = tile.reduce sum %t [1] keepdims : !tile.tile<64x128xf32> -> !tile.tile<64x1xf32>`:
    combine the elements along `axis` (sum, prod, max, min; `max`/`min` propagate NaN). Without
    `keepdims` the axis is removed (a full reduction of a rank-1 tile gives a rank-0 tile). Integer
    sums wrap; bool tiles are not reduced (cast them first). Float sums are a tree (per thread, then
    across lanes and warps), not sequential: the rounding differs from `numpy.sum`'s by a few ulp."""

    name = "tile.reduce"

    kind = prop_def(StringAttr)
    axis = prop_def(IntAttr)
    keepdims = opt_prop_def(UnitAttr)
    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, kind: str, tile: SSAValue | Operation, axis: int, keepdims: bool = False, result_type: Attribute | None = None):
        t = SSAValue.get(tile).type
        if result_type is None:
            assert isinstance(t, TileType) and 0 <= axis < t.rank, "tile.reduce: an axis of a tile"
            dims = list(t.dims)
            if keepdims:
                dims[axis] = 1
            else:
                del dims[axis]
            result_type = TileType(dims, t.element_type)
        props: dict[str, Attribute] = {"kind": StringAttr(kind), "axis": IntAttr(axis)}
        if keepdims:
            props["keepdims"] = UnitAttr()
        super().__init__(operands=[tile], properties=props, result_types=[result_type])

    def verify_(self) -> None:
        if self.kind.data not in REDUCE_KINDS:
            raise VerifyException(f"unknown reduction '{self.kind.data}', expected one of {', '.join(REDUCE_KINDS)}")
        t, r = self.input.type, self.result.type
        if not isinstance(r, TileType):
            raise VerifyException(f"tile.reduce gives a !tile.tile, got {r}")
        assert isinstance(t, TileType)  # operand_def(TileType) was checked first
        axis = self.axis.data
        if not 0 <= axis < t.rank:
            raise VerifyException(f"axis {axis} is out of range for {t}")
        if kind_of(t.element_type) == "b":
            raise VerifyException("tile.reduce is not defined on bool tiles (cast to an integer type first)")
        dims = list(t.dims)
        if self.keepdims is not None:
            dims[axis] = 1
        else:
            del dims[axis]
        if plain(r) != TileType(dims, t.element_type):
            raise VerifyException(f"reducing axis {axis} of {t} gives {TileType(dims, t.element_type)}, not {r}")

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        kind = parser.parse_keyword_in(REDUCE_KINDS, " (reduction)")
        value, axis, keep, attrs, r = parse_axis_operand(parser)
        op = cls(kind, value, axis, keep, result_type=r)  # the verifier checks axis and result type
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")
        print_axis_operand(self, printer, self.input, self.axis.data, self.keepdims is not None)


ELEMENTWISE_BINARY: tuple[type[ElementwiseBinaryOp], ...] = (
    AddOp, SubOp, MulOp, TrueDivOp, FloorDivOp, ModOp, PowOp, AndOp, OrOp, XorOp, LShiftOp, RShiftOp, MaximumOp, MinimumOp,
    *(op for op in BUILTIN_OPS.values() if issubclass(op, ElementwiseBinaryOp)),
)  # fmt: skip
ELEMENTWISE_UNARY: tuple[type[ElementwiseUnaryOp], ...] = (
    NegOp, AbsOp, InvertOp, NotOp, *(op for op in BUILTIN_OPS.values() if issubclass(op, ElementwiseUnaryOp)),
)  # fmt: skip

_OWN_OPS: tuple[type[IRDLOperation], ...] = (
        *ELEMENTWISE_BINARY,
        *ELEMENTWISE_UNARY,
        AtomicRMWOp,
        BlockCoordOp,
        BlockIdOp,
        BroadcastOp,
        CastOp,
        CmpOp,
        ConvertLayoutOp,
        DimOp,
        ExtractOp,
        FullOp,
        IotaOp,
        LoadMaskedOp,
        LoadOp,
        LoadTileLikeOp,
        MakePartitionViewOp,
        MakeTensorViewOp,
        NumBlocksOp,
        NumTilesOp,
        PermuteOp,
        ReduceOp,
        ReshapeOp,
        SplatOp,
        StoreMaskedOp,
        StoreOp,
        TransposeOp,
        WhereOp,
)
"""The ops defined in this file (the `tile` table adds those kept in their own files)."""


def _dialect() -> Dialect:
    """The whole `tile` dialect: every op and type, sorted by class name (`tests/test_dialect_tables.py`
    checks it). `tile.dot` and its ring (`tile_dot.py`), `tile.map` (`tile_map.py`), the index
    reductions and scans (`tile_scan.py`) and the TMA ring (`tile_tma.py`) are `tile` ops kept in their
    own files, which build on this one: they are imported when the table is first needed."""
    from warpforge.dialects.tile_dot import TILE_DOT_OPS
    from warpforge.dialects.tile_map import TILE_MAP_OPS
    from warpforge.dialects.tile_scan import TILE_SCAN_OPS
    from warpforge.dialects.tile_tma import TILE_TMA_OPS

    ops = sorted({*_OWN_OPS, *TILE_DOT_OPS, *TILE_MAP_OPS, *TILE_SCAN_OPS, *TILE_TMA_OPS}, key=lambda op: op.__name__)
    types = sorted([*LAYOUT_ATTRS, PartitionViewType, TensorViewType, TileType], key=lambda t: t.__name__)
    return Dialect("tile", ops, types)


__getattr__ = lazy_dialect_table(__name__, "Tile", _dialect)  # `tile.Tile`: the table, built once on first use

