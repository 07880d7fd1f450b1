"""Values of the tile frontend: tiles (`TileDType`), tensor parameters, shapes and tuples."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from math import prod
from typing import Any

from xdsl.ir import Attribute, SSAValue

from warpforge.dialects.tile import TileType
from warpforge.dtypes import DType
from warpforge.frontend.values import Scalar, Value


@dataclass(frozen=True, eq=True)
class TileDType(DType):
    """The "dtype" of a tile value: element dtype `elem` and static `shape`. A tile is a `Scalar` with
    this dtype, so the SIMT frontend's variables, branches and loops carry tiles as they carry numbers
    (two tiles have the same type when element dtype and shape agree)."""

    elem: DType = None  # pyright: ignore[reportAssignmentType]
    shape: tuple[int, ...] = ()

    @staticmethod
    def of(elem: DType, shape: tuple[int, ...]) -> TileDType:
        return TileDType(f"{elem.name}[{', '.join(map(str, shape))}]", elem.kind, elem.bits, elem, tuple(shape))

    def __repr__(self) -> str:
        return f"a tile of {self.elem.name} with shape {self.shape}"

    @cached_property
    def mlir(self) -> Attribute:  # pyright: ignore[reportIncompatibleVariableOverride]
        return TileType(self.shape, self.elem.mlir)

    @cached_property
    def np(self):  # pyright: ignore[reportIncompatibleVariableOverride]
        return self.elem.np

    @property
    def numel(self) -> int:
        return prod(self.shape)


def is_tile(value: Any) -> bool:
    return isinstance(value, Scalar) and isinstance(value.dtype, TileDType)


def elem_of(dtype: DType) -> DType:
    """The element dtype of a tile dtype, or the dtype itself."""
    return dtype.elem if isinstance(dtype, TileDType) else dtype


def shape_of(value: Any) -> tuple[int, ...]:
    """A tile's shape; () for scalars and literals."""
    return value.dtype.shape if is_tile(value) else ()


@dataclass(frozen=True)
class TensorValue(Value):
    """A tensor parameter. `kind`: `input` (borrowed, read-only), `partition` (this tile block's own
    part: `dims` is the part's shape), `atomic` (`tile.AtomicTensor`). `tensor_dims`: the whole
    tensor's extents (None: dynamic)."""

    ssa: SSAValue
    dtype: DType
    kind: str
    name: str
    tensor_dims: tuple[int | None, ...]
    tile_shape: tuple[int, ...] | None = None

    def describe(self) -> str:
        what = {"input": "input tensor", "partition": "partitioned tensor", "atomic": "atomic tensor"}[self.kind]
        return f"{what} '{self.name}'"


@dataclass(frozen=True)
class TupleValue(Value):
    """A Python tuple (a shape, coordinates, axes): items are frontend values."""

    items: tuple[Value, ...] = field(default=())

    def describe(self) -> str:
        return "a tuple"


@dataclass(frozen=True)
class NoneValue(Value):
    """Python's `None` (e.g. `axis=None`)."""

    def describe(self) -> str:
        return "None"
