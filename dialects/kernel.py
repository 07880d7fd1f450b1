"""The `kernel` dialect: a SIMT kernel as Python means it, the output of warpforge's frontend.

Integer types keep their signedness (`si32`, `ui64`; `i1` is `bool`), and every op carries Python /
NumPy semantics — `kernel.floordiv` rounds toward −∞, `kernel.max` propagates NaN, `kernel.cast` from
float to int saturates — so the frontend only decides *types*, and `kernel-to-gpu` decides how each
semantic is spelled in `arith`/`math`/`memref`/`gpu`. Binary ops take operands of one type (the
frontend inserts `kernel.cast` per NumPy 2's promotion rules).

Control flow is structured: `kernel.if`, `kernel.for`, `kernel.while` have regions; `kernel.break`,
`kernel.continue` and `kernel.return` may end any block nested in a loop / the function and are
lowered to `cf` by `lower-kernel-control-flow`. Loop-carried variables are explicit (`iter_args`),
and `kernel.break`/`kernel.continue` pass the current values of the innermost loop's carried
variables.

Safety types: `!kernel.slice<T>` (read-only input), `!kernel.disjoint_slice<T>` (an output each
thread writes only at its own `!kernel.thread_index`), `!kernel.thread_index` (a witness only
`kernel.index_1d`/`kernel.index_2d`/`kernel.index_3d` make), `!kernel.block_index` (the block's own
index: a write through it is made by the block's first thread), `!kernel.atomic_slice<T>` (atomic
operations only, at any index), `!kernel.raw_slice<T>` (`simt.unsafe.RawSlice`: anywhere, checked,
not race-checked). Owned views (`kernel.view_load/store`) let a thread write the several elements its
index provably owns. On-chip arrays: `!kernel.shared<32x33xf32>` (block shared memory, `?` for the
dynamic one) and `!kernel.local<8xf32>` (per thread). Barriers, fences, warp collectives, atomics and
`kernel.call` of `@simt.device` functions (inlined by `inline-device-functions`) complete the set.

```mlir
kernel.func @vecadd(%a: !kernel.slice<f32>, %b: !kernel.slice<f32>, %c: !kernel.disjoint_slice<f32>)
    attributes {contract_block = array<i32: 256, 1, 1>} {
  %idx = kernel.index_1d : !kernel.thread_index
  %i = kernel.index_get %idx : si64
  %x = kernel.load %a[%i] : !kernel.slice<f32>, si64 -> f32
  %y = kernel.load %b[%i] : !kernel.slice<f32>, si64 -> f32
  %s = kernel.add %x, %y : f32
  kernel.store %s, %c[%idx] : f32, !kernel.disjoint_slice<f32>
  kernel.return
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IntAttr,
    FunctionType,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    i1,
    i32,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.gpu import (
    BarrierReductionAttr,
    Dimension,
    DimensionAttr,
    FenceScope,
    FenceScopeAttr,
    ReductionKind,
    ShuffleMode,
    ShuffleModeAttr,
    VoteKind,
    VoteKindAttr,
)
from warpforge.dialects.element_types import bit_width, is_float, is_integer, is_signed, scalar_kind
from warpforge.dialects._common import (
    COMPARE_PREDICATES,
    ResultOnlyOp,
    ShapedType,  # noqa: F401 (re-exported: kernel.COMPARE_PREDICATES)
    SameTypeBinaryOp,
    SameTypeUnaryOp,
    SelectLikeOp,
    check_compare_predicate,
    lazy_dialect_table,
    parse_colon_types,
    parse_compare,
    print_attrs_and_types,
    print_compare,
)

SI64 = IntegerType(64, Signedness.SIGNED)
"""`si64`: raw ids, `len()`, range variables (so global indices never overflow past 2^31 threads)."""

# --------------------------------------------------------------------------- types


def is_scalar_type(t: Attribute) -> bool:
    """bool (`i1`), signed/unsigned integers of 8–64 bits, and f16/bf16/f32/f64."""
    kind = scalar_kind(t)
    return kind in ("bool", "float") or (kind in ("signed", "unsigned") and bit_width(t) in (8, 16, 32, 64))


is_int_type = is_integer
"""A signed or unsigned integer (not bool): `element_types.is_integer`, the name the kernel ops use."""
is_float_type = is_float
"""A float type: `element_types.is_float`, the name the kernel ops use."""


def check_scalar(t: Attribute, what: str) -> None:
    """Raise `VerifyException` unless `t` is a scalar type (`is_scalar_type`); `what` names it."""
    if not is_scalar_type(t):
        raise VerifyException(f"{what} must be bool, a signed/unsigned integer or a float, got {t}")


class _ElementType(ParametrizedAttribute, TypeAttribute):
    """A type parametrized by one scalar element type: `!kernel.<name><f32>`."""

    element_type: Attribute

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        elem = parser.parse_type()
        parser.parse_punctuation(">")
        return [elem]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        check_scalar(self.element_type, f"the element type of {self.name}")


@irdl_attr_definition
class SliceType(_ElementType):
    """`!kernel.slice<T>`: a read-only 1-D array in global memory (pointer + length)."""

    name = "kernel.slice"
    element_type: Attribute  # declared on each type: xDSL compares only the concrete class's parameters


@irdl_attr_definition
class DisjointSliceType(_ElementType):
    """`!kernel.disjoint_slice<T>`: an output each thread writes only at its own `!kernel.thread_index`."""

    name = "kernel.disjoint_slice"
    element_type: Attribute  # declared on each type: xDSL compares only the concrete class's parameters


@irdl_attr_definition
class ThreadIndexType(ParametrizedAttribute, TypeAttribute):
    """`!kernel.thread_index`: proof that an index is this thread's own (made only by `kernel.index_1d/2d`)."""

    name = "kernel.thread_index"


@irdl_attr_definition
class AtomicSliceType(_ElementType):
    """`!kernel.atomic_slice<T>`: an array updated only by atomic operations, at any index."""

    name = "kernel.atomic_slice"
    element_type: Attribute  # declared on each type: xDSL compares only the concrete class's parameters


@irdl_attr_definition
class RawSliceType(_ElementType):
    """`!kernel.raw_slice<T>`: `simt.unsafe.RawSlice[T]`, read and written at any index (bounds-checked,
    not race-checked)."""

    name = "kernel.raw_slice"
    element_type: Attribute  # declared on each type: xDSL compares only the concrete class's parameters


@irdl_attr_definition
class BlockIndexType(ParametrizedAttribute, TypeAttribute):
    """`!kernel.block_index`: this block's own index (made only by `kernel.block_index_1d`); a write
    through it is performed by the block's first thread only."""

    name = "kernel.block_index"


AnySlice = SliceType | DisjointSliceType | AtomicSliceType | RawSliceType

# --------------------------------------------------------------------------- function


@irdl_op_definition
class FuncOp(IRDLOperation):
    """`kernel.func @name(%arg: T, ...) [-> T] [attributes {...}] { ... }`: a kernel or device function.

    Attributes (discardable): `kernel` (unit: a launchable kernel), `contract_block = array<i32: x,y,z>`
    (the exact block shape, PTX `.reqntid`), `contract_domain` (1 or 2), `launch_bounds` (i32, PTX
    `.maxntid`), `checks` (bool, checked mode; default true).
    """

    name = "kernel.func"

    body = region_def()
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, function_type: FunctionType, region: Region | None = None, attributes: dict[str, Attribute] | None = None):
        if region is None:
            region = Region(Block(arg_types=function_type.inputs))
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type},
            attributes=attributes or {},
            regions=[region],
        )

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException("kernel.func must have a body")
        if tuple(self.body.blocks.first.arg_types) != tuple(self.function_type.inputs):  # pyright: ignore[reportOptionalMemberAccess]
            raise VerifyException("entry block argument types must match the function type")
        if "kernel" in self.attributes and self.function_type.outputs.data:
            raise VerifyException("a kernel returns nothing")
        self._verify_launch_attributes()

    def _verify_launch_attributes(self) -> None:
        """`contract_block` (.reqntid), `launch_bounds` (.maxntid), `min_blocks_per_sm` (.minnctapersm):
        the shapes and ranges PTX accepts (PTX ISA §11.4), never both of the first two."""
        from warpforge.verify import MAX_MINCTASM, MAX_THREADS_PER_BLOCK, verify_launch_attributes

        block = self.attributes.get("contract_block")
        if block is not None and (not isinstance(block, DenseArrayBase) or len(block.get_values()) != 3):
            raise VerifyException(f"contract_block must be array<i32: x, y, z>, got {block}")
        verify_launch_attributes(self, exact="contract_block", maximum="", located=False)
        for name, high in (("launch_bounds", MAX_THREADS_PER_BLOCK), ("min_blocks_per_sm", MAX_MINCTASM)):
            attr = self.attributes.get(name)
            if attr is not None and (not isinstance(attr, IntegerAttr) or not 1 <= attr.value.data <= high):
                raise VerifyException(f"{name} must be an integer in [1, {high}], got {attr}")
        if block is not None and "launch_bounds" in self.attributes:
            raise VerifyException("a kernel has contract_block (PTX .reqntid) or launch_bounds (PTX .maxntid), not both: ptxas accepts only one")

    @property
    def is_kernel(self) -> bool:
        return "kernel" in self.attributes

    @property
    def checks(self) -> bool:
        attr = self.attributes.get("checks")
        return not (isinstance(attr, IntegerAttr) and attr.value.data == 0)

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name()
        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True))
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            outputs = [parser.parse_type()]
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(args)
        return cls(name.data, FunctionType.from_lists([a.type for a in args], outputs), region, dict(attrs.data) if attrs else None)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        printer.print_list(self.body.blocks.first.args, printer.print_block_argument)  # pyright: ignore[reportOptionalMemberAccess]
        printer.print_string(")")
        if self.function_type.outputs.data:
            printer.print_string(" -> ")
            printer.print_attribute(self.function_type.outputs.data[0])
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


