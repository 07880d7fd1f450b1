"""`tile.map`: apply a scalar computation (its region) to every element of same-shaped tiles.

```mlir
%r = tile.map %x, %y : (!tile.tile<128xf32>, !tile.tile<128xf32>) -> !tile.tile<128xf32> {
^bb0(%a: f32, %b: f32):
  %s = kernel.call @gelu__f32(%a) : (f32) -> f32
  %t = kernel.add %s, %b : f32
  tile.yield %t : f32
}
```

The region takes one scalar per operand (the operand's element type) and ends in `tile.yield` of
one scalar, the result's element type; the result has the operands' shape. This is how a tile
kernel calls a `@simt.device` function on tiles (`gelu(x)` with a tile `x`): the frontend broadcasts
the arguments to one shape and emits a `kernel.call` of the function, compiled once per element
signature, inside the region; `inline-device-functions` inlines it there (the region may then hold
several blocks joined by `cf` branches), and `tile-to-gpu` lowers the region once per register of
the result (`passes/lowerings/tile_map.py`). Like MLIR's `linalg.map`, but on register tiles.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, region_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.tile import TileType


@irdl_op_definition
class MapOp(IRDLOperation):
    """`tile.map %a, %b : (types) -> type { ^bb0(%x, %y): ... tile.yield %v }` (module doc)."""

    name = "tile.map"

    inputs = var_operand_def(TileType)
    result = result_def(TileType)
    body = region_def()

    def __init__(self, inputs: Sequence[SSAValue], result_type: TileType, body: Region):
        super().__init__(operands=[list(inputs)], result_types=[result_type], regions=[body])

    def verify_(self) -> None:
        res = self.result.type
        assert isinstance(res, TileType)
        if not self.inputs:
            raise VerifyException("tile.map needs at least one tile operand")
        entry = self.body.blocks.first
        if entry is None:
            raise VerifyException("tile.map needs a body")
        types = [v.type for v in self.inputs]
        for t in types:
            assert isinstance(t, TileType)
            if t.dims != res.dims:
                raise VerifyException(f"tile.map: every operand has the result's shape {res}, got {t}")
        elems = [t.element_type for t in types]  # pyright: ignore[reportAttributeAccessIssue]
        got = [a.type for a in entry.args]
        if got != elems:
            raise VerifyException(f"tile.map: the body takes the operands' element types ({', '.join(map(str, elems))}), got ({', '.join(map(str, got))})")
        for block in self.body.blocks:
            last = block.last_op
            if isinstance(last, YieldOp) and last.value.type != res.element_type:
                raise VerifyException(f"tile.map: the body yields {res.element_type}, the result's element type, got {last.value.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(" : (")
        printer.print_list([v.type for v in self.inputs], printer.print_attribute)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        operands = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        if len(types) != len(operands):
            parser.raise_error(f"tile.map: {len(operands)} operands but {len(types)} types")
        if not isinstance(result, TileType):
            parser.raise_error(f"tile.map: the result is a !tile.tile, got {result}")
        op = cls(parser.resolve_operands(operands, types, parser.pos), result, body)
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`tile.yield %v : f32`: the element a `tile.map` body computes."""

    name = "tile.yield"

    value = operand_def()
    traits = traits_def(IsTerminator(), HasParent(MapOp))
    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])


TILE_MAP_OPS = (MapOp, YieldOp)


def map_body(elem_types: Sequence[Attribute]) -> tuple[Region, Block]:
    """An empty `tile.map` region whose entry block takes `elem_types`."""
    block = Block(arg_types=list(elem_types))
    return Region(block), block
