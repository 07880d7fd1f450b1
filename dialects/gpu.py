"""The `gpu` dialect: warpforge's own, spelled and printed as MLIR's (https://mlir.llvm.org/docs/Dialects/GPU/).

It replaces xDSL's `gpu` registration in warpforge's context (xDSL's has no custom syntax). Ids and
dimensions are `index`-typed, as in MLIR; `convert-gpu-to-nvvm` lowers them to NVVM special registers.

```mlir
gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  gpu.func @vecadd(%a: memref<?xf32, 1 : i32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    gpu.barrier
    gpu.return
  }
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IndexType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_attr_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# --------------------------------------------------------------------------- attributes


class Dimension(StrEnum):
    X = "x"
    Y = "y"
    Z = "z"


@irdl_attr_definition
class DimensionAttr(EnumAttribute[Dimension], SpacedOpaqueSyntaxAttribute):
    """A grid/block axis: `x`, `y` or `z` (MLIR's `#gpu<dim x>`, printed bare in op syntax)."""

    name = "gpu.dim"


# --------------------------------------------------------------------------- module and functions


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """`gpu.module @name [#nvvm.target<...>] { ... }`: the device code of one compilation, for its targets.

    The first target decides the chip and PTX version (`check-nvvm-target`, the PTX emitter).
    """

    name = "gpu.module"

    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    targets = opt_prop_def(ArrayAttr)

    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface(), SymbolTable())

    def __init__(self, name: str, body: Region | Sequence[Operation] = (), targets: Sequence[Attribute] = ()):
        props: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if targets:
            props["targets"] = ArrayAttr(targets)
        region = body if isinstance(body, Region) else Region(Block(body))
        super().__init__(properties=props, regions=[region])

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_symbol_name()
        targets: list[Attribute] = []
        if parser.parse_optional_punctuation("[") is not None:
            if parser.parse_optional_punctuation("]") is None:
                targets = [parser.parse_attribute()]
                while parser.parse_optional_punctuation(",") is not None:
                    targets.append(parser.parse_attribute())
                parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls(name.data, region, targets)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.targets is not None:
            printer.print_string(" [")
            printer.print_list(self.targets.data, printer.print_attribute)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False)

    @property
    def target(self) -> Attribute | None:
        """The first `#nvvm.target` (or other target attribute), if any."""
        return self.targets.data[0] if self.targets is not None and self.targets.data else None


