"""The `llvm` dialect: xDSL's LLVM ops plus the ones warpforge's pipeline needs and xDSL 0.75 lacks.

xDSL already registers a dialect named `llvm`; warpforge's context registers `LLVM` below in its place,
so `warpforge-opt` parses both xDSL's ops and these. Op names and syntax follow MLIR's LLVM dialect
(https://mlir.llvm.org/docs/Dialects/LLVM/):

| op | LLVM instruction / intrinsic | why xDSL's set is not enough |
|---|---|---|
| `llvm.addrspacecast` | `addrspacecast` | shared/global ↔ generic pointers |
| `llvm.fptosi`, `llvm.fptoui`, `llvm.uitofp` | the casts | unsigned and float→int conversions |
| `llvm.atomicrmw`, `llvm.cmpxchg`, `llvm.fence` | the atomics, with `syncscope` | atomics and the error record |
| `llvm.switch` | `switch` | multi-way branches |
| `llvm.extractelement`, `llvm.freeze`, `llvm.mlir.poison` | the same | vectors, poison handling |
| `llvm.intr.maximum` / `llvm.intr.minimum` | `llvm.maximum` / `llvm.minimum` | NaN-propagating max/min (`max.NaN.f32` on sm_80+) |
| `llvm.intr.smax` … `llvm.intr.umin` | `llvm.smax` … | integer max/min |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import llvm as xllvm
from xdsl.dialects.builtin import (
    AnyFloatConstr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    SignlessIntegerConstraint,
    StringAttr,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    successor_def,
    traits_def,
    var_successor_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import parse_colon_types, print_attrs_and_types

# --------------------------------------------------------------------------- casts


@irdl_op_definition
class AddrSpaceCastOp(xllvm.GenericCastOp):
    """`addrspacecast`: a pointer in one address space to another (e.g. shared `ptr<3>` → generic `ptr`)."""

    name = "llvm.addrspacecast"


@irdl_op_definition
class FPToSIOp(xllvm.GenericCastOp):
    """`fptosi`: float to signed integer; out of range is poison in LLVM (warpforge emits `llvm.fptosi.sat`)."""

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(xllvm.GenericCastOp):
    """`fptoui`: float to unsigned integer; out of range is poison (warpforge emits `llvm.fptoui.sat`)."""

    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(xllvm.GenericCastOp):
    """`uitofp`: unsigned integer to float."""

    name = "llvm.uitofp"


# --------------------------------------------------------------------------- atomics

ATOMIC_BIN_OPS = (
    "xchg", "add", "sub", "and", "nand", "or", "xor", "max", "min", "umax", "umin",
    "fadd", "fsub", "fmax", "fmin", "uinc_wrap", "udec_wrap", "fmaximum", "fminimum",
)  # fmt: skip
"""`atomicrmw` operations, as LLVM LangRef spells them."""

ATOMIC_ORDERINGS = ("monotonic", "acquire", "release", "acq_rel", "seq_cst")
"""Orderings accepted by `atomicrmw`, `cmpxchg` and `fence` (LangRef, "Atomic Memory Ordering")."""


def _parse_syncscope(parser: Parser) -> StringAttr | None:
    if parser.parse_optional_keyword("syncscope") is None:
        return None
    parser.parse_punctuation("(")
    scope = parser.parse_str_literal()
    parser.parse_punctuation(")")
    return StringAttr(scope)


def _print_syncscope(printer: Printer, scope: StringAttr | None) -> None:
    if scope is not None:
        printer.print_string(f' syncscope("{scope.data}")')


def _parse_keyword_in(parser: Parser, allowed: Sequence[str], what: str) -> str:
    return parser.parse_keyword_in(allowed, f" ({what})")


NVPTX_SYNCSCOPES = ("", "singlethread", "block", "cluster", "device")
"""`syncscope`s LLVM 22's NVPTX backend accepts ("": the whole system, PTX `.sys`); any other aborts
the process ("NVPTX backend does not support syncscope"), so the verifier refuses it."""


def _verify_syncscope(op: Operation) -> None:
    scope = op.properties.get("syncscope")
    if isinstance(scope, StringAttr) and scope.data not in NVPTX_SYNCSCOPES:
        raise VerifyException(f"syncscope(\"{scope.data}\") is not one NVPTX has, expected one of {', '.join(repr(x) for x in NVPTX_SYNCSCOPES)}")


def _verify_ordering(ordering: StringAttr) -> None:
    if ordering.data not in ATOMIC_ORDERINGS:
        raise VerifyException(f"expected an ordering in {ATOMIC_ORDERINGS}, got '{ordering.data}'")


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`atomicrmw`: `%old = llvm.atomicrmw add %ptr, %val syncscope("block") monotonic : !llvm.ptr<1>, i32`.

    Returns the value held before the operation. `syncscope` is NVPTX's: `"block"` (CTA), `"cluster"`,
    `"device"` (GPU); absent means system scope (PTX ISA §9.7.13.5, scopes).
    """

    name = "llvm.atomicrmw"

    ptr = operand_def(xllvm.LLVMPointerType)
    val = operand_def()
    res = result_def()
    bin_op = prop_def(StringAttr)
    ordering = prop_def(StringAttr)
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr)

    def __init__(
        self,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        bin_op: str,
        ordering: str = "monotonic",
        syncscope: str | None = None,
    ):
        props: dict[str, Attribute] = {"bin_op": StringAttr(bin_op), "ordering": StringAttr(ordering)}
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(operands=[ptr, val], result_types=[SSAValue.get(val).type], properties=props)

    def verify_(self) -> None:
        if self.bin_op.data not in ATOMIC_BIN_OPS:
            raise VerifyException(f"unknown atomicrmw operation '{self.bin_op.data}'")
        _verify_ordering(self.ordering)
        _verify_syncscope(self)
        if self.res.type != self.val.type:
            raise VerifyException("result type must match the value operand's type")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        bin_op = _parse_keyword_in(parser, ATOMIC_BIN_OPS, "an atomicrmw operation")
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        scope = _parse_syncscope(parser)
        ordering = _parse_keyword_in(parser, ATOMIC_ORDERINGS, "an atomic ordering")
        attrs = parser.parse_optional_attr_dict()
        ptr_t, val_t = parse_colon_types(parser, 2)
        ptr_v, val_v = parser.resolve_operands([ptr, val], [ptr_t, val_t], parser.pos)
        op = cls(ptr_v, val_v, bin_op, ordering, scope.data if scope else None)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bin_op.data} ")
        printer.print_list([self.ptr, self.val], printer.print_operand)
        _print_syncscope(printer, self.syncscope)
        printer.print_string(f" {self.ordering.data}")
        print_attrs_and_types(printer, self, [self.ptr.type, self.val.type])


