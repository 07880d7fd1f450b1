r"""The `gpu` dialect: warpforge's own, spelled and printed as MLIR's (https://mlir.llvm.org/docs/Dialects/GPU/).

It replaces xDSL's `gpu` registration in warpforge's context (xDSL's has no custom syntax). Ids and
dimensions are `index`-typed, as in MLIR; `convert-gpu-to-nvvm` lowers them to NVVM special registers.

The gpu level of shared memory, synchronization and warp collectives (what `kernel-to-gpu` and the
tile lowering emit; `convert-gpu-to-nvvm` lowers each):

| op | MLIR's? | meaning |
|---|---|---|
| `gpu.barrier` | yes | block barrier |
| `gpu.shuffle xor\|up\|down\|idx %v, %off, %width : T` | yes | warp shuffle (i32/i64/f32/f64; 64-bit as two `shfl.sync`; past the segment edge a lane keeps its own value) |
| `gpu.subgroup_reduce <op> %v [cluster(size = N)]` | yes | warp (or cluster) reduction: `redux.sync` for i32 on sm_80+, else a shuffle butterfly |
| `gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>` | yes (workgroup space as 3) | the launch's dynamic shared memory; `memref.view` types it |
| `gpu.barrier_reduce popc\|and\|or %p` | warpforge | barrier reducing a predicate over the block (`bar.red`) |
| `gpu.thread_fence block\|device\|system` | warpforge | memory fence (`membar`) |
| `gpu.warp_sync %mask` | warpforge | `bar.warp.sync` |
| `gpu.vote any\|all`, `gpu.ballot`, `gpu.active_mask`, `gpu.match_any` | warpforge | warp votes and masks (full warp mask) |
| `gpu.atomic_cmpxchg`, `gpu.atomic_add_pair` | warpforge | compare-and-swap and packed f16x2/bf16x2 add on memrefs (other atomics are `memref.atomic_rmw`) |

Static shared memory is a `memref.global` in address space 3 read with `memref.get_global` (16-byte
aligned once lowered); local arrays are `memref.alloca`.

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
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    opt_attr_def,
    operand_def,
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

from warpforge.dialects._common import ResultOnlyOp

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
        from warpforge.verify import verify_launch_attributes

        verify_launch_attributes(self, exact="known_block_size", located=False)

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
class LaneIdOp(ResultOnlyOp):
    """Lane within the warp, 0–31 (PTX `%laneid`)."""

    name = "gpu.lane_id"

    result = result_def(IndexType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict"  # MLIR's syntax: the type is always index


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


# --------------------------------------------------------------------------- formatted output


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """`gpu.printf "i = %lld x = %f\\n", %i, %x : i64, f64`: C's printf from each thread that runs it
    (MLIR's `gpu.printf`), lowered to CUDA's `vprintf` by `convert-gpu-to-nvvm`. The output appears
    on the host's stdout at the next synchronization (CUDA C Programming Guide, "Formatted Output").

    The conversions must match the operands exactly (`warpforge.dialects._printf.parse_printf`):
    `%d %i %u %x %X %o %c` take `i32` (`%lld` … `i64`), `%f %F %e %E %g %G` take `f64`, and `%s`
    takes an `i1` and prints `True`/`False` (warpforge's extension: MLIR's op has no strings).
    Promotion to these types is the producer's job (`kernel-to-gpu` knows the signedness).

    | operand | type |
    |---|---|
    | `args` | `i32`, `i64`, `f64` or `i1`, one per conversion |
    """

    name = "gpu.printf"

    format = prop_def(StringAttr)
    args = var_operand_def()

    def __init__(self, fmt: str, args: Sequence[SSAValue | Operation]):
        super().__init__(operands=[list(args)], properties={"format": StringAttr(fmt)})

    def conversions(self) -> list[Any]:
        from warpforge.dialects._printf import Conversion, parse_printf

        return [p for p in parse_printf(self.format.data) if isinstance(p, Conversion)]

    def verify_(self) -> None:
        try:
            convs = self.conversions()
        except ValueError as e:
            raise VerifyException(str(e)) from None
        if len(convs) != len(self.args):
            raise VerifyException(f"the format has {len(convs)} conversion(s) but the op has {len(self.args)} argument(s)")
        from warpforge.dialects._printf import MAX_ARGS

        if len(self.args) > MAX_ARGS:
            raise VerifyException(f"{len(self.args)} arguments; CUDA's printf takes at most {MAX_ARGS} (it ignores the rest)")
        for i, (c, a) in enumerate(zip(convs, self.args)):
            want = {"i32": i32, "i64": i64, "f64": f64, "i1": i1}[c.operand]
            if a.type != want:
                raise VerifyException(f"argument {i}: '{c.text}' prints an {c.operand}, got {a.type} (promote it first)")

    @classmethod
    def parse(cls, parser: Parser) -> PrintfOp:
        from warpforge.dialects._printf import parse_format_op

        return parse_format_op(cls, parser)

    def print(self, printer: Printer) -> None:
        from warpforge.dialects._printf import print_format_op

        print_format_op(self, printer)


# --------------------------------------------------------------------------- synchronization (warpforge)


class ReductionKind(StrEnum):
    POPC = "popc"
    AND = "and"
    OR = "or"


@irdl_attr_definition
class BarrierReductionAttr(EnumAttribute[ReductionKind], SpacedOpaqueSyntaxAttribute):
    """What `gpu.barrier_reduce` computes over the block: `popc` (count), `and`, `or`."""

    name = "gpu.barrier_reduction"


@irdl_op_definition
class BarrierReduceOp(IRDLOperation):
    """`%n = gpu.barrier_reduce popc %pred : i32`, `%all = gpu.barrier_reduce and %pred : i1`.

    A block-wide barrier (as `gpu.barrier`) that also reduces a predicate over every thread of the
    block: `popc` counts the threads whose predicate is true (i32), `and`/`or` tell whether it holds
    in all / any of them (i1). PTX `bar.red.popc.u32` / `bar.red.and.pred` / `bar.red.or.pred`
    (ISA §9.7.13.1), CUDA `__syncthreads_count/and/or`. warpforge's op: MLIR's `gpu` dialect has no
    reducing barrier. Every thread of the block must reach it.
    """

    name = "gpu.barrier_reduce"

    kind = prop_def(BarrierReductionAttr)
    predicate = operand_def(i1)
    result = result_def(IntegerType)

    assembly_format = "$kind $predicate attr-dict `:` type($result)"

    def __init__(self, kind: str, predicate: SSAValue | Operation):
        k = ReductionKind(kind)
        super().__init__(
            operands=[predicate], result_types=[i32 if k == ReductionKind.POPC else i1], properties={"kind": BarrierReductionAttr(k)}
        )

    def verify_(self) -> None:
        want = i32 if self.kind.data == ReductionKind.POPC else i1
        if self.result.type != want:
            raise VerifyException(f"gpu.barrier_reduce {self.kind.data.value} gives {want}, got {self.result.type}")


class FenceScope(StrEnum):
    BLOCK = "block"
    DEVICE = "device"
    SYSTEM = "system"


@irdl_attr_definition
class FenceScopeAttr(EnumAttribute[FenceScope], SpacedOpaqueSyntaxAttribute):
    """The threads a `gpu.thread_fence` orders memory for: `block`, `device` or `system`."""

    name = "gpu.fence_scope"


@irdl_op_definition
class ThreadFenceOp(IRDLOperation):
    """`gpu.thread_fence block|device|system`: this thread's memory accesses before the fence are seen
    before those after it by every thread of the scope (PTX `membar.cta/gl/sys`, i.e. `fence.sc.*`;
    CUDA `__threadfence_block/__threadfence/__threadfence_system`). warpforge's op."""

    name = "gpu.thread_fence"

    scope = prop_def(FenceScopeAttr)

    assembly_format = "$scope attr-dict"

    def __init__(self, scope: str):
        super().__init__(properties={"scope": FenceScopeAttr(FenceScope(scope))})


@irdl_op_definition
class WarpSyncOp(IRDLOperation):
    """`gpu.warp_sync %mask`: the lanes named in `%mask` (i32) wait for each other (PTX
    `bar.warp.sync`, sm_70+; CUDA `__syncwarp(mask)`). Each lane executing it must be in the mask."""

    name = "gpu.warp_sync"

    mask = operand_def(i32)

    assembly_format = "$mask attr-dict"

    def __init__(self, mask: SSAValue | Operation):
        super().__init__(operands=[mask])


# --------------------------------------------------------------------------- warp collectives


class ShuffleMode(StrEnum):
    XOR = "xor"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """`xor`, `up`, `down` or `idx` (MLIR's `#gpu<shuffle_mode ...>`, printed bare in op syntax)."""

    name = "gpu.shuffle_mode"


SHUFFLE_TYPES = "i32, i64, f32 or f64"


def is_shuffle_type(t: Attribute) -> bool:
    """What `gpu.shuffle` moves: 32- and 64-bit integers and floats."""
    if isinstance(t, IntegerType):
        return t.width.data in (32, 64)
    return isinstance(t, AnyFloat) and t.bitwidth in (32, 64)


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%r, %valid = gpu.shuffle xor|up|down|idx %value, %offset, %width : T` — MLIR's `gpu.shuffle`.

    Each lane reads `%value` from another lane of its segment of `%width` lanes (`%width` a power of
    two ≤ 32; lanes `[k*width, (k+1)*width)` form a segment): `xor` from `lane ^ offset`, `up` from
    `lane - offset`, `down` from `lane + offset`, `idx` from lane `offset` of the segment. When the
    source lies outside the segment (`up`/`down` past its edge) the lane keeps its own value and
    `%valid` is false. `T` is i32, i64, f32 or f64; 64-bit values move as two 32-bit `shfl.sync`
    (PTX ISA §9.7.9.6). `%offset` and `%width` are i32.

    Every lane of the warp must execute it together (the mask is the full warp, 0xffffffff, as in
    MLIR's lowering and CUDA's `__shfl_*_sync(0xffffffff, ...)`).
    """

    name = "gpu.shuffle"

    T: ClassVar = VarConstraint("T", AnyAttr())
    mode = prop_def(ShuffleModeAttr)
    value = operand_def(T)
    offset = operand_def(i32)
    width = operand_def(i32)
    shuffle_result = result_def(T)
    valid = result_def(i1)

    traits = traits_def(Pure())

    assembly_format = "$mode $value `,` $offset `,` $width attr-dict `:` type($value)"

    def __init__(self, mode: str, value: SSAValue | Operation, offset: SSAValue | Operation, width: SSAValue | Operation):
        typ = SSAValue.get(value).type
        super().__init__(
            operands=[value, offset, width],
            result_types=[typ, i1],
            properties={"mode": ShuffleModeAttr(ShuffleMode(mode))},
        )

    def verify_(self) -> None:
        if not is_shuffle_type(self.value.type):
            raise VerifyException(f"gpu.shuffle moves {SHUFFLE_TYPES}, got {self.value.type}")
        width = _constant_value(self.width)
        if width is not None and (width < 1 or width > 32 or width & (width - 1)):
            raise VerifyException(f"the shuffle width must be a power of two from 1 to 32, got {width}")


def _constant_value(value: SSAValue) -> int | None:
    """The integer an `arith.constant` defines, else None."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name in ("arith.constant", "llvm.mlir.constant"):
        attr = owner.properties.get("value") or owner.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


class AllReduceOperation(StrEnum):
    ADD = "add"
    MUL = "mul"
    MINUI = "minui"
    MINSI = "minsi"
    MINNUMF = "minnumf"
    MAXUI = "maxui"
    MAXSI = "maxsi"
    MAXNUMF = "maxnumf"
    AND = "and"
    OR = "or"
    XOR = "xor"
    MINIMUMF = "minimumf"
    MAXIMUMF = "maximumf"


INT_REDUCTIONS = frozenset({"add", "mul", "minui", "minsi", "maxui", "maxsi", "and", "or", "xor"})
FLOAT_REDUCTIONS = frozenset({"add", "mul", "minnumf", "maxnumf", "minimumf", "maximumf"})


@irdl_attr_definition
class AllReduceOperationAttr(EnumAttribute[AllReduceOperation], SpacedOpaqueSyntaxAttribute):
    """MLIR's `#gpu<all_reduce_op ...>`: `add`, `mul`, `minsi`/`minui`/`maxsi`/`maxui` (integers),
    `minnumf`/`maxnumf` (NaN ignored) and `minimumf`/`maximumf` (NaN propagates) on floats,
    `and`/`or`/`xor` (integers)."""

    name = "gpu.all_reduce_op"


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """`%r = gpu.subgroup_reduce add %x [uniform] [cluster(size = 8)] : (f32) -> f32` — MLIR's op.

    Reduces `%x` over the lanes of the warp (or of each cluster of `size` consecutive lanes, a power of
    two ≤ 32) and gives every lane the result. `convert-gpu-to-nvvm` uses `redux.sync` for 32-bit
    integer add/and/or/xor/min/max over the whole warp on sm_80+, and a butterfly of `gpu.shuffle xor`
    otherwise (floats, other widths, clusters, older chips). Integers of any width, f16/bf16/f32/f64.
    Every lane of the warp must execute it.
    """

    name = "gpu.subgroup_reduce"

    T: ClassVar = VarConstraint("T", AnyAttr())
    op = prop_def(AllReduceOperationAttr)
    value = operand_def(T)
    result = result_def(T)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr)

    traits = traits_def(Pure())

    def __init__(self, op: str, value: SSAValue | Operation, *, cluster_size: int | None = None, uniform: bool = False):
        props: dict[str, Attribute] = {"op": AllReduceOperationAttr(AllReduceOperation(op))}
        if cluster_size is not None:
            props["cluster_size"] = IntegerAttr(cluster_size, i32)
        if uniform:
            props["uniform"] = UnitAttr()
        super().__init__(operands=[value], result_types=[SSAValue.get(value).type], properties=props)

    @property
    def size(self) -> int:
        """Lanes per cluster (32: the whole warp)."""
        return self.cluster_size.value.data if self.cluster_size is not None else 32

    def verify_(self) -> None:
        t, kind = self.value.type, self.op.data.value
        if isinstance(t, IntegerType) and t.width.data > 1:
            if kind not in INT_REDUCTIONS:
                raise VerifyException(f"gpu.subgroup_reduce {kind} is not defined on integers ({t})")
        elif isinstance(t, AnyFloat):
            if kind not in FLOAT_REDUCTIONS:
                raise VerifyException(f"gpu.subgroup_reduce {kind} is not defined on floats ({t})")
        else:
            raise VerifyException(f"gpu.subgroup_reduce reduces integers or floats, got {t}")
        size = self.size
        if size < 1 or size > 32 or size & (size - 1):
            raise VerifyException(f"the cluster size must be a power of two from 1 to 32, got {size}")

    @classmethod
    def parse(cls, parser: Parser) -> SubgroupReduceOp:
        kind = parser.parse_identifier()
        if kind not in AllReduceOperation.__members__.values() and kind not in [m.value for m in AllReduceOperation]:
            parser.raise_error(f"unknown reduction '{kind}' (expected one of {', '.join(m.value for m in AllReduceOperation)})")
        value = parser.parse_unresolved_operand()
        uniform = parser.parse_optional_keyword("uniform") is not None
        size = None
        if parser.parse_optional_keyword("cluster") is not None:
            parser.parse_punctuation("(")
            parser.parse_keyword("size")
            parser.parse_punctuation("=")
            size = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        (v,) = parser.resolve_operands([value], list(ftype.inputs.data), parser.pos)
        op = cls(kind, v, cluster_size=size, uniform=uniform)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.op.data.value} ")
        printer.print_operand(self.value)
        if self.uniform is not None:
            printer.print_string(" uniform")
        if self.cluster_size is not None:
            printer.print_string(f" cluster(size = {self.size})")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)


class VoteKind(StrEnum):
    ANY = "any"
    ALL = "all"


@irdl_attr_definition
class VoteKindAttr(EnumAttribute[VoteKind], SpacedOpaqueSyntaxAttribute):
    name = "gpu.vote_kind"


@irdl_op_definition
class VoteOp(IRDLOperation):
    """`%r = gpu.vote any|all %pred`: whether the predicate holds in any / every lane of the warp (PTX
    `vote.sync.any/all.pred`, full mask; CUDA `__any_sync/__all_sync(0xffffffff, p)`). warpforge's op.
    Every lane of the warp must execute it."""

    name = "gpu.vote"

    kind = prop_def(VoteKindAttr)
    predicate = operand_def(i1)
    result = result_def(i1)

    assembly_format = "$kind $predicate attr-dict"

    def __init__(self, kind: str, predicate: SSAValue | Operation):
        super().__init__(operands=[predicate], result_types=[i1], properties={"kind": VoteKindAttr(VoteKind(kind))})


@irdl_op_definition
class BallotOp(IRDLOperation):
    """`%m = gpu.ballot %pred : i32`: bit i is set when lane i's predicate holds (PTX
    `vote.sync.ballot.b32`, full mask; CUDA `__ballot_sync`). warpforge's op. Every lane of the warp
    must execute it."""

    name = "gpu.ballot"

    predicate = operand_def(i1)
    result = result_def(i32)

    assembly_format = "$predicate attr-dict `:` type($result)"

    def __init__(self, predicate: SSAValue | Operation):
        super().__init__(operands=[predicate], result_types=[i32])


@irdl_op_definition
class ActiveMaskOp(ResultOnlyOp):
    """`%m = gpu.active_mask : i32`: the lanes of the warp executing this instruction together (PTX
    `activemask.b32`, CUDA `__activemask()`). warpforge's op."""

    name = "gpu.active_mask"

    result = result_def(i32)


