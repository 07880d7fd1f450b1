"""Index reductions and scans of tiles: `tile.argmax`, `tile.argmin`, `tile.cumsum`.

```mlir
%i = tile.argmax %t [1] keepdims : !tile.tile<4x64xf32> -> !tile.tile<4x1xsi64>
%j = tile.argmin %t [0] : !tile.tile<4x64xf32> -> !tile.tile<64xsi64>
%c = tile.cumsum %t [1] : !tile.tile<4x64xf32> -> !tile.tile<4x64xf32>
```

Semantics are NumPy's (`numpy.argmax`, `numpy.argmin`, `numpy.cumsum` with an `axis`): the index
along `axis` (si64, NumPy's `intp`) of the largest/smallest element, the **first** one on ties; a NaN
counts as the extreme, so the index of the first NaN is returned when the row has one (NumPy:
"In case of multiple occurrences of the maximum values, the indices corresponding to the first
occurrence are returned"; NaN propagates as in `numpy.maximum`). `tile.cumsum` is the inclusive
prefix sum along `axis` in the element type (integer sums wrap; the frontend widens small integers
to 64 bits first, as NumPy does). Float prefix sums are computed by a scan (per thread, then across
lanes and warps), not sequentially, so the rounding differs from `numpy.cumsum`'s by a few ulp.
`tile-to-gpu` lowers them (`passes/tile_to_gpu/scan.py`).

Found in TOSA as `tosa.argmax` (axis attribute, first index on ties); MLIR has no scan op on tiles.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.kernel import SI64
from warpforge.dialects.tile import TileType, kind_of, parse_axis_operand, print_axis_operand


class ArgReduceOp(IRDLOperation):
    """`%i = tile.<argmax|argmin> %t [axis] (keepdims)? : !tile.tile<…xT> -> !tile.tile<…xsi64>`: the
    index along `axis` of the extreme element (first on ties; the first NaN, if any)."""

    axis = prop_def(IntAttr)
    keepdims = opt_prop_def(UnitAttr)
    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, tile: SSAValue | Operation, axis: int, keepdims: bool = False, result_type: Attribute | None = None):
        t = SSAValue.get(tile).type
        if result_type is None:
            assert isinstance(t, TileType) and 0 <= axis < t.rank, "an axis of a tile"
            dims = list(t.dims)
            if keepdims:
                dims[axis] = 1
            else:
                del dims[axis]
            result_type = TileType(dims, SI64)
        props: dict[str, Attribute] = {"axis": IntAttr(axis)}
        if keepdims:
            props["keepdims"] = UnitAttr()
        super().__init__(operands=[tile], properties=props, result_types=[result_type])

    def verify_(self) -> None:
        t, r = self.input.type, self.result.type
        assert isinstance(t, TileType)
        axis = self.axis.data
        if not 0 <= axis < t.rank:
            raise VerifyException(f"axis {axis} is out of range for {t}")
        if kind_of(t.element_type) == "b":
            raise VerifyException(f"{self.name} is not defined on bool tiles (cast to an integer type first)")
        dims = list(t.dims)
        if self.keepdims is not None:
            dims[axis] = 1
        else:
            del dims[axis]
        if r != TileType(dims, SI64):
            raise VerifyException(f"{self.name} over axis {axis} of {t} gives {TileType(dims, SI64)}, not {r}")

    @classmethod
    def parse(cls, parser: Parser):
        value, axis, keep, attrs, r = parse_axis_operand(parser)
        op = cls(value, axis, keep, result_type=r)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_axis_operand(self, printer, self.input, self.axis.data, self.keepdims is not None)


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    """`numpy.argmax` along an axis: the first index of the largest element (of the first NaN)."""

    name = "tile.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    """`numpy.argmin` along an axis: the first index of the smallest element (of the first NaN)."""

    name = "tile.argmin"


@irdl_op_definition
class CumSumOp(IRDLOperation):
    """`%c = tile.cumsum %t [axis] : !tile.tile<…xT> -> !tile.tile<…xT>`: `numpy.cumsum` along `axis`
    (inclusive: element i is the sum of elements 0 … i), in the element type."""

    name = "tile.cumsum"

    axis = prop_def(IntAttr)
    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())

    def __init__(self, tile: SSAValue | Operation, axis: int, result_type: Attribute | None = None):
        super().__init__(operands=[tile], properties={"axis": IntAttr(axis)}, result_types=[result_type or SSAValue.get(tile).type])

    def verify_(self) -> None:
        t = self.input.type
        assert isinstance(t, TileType)
        if not 0 <= self.axis.data < t.rank:
            raise VerifyException(f"axis {self.axis.data} is out of range for {t}")
        if kind_of(t.element_type) == "b":
            raise VerifyException("tile.cumsum is not defined on bool tiles (cast to an integer type first)")
        if self.result.type != t:
            raise VerifyException(f"tile.cumsum keeps the type: {t}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CumSumOp:
        value, axis, keep, attrs, r = parse_axis_operand(parser)
        if keep:
            parser.raise_error("tile.cumsum keeps every dimension: no 'keepdims'")
        op = cls(value, axis, result_type=r)  # the verifier compares the types
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_axis_operand(self, printer, self.input, self.axis.data, False)


TILE_SCAN_OPS: tuple[type[IRDLOperation], ...] = (ArgMaxOp, ArgMinOp, CumSumOp)