@irdl_op_definition
class CmpXchgOp(IRDLOperation):
    """`cmpxchg`: `%r = llvm.cmpxchg %ptr, %cmp, %new acq_rel monotonic : !llvm.ptr<1>, i32`.

    The result is `!llvm.struct<(T, i1)>`: the old value and whether the exchange happened.
    """

    name = "llvm.cmpxchg"

    ptr = operand_def(xllvm.LLVMPointerType)
    cmp = operand_def()
    val = operand_def()
    res = result_def(xllvm.LLVMStructType)
    success_ordering = prop_def(StringAttr)
    failure_ordering = prop_def(StringAttr)
    syncscope = opt_prop_def(StringAttr)

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        success_ordering: str = "acq_rel",
        failure_ordering: str = "monotonic",
        syncscope: str | None = None,
    ):
        val_t = SSAValue.get(val).type
        props: dict[str, Attribute] = {
            "success_ordering": StringAttr(success_ordering),
            "failure_ordering": StringAttr(failure_ordering),
        }
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[xllvm.LLVMStructType.from_type_list([val_t, i1])],
            properties=props,
        )

    def verify_(self) -> None:
        _verify_ordering(self.success_ordering)
        _verify_syncscope(self)
        _verify_ordering(self.failure_ordering)
        if self.cmp.type != self.val.type:
            raise VerifyException("compare and new value must have the same type")
        if not isinstance(self.val.type, IntegerType) and not isinstance(self.val.type, xllvm.LLVMPointerType):
            raise VerifyException(f"cmpxchg needs an integer or pointer value, got {self.val.type}")

    @classmethod
    def parse(cls, parser: Parser) -> CmpXchgOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cmp = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        scope = _parse_syncscope(parser)
        succ = _parse_keyword_in(parser, ATOMIC_ORDERINGS, "a success ordering")
        fail = _parse_keyword_in(parser, ATOMIC_ORDERINGS, "a failure ordering")
        attrs = parser.parse_optional_attr_dict()
        ptr_t, val_t = parse_colon_types(parser, 2)
        ptr_v, cmp_v, val_v = parser.resolve_operands([ptr, cmp, val], [ptr_t, val_t, val_t], parser.pos)
        op = cls(ptr_v, cmp_v, val_v, succ, fail, scope.data if scope else None)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.cmp, self.val], printer.print_operand)
        _print_syncscope(printer, self.syncscope)
        printer.print_string(f" {self.success_ordering.data} {self.failure_ordering.data}")
        print_attrs_and_types(printer, self, [self.ptr.type, self.val.type])