class _ValuesTerminator(IRDLOperation):
    """`kernel.<op> [%values : types]`: a terminator passing values on (`kernel.return`, `kernel.yield`,
    `kernel.break`, `kernel.continue`)."""

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


@irdl_op_definition
class ReturnOp(_ValuesTerminator):
    """`kernel.return [%value : T]`: leave the function (from any depth; lowered to a branch)."""

    name = "kernel.return"


# --------------------------------------------------------------------------- values


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%c = kernel.constant 3 : si32`: a typed constant (bool as `true`/`false : i1`)."""

    name = "kernel.constant"

    value = prop_def(IntegerAttr | FloatAttr)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, value: IntegerAttr | FloatAttr):
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, IntegerAttr | FloatAttr):
            parser.raise_error("expected a typed integer or float constant, like `3 : si32`", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        op = cls(value)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        check_scalar(self.result.type, "kernel.constant's type")


class _KindChecked:
    """The verifier of kernel's operator bases (`_BinaryOp`, `_UnaryOp`): the result type T is a
    scalar whose kind is in `ALLOWED` (`b` bool, `i` integers, `f` floats); `refusal` words the error."""

    ALLOWED: ClassVar[str] = "bif"
    """Which kinds of T are allowed: `b` bool, `i` integers, `f` floats."""

    def refusal(self, kind: str, t: Attribute) -> str:
        raise NotImplementedError

    def verify_(self) -> None:
        t = self.result.type  # pyright: ignore[reportAttributeAccessIssue]  (the op's result)
        check_scalar(t, f"{self.name}'s type")  # pyright: ignore[reportAttributeAccessIssue]
        kind = "b" if t == i1 else ("f" if is_float_type(t) else "i")
        if kind not in self.ALLOWED:
            raise VerifyException(self.refusal(kind, t))


class _BinaryOp(_KindChecked, SameTypeBinaryOp):
    """`%r = kernel.<op> %lhs, %rhs : T` — both operands and the result have type T."""

    def refusal(self, kind: str, t: Attribute) -> str:
        what = {"b": "bool", "i": "integers", "f": "floats"}[kind]
        return f"{self.name} is not defined on {what} ({t})"


@irdl_op_definition
class AddOp(_BinaryOp):
    """`+`; integers wrap on overflow."""

    name = "kernel.add"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class SubOp(_BinaryOp):
    """`-`; integers wrap on overflow."""

    name = "kernel.sub"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class MulOp(_BinaryOp):
    """`*`; integers wrap on overflow."""

    name = "kernel.mul"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class TrueDivOp(_BinaryOp):
    """`/` on floats (the frontend converts integer operands to f64 first). IEEE: x/0 is ±inf or NaN."""

    name = "kernel.truediv"
    ALLOWED: ClassVar[str] = "f"


@irdl_op_definition
class FloorDivOp(_BinaryOp):
    """`//`, rounding toward −∞ (Python). Integer division by zero is a checked error (result 0)."""

    name = "kernel.floordiv"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class ModOp(_BinaryOp):
    """`%`, the result takes the divisor's sign (Python). Integer modulo by zero is a checked error (result 0)."""

    name = "kernel.mod"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class PowOp(_BinaryOp):
    """`**` on floats (libdevice `pow`). Integer powers with a constant exponent are multiplied out by the frontend."""

    name = "kernel.pow"
    ALLOWED: ClassVar[str] = "f"


@irdl_op_definition
class FmodOp(_BinaryOp):
    """`math.fmod(a, b)`: C's fmod, the remainder of truncating division (the sign of `a`; libdevice `fmod`)."""

    name = "kernel.fmod"
    ALLOWED: ClassVar[str] = "f"


@irdl_op_definition
class HypotOp(_BinaryOp):
    """`math.hypot(a, b)`: sqrt(a² + b²) without intermediate overflow or underflow (libdevice
    `__nv_hypot[f]`; C99 Annex F: hypot(±inf, NaN) = +inf)."""

    name = "kernel.hypot"
    ALLOWED: ClassVar[str] = "f"


@irdl_op_definition
class AndOp(_BinaryOp):
    """`&` (bitwise; logical on bool)."""

    name = "kernel.and"
    ALLOWED: ClassVar[str] = "bi"


@irdl_op_definition
class OrOp(_BinaryOp):
    """`|` (bitwise; logical on bool)."""

    name = "kernel.or"
    ALLOWED: ClassVar[str] = "bi"


@irdl_op_definition
class XorOp(_BinaryOp):
    """`^` (bitwise; logical on bool)."""

    name = "kernel.xor"
    ALLOWED: ClassVar[str] = "bi"


@irdl_op_definition
class LShiftOp(_BinaryOp):
    """`<<`; a count ≥ the bit width (or negative) gives 0, never LLVM poison."""

    name = "kernel.lshift"
    ALLOWED: ClassVar[str] = "i"


@irdl_op_definition
class RShiftOp(_BinaryOp):
    """`>>` (arithmetic for signed, logical for unsigned); a count ≥ the width gives 0, or −1 for a negative signed value."""

    name = "kernel.rshift"
    ALLOWED: ClassVar[str] = "i"


@irdl_op_definition
class MaxOp(_BinaryOp):
    """`max(a, b)`: NaN-propagating for floats (like `numpy.maximum`, unlike Python's builtin)."""

    name = "kernel.max"
    ALLOWED: ClassVar[str] = "bif"


@irdl_op_definition
class MinOp(_BinaryOp):
    """`min(a, b)`: NaN-propagating for floats (like `numpy.minimum`, unlike Python's builtin)."""

    name = "kernel.min"
    ALLOWED: ClassVar[str] = "bif"


@irdl_op_definition
class CmpOp(IRDLOperation):
    """`%r = kernel.cmp lt, %a, %b : si32`: a comparison giving bool. Unsigned types compare unsigned;
    floats compare ordered except `ne` (true when either is NaN, as in Python)."""

    name = "kernel.cmp"

    T: ClassVar = VarConstraint("T", AnyAttr())
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(i1)

    traits = traits_def(Pure())

    def __init__(self, predicate: str, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs], result_types=[i1], properties={"predicate": StringAttr(predicate)})

    def verify_(self) -> None:
        check_compare_predicate(self.predicate.data)
        check_scalar(self.lhs.type, "kernel.cmp's operand type")

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pred, lhs, rhs, attrs, t = parse_compare(parser)
        lhs_v, rhs_v = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        op = cls(pred, lhs_v, rhs_v)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_compare(printer, self.predicate.data, self.lhs, self.rhs, self.attributes)


class _UnaryOp(_KindChecked, SameTypeUnaryOp):
    """`%r = kernel.<op> %x : T`."""

    def refusal(self, kind: str, t: Attribute) -> str:
        return f"{self.name} is not defined on {t}"


@irdl_op_definition
class NegOp(_UnaryOp):
    """Unary `-` (wraps for integers, including unsigned)."""

    name = "kernel.neg"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class InvertOp(_UnaryOp):
    """`~` on integers (bitwise not); on bool it is logical not, as in NumPy."""

    name = "kernel.invert"
    ALLOWED: ClassVar[str] = "bi"


@irdl_op_definition
class NotOp(_UnaryOp):
    """`not x` on bool."""

    name = "kernel.not"
    ALLOWED: ClassVar[str] = "b"


@irdl_op_definition
class AbsOp(_UnaryOp):
    """`abs(x)`; `abs(INT_MIN)` wraps to INT_MIN; unsigned is the identity."""

    name = "kernel.abs"
    ALLOWED: ClassVar[str] = "if"


@irdl_op_definition
class CastOp(IRDLOperation):
    """`%r = kernel.cast %x : si32 to f32`: NumPy conversion semantics.

    int→int wraps (sign- or zero-extends by the source's signedness); int→float rounds to nearest;
    float→int truncates toward zero and saturates, NaN → 0 (PTX `cvt.rzi.sat`); anything→bool is
    `!= 0`; bool→number is 0/1.
    """

    name = "kernel.cast"

    operand = operand_def()
    result = result_def()

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($operand) `to` type($result)"

    def __init__(self, operand: SSAValue | Operation, to: Attribute):
        super().__init__(operands=[operand], result_types=[to])

    def verify_(self) -> None:
        check_scalar(self.operand.type, "kernel.cast's source type")
        check_scalar(self.result.type, "kernel.cast's result type")


@irdl_op_definition
class SelectOp(SelectLikeOp):
    """`%r = kernel.select %c, %a, %b : T`: both sides already evaluated (the frontend uses `kernel.if`
    for Python's lazy `a if c else b`)."""

    name = "kernel.select"

    cond = operand_def(i1)

    assembly_format = "$cond `,` $true_value `,` $false_value attr-dict `:` type($result)"


