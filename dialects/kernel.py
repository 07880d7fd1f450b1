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
`kernel.index_1d`/`kernel.index_2d` make).

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
    AnyFloat,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolNameConstraint,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
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
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

SI64 = IntegerType(64, Signedness.SIGNED)
"""`si64`: raw ids, `len()`, range variables (so global indices never overflow past 2^31 threads)."""

# --------------------------------------------------------------------------- types


def is_scalar_type(t: Attribute) -> bool:
    """bool (`i1`), signed/unsigned integers of 8–64 bits, and f16/bf16/f32/f64."""
    if isinstance(t, IntegerType):
        return t.width.data == 1 or (t.width.data in (8, 16, 32, 64) and t.signedness.data != Signedness.SIGNLESS)
    return isinstance(t, AnyFloat)


def is_int_type(t: Attribute) -> bool:
    """A signed or unsigned integer (not bool)."""
    return isinstance(t, IntegerType) and t.width.data != 1


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_signed(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNED


def _check_scalar(t: Attribute, what: str) -> None:
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
        _check_scalar(self.element_type, f"the element type of {self.name}")


@irdl_attr_definition
class SliceType(_ElementType):
    """`!kernel.slice<T>`: a read-only 1-D array in global memory (pointer + length)."""

    name = "kernel.slice"


@irdl_attr_definition
class DisjointSliceType(_ElementType):
    """`!kernel.disjoint_slice<T>`: an output each thread writes only at its own `!kernel.thread_index`."""

    name = "kernel.disjoint_slice"


@irdl_attr_definition
class ThreadIndexType(ParametrizedAttribute, TypeAttribute):
    """`!kernel.thread_index`: proof that an index is this thread's own (made only by `kernel.index_1d/2d`)."""

    name = "kernel.thread_index"


AnySlice = SliceType | DisjointSliceType

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


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`kernel.return [%value : T]`: leave the function (from any depth; lowered to a branch)."""

    name = "kernel.return"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


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
        _check_scalar(self.result.type, "kernel.constant's type")


class _BinaryOp(IRDLOperation):
    """`%r = kernel.<op> %lhs, %rhs : T` — both operands and the result have type T."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    ALLOWED: ClassVar[str] = "bif"
    """Which kinds of T are allowed: `b` bool, `i` integers, `f` floats."""

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        t = self.result.type
        _check_scalar(t, f"{self.name}'s type")
        kind = "b" if t == i1 else ("f" if is_float_type(t) else "i")
        if kind not in self.ALLOWED:
            what = {"b": "bool", "i": "integers", "f": "floats"}[kind]
            raise VerifyException(f"{self.name} is not defined on {what} ({t})")


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


COMPARE_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")


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
        if self.predicate.data not in COMPARE_PREDICATES:
            raise VerifyException(f"unknown predicate '{self.predicate.data}', expected one of {', '.join(COMPARE_PREDICATES)}")
        _check_scalar(self.lhs.type, "kernel.cmp's operand type")

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pred = parser.parse_keyword_in(COMPARE_PREDICATES, " (comparison predicate)")
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        lhs_v, rhs_v = parser.resolve_operands([lhs, rhs], [t, t], parser.pos)
        op = cls(pred, lhs_v, rhs_v)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data}, ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)


class _UnaryOp(IRDLOperation):
    """`%r = kernel.<op> %x : T`."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    operand = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($result)"

    ALLOWED: ClassVar[str] = "bif"

    def __init__(self, operand: SSAValue | Operation):
        super().__init__(operands=[operand], result_types=[SSAValue.get(operand).type])

    def verify_(self) -> None:
        t = self.result.type
        _check_scalar(t, f"{self.name}'s type")
        kind = "b" if t == i1 else ("f" if is_float_type(t) else "i")
        if kind not in self.ALLOWED:
            raise VerifyException(f"{self.name} is not defined on {t}")


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
        _check_scalar(self.operand.type, "kernel.cast's source type")
        _check_scalar(self.result.type, "kernel.cast's result type")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`%r = kernel.select %c, %a, %b : T`: both sides already evaluated (the frontend uses `kernel.if`
    for Python's lazy `a if c else b`)."""

    name = "kernel.select"

    T: ClassVar = VarConstraint("T", AnyAttr())
    cond = operand_def(i1)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$cond `,` $true_value `,` $false_value attr-dict `:` type($result)"

    def __init__(self, cond: SSAValue | Operation, a: SSAValue | Operation, b: SSAValue | Operation):
        super().__init__(operands=[cond, a, b], result_types=[SSAValue.get(a).type])