@irdl_op_definition
class FenceOp(IRDLOperation):
    """`fence`: `llvm.fence syncscope("block") acq_rel` (PTX `fence.acq_rel.cta`, ISA §9.7.13.4)."""

    name = "llvm.fence"

    ordering = prop_def(StringAttr)
    syncscope = opt_prop_def(StringAttr)

    def __init__(self, ordering: str = "seq_cst", syncscope: str | None = None):
        props: dict[str, Attribute] = {"ordering": StringAttr(ordering)}
        if syncscope is not None:
            props["syncscope"] = StringAttr(syncscope)
        super().__init__(properties=props)

    def verify_(self) -> None:
        _verify_ordering(self.ordering)
        _verify_syncscope(self)
        if self.ordering.data == "monotonic":
            raise VerifyException("a fence cannot be monotonic")

    @classmethod
    def parse(cls, parser: Parser) -> FenceOp:
        scope = _parse_syncscope(parser)
        ordering = _parse_keyword_in(parser, ATOMIC_ORDERINGS, "an atomic ordering")
        attrs = parser.parse_optional_attr_dict()
        op = cls(ordering, scope.data if scope else None)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        _print_syncscope(printer, self.syncscope)
        printer.print_string(f" {self.ordering.data}")
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------- control flow


@irdl_op_definition
class SwitchOp(IRDLOperation):
    """`switch`: `llvm.switch %v : i32, ^default [0: ^bb1, 7: ^bb2]`.

    Successors take no operands here (unlike MLIR's, which may pass block arguments); lowerings that
    need values route them through the destination blocks' predecessors.
    """

    name = "llvm.switch"

    value = operand_def(SignlessIntegerConstraint)
    case_values = prop_def(DenseArrayBase)
    default_destination = successor_def()
    case_destinations = var_successor_def()

    traits = traits_def(IsTerminator())

    def __init__(self, value: SSAValue | Operation, default: Block, cases: Sequence[tuple[int, Block]]):
        width = SSAValue.get(value).type
        assert isinstance(width, IntegerType)
        super().__init__(
            operands=[value],
            properties={"case_values": DenseArrayBase.from_list(width, [c for c, _ in cases])},
            successors=[default, [b for _, b in cases]],
        )

    def verify_(self) -> None:
        if len(self.case_values.get_values()) != len(self.case_destinations):
            raise VerifyException("switch needs one destination per case value")

    @classmethod
    def parse(cls, parser: Parser) -> SwitchOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        (value_v,) = parser.resolve_operands([value], [typ], parser.pos)
        parser.parse_punctuation(",")
        default = parser.parse_successor()

        def parse_case() -> tuple[int, Block]:
            c = parser.parse_integer()
            parser.parse_punctuation(":")
            return c, parser.parse_successor()

        cases = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_case)
        op = cls(value_v, default, cases)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_block_name(self.default_destination)
        printer.print_string(" [")
        printer.print_list(
            zip(self.case_values.get_values(), self.case_destinations),
            lambda c: (printer.print_string(f"{c[0]}: "), printer.print_block_name(c[1])),
        )
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)