@irdl_op_definition
class MatchAnyOp(IRDLOperation):
    """`%m = gpu.match_any %v : i64`: the mask of the warp's lanes holding the same value as this lane
    (PTX `match.any.sync.b32/b64`, sm_70+, full mask; CUDA `__match_any_sync`). `%v` is i32 or i64
    (floats are compared as their bits: bitcast first). warpforge's op."""

    name = "gpu.match_any"

    value = operand_def(IntegerType)
    result = result_def(i32)

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value], result_types=[i32])

    def verify_(self) -> None:
        t = self.value.type
        if not isinstance(t, IntegerType) or t.width.data not in (32, 64):
            raise VerifyException(f"gpu.match_any compares i32 or i64 values, got {t}")


# --------------------------------------------------------------------------- memory


@irdl_op_definition
class AtomicAddPairOp(IRDLOperation):
    """`%old_lo, %old_hi = gpu.atomic_add_pair %m[%i], %lo, %hi : memref<?xf16, 1 : i32>`: one atomic
    add of the pair `(lo, hi)` to elements `i` and `i + 1` (`i` even: the pair is 4-byte aligned) of
    an f16 or bf16 memref; gives the two old values (PTX `atom.add.noftz.f16x2` / `.bf16x2`, CUDA
    `atomicAdd(__half2*, __half2)`). warpforge's op; discardable `syncscope`/`ordering` attributes
    as on `memref.atomic_rmw`. Lowered to `llvm.atomicrmw fadd` on `vector<2xT>` (LLVM 22 emits a
    compare-and-swap loop for it).
    """

    name = "gpu.atomic_add_pair"

    T: ClassVar = VarConstraint("T", AnyAttr())
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    lo = operand_def(T)
    hi = operand_def(T)
    old_lo = result_def(T)
    old_hi = result_def(T)

    assembly_format = "$memref `[` $indices `]` `,` $lo `,` $hi attr-dict `:` type($memref) `,` type($lo)"

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, memref: SSAValue | Operation, indices: Sequence[SSAValue | Operation], lo: SSAValue | Operation, hi: SSAValue | Operation):
        t = SSAValue.get(lo).type
        super().__init__(operands=[memref, indices, lo, hi], result_types=[t, t])

    def verify_(self) -> None:
        mt = self.memref.type
        assert isinstance(mt, MemRefType)
        t = self.lo.type
        if mt.element_type != t or not (isinstance(t, AnyFloat) and t.bitwidth == 16):
            raise VerifyException(f"gpu.atomic_add_pair adds f16 or bf16 pairs to a memref of that type, got {t} and {mt}")
        if len(self.indices) != mt.get_num_dims():
            raise VerifyException(f"expected {mt.get_num_dims()} indices, got {len(self.indices)}")