@irdl_op_definition
class FuncOp(IRDLOperation):
    """`gpu.func @name(%args) [-> results] [kernel] [attributes {...}] { ... }`.

    A `kernel` function is an entry point (PTX `.entry`) and returns nothing. `known_block_size`
    (`array<i32: x, y, z>`) is the exact block shape the kernel is launched with (`.reqntid`).
    """

    name = "gpu.func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    kernel = opt_prop_def(UnitAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-argument attributes (`{llvm.noalias, llvm.readonly}`), carried to the `llvm.func` parameters."""
    known_block_size = opt_attr_def(DenseArrayBase.constr(i32))
    known_grid_size = opt_attr_def(DenseArrayBase.constr(i32))

    traits = traits_def(IsolatedFromAbove(), HasParent(ModuleOp), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        region: Region | None = None,
        *,
        kernel: bool = False,
        known_block_size: Sequence[int] | None = None,
        arg_attrs: Sequence[DictionaryAttr] | None = None,
    ):
        if region is None:
            region = Region(Block(arg_types=function_type.inputs))
        props: dict[str, Attribute] = {"sym_name": StringAttr(name), "function_type": function_type}
        if kernel:
            props["kernel"] = UnitAttr()
        if arg_attrs is not None and any(d.data for d in arg_attrs):
            props["arg_attrs"] = ArrayAttr(arg_attrs)
        attrs: dict[str, Attribute] = {}
        if known_block_size is not None:
            attrs["known_block_size"] = DenseArrayBase.from_list(i32, known_block_size)
        super().__init__(properties=props, attributes=attrs, regions=[region])

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException("gpu.func must have a body")
        if tuple(self.body.blocks.first.arg_types) != tuple(self.function_type.inputs):  # pyright: ignore[reportOptionalMemberAccess]
            raise VerifyException(
                "entry block argument types must match the function's input types: expected "
                f"{', '.join(map(str, self.function_type.inputs))}"
            )
        if self.kernel is not None and self.function_type.outputs.data:
            raise VerifyException("a kernel gpu.func must return nothing")
        if self.known_block_size is not None:
            dims = self.known_block_size.get_values()
            if len(dims) != 3 or any(d < 1 for d in dims):
                raise VerifyException(f"known_block_size must be 3 positive integers, got {list(dims)}")

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name()
        arg_dicts: list[DictionaryAttr] = []

        def parse_arg() -> Parser.Argument:
            arg = parser.parse_argument(expect_type=True)
            attrs = parser.parse_optional_dictionary_attr_dict()
            arg_dicts.append(DictionaryAttr(attrs))
            return arg

        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_arg)
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    outputs = [parser.parse_type()]
                    while parser.parse_optional_punctuation(",") is not None:
                        outputs.append(parser.parse_type())
                    parser.parse_punctuation(")")
            else:
                outputs = [parser.parse_type()]
        kernel = parser.parse_optional_keyword("kernel") is not None
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(args)
        ftype = FunctionType.from_lists([a.type for a in args], outputs)
        op = cls(name.data, ftype, region, kernel=kernel, arg_attrs=arg_dicts)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        arg_attrs = self.arg_attrs.data if self.arg_attrs is not None else ()

        def print_arg(i_arg: tuple[int, BlockArgument]) -> None:
            i, arg = i_arg
            printer.print_block_argument(arg)
            if i < len(arg_attrs) and arg_attrs[i].data:
                printer.print_string(" ")
                printer.print_attr_dict(arg_attrs[i].data)

        printer.print_list(enumerate(self.body.blocks.first.args), print_arg)  # pyright: ignore[reportOptionalMemberAccess]
        printer.print_string(")")
        outs = self.function_type.outputs.data
        if outs:
            printer.print_string(" -> ")
            if len(outs) == 1:
                printer.print_attribute(outs[0])
            else:
                printer.print_string("(")
                printer.print_list(outs, printer.print_attribute)
                printer.print_string(")")
        if self.kernel is not None:
            printer.print_string(" kernel")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`gpu.return [%values : types]`: returns from a `gpu.func`."""

    name = "gpu.return"

    args = var_operand_def()

    traits = traits_def(IsTerminator(), HasParent(FuncOp), Pure())

    assembly_format = "attr-dict ($args^ `:` type($args))?"

    def __init__(self, args: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[args])


# --------------------------------------------------------------------------- ids and dimensions


class _DimensionOp(IRDLOperation):
    """`%r = gpu.<op> x|y|z`: an `index` along one axis. Pure: the value is fixed for the thread."""

    dimension = prop_def(DimensionAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    assembly_format = "$dimension attr-dict"

    def __init__(self, dim: str | Dimension):
        super().__init__(result_types=[IndexType()], properties={"dimension": DimensionAttr(Dimension(dim))})

    @property
    def dim(self) -> str:
        return self.dimension.data.value


@irdl_op_definition
class ThreadIdOp(_DimensionOp):
    """Thread index within the block (PTX `%tid`, CUDA `threadIdx`)."""

    name = "gpu.thread_id"


@irdl_op_definition
class BlockIdOp(_DimensionOp):
    """Block index within the grid (PTX `%ctaid`, CUDA `blockIdx`)."""

    name = "gpu.block_id"


@irdl_op_definition
class BlockDimOp(_DimensionOp):
    """Threads per block (PTX `%ntid`, CUDA `blockDim`)."""

    name = "gpu.block_dim"


@irdl_op_definition
class GridDimOp(_DimensionOp):
    """Blocks per grid (PTX `%nctaid`, CUDA `gridDim`)."""

    name = "gpu.grid_dim"


@irdl_op_definition
class GlobalIdOp(_DimensionOp):
    """`block_id * block_dim + thread_id` along one axis."""

    name = "gpu.global_id"


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """Lane within the warp, 0–31 (PTX `%laneid`)."""

    name = "gpu.lane_id"

    result = result_def(IndexType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


# --------------------------------------------------------------------------- synchronization


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`gpu.barrier`: every thread of the block waits here (PTX `bar.sync 0`, CUDA `__syncthreads()`).

    All threads of the block must reach the same barrier, or the block deadlocks.
    """

    name = "gpu.barrier"

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


GPU = Dialect(
    "gpu",
    [
        BarrierOp,
        BlockDimOp,
        BlockIdOp,
        FuncOp,
        GlobalIdOp,
        GridDimOp,
        LaneIdOp,
        ModuleOp,
        ReturnOp,
        ThreadIdOp,
    ],
    [DimensionAttr],
)

DIMENSION_OPS: tuple[type[_DimensionOp], ...] = (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp, GlobalIdOp)