# --------------------------------------------------------------------------- thread ids


class _SpecialOp(IRDLOperation):
    """`%r = kernel.<op> x|y|z : si64` — a raw CUDA id or dimension, widened to i64. The dimension is
    `gpu.dim` (`gpu.DimensionAttr`), as on `gpu.thread_id` and its kin."""

    dimension = prop_def(DimensionAttr)
    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "$dimension attr-dict `:` type($result)"

    def __init__(self, dim: str):
        super().__init__(properties={"dimension": DimensionAttr(Dimension(dim))}, result_types=[SI64])


@irdl_op_definition
class ThreadIdxOp(_SpecialOp):
    """`simt.thread_idx.x|y|z` (CUDA `threadIdx`)."""

    name = "kernel.thread_idx"


@irdl_op_definition
class BlockIdxOp(_SpecialOp):
    """`simt.block_idx.x|y|z` (CUDA `blockIdx`)."""

    name = "kernel.block_idx"


@irdl_op_definition
class BlockDimOp(_SpecialOp):
    """`simt.block_dim.x|y|z` (CUDA `blockDim`)."""

    name = "kernel.block_dim"


@irdl_op_definition
class GridDimOp(_SpecialOp):
    """`simt.grid_dim.x|y|z` (CUDA `gridDim`)."""

    name = "kernel.grid_dim"


@irdl_op_definition
class Index1DOp(ResultOnlyOp):
    """`%idx = kernel.index_1d : !kernel.thread_index`: `block_idx.x * block_dim.x + thread_idx.x`,
    unique per thread in a 1-D launch (the runtime refuses launches with y or z extents ≠ 1)."""

    name = "kernel.index_1d"

    result = result_def(ThreadIndexType)

    traits = traits_def(Pure())


@irdl_op_definition
class Index2DOp(IRDLOperation):
    """`%idx = kernel.index_2d %ncols : si64 -> !kernel.thread_index`: row = global y, col = global x,
    linear index `row * ncols + col`. A write through it also requires `col < ncols` (else two threads
    could share an element); the runtime refuses launches with z extents ≠ 1."""

    name = "kernel.index_2d"

    ncols = operand_def()
    result = result_def(ThreadIndexType)

    traits = traits_def(Pure())

    assembly_format = "$ncols attr-dict `:` type($ncols) `->` type($result)"

    def __init__(self, ncols: SSAValue | Operation):
        super().__init__(operands=[ncols], result_types=[ThreadIndexType()])

    def verify_(self) -> None:
        if not is_int_type(self.ncols.type):
            raise VerifyException(f"ncols must be an integer, got {self.ncols.type}")


@irdl_op_definition
class Index3DOp(IRDLOperation):
    """`%idx = kernel.index_3d %ny, %nx : si64, si64 -> !kernel.thread_index`: the global ids (z, y, x),
    linear index `(z * ny + y) * nx + x`. A write through it also requires `y < ny` and `x < nx`
    (else two threads could share an element); unique in any launch shape."""

    name = "kernel.index_3d"

    ny = operand_def()
    nx = operand_def()
    result = result_def(ThreadIndexType)

    traits = traits_def(Pure())

    assembly_format = "$ny `,` $nx attr-dict `:` type($ny) `,` type($nx) `->` type($result)"

    def __init__(self, ny: SSAValue | Operation, nx: SSAValue | Operation):
        super().__init__(operands=[ny, nx], result_types=[ThreadIndexType()])

    def verify_(self) -> None:
        for v in (self.ny, self.nx):
            if not is_int_type(v.type):
                raise VerifyException(f"index_3d extents must be integers, got {v.type}")


class _IndexPartOp(IRDLOperation):
    """`%r = kernel.index_<part> %idx : si64`."""

    index = operand_def(ThreadIndexType)
    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "$index attr-dict `:` type($result)"

    def __init__(self, index: SSAValue | Operation):
        super().__init__(operands=[index], result_types=[SI64])


@irdl_op_definition
class IndexGetOp(_IndexPartOp):
    """`idx.get()`: the linear index, as a plain si64 for reading."""

    name = "kernel.index_get"


@irdl_op_definition
class IndexRowOp(_IndexPartOp):
    """`idx.row` (or `.y`) of an `index_2d` / `index_3d` (global y)."""

    name = "kernel.index_row"


@irdl_op_definition
class IndexPlaneOp(_IndexPartOp):
    """`idx.z` of an `index_3d` (global z)."""

    name = "kernel.index_plane"


@irdl_op_definition
class IndexColOp(_IndexPartOp):
    """`idx.col` (or `.x`) of an `index_2d` / `index_3d` (global x)."""

    name = "kernel.index_col"


# --------------------------------------------------------------------------- memory