# --------------------------------------------------------------------------- thread ids


class _SpecialOp(IRDLOperation):
    """`%r = kernel.<op> x|y|z : si64` — a raw CUDA id or dimension, widened to i64."""

    dimension = prop_def(StringAttr)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, dim: str):
        super().__init__(properties={"dimension": StringAttr(dim)}, result_types=[SI64])

    def verify_(self) -> None:
        if self.dimension.data not in ("x", "y", "z"):
            raise VerifyException(f"dimension must be x, y or z, got '{self.dimension.data}'")

    @classmethod
    def parse(cls, parser: Parser) -> _SpecialOp:
        dim = parser.parse_keyword_in(("x", "y", "z"), " (dimension)")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(dim)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dimension.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


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
class Index1DOp(IRDLOperation):
    """`%idx = kernel.index_1d : !kernel.thread_index`: `block_idx.x * block_dim.x + thread_idx.x`,
    unique per thread in a 1-D launch (the runtime refuses launches with y or z extents ≠ 1)."""

    name = "kernel.index_1d"

    result = result_def(ThreadIndexType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[ThreadIndexType()])


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
    """`idx.row` of an `index_2d` (global y)."""

    name = "kernel.index_row"


@irdl_op_definition
class IndexColOp(_IndexPartOp):
    """`idx.col` of an `index_2d` (global x)."""

    name = "kernel.index_col"


# --------------------------------------------------------------------------- memory