@irdl_op_definition
class AtomicCmpxchgOp(IRDLOperation):
    """`%old = gpu.atomic_cmpxchg %m[%i], %cmp, %new : memref<?xi32, 1 : i32>, i32`: atomically, if
    `m[i] == cmp` then `m[i] = new`; gives the value before (PTX `atom.cas.b32/b64`, CUDA `atomicCAS`).

    warpforge's op (MLIR spells compare-and-swap only through `memref.generic_atomic_rmw`). Like
    `memref.atomic_rmw` it may carry the discardable attributes `syncscope = "block" | "device" |
    "system"` (default device) and `ordering = "relaxed" | "acquire" | "release" | "acq_rel" |
    "seq_cst"` (default relaxed). 32- and 64-bit integers.
    """

    name = "gpu.atomic_cmpxchg"

    T: ClassVar = VarConstraint("T", AnyAttr())
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    cmp = operand_def(T)
    new = operand_def(T)
    result = result_def(T)

    assembly_format = "$memref `[` $indices `]` `,` $cmp `,` $new attr-dict `:` type($memref) `,` type($new)"

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, memref: SSAValue | Operation, indices: Sequence[SSAValue | Operation], cmp: SSAValue | Operation, new: SSAValue | Operation):
        super().__init__(operands=[memref, indices, cmp, new], result_types=[SSAValue.get(new).type])

    def verify_(self) -> None:
        mt = self.memref.type
        assert isinstance(mt, MemRefType)
        if mt.element_type != self.new.type:
            raise VerifyException(f"the values must have the memref's element type {mt.element_type}, got {self.new.type}")
        t = self.new.type
        if not isinstance(t, IntegerType) or t.width.data not in (32, 64):
            raise VerifyException(f"gpu.atomic_cmpxchg works on i32 and i64, got {t}")
        if len(self.indices) != mt.get_num_dims():
            raise VerifyException(f"expected {mt.get_num_dims()} indices, got {len(self.indices)}")