@irdl_op_definition
class LenOp(IRDLOperation):
    """`len(s)`: the number of elements of a slice, or the first extent of an array; si64."""

    name = "kernel.len"

    slice = operand_def()
    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "$slice attr-dict `:` type($slice)"

    def __init__(self, slice_: SSAValue | Operation):
        super().__init__(operands=[slice_], result_types=[SI64])

    def verify_(self) -> None:
        if not isinstance(self.slice.type, _ElementType | _ArrayType):
            raise VerifyException(f"len() takes a slice or an array, got {self.slice.type}")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = kernel.load %s[%i] : !kernel.slice<f32>, si64 -> f32`: a checked read.

    The index is any integer (a negative one is out of range, not Python's from-the-end), or the
    thread's own `!kernel.thread_index` for a `disjoint_slice`. Out of range: the error record gets
    the first error (site: this op's location and `text`), the result is 0, the thread continues.
    `text` is the source expression, for the message.
    """

    name = "kernel.load"

    slice = operand_def(SliceType | DisjointSliceType | RawSliceType)
    index = operand_def()
    result = result_def()
    text = opt_prop_def(StringAttr)

    assembly_format = "$slice `[` $index `]` attr-dict `:` type($slice) `,` type($index) `->` type($result)"

    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, slice_: SSAValue | Operation, index: SSAValue | Operation, text: str | None = None):
        st = SSAValue.get(slice_).type
        assert isinstance(st, SliceType | DisjointSliceType | RawSliceType)
        props = {"text": StringAttr(text)} if text else {}
        super().__init__(operands=[slice_, index], result_types=[st.element_type], properties=props)

    def verify_(self) -> None:
        st = self.slice.type
        assert isinstance(st, SliceType | DisjointSliceType | RawSliceType)
        if self.result.type != st.element_type:
            raise VerifyException(f"result type {self.result.type} must be the slice's element type {st.element_type}")
        if isinstance(st, DisjointSliceType):
            if not isinstance(self.index.type, ThreadIndexType):
                raise VerifyException("a disjoint_slice is read only at the thread's own !kernel.thread_index")
        elif not is_int_type(self.index.type):
            raise VerifyException(f"a slice index must be an integer, got {self.index.type}")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`kernel.store %v, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index`: a write.

    To a `disjoint_slice` through the thread's own `!kernel.thread_index`: performed only when the
    index is in range (and, for `index_2d`, `col < ncols`); otherwise nothing is written — the
    `DisjointSlice` rule that makes writes race-free. Through a `!kernel.block_index`: performed by
    the block's first thread only. To a `raw_slice` at any integer index: bounds-checked (out of
    range: a checked error, nothing written), not race-checked. `text` is the source, for messages.
    """

    name = "kernel.store"

    value = operand_def()
    slice = operand_def(DisjointSliceType | RawSliceType)
    index = operand_def()
    text = opt_prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$value `,` $slice `[` $index `]` attr-dict `:` type($value) `,` type($slice) `,` type($index)"

    def __init__(self, value: SSAValue | Operation, slice_: SSAValue | Operation, index: SSAValue | Operation, text: str | None = None):
        props = {"text": StringAttr(text)} if text else {}
        super().__init__(operands=[value, slice_, index], properties=props)

    def verify_(self) -> None:
        st = self.slice.type
        assert isinstance(st, DisjointSliceType | RawSliceType)
        if self.value.type != st.element_type:
            raise VerifyException(f"stored value type {self.value.type} must be the element type {st.element_type}")
        if isinstance(st, DisjointSliceType):
            if not isinstance(self.index.type, ThreadIndexType | BlockIndexType):
                raise VerifyException(
                    "a disjoint_slice is written only through a !kernel.thread_index or !kernel.block_index, "
                    f"got {self.index.type}"
                )
        elif not is_int_type(self.index.type):
            raise VerifyException(f"a raw_slice index must be an integer, got {self.index.type}")


@irdl_op_definition
class BlockIndex1DOp(ResultOnlyOp):
    """`%b = kernel.block_index_1d : !kernel.block_index`: `simt.block_index_1d()`, this block's linear
    index in the grid, `(block_idx.z * grid_dim.y + block_idx.y) * grid_dim.x + block_idx.x` (unique
    per block for any grid shape; `block_idx.x` in a 1-D grid)."""

    name = "kernel.block_index_1d"

    result = result_def(BlockIndexType)

    traits = traits_def(Pure())


@irdl_op_definition
class BlockIndexGetOp(IRDLOperation):
    """`%i = kernel.block_index_get %b : si64`: `bidx.get()`, the block's linear index as a plain si64."""

    name = "kernel.block_index_get"

    index = operand_def(BlockIndexType)
    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "$index attr-dict `:` type($result)"

    def __init__(self, index: SSAValue | Operation):
        super().__init__(operands=[index], result_types=[SI64])


# --------------------------------------------------------------------------- atomics

ATOMIC_KINDS = ("add", "sub", "min", "max", "and", "or", "xor", "exch")
ATOMIC_SCOPES = ("block", "device", "system")
ATOMIC_ORDERINGS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")


def atomic_type_error(kind: str, t: Attribute) -> str | None:
    """Why atomic `kind` is not defined on element type `t` on any GPU (None: it is). PTX ISA §9.7.13.5:
    `atom` works on 32/64-bit integers; float add on f16/bf16/f32/f64; exch on 32/64-bit; no float
    and/or/xor; float min/max become a compare-and-swap loop (f32/f64)."""
    width = bit_width(t) if scalar_kind(t) not in (None, "index") else 0
    if t == i1:
        return "atomics on bool are not supported (use an integer dtype)"
    if isinstance(t, AnyFloat):
        if kind in ("and", "or", "xor"):
            return f"atomic {kind} is integer-only, got {t}"
        if kind in ("add", "sub"):
            return None
        if width not in (32, 64):
            return f"atomic {kind} on {t} is not supported (f32 and f64 only)"
        return None
    if width not in (32, 64):
        return f"atomic {kind} on {width}-bit integers is not supported (32- and 64-bit only)"
    return None


class _AtomicTarget:
    """Atomic targets: an atomic or raw slice (one index) or a shared array (one index per dimension)."""


def _check_atomic_target(target: SSAValue, indices: Sequence[SSAValue], what: str) -> Attribute:
    t = target.type
    if isinstance(t, AtomicSliceType | RawSliceType):
        if len(indices) != 1 or not is_int_type(indices[0].type):
            raise VerifyException(f"{what} on a slice takes one integer index")
        return t.element_type
    if isinstance(t, SharedArrayType):
        _check_indices(indices, len(t.dims), str(t))
        return t.element_type
    raise VerifyException(f"{what} needs an atomic_slice, raw_slice or shared array, got {t}")


@irdl_op_definition
class AtomicOp(IRDLOperation):
    """`%old = kernel.atomic add %a[%i], %v {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32`.

    `simt.atomic_add/sub/min/max/and/or/xor/exch(a, i, v, scope=..., order=...)`: atomically
    `a[i] = a[i] <op> v`, returning the value before. `sub` is an add of the negation; integer
    min/max follow the signedness; float min/max propagate NaN (as `max()` does). Out of range: a
    checked error, nothing updated, result 0. Scope `block`/`device`/`system`, ordering `relaxed`,
    `acquire`, `release`, `acq_rel`, `seq_cst` (C++/PTX memory model), kept to the PTX as
    `atom.<sem>.<scope>` (`nvvm.atomicrmw`, made by `convert-gpu-to-nvvm`), never weakened.
    """

    name = "kernel.atomic"

    kind = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    ordering = prop_def(StringAttr)
    text = opt_prop_def(StringAttr)
    target = operand_def()
    indices = var_operand_def()
    value = operand_def()
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        kind: str,
        target: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        value: SSAValue | Operation,
        scope: str = "device",
        ordering: str = "relaxed",
        text: str | None = None,
    ):
        props: dict[str, Attribute] = {"kind": StringAttr(kind), "scope": StringAttr(scope), "ordering": StringAttr(ordering)}
        if text:
            props["text"] = StringAttr(text)
        super().__init__(operands=[target, indices, value], result_types=[SSAValue.get(value).type], properties=props)

    def verify_(self) -> None:
        if self.kind.data not in ATOMIC_KINDS:
            raise VerifyException(f"unknown atomic '{self.kind.data}', expected one of {', '.join(ATOMIC_KINDS)}")
        _verify_scope_ordering(self.scope, self.ordering)
        elem = _check_atomic_target(self.target, self.indices, f"kernel.atomic {self.kind.data}")
        if self.value.type != elem or self.result.type != elem:
            raise VerifyException(f"the value and result must have the element type {elem}, got {self.value.type}")
        if (why := atomic_type_error(self.kind.data, elem)) is not None:
            raise VerifyException(why)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicOp:
        kind = parser.parse_keyword_in(ATOMIC_KINDS, " (atomic operation)")
        target = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        attrs = dict(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        tt = parser.parse_type()
        its = [(parser.parse_punctuation(","), parser.parse_type())[1] for _ in indices]
        parser.parse_punctuation(",")
        vt = parser.parse_type()
        ops = parser.resolve_operands([target, *indices, value], [tt, *its, vt], parser.pos)
        scope, ordering, text = attrs.pop("scope", StringAttr("device")), attrs.pop("ordering", StringAttr("relaxed")), attrs.pop("text", None)
        assert isinstance(scope, StringAttr) and isinstance(ordering, StringAttr)
        op = cls(kind, ops[0], ops[1:-1], ops[-1], scope.data, ordering.data, text.data if isinstance(text, StringAttr) else None)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.target)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("], ")
        printer.print_operand(self.value)
        printer.print_string(f' {{scope = "{self.scope.data}", ordering = "{self.ordering.data}"')
        if self.text is not None:
            printer.print_string(f", text = {self.text}")
        printer.print_string("}")
        print_attrs_and_types(printer, self, [self.target.type, *(i.type for i in self.indices), self.value.type])


def _verify_scope_ordering(scope: StringAttr, ordering: StringAttr) -> None:
    if scope.data not in ATOMIC_SCOPES:
        raise VerifyException(f"unknown atomic scope '{scope.data}', expected one of {', '.join(ATOMIC_SCOPES)}")
    if ordering.data not in ATOMIC_ORDERINGS:
        raise VerifyException(f"unknown atomic ordering '{ordering.data}', expected one of {', '.join(ATOMIC_ORDERINGS)}")


@irdl_op_definition
class AtomicCASOp(IRDLOperation):
    """`%old = kernel.atomic_cas %a[%i], %expected, %new {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<si32>, si64, si32`.

    `simt.atomic_cas(a, i, expected, new)`: atomically, if `a[i] == expected` then `a[i] = new`;
    returns the value before either way (32/64-bit integers). Out of range: a checked error, result 0.
    """

    name = "kernel.atomic_cas"

    scope = prop_def(StringAttr)
    ordering = prop_def(StringAttr)
    text = opt_prop_def(StringAttr)
    target = operand_def()
    indices = var_operand_def()
    expected = operand_def()
    new = operand_def()
    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        target: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        expected: SSAValue | Operation,
        new: SSAValue | Operation,
        scope: str = "device",
        ordering: str = "relaxed",
        text: str | None = None,
    ):
        props: dict[str, Attribute] = {"scope": StringAttr(scope), "ordering": StringAttr(ordering)}
        if text:
            props["text"] = StringAttr(text)
        super().__init__(operands=[target, indices, expected, new], result_types=[SSAValue.get(new).type], properties=props)

    def verify_(self) -> None:
        _verify_scope_ordering(self.scope, self.ordering)
        elem = _check_atomic_target(self.target, self.indices, "kernel.atomic_cas")
        if not (self.expected.type == self.new.type == self.result.type == elem):
            raise VerifyException(f"expected, new and the result must have the element type {elem}")
        if not is_int_type(elem) or elem.width.data not in (32, 64):  # pyright: ignore[reportAttributeAccessIssue]
            raise VerifyException(f"atomic compare-and-swap works on 32- and 64-bit integers, got {elem}")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCASOp:
        target = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
        parser.parse_punctuation(",")
        expected = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        new = parser.parse_unresolved_operand()
        attrs = dict(parser.parse_optional_attr_dict())
        parser.parse_punctuation(":")
        tt = parser.parse_type()
        its = [(parser.parse_punctuation(","), parser.parse_type())[1] for _ in indices]
        parser.parse_punctuation(",")
        vt = parser.parse_type()
        ops = parser.resolve_operands([target, *indices, expected, new], [tt, *its, vt, vt], parser.pos)
        scope, ordering, text = attrs.pop("scope", StringAttr("device")), attrs.pop("ordering", StringAttr("relaxed")), attrs.pop("text", None)
        assert isinstance(scope, StringAttr) and isinstance(ordering, StringAttr)
        op = cls(ops[0], ops[1:-2], ops[-2], ops[-1], scope.data, ordering.data, text.data if isinstance(text, StringAttr) else None)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("], ")
        printer.print_list([self.expected, self.new], printer.print_operand)
        printer.print_string(f' {{scope = "{self.scope.data}", ordering = "{self.ordering.data}"')
        if self.text is not None:
            printer.print_string(f", text = {self.text}")
        printer.print_string("}")
        print_attrs_and_types(printer, self, [self.target.type, *(i.type for i in self.indices), self.new.type])


@irdl_op_definition
class AtomicAddPairOp(IRDLOperation):
    """`%old0, %old1 = kernel.atomic_add_pair %a[%i], %x, %y {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f16>, (si64), f16`.

    `simt.atomic_add_pair(a, i, x, y)`: one atomic add of `x` to `a[i]` and `y` to `a[i + 1]` (f16 or
    bf16, `i` even: the pair is one aligned 32-bit word; PTX `atom.add.noftz.f16x2/bf16x2`); returns
    the two old values. An odd or out-of-range `i` is a checked error (nothing updated, results 0).
    """

    name = "kernel.atomic_add_pair"

    T: ClassVar = VarConstraint("T", AnyAttr())
    scope = prop_def(StringAttr)
    ordering = prop_def(StringAttr)
    text = opt_prop_def(StringAttr)
    target = operand_def()
    indices = var_operand_def()
    x = operand_def(T)
    y = operand_def(T)
    old0 = result_def(T)
    old1 = result_def(T)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())

    assembly_format = "$target `[` $indices `]` `,` $x `,` $y attr-dict `:` type($target) `,` `(` type($indices) `)` `,` type($x)"

    def __init__(self, target: SSAValue | Operation, indices: Sequence[SSAValue | Operation], x: SSAValue | Operation, y: SSAValue | Operation,
                 scope: str = "device", ordering: str = "relaxed", text: str | None = None):  # fmt: skip
        props: dict[str, Attribute] = {"scope": StringAttr(scope), "ordering": StringAttr(ordering)}
        if text:
            props["text"] = StringAttr(text)
        t = SSAValue.get(x).type
        super().__init__(operands=[target, indices, x, y], result_types=[t, t], properties=props)

    def verify_(self) -> None:
        _verify_scope_ordering(self.scope, self.ordering)
        elem = _check_atomic_target(self.target, self.indices, "kernel.atomic_add_pair")
        if not (self.x.type == self.y.type == elem) or not (isinstance(elem, AnyFloat) and elem.bitwidth == 16):
            raise VerifyException(f"kernel.atomic_add_pair adds pairs of f16 or bf16 (the element type), got {self.x.type}")
        if len(self.indices) != 1:
            raise VerifyException("kernel.atomic_add_pair takes one index (of a 1-D array)")


# --------------------------------------------------------------------------- device functions


@irdl_op_definition
class CallOp(IRDLOperation):
    """`%r = kernel.call @f(%a, %b) : (f32, !kernel.slice<f32>) -> f32`: a call of a `@simt.device`
    function (a non-kernel `kernel.func`); `inline-device-functions` inlines it."""

    name = "kernel.call"

    callee = prop_def(SymbolRefAttr)
    arguments = var_operand_def()
    res = var_result_def()

    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(self, callee: str, arguments: Sequence[SSAValue | Operation], result_types: Sequence[Attribute]):
        super().__init__(operands=[arguments], result_types=[result_types], properties={"callee": SymbolRefAttr(callee)})


# --------------------------------------------------------------------------- shared and local arrays


class _ArrayType(ShapedType):
    """`!kernel.<name><16x17xf32>`: an on-chip array of a static shape (`?` for a dynamic extent)."""

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def verify(self) -> None:
        check_scalar(self.element_type, f"the element type of {self.name}")
        if not self.dims:
            raise VerifyException(f"{self.name} needs at least one dimension")
        if any(d < 1 and d != DYNAMIC for d in self.dims):
            raise VerifyException(f"{self.name} extents must be positive, got {list(self.dims)}")


DYNAMIC = DYNAMIC_INDEX
"""A dynamic extent in `!kernel.shared<?xT>` (the dynamic shared memory); xDSL's `DYNAMIC_INDEX`."""


@irdl_attr_definition
class SharedArrayType(_ArrayType):
    """`!kernel.shared<16x17xf32>`: an array in the block's shared memory (every thread of the block
    sees the same one); `!kernel.shared<?xf32>` is the launch's dynamic shared memory."""

    name = "kernel.shared"
    shape: ArrayAttr[IntAttr]  # declared on each type: xDSL compares only the concrete class's parameters
    element_type: Attribute


@irdl_attr_definition
class LocalArrayType(_ArrayType):
    """`!kernel.local<8xf32>`: a per-thread array (registers, or local memory when indexed dynamically)."""

    name = "kernel.local"
    shape: ArrayAttr[IntAttr]  # declared on each type: xDSL compares only the concrete class's parameters
    element_type: Attribute

    def verify(self) -> None:
        super().verify()
        if DYNAMIC in self.dims:
            raise VerifyException("a local array has a static shape")


AnyArray = SharedArrayType | LocalArrayType


@irdl_op_definition
class SharedArrayOp(ResultOnlyOp):
    """`%s = kernel.shared_array : !kernel.shared<32x33xf32>`: `simt.shared_array(shape, dtype)`, one
    static allocation of the block's shared memory per op (16-byte aligned; contents undefined until
    written, as in CUDA)."""

    name = "kernel.shared_array"

    result = result_def(SharedArrayType)

    def verify_(self) -> None:
        assert isinstance(self.result.type, SharedArrayType)
        if DYNAMIC in self.result.type.dims:
            raise VerifyException("kernel.shared_array has a static shape; the dynamic one is kernel.dynamic_shared")


@irdl_op_definition
class DynamicSharedOp(ResultOnlyOp):
    """`%s = kernel.dynamic_shared : !kernel.shared<?xf32>`: `simt.dynamic_shared(dtype)`, the launch's
    dynamic shared memory (`LaunchConfig.shmem_size` bytes) as `shmem_size // sizeof(T)` elements."""

    name = "kernel.dynamic_shared"

    result = result_def(SharedArrayType)

    traits = traits_def(Pure())

    def __init__(self, element_type: Attribute):
        super().__init__(SharedArrayType([DYNAMIC], element_type))

    def verify_(self) -> None:
        assert isinstance(self.result.type, SharedArrayType)
        if self.result.type.dims != (DYNAMIC,):
            raise VerifyException("kernel.dynamic_shared gives a 1-D array of dynamic extent, !kernel.shared<?xT>")


@irdl_op_definition
class LocalArrayOp(ResultOnlyOp):
    """`%l = kernel.local_array : !kernel.local<8xf32>`: `simt.local_array(shape, dtype)`, this thread's
    own array, zero-initialized."""

    name = "kernel.local_array"

    result = result_def(LocalArrayType)


def _check_indices(indices: Sequence[SSAValue], rank: int, what: str) -> None:
    if len(indices) != rank:
        raise VerifyException(f"{what} has {rank} dimension(s) but {len(indices)} index(es) were given")
    for i in indices:
        if not is_int_type(i.type):
            raise VerifyException(f"array indices are integers, got {i.type}")


@irdl_op_definition
class ArrayLoadOp(IRDLOperation):
    """`%v = kernel.array_load %s[%i, %j] : !kernel.shared<16x17xf32>, si64, si64 -> f32`: a checked
    read of a shared or local array (each index in range of its extent, else the error record gets it
    and the result is 0)."""

    name = "kernel.array_load"

    array = operand_def(AnyArray)
    indices = var_operand_def()
    result = result_def()
    text = opt_prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$array `[` $indices `]` attr-dict `:` type($array) (`,` type($indices)^)? `->` type($result)"

    def __init__(self, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation], text: str | None = None):
        at = SSAValue.get(array).type
        assert isinstance(at, _ArrayType)
        props = {"text": StringAttr(text)} if text else {}
        super().__init__(operands=[array, indices], result_types=[at.element_type], properties=props)

    def verify_(self) -> None:
        at = self.array.type
        assert isinstance(at, _ArrayType)
        _check_indices(self.indices, len(at.dims), str(at))
        if self.result.type != at.element_type:
            raise VerifyException(f"result type {self.result.type} must be the array's element type {at.element_type}")


@irdl_op_definition
class ArrayStoreOp(IRDLOperation):
    """`kernel.array_store %v, %s[%i, %j] : f32, !kernel.shared<16x17xf32>, si64, si64`: a checked
    write (out of range: an error, nothing written). Shared arrays are shared by the block: ordering
    writes and reads between threads is the program's job (`simt.sync_threads()`)."""

    name = "kernel.array_store"

    value = operand_def()
    array = operand_def(AnyArray)
    indices = var_operand_def()
    text = opt_prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$value `,` $array `[` $indices `]` attr-dict `:` type($value) `,` type($array) (`,` type($indices)^)?"

    def __init__(self, value: SSAValue | Operation, array: SSAValue | Operation, indices: Sequence[SSAValue | Operation], text: str | None = None):
        props = {"text": StringAttr(text)} if text else {}
        super().__init__(operands=[value, array, indices], properties=props)

    def verify_(self) -> None:
        at = self.array.type
        assert isinstance(at, _ArrayType)
        _check_indices(self.indices, len(at.dims), str(at))
        if self.value.type != at.element_type:
            raise VerifyException(f"stored value type {self.value.type} must be the element type {at.element_type}")


# --------------------------------------------------------------------------- synchronization


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`kernel.barrier`: `simt.sync_threads()` — every thread of the block waits here."""

    name = "kernel.barrier"

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


BARRIER_REDUCTIONS = tuple(ReductionKind)  # popc, and, or: the reductions of gpu.barrier_reduce


@irdl_op_definition
class BarrierReduceOp(IRDLOperation):
    """`%n = kernel.barrier_reduce popc %p : si32` (`simt.sync_threads_count(p)`), `and`/`or` → `i1`
    (`sync_threads_and/or`): a barrier that also counts / combines a predicate over the block."""

    name = "kernel.barrier_reduce"

    kind = prop_def(BarrierReductionAttr)
    predicate = operand_def(i1)
    result = result_def()

    assembly_format = "$kind $predicate attr-dict `:` type($result)"

    def __init__(self, kind: str, predicate: SSAValue | Operation):
        k = ReductionKind(kind)
        super().__init__(
            operands=[predicate],
            result_types=[IntegerType(32, Signedness.SIGNED) if k == ReductionKind.POPC else i1],
            properties={"kind": BarrierReductionAttr(k)},
        )


FENCE_SCOPES = tuple(FenceScope)  # block, device, system: the scopes of gpu.thread_fence


@irdl_op_definition
class ThreadFenceOp(IRDLOperation):
    """`kernel.thread_fence block|device|system`: `simt.threadfence_block()`, `threadfence()`,
    `threadfence_system()`."""

    name = "kernel.thread_fence"

    scope = prop_def(FenceScopeAttr)

    assembly_format = "$scope attr-dict"

    def __init__(self, scope: str):
        super().__init__(properties={"scope": FenceScopeAttr(FenceScope(scope))})


@irdl_op_definition
class WarpSyncOp(IRDLOperation):
    """`kernel.warp_sync %mask : ui32`: `simt.sync_warp(mask)`, the lanes of `mask` wait for each other."""

    name = "kernel.warp_sync"

    mask = operand_def()

    assembly_format = "$mask attr-dict `:` type($mask)"

    def __init__(self, mask: SSAValue | Operation):
        super().__init__(operands=[mask])

    def verify_(self) -> None:
        if self.mask.type != IntegerType(32, Signedness.UNSIGNED):
            raise VerifyException(f"a warp mask is ui32, got {self.mask.type}")


# --------------------------------------------------------------------------- warp collectives

SHUFFLE_MODES = tuple(ShuffleMode)  # xor, up, down, idx: the modes of gpu.shuffle (MLIR's)


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%r, %valid = kernel.shuffle down %v, %delta {width = 32} : f32, si64`: `simt.shfl_down(v,
    delta, width)` (and `shfl_xor`, `shfl_up`, `shfl_idx`): the value of another lane of this lane's
    segment of `width` lanes (a power of two ≤ 32); past the segment's edge — for `up`/`down` also
    any delta ≥ 32 or negative, which PTX would take mod 32 — a lane keeps its own value and
    `%valid` (i1, PTX `shfl.sync`'s predicate) is false. Any scalar type (64-bit values move as two
    32-bit shuffles, narrower ones in one)."""

    name = "kernel.shuffle"

    T: ClassVar = VarConstraint("T", AnyAttr())
    mode = prop_def(ShuffleModeAttr)
    width = prop_def(IntegerAttr)
    value = operand_def(T)
    offset = operand_def()
    result = result_def(T)
    valid = result_def(i1)

    def __init__(self, mode: str, value: SSAValue | Operation, offset: SSAValue | Operation, width: int = 32):
        super().__init__(
            operands=[value, offset],
            result_types=[SSAValue.get(value).type, i1],
            properties={"mode": ShuffleModeAttr(ShuffleMode(mode)), "width": IntegerAttr(width, i32)},
        )

    def verify_(self) -> None:
        w = self.width.value.data
        if w < 1 or w > 32 or w & (w - 1):
            raise VerifyException(f"the shuffle width must be a power of two from 1 to 32, got {w}")
        check_scalar(self.value.type, "a shuffled value")
        if not is_int_type(self.offset.type):
            raise VerifyException(f"a shuffle lane/offset is an integer, got {self.offset.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        mode = parser.parse_keyword_in(SHUFFLE_MODES, " (shuffle mode)")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        attrs = dict(parser.parse_optional_attr_dict())
        width = attrs.pop("width", IntegerAttr(32, i32))
        vt, ot = parse_colon_types(parser, 2)
        v, o = parser.resolve_operands([value, offset], [vt, ot], parser.pos)
        if not isinstance(width, IntegerAttr):
            parser.raise_error(f"the shuffle width is an integer attribute, got {width}")
        op = cls(mode, v, o, width.value.data)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data} ")
        printer.print_list([self.value, self.offset], printer.print_operand)
        printer.print_string(f" {{width = {self.width.value.data}}}")
        print_attrs_and_types(printer, self, [self.value.type, self.offset.type])


WARP_REDUCTIONS = ("add", "min", "max", "and", "or", "xor")


@irdl_op_definition
class WarpReduceOp(IRDLOperation):
    """`%r = kernel.warp_reduce add %v : f32`: `simt.warp_sum/min/max/and/or/xor(v)`, the reduction over
    the 32 lanes of the warp, in every lane. Integers reduce by their signedness; float `min`/`max`
    propagate NaN (as `max()` does); `and`/`or`/`xor` are integer-only."""

    name = "kernel.warp_reduce"

    T: ClassVar = VarConstraint("T", AnyAttr())
    kind = prop_def(StringAttr)
    value = operand_def(T)
    result = result_def(T)

    def __init__(self, kind: str, value: SSAValue | Operation):
        super().__init__(operands=[value], result_types=[SSAValue.get(value).type], properties={"kind": StringAttr(kind)})

    def verify_(self) -> None:
        kind, t = self.kind.data, self.value.type
        if kind not in WARP_REDUCTIONS:
            raise VerifyException(f"unknown warp reduction '{kind}', expected one of {', '.join(WARP_REDUCTIONS)}")
        if not (is_int_type(t) or is_float_type(t)):
            raise VerifyException(f"kernel.warp_reduce reduces integers or floats, got {t}")
        if is_float_type(t) and kind in ("and", "or", "xor"):
            raise VerifyException(f"kernel.warp_reduce {kind} is integer-only, got {t}")

    @classmethod
    def parse(cls, parser: Parser) -> WarpReduceOp:
        kind = parser.parse_keyword_in(WARP_REDUCTIONS, " (warp reduction)")
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        (v,) = parser.resolve_operands([value], [parser.parse_type()], parser.pos)
        op = cls(kind, v)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        print_attrs_and_types(printer, self, [self.value.type])


@irdl_op_definition
class VoteOp(IRDLOperation):
    """`%r = kernel.vote any|all %p`: `simt.vote_any(p)` / `simt.vote_all(p)` over the warp."""

    name = "kernel.vote"

    kind = prop_def(VoteKindAttr)
    predicate = operand_def(i1)
    result = result_def(i1)

    assembly_format = "$kind $predicate attr-dict"

    def __init__(self, kind: str, predicate: SSAValue | Operation):
        super().__init__(operands=[predicate], result_types=[i1], properties={"kind": VoteKindAttr(VoteKind(kind))})


UI32 = IntegerType(32, Signedness.UNSIGNED)


@irdl_op_definition
class BallotOp(IRDLOperation):
    """`%m = kernel.ballot %p : ui32`: `simt.ballot(p)`, bit i set when lane i's predicate holds."""

    name = "kernel.ballot"

    predicate = operand_def(i1)
    result = result_def(UI32)

    assembly_format = "$predicate attr-dict `:` type($result)"

    def __init__(self, predicate: SSAValue | Operation):
        super().__init__(operands=[predicate], result_types=[UI32])


@irdl_op_definition
class ActiveMaskOp(ResultOnlyOp):
    """`%m = kernel.active_mask : ui32`: `simt.active_mask()`, the lanes executing together now."""

    name = "kernel.active_mask"

    result = result_def(UI32)


@irdl_op_definition
class MatchAnyOp(IRDLOperation):
    """`%m = kernel.match_any %v : f32`: `simt.match_any(v)`, the lanes of the warp holding the same
    value (bit for bit) as this one."""

    name = "kernel.match_any"

    value = operand_def()
    result = result_def(UI32)

    assembly_format = "$value attr-dict `:` type($value)"

    def __init__(self, value: SSAValue | Operation):
        super().__init__(operands=[value], result_types=[UI32])

    def verify_(self) -> None:
        check_scalar(self.value.type, "a matched value")


@irdl_op_definition
class LaneIdOp(ResultOnlyOp):
    """`%l = kernel.lane_id : si64`: `simt.lane_id()`, this thread's lane in its warp (0–31)."""

    name = "kernel.lane_id"

    result = result_def(SI64)

    traits = traits_def(Pure())


# --------------------------------------------------------------------------- owned views

VIEW_KINDS = {"row": 1, "column": 1, "tile": 2}
"""View kind → number of coordinates; sizes: row/column `(ncols)`, tile `(th, tw, ncols)`."""


class _ViewAccess(IRDLOperation):
    """Common fields of `kernel.view_load` / `kernel.view_store`."""

    slice = operand_def(DisjointSliceType)
    index = operand_def(ThreadIndexType)
    coords = var_operand_def()
    sizes = var_operand_def()
    view = prop_def(StringAttr)
    text = opt_prop_def(StringAttr)

    def _verify_view(self) -> None:
        kind = self.view.data
        if kind not in VIEW_KINDS:
            raise VerifyException(f"unknown view '{kind}', expected one of {', '.join(VIEW_KINDS)}")
        if len(self.coords) != VIEW_KINDS[kind]:
            raise VerifyException(f"a {kind} view takes {VIEW_KINDS[kind]} coordinate(s), got {len(self.coords)}")
        want_sizes = 3 if kind == "tile" else 1
        if len(self.sizes) != want_sizes:
            raise VerifyException(f"a {kind} view takes {want_sizes} size(s), got {len(self.sizes)}")
        for v in (*self.coords, *self.sizes):
            if v.type != SI64:
                raise VerifyException(f"view coordinates and sizes are si64, got {v.type}")


@irdl_op_definition
class ViewLoadOp(_ViewAccess):
    """`%v = kernel.view_load %c[%idx] at (%r, %k) sizes (%th, %tw, %n) {view = "tile"} : ... -> f32`: a read
    of an element this thread owns through a view (outside it: a checked error, result 0).

    Ownership, for thread index `i` (row/column) or `(R, C)` (tile of a 2-D index), over a row-major
    matrix of `n` columns: a `row` view's element `j` is `i * n + j` (`j < n`); a `column` view's
    element `r` is `r * n + i` (`i < n`); a `tile` view's element `(r, k)` is `(R * th + r) * n + C * tw + k`
    (`r < th`, `k < tw`, `C * tw + k < n`). Distinct threads own disjoint elements (`n`, `th`, `tw` > 0).
    """

    name = "kernel.view_load"

    result = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())

    assembly_format = (
        "$slice `[` $index `]` `at` `(` $coords `)` `sizes` `(` $sizes `)` attr-dict `:` type($slice) `,` type($index)"
        " `,` `(` type($coords) `)` `,` `(` type($sizes) `)` `->` type($result)"
    )

    def __init__(self, slice_: SSAValue, index: SSAValue, view: str, coords: Sequence[SSAValue], sizes: Sequence[SSAValue], text: str | None = None):
        st = slice_.type
        assert isinstance(st, DisjointSliceType)
        props: dict[str, Attribute] = {"view": StringAttr(view)}
        if text:
            props["text"] = StringAttr(text)
        super().__init__(operands=[slice_, index, coords, sizes], result_types=[st.element_type], properties=props)

    def verify_(self) -> None:
        self._verify_view()
        assert isinstance(self.slice.type, DisjointSliceType)
        if self.result.type != self.slice.type.element_type:
            raise VerifyException("the result has the slice's element type")


@irdl_op_definition
class ViewStoreOp(_ViewAccess):
    """`kernel.view_store %v, %c[%idx] at (%r, %k) sizes (%th, %tw, %n) {view = "tile"} : ...`: a write to an
    element this thread owns through a view (see `kernel.view_load`); outside it nothing is written."""

    name = "kernel.view_store"

    value = operand_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())

    assembly_format = (
        "$value `,` $slice `[` $index `]` `at` `(` $coords `)` `sizes` `(` $sizes `)` attr-dict `:` type($value) `,`"
        " type($slice) `,` type($index) `,` `(` type($coords) `)` `,` `(` type($sizes) `)`"
    )

    def __init__(self, value: SSAValue, slice_: SSAValue, index: SSAValue, view: str, coords: Sequence[SSAValue], sizes: Sequence[SSAValue], text: str | None = None):
        props: dict[str, Attribute] = {"view": StringAttr(view)}
        if text:
            props["text"] = StringAttr(text)
        super().__init__(operands=[value, slice_, index, coords, sizes], properties=props)

    def verify_(self) -> None:
        self._verify_view()
        assert isinstance(self.slice.type, DisjointSliceType)
        if self.value.type != self.slice.type.element_type:
            raise VerifyException(f"stored value type {self.value.type} must be the element type {self.slice.type.element_type}")