# --------------------------------------------------------------------------- values


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`extractelement`: `%e = llvm.extractelement %vec[%idx : i32] : vector<4xf32>`."""

    name = "llvm.extractelement"

    vector = operand_def(VectorType)
    position = operand_def(SignlessIntegerConstraint)
    res = result_def()

    traits = traits_def(Pure())

    def __init__(self, vector: SSAValue | Operation, position: SSAValue | Operation):
        vec_t = SSAValue.get(vector).type
        assert isinstance(vec_t, VectorType)
        super().__init__(operands=[vector, position], result_types=[vec_t.element_type])

    @classmethod
    def parse(cls, parser: Parser) -> ExtractElementOp:
        vec = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        pos = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        pos_t = parser.parse_type()
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vec_t = parser.parse_type()
        vec_v, pos_v = parser.resolve_operands([vec, pos], [vec_t, pos_t], parser.pos)
        op = cls(vec_v, pos_v)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.vector)
        printer.print_string("[")
        printer.print_operand(self.position)
        printer.print_string(" : ")
        printer.print_attribute(self.position.type)
        printer.print_string("]")
        print_attrs_and_types(printer, self, [self.vector.type])


@irdl_op_definition
class FreezeOp(IRDLOperation):
    """`freeze`: stops poison/undef from propagating (`%f = llvm.freeze %x : i32`)."""

    name = "llvm.freeze"

    T: ClassVar = VarConstraint("T", AnyAttr())
    val = operand_def(T)
    res = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$val attr-dict `:` type($val)"

    def __init__(self, val: SSAValue | Operation):
        super().__init__(operands=[val], result_types=[SSAValue.get(val).type])


@irdl_op_definition
class PoisonOp(IRDLOperation):
    """`llvm.mlir.poison : T`: a poison value of type T."""

    name = "llvm.mlir.poison"

    res = result_def()

    traits = traits_def(NoMemoryEffect())

    assembly_format = "attr-dict `:` type($res)"

    def __init__(self, typ: Attribute):
        super().__init__(result_types=[typ])


# --------------------------------------------------------------------------- intrinsics


class _BinaryIntrinsicOp(IRDLOperation):
    """`llvm.intr.<name>(%a, %b) : (T, T) -> T` — an LLVM intrinsic overloaded on its one type."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)

    INTRINSIC: ClassVar[str]
    """The LLVM intrinsic, without its type suffix."""

    traits = traits_def(Pure())

    assembly_format = "`(` operands `)` attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])


class _FloatBinaryIntrinsicOp(_BinaryIntrinsicOp):
    T: ClassVar = VarConstraint("T", AnyFloatConstr | VectorType.constr(AnyFloatConstr))
    # the fields are redeclared: the base class's were built from its own (unconstrained) `T`
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)


class _IntBinaryIntrinsicOp(_BinaryIntrinsicOp):
    T: ClassVar = VarConstraint("T", SignlessIntegerConstraint | VectorType.constr(SignlessIntegerConstraint))
    lhs = operand_def(T)
    rhs = operand_def(T)
    res = result_def(T)


@irdl_op_definition
class MaximumOp(_FloatBinaryIntrinsicOp):
    """`llvm.maximum`: IEEE 754-2019 maximum, NaN-propagating (PTX `max.NaN`, sm_80+)."""

    name = "llvm.intr.maximum"
    INTRINSIC: ClassVar[str] = "llvm.maximum"


@irdl_op_definition
class MinimumOp(_FloatBinaryIntrinsicOp):
    """`llvm.minimum`: IEEE 754-2019 minimum, NaN-propagating (PTX `min.NaN`, sm_80+)."""

    name = "llvm.intr.minimum"
    INTRINSIC: ClassVar[str] = "llvm.minimum"


@irdl_op_definition
class SMaxOp(_IntBinaryIntrinsicOp):
    """`llvm.smax`: signed integer maximum."""

    name = "llvm.intr.smax"
    INTRINSIC: ClassVar[str] = "llvm.smax"


@irdl_op_definition
class SMinOp(_IntBinaryIntrinsicOp):
    """`llvm.smin`: signed integer minimum."""

    name = "llvm.intr.smin"
    INTRINSIC: ClassVar[str] = "llvm.smin"


@irdl_op_definition
class UMaxOp(_IntBinaryIntrinsicOp):
    """`llvm.umax`: unsigned integer maximum."""

    name = "llvm.intr.umax"
    INTRINSIC: ClassVar[str] = "llvm.umax"


@irdl_op_definition
class UMinOp(_IntBinaryIntrinsicOp):
    """`llvm.umin`: unsigned integer minimum."""

    name = "llvm.intr.umin"
    INTRINSIC: ClassVar[str] = "llvm.umin"


ADDED_OPS: tuple[type[IRDLOperation], ...] = (
    AddrSpaceCastOp,
    AtomicRMWOp,
    CmpXchgOp,
    ExtractElementOp,
    FPToSIOp,
    FPToUIOp,
    FenceOp,
    FreezeOp,
    MaximumOp,
    MinimumOp,
    PoisonOp,
    SMaxOp,
    SMinOp,
    SwitchOp,
    UIToFPOp,
    UMaxOp,
    UMinOp,
)
"""The ops warpforge adds to xDSL's `llvm` dialect."""

LLVM = Dialect(
    "llvm",
    [*xllvm.LLVM.operations, *ADDED_OPS],
    list(xllvm.LLVM.attributes),
)
"""xDSL's `llvm` dialect extended with `ADDED_OPS`; replaces xDSL's registration in our context."""

__all__ = ["LLVM", "ADDED_OPS", *(cls.__name__ for cls in ADDED_OPS)]