WORKGROUP = 3
"""Address space of shared memory (MLIR's `#gpu.address_space<workgroup>`, PTX `.shared`)."""


@irdl_op_definition
class DynamicSharedMemoryOp(ResultOnlyOp):
    """`%m = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>` — MLIR's op, with warpforge's integer
    memory space 3 for MLIR's `#gpu.address_space<workgroup>`.

    The block's dynamic shared memory (the launch's `shmem_size` bytes, 16-byte aligned), as bytes;
    `memref.view` makes a typed array of it. Its extent is the launch's size (PTX `%dynamic_smem_size`),
    so accesses can be bounds-checked. All uses in a kernel see the same memory.
    """

    name = "gpu.dynamic_shared_memory"

    result = result_def(MemRefType)

    traits = traits_def(Pure())

    def __init__(self):
        super().__init__(MemRefType(IntegerType(8), [DYNAMIC_INDEX], memory_space=IntegerAttr(WORKGROUP, i32)))

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, MemRefType)
        space = t.memory_space
        if (
            t.element_type != IntegerType(8)
            or tuple(t.get_shape()) != (DYNAMIC_INDEX,)
            or not (isinstance(space, IntegerAttr) and space.value.data == WORKGROUP)
        ):
            raise VerifyException(f"gpu.dynamic_shared_memory gives memref<?xi8, 3 : i32>, got {t}")


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
        # shared memory, synchronization, warp collectives
        ActiveMaskOp,
        AtomicAddPairOp,
        AtomicCmpxchgOp,
        BallotOp,
        BarrierReduceOp,
        DynamicSharedMemoryOp,
        MatchAnyOp,
        PrintfOp,
        ShuffleOp,
        SubgroupReduceOp,
        ThreadFenceOp,
        VoteOp,
        WarpSyncOp,
    ],
    [
        DimensionAttr,
        AllReduceOperationAttr,
        BarrierReductionAttr,
        FenceScopeAttr,
        ShuffleModeAttr,
        VoteKindAttr,
    ],
)

DIMENSION_OPS: tuple[type[_DimensionOp], ...] = (ThreadIdOp, BlockIdOp, BlockDimOp, GridDimOp, GlobalIdOp)