# --------------------------------------------------------------------------- formatted output


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`kernel.print "i = {} x = {:.3f}\\n", %i, %x : si64, f32`: Python's `print(...)` in a kernel.

    `format` is a `str.format` string with one anonymous field (`{}` or `{:spec}`) per operand; the
    operands are scalars (bool, integers of any width and signedness, floats) — in a tile kernel also
    `!tile.tile` values, at most one of rank > 0 (each element prints on its own line with its index,
    see `tile-to-gpu`). Every spec must have
    a printf equivalent for its operand (`warpforge.dialects._printf.printf_conversion`: bools take
    none, a float spec needs a float operand). Lowered by `kernel-to-gpu` to `gpu.printf` (MLIR's op:
    a C format string, integers promoted to 32/64 bits, floats to f64), then to a `vprintf` call.

    | operand | type |
    |---|---|
    | `args` | scalars, one per field |
    """

    name = "kernel.print"

    format = prop_def(StringAttr)
    args = var_operand_def()

    def __init__(self, fmt: str, args: Sequence[SSAValue | Operation]):
        super().__init__(operands=[list(args)], properties={"format": StringAttr(fmt)})

    def fields(self) -> list[tuple[str, str | None]]:
        """The format as (text, spec) pairs, one per operand, then (trailing text, None)."""
        from warpforge.dialects._printf import python_fields

        return python_fields(self.format.data)

    def verify_(self) -> None:
        from warpforge.dialects._printf import printf_conversion

        try:
            fields = self.fields()
        except ValueError as e:
            raise VerifyException(str(e)) from None
        specs = [spec for _, spec in fields if spec is not None]
        if len(specs) != len(self.args):
            raise VerifyException(f"the format has {len(specs)} field(s) but the op has {len(self.args)} operand(s)")
        tiles = 0
        for i, (spec, arg) in enumerate(zip(specs, self.args)):
            t = arg.type
            if t.name == "tile.tile":  # a tile kernel's tile: each element prints (see tile-to-gpu)
                tiles += 1 if t.dims else 0  # pyright: ignore[reportAttributeAccessIssue]
                t = t.element_type  # pyright: ignore[reportAttributeAccessIssue]
            check_scalar(t, f"operand {i}")
            assert isinstance(t, IntegerType | AnyFloat)
            bits = t.width.data if isinstance(t, IntegerType) else t.bitwidth
            kind = "b" if t == i1 else "f" if is_float_type(t) else "i" if is_signed(t) else "u"
            try:
                printf_conversion(spec, kind, bits)
            except ValueError as e:
                raise VerifyException(f"operand {i} ({t}): {e}") from None
        if tiles > 1:
            raise VerifyException(f"at most one operand may be a tile of rank > 0, got {tiles}")

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        from warpforge.dialects._printf import parse_format_op

        return parse_format_op(cls, parser)

    def print(self, printer: Printer) -> None:
        from warpforge.dialects._printf import print_format_op

        print_format_op(self, printer)


# --------------------------------------------------------------------------- structured control flow


def _parse_carried(parser: Parser) -> list[tuple[Parser.UnresolvedArgument, UnresolvedOperand]]:
    """`(%a = %init, …)`: the carried values of `kernel.for` (`iter_args`) and `kernel.while`."""

    def parse_one() -> tuple[Parser.UnresolvedArgument, UnresolvedOperand]:
        a = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        return a, parser.parse_unresolved_operand()

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_one)


def _print_carried(printer: Printer, args: Sequence[SSAValue], inits: Sequence[SSAValue]) -> None:
    """`%a = %init, …` (without the parentheses), the inverse of `_parse_carried`."""
    printer.print_list(
        zip(args, inits),
        lambda p: (printer.print_ssa_value(p[0]), printer.print_string(" = "), printer.print_operand(p[1])),
    )


def _parse_trailing_attributes(parser: Parser, op: Operation) -> None:
    """`attributes {…}` after a structured op's regions, added to `op`."""
    attrs = parser.parse_optional_attr_dict_with_keyword()
    if attrs is not None:
        op.attributes.update(attrs.data)