@irdl_op_definition
class LenOp(IRDLOperation):
    """`len(s)`: the number of elements, si64."""

    name = "kernel.len"

    slice = operand_def(SliceType | DisjointSliceType)
    result = result_def(SI64)

    traits = traits_def(Pure())

    assembly_format = "$slice attr-dict `:` type($slice)"

    def __init__(self, slice_: SSAValue | Operation):
        super().__init__(operands=[slice_], result_types=[SI64])


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = kernel.load %s[%i] : !kernel.slice<f32>, si64 -> f32`: a checked read.

    The index is any integer (a negative one is out of range, not Python's from-the-end), or the
    thread's own `!kernel.thread_index` for a `disjoint_slice`. Out of range: the error record gets
    the first error (site: this op's location and `text`), the result is 0, the thread continues.
    `text` is the source expression, for the message.
    """

    name = "kernel.load"

    slice = operand_def(SliceType | DisjointSliceType)
    index = operand_def()
    result = result_def()
    text = opt_prop_def(StringAttr)

    assembly_format = "$slice `[` $index `]` attr-dict `:` type($slice) `,` type($index) `->` type($result)"

    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, slice_: SSAValue | Operation, index: SSAValue | Operation, text: str | None = None):
        st = SSAValue.get(slice_).type
        assert isinstance(st, SliceType | DisjointSliceType)
        props = {"text": StringAttr(text)} if text else {}
        super().__init__(operands=[slice_, index], result_types=[st.element_type], properties=props)

    def verify_(self) -> None:
        st = self.slice.type
        assert isinstance(st, SliceType | DisjointSliceType)
        if self.result.type != st.element_type:
            raise VerifyException(f"result type {self.result.type} must be the slice's element type {st.element_type}")
        if isinstance(st, DisjointSliceType):
            if not isinstance(self.index.type, ThreadIndexType):
                raise VerifyException("a disjoint_slice is read only at the thread's own !kernel.thread_index")
        elif not is_int_type(self.index.type):
            raise VerifyException(f"a slice index must be an integer, got {self.index.type}")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`kernel.store %v, %c[%idx] : f32, !kernel.disjoint_slice<f32>`: a write at the thread's own index.

    Performed only when the index is in range (and, for `index_2d`, `col < ncols`); otherwise nothing
    is written — the `DisjointSlice` rule that makes writes race-free.
    """

    name = "kernel.store"

    value = operand_def()
    slice = operand_def(DisjointSliceType)
    index = operand_def(ThreadIndexType)

    assembly_format = "$value `,` $slice `[` $index `]` attr-dict `:` type($value) `,` type($slice)"

    def __init__(self, value: SSAValue | Operation, slice_: SSAValue | Operation, index: SSAValue | Operation):
        super().__init__(operands=[value, slice_, index])

    def verify_(self) -> None:
        st = self.slice.type
        assert isinstance(st, DisjointSliceType)
        if self.value.type != st.element_type:
            raise VerifyException(f"stored value type {self.value.type} must be the element type {st.element_type}")


# --------------------------------------------------------------------------- structured control flow


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`kernel.yield %values : types`: ends a `kernel.if` branch or a loop body (next iteration)."""

    name = "kernel.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator(), Pure())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


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
class BreakOp(IRDLOperation):
    """`kernel.break %values : types`: leave the innermost loop with the current carried values."""

    name = "kernel.break"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


@irdl_op_definition
class ContinueOp(IRDLOperation):
    """`kernel.continue %values : types`: go to the next iteration of the innermost loop."""

    name = "kernel.continue"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


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
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(cond_v, types, then_r, else_r)
        if attrs is not None:
            op.attributes.update(attrs.data)
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
        carried: list[tuple[Parser.UnresolvedArgument, object]] = []
        if parser.parse_optional_keyword("iter_args") is not None:

            def parse_iter() -> tuple[Parser.UnresolvedArgument, object]:
                a = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return a, parser.parse_unresolved_operand()

            carried = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_iter)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        parser.parse_punctuation(":")
        bound_t = parser.parse_type()
        lo_v, hi_v, st_v = parser.resolve_operands([lo, hi, st], [bound_t] * 3, parser.pos)
        inits = parser.resolve_operands([c[1] for c in carried], types, parser.pos)  # pyright: ignore[reportArgumentType]
        args = [iv.resolve(bound_t), *(c[0].resolve(t) for c, t in zip(carried, types))]
        body = parser.parse_region(args)
        op = cls(lo_v, hi_v, st_v, inits, body)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
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
            printer.print_list(
                zip(args[1:], self.inits),
                lambda p: (printer.print_ssa_value(p[0]), printer.print_string(" = "), printer.print_operand(p[1])),
            )
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
        def parse_init() -> tuple[Parser.UnresolvedArgument, object]:
            a = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("=")
            return a, parser.parse_unresolved_operand()

        carried = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_init)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        inits = parser.resolve_operands([c[1] for c in carried], types, parser.pos)  # pyright: ignore[reportArgumentType]
        before = parser.parse_region([c[0].resolve(t) for c, t in zip(carried, types)])
        parser.parse_keyword("do")
        after = parser.parse_region()
        op = cls(inits, before, after)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(
            zip(self.before.block.args, self.inits),
            lambda p: (printer.print_ssa_value(p[0]), printer.print_string(" = "), printer.print_operand(p[1])),
        )
        printer.print_string(") : (")
        printer.print_list((v.type for v in self.inits), printer.print_attribute)
        printer.print_string(") ")
        printer.print_region(self.before, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after, print_entry_block_args=True)
        printer.print_op_attributes(self.attributes, print_keyword=True)


Kernel = Dialect(
    "kernel",
    [
        AbsOp,
        AddOp,
        AndOp,
        BlockDimOp,
        BlockIdxOp,
        BreakOp,
        CastOp,
        CmpOp,
        ConditionOp,
        ConstantOp,
        ContinueOp,
        FloorDivOp,
        ForOp,
        FuncOp,
        GridDimOp,
        IfOp,
        Index1DOp,
        Index2DOp,
        IndexColOp,
        IndexGetOp,
        IndexRowOp,
        InvertOp,
        LShiftOp,
        LenOp,
        LoadOp,
        MaxOp,
        MinOp,
        ModOp,
        MulOp,
        NegOp,
        NotOp,
        OrOp,
        PowOp,
        RShiftOp,
        ReturnOp,
        SelectOp,
        StoreOp,
        SubOp,
        ThreadIdxOp,
        TrueDivOp,
        WhileOp,
        XorOp,
        YieldOp,
    ],
    [DisjointSliceType, SliceType, ThreadIndexType],
)

LOOP_OPS = (ForOp, WhileOp)
"""Ops a `kernel.break`/`kernel.continue` refers to (the innermost enclosing one)."""