@irdl_op_definition
class YieldOp(_ValuesTerminator):
    """`kernel.yield %values : types`: ends a `kernel.if` branch or a loop body (next iteration)."""

    name = "kernel.yield"

    traits = traits_def(Pure())


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """`kernel.condition %cond (%values : types)`: ends a `kernel.while` condition region: loop on when
    `%cond`, passing the carried values to the body (or out of the loop)."""

    name = "kernel.condition"

    cond = operand_def(i1)
    values = var_operand_def()

    traits = traits_def(IsTerminator(), Pure())

    assembly_format = "$cond attr-dict (`(` $values^ `:` type($values) `)`)?"

    def __init__(self, cond: SSAValue | Operation, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[cond, values])


@irdl_op_definition
class BreakOp(_ValuesTerminator):
    """`kernel.break %values : types`: leave the innermost loop with the current carried values."""

    name = "kernel.break"


@irdl_op_definition
class ContinueOp(_ValuesTerminator):
    """`kernel.continue %values : types`: go to the next iteration of the innermost loop."""

    name = "kernel.continue"


@irdl_op_definition
class IfOp(IRDLOperation):
    """`%r = kernel.if %cond -> (T) { ... kernel.yield } else { ... kernel.yield }`.

    A branch may instead end in `kernel.break`/`kernel.continue`/`kernel.return`. Also used for the lazy
    side of `and`, `or` and `a if c else b`, so `i < n and x[i] > 0` never reads out of range.
    """

    name = "kernel.if"

    cond = operand_def(i1)
    output = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, cond: SSAValue | Operation, result_types: Sequence[Attribute], then_region: Region, else_region: Region):
        super().__init__(operands=[cond], result_types=[result_types], regions=[then_region, else_region])

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.parse_unresolved_operand()
        (cond_v,) = parser.resolve_operands([cond], [i1], parser.pos)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        then_r = parser.parse_region()
        else_r = Region(Block())
        if parser.parse_optional_keyword("else") is not None:
            else_r = parser.parse_region()
        op = cls(cond_v, types, then_r, else_r)
        _parse_trailing_attributes(parser, op)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        if self.output:
            printer.print_string(" -> (")
            printer.print_list((r.type for r in self.output), printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.then_region)
        printer.print_string(" else ")
        printer.print_region(self.else_region)
        printer.print_op_attributes(self.attributes, print_keyword=True)

    def verify_(self) -> None:
        for region, name in ((self.then_region, "then"), (self.else_region, "else")):
            block = region.block
            term = block.last_op
            if term is None or not term.has_trait(IsTerminator):
                raise VerifyException(f"the {name} region of kernel.if must end with a terminator")
            if isinstance(term, YieldOp) and tuple(v.type for v in term.values) != tuple(r.type for r in self.output):
                raise VerifyException(f"the {name} region yields {[str(v.type) for v in term.values]} but kernel.if returns {[str(r.type) for r in self.output]}")


@irdl_op_definition
class ForOp(IRDLOperation):
    """`%r = kernel.for %i = %lo to %hi step %step iter_args(%a = %init) -> (T) { ... }`: Python's
    `for i in range(lo, hi, step)` — any sign of step (a step of 0 runs no iteration). Bounds and
    step are si64, evaluated once. The body's block arguments are the induction variable then the
    carried values; `kernel.yield` (or `kernel.continue`) passes the next carried values."""

    name = "kernel.for"

    lower = operand_def()
    upper = operand_def()
    step = operand_def()
    inits = var_operand_def()
    output = var_result_def()
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, lower: SSAValue, upper: SSAValue, step: SSAValue, inits: Sequence[SSAValue], body: Region):
        super().__init__(operands=[lower, upper, step, inits], result_types=[[v.type for v in inits]], regions=[body])

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 + len(self.inits):
            raise VerifyException("kernel.for body must take the induction variable and one argument per carried value")
        if tuple(a.type for a in args[1:]) != tuple(v.type for v in self.inits):
            raise VerifyException("kernel.for carried block arguments must match iter_args types")

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        iv = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lo = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        hi = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        st = parser.parse_unresolved_operand()
        carried: list[tuple[Parser.UnresolvedArgument, UnresolvedOperand]] = []
        if parser.parse_optional_keyword("iter_args") is not None:
            carried = _parse_carried(parser)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation(":")
        bound_t = parser.parse_type()
        lo_v, hi_v, st_v = parser.resolve_operands([lo, hi, st], [bound_t] * 3, parser.pos)
        inits = parser.resolve_operands([c[1] for c in carried], types, parser.pos)
        args = [iv.resolve(bound_t), *(c[0].resolve(t) for c, t in zip(carried, types))]
        body = parser.parse_region(args)
        op = cls(lo_v, hi_v, st_v, inits, body)
        _parse_trailing_attributes(parser, op)
        return op

    def print(self, printer: Printer) -> None:
        args = self.body.block.args
        printer.print_string(" ")
        printer.print_ssa_value(args[0])
        printer.print_string(" = ")
        printer.print_operand(self.lower)
        printer.print_string(" to ")
        printer.print_operand(self.upper)
        printer.print_string(" step ")
        printer.print_operand(self.step)
        if self.inits:
            printer.print_string(" iter_args(")
            _print_carried(printer, args[1:], self.inits)
            printer.print_string(") -> (")
            printer.print_list((v.type for v in self.inits), printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_attribute(self.lower.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """`%r = kernel.while (%a = %init) : (T) { cond region; kernel.condition %c (%a : T) } do { body; kernel.yield %a2 : T }`:
    Python's `while cond: body`. The condition region is re-evaluated before each iteration."""

    name = "kernel.while"

    inits = var_operand_def()
    output = var_result_def()
    before = region_def("single_block")
    after = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(self, inits: Sequence[SSAValue], before: Region, after: Region):
        super().__init__(operands=[inits], result_types=[[v.type for v in inits]], regions=[before, after])

    def verify_(self) -> None:
        types = tuple(v.type for v in self.inits)
        for region, name in ((self.before, "condition"), (self.after, "body")):
            if tuple(a.type for a in region.block.args) != types:
                raise VerifyException(f"kernel.while {name} region arguments must match the carried values' types")
        cond = self.before.block.last_op
        if not isinstance(cond, ConditionOp):
            raise VerifyException("kernel.while condition region must end with kernel.condition")

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        carried = _parse_carried(parser)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        inits = parser.resolve_operands([c[1] for c in carried], types, parser.pos)
        before = parser.parse_region([c[0].resolve(t) for c, t in zip(carried, types)])
        parser.parse_keyword("do")
        after = parser.parse_region()
        op = cls(inits, before, after)
        _parse_trailing_attributes(parser, op)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        _print_carried(printer, self.before.block.args, self.inits)
        printer.print_string(") : (")
        printer.print_list((v.type for v in self.inits), printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.before, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes, print_keyword=True)


def _dialect() -> Dialect:
    """The whole `kernel` dialect: every op and type, sorted by class name (`tests/test_dialect_tables.py`
    checks it). The tile-kernel ops and types (`kernel_tile.py`) and the tensor-core ops
    (`kernel_mma.py`) are `kernel` ops kept in their own files, which build on this one (and, through
    `tile`, import it): they are imported when the table is first needed, not at module load."""
    from warpforge.dialects.kernel_hopper import KERNEL_HOPPER_OPS, KERNEL_HOPPER_TYPES
    from warpforge.dialects.kernel_mma import CpAsyncCommitOp, CpAsyncOp, CpAsyncWaitOp, LdMatrixOp, MmaSyncOp
    from warpforge.dialects.math_catalog import KERNEL_OPS as BUILTIN_KERNEL_OPS
    from warpforge.dialects.kernel_tile import (
        LoadTileLikeOp,
        PartLoadOp,
        PartStoreOp,
        PartitionType,
        TensorAtomicOp,
        TensorDimOp,
        TensorGatherOp,
        TensorLoadOp,
        TensorType,
        TileCountOp,
        TileIdOp,
    )


    ops: list[type[IRDLOperation]] = [
            AbsOp,
            ActiveMaskOp,
            AddOp,
            AndOp,
            ArrayLoadOp,
            ArrayStoreOp,
            AtomicAddPairOp,
            AtomicCASOp,
            AtomicOp,
            BallotOp,
            BarrierOp,
            BarrierReduceOp,
            BlockDimOp,
            BlockIdxOp,
            BlockIndex1DOp,
            BlockIndexGetOp,
            BreakOp,
            CallOp,
            CastOp,
            CmpOp,
            ConditionOp,
            ConstantOp,
            ContinueOp,
            CpAsyncCommitOp,
            CpAsyncOp,
            CpAsyncWaitOp,
            DynamicSharedOp,
            FloorDivOp,
            FmodOp,
            ForOp,
            FuncOp,
            GridDimOp,
            HypotOp,
            IfOp,
            Index1DOp,
            Index2DOp,
            Index3DOp,
            IndexColOp,
            IndexGetOp,
            IndexPlaneOp,
            IndexRowOp,
            InvertOp,
            LShiftOp,
            LaneIdOp,
            LdMatrixOp,
            LenOp,
            LoadOp,
            LoadTileLikeOp,
            LocalArrayOp,
            MatchAnyOp,
            MaxOp,
            MinOp,
            MmaSyncOp,
            ModOp,
            MulOp,
            NegOp,
            NotOp,
            OrOp,
            PartLoadOp,
            PartStoreOp,
            PowOp,
            PrintOp,
            RShiftOp,
            ReturnOp,
            SelectOp,
            SharedArrayOp,
            ShuffleOp,
            StoreOp,
            SubOp,
            TensorAtomicOp,
            TensorDimOp,
            TensorGatherOp,
            TensorLoadOp,
            ThreadFenceOp,
            ThreadIdxOp,
            TileCountOp,
            TileIdOp,
            TrueDivOp,
            ViewLoadOp,
            ViewStoreOp,
            VoteOp,
            WarpReduceOp,
            WarpSyncOp,
            WhileOp,
            XorOp,
            YieldOp,
    ]
    types: list[type[ParametrizedAttribute]] = [
            AtomicSliceType,
            BlockIndexType,
            DisjointSliceType,
            LocalArrayType,
            PartitionType,
            RawSliceType,
            SharedArrayType,
            SliceType,
            TensorType,
            ThreadIndexType,
    ]
    # the Hopper (mbarrier, TMA) and builtin-catalog ops live with their own tables; the dialect lists all, sorted
    ops = sorted({*ops, *KERNEL_HOPPER_OPS, *BUILTIN_KERNEL_OPS}, key=lambda op: op.__name__)
    types = sorted({*types, *KERNEL_HOPPER_TYPES}, key=lambda t: t.__name__)
    return Dialect("kernel", ops, types)


__getattr__ = lazy_dialect_table(__name__, "Kernel", _dialect)  # `kernel.Kernel`: the table, built once on first use


LOOP_OPS = (ForOp, WhileOp)
"""Ops a `kernel.break`/`kernel.continue` refers to (the innermost enclosing one)."""
