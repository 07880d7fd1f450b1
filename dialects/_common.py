"""Pieces the warpforge dialects share: shape spelling and the custom syntax of op families that
appear in more than one dialect (`kernel`, its tile-kernel part, `tile`).

Not a dialect: each dialect's ops and its `Dialect(...)` table stay in `dialects/<dialect>.py`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntAttr
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import AnyAttr, IRDLOperation, VarConstraint, operand_def, result_def, traits_def
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

COMPARE_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")
"""The predicates of `kernel.cmp` and `tile.cmp` (Python's comparison operators)."""


def int_tuple(attr: ArrayAttr) -> tuple[int, ...]:
    """The values of an `ArrayAttr` of `IntAttr`s (a shape)."""
    return tuple(a.data for a in attr.data)  # pyright: ignore[reportAttributeAccessIssue]


def int_array(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    """A shape (or any ints) as an `ArrayAttr` of `IntAttr`s, the inverse of `int_tuple`."""
    return ArrayAttr([IntAttr(v) for v in values])


def shape_text(shape: Sequence[int]) -> str:
    """A shape as MLIR spells it in a type: `?x1024` (without the element type)."""
    return "x".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape)


# --------------------------------------------------------------------------- ` {attrs} : T1, T2` (custom op syntax)


def print_attrs_and_types(printer: Printer, op: Operation, types: Sequence[Attribute]) -> None:
    """The tail of a custom op syntax: the op's remaining attributes (` {...}`, none when empty),
    then ` : ` and `types` separated by `, ` (read back by `parse_optional_attr_dict` and
    `parse_colon_types`)."""
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)


def parse_colon_types(parser: Parser, count: int) -> list[Attribute]:
    """`: T1, T2, …` with exactly `count` types (the parser's own errors for a missing `:`, `,` or type)."""
    parser.parse_punctuation(":")
    types = [parser.parse_type()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        types.append(parser.parse_type())
    return types


# --------------------------------------------------------------------------- shaped types


def parse_shape_and_type(parser: AttrParser) -> tuple[list[int], Attribute]:
    """`128x64xf32`, `?x1024xf32` or `f32` (rank 0): the dimensions and the element type."""
    dims = parser.parse_dimension_list()
    if dims:
        parser.parse_shape_delimiter()
    elem = parser.parse_type()
    return dims, elem


def print_shape_and_type(printer: Printer, shape: Sequence[int], element_type: Attribute) -> None:
    """Print `128x64xf32`, `?x1024xf32` or `f32` (rank 0), the inverse of `parse_shape_and_type`."""
    if shape:
        printer.print_string(shape_text(shape) + "x")
    printer.print_attribute(element_type)


class ShapedType(ParametrizedAttribute, TypeAttribute):
    """A type with a shape and an element type (`!tile.tile`, `!kernel.tensor`, `!kernel.shared`):
    the builder, `dims`/`rank` and the syntax `<128x64xf32>` (`?` for a dynamic extent). Each type
    declares its parameters `shape: ArrayAttr[IntAttr]` and `element_type: Attribute` itself (xDSL
    compares attributes by the parameters their own class declares), and its own verifier; a type
    with more parameters overrides the syntax."""

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(int_array(shape), element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        """The extents (`DYNAMIC_INDEX` for a dynamic one)."""
        return int_tuple(self.shape)  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def rank(self) -> int:
        return len(self.shape.data)  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        dims, elem = parse_shape_and_type(parser)
        parser.parse_punctuation(">")
        return [int_array(dims), elem]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        print_shape_and_type(printer, self.dims, self.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        printer.print_string(">")


class StridedShapedType(ShapedType):
    """A shaped type with optional strides in elements (`!kernel.tensor`, `!tile.tensor_view`): the
    syntax `<?x1024xf32>` or `<?x?x64xf16, strides = [?, ?, 1]>` (`?` a dynamic stride; empty
    strides, printed as nothing, mean the contiguous row-major ones) and the builder. Each type
    declares `shape`, `element_type` and `strides: ArrayAttr[IntAttr]` and verifies them itself."""

    def __init__(self, shape: Sequence[int], element_type: Attribute, strides: Sequence[int] | None = None):
        ParametrizedAttribute.__init__(self, int_array(shape), element_type, int_array(strides or ()))

    @property
    def stride_values(self) -> tuple[int, ...]:
        """The strides in elements (`DYNAMIC_INDEX` for a dynamic one); empty: contiguous."""
        return int_tuple(self.strides)  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        dims, elem = parse_shape_and_type(parser)
        strides: list[int] = []
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("strides")
            parser.parse_punctuation("=")
            strides = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_shape_dimension)
        parser.parse_punctuation(">")
        return [int_array(dims), elem, int_array(strides)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        print_shape_and_type(printer, self.dims, self.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        if self.stride_values:
            printer.print_string(", strides = [" + ", ".join("?" if s == DYNAMIC_INDEX else str(s) for s in self.stride_values) + "]")
        printer.print_string(">")


def parse_tile_shape_and_type(parser: AttrParser) -> tuple[list[int], Attribute]:
    """Parse `<[128, 64], T` — the opening of a partition type (`!kernel.partition`,
    `!tile.partition_view`): its static tile shape and the tensor type it cuts; the caller parses what
    follows and the closing `>`."""
    parser.parse_punctuation("<")
    dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_shape_dimension)
    parser.parse_punctuation(",")
    return dims, parser.parse_type()


def print_tile_shape_and_type(printer: Printer, dims: Sequence[int], t: Attribute) -> None:
    """Print `<[128, 64], T` (what `parse_tile_shape_and_type` reads)."""
    printer.print_string("<[" + ", ".join(map(str, dims)) + "], ")
    printer.print_attribute(t)


def lazy_dialect_table(module: str, name: str, build: Callable[[], Dialect]) -> Callable[[str], object]:
    """A module `__getattr__` that gives `module.<name>`, the dialect table `build()` makes, built once
    on first use and then kept as the module's global (the `kernel`, `tile` and `nvgpu` tables import
    the family files that build on their module, so they cannot be built at its import)."""

    def __getattr__(attr: str) -> object:
        if attr == name:
            table = build()
            setattr(sys.modules[module], name, table)
            return table
        raise AttributeError(f"module {module!r} has no attribute {attr!r}")

    return __getattr__


# --------------------------------------------------------------------------- `pred, %lhs, %rhs : T`


def check_compare_predicate(predicate: str) -> None:
    """Raise `VerifyException` unless `predicate` is one of `COMPARE_PREDICATES`."""
    if predicate not in COMPARE_PREDICATES:
        raise VerifyException(f"unknown predicate '{predicate}', expected one of {', '.join(COMPARE_PREDICATES)}")


def parse_compare(parser: Parser) -> tuple[str, UnresolvedOperand, UnresolvedOperand, dict[str, Attribute], Attribute]:
    """Parse `pred, %lhs, %rhs {attrs} : T`; returns (pred, lhs, rhs, attrs, T), the operands unresolved."""
    pred = parser.parse_keyword_in(COMPARE_PREDICATES, " (comparison predicate)")
    parser.parse_punctuation(",")
    lhs = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    rhs = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    return pred, lhs, rhs, attrs, t


def print_compare(printer: Printer, predicate: str, lhs: SSAValue, rhs: SSAValue, attributes: dict[str, Attribute]) -> None:
    """Print ` pred, %lhs, %rhs {attrs} : T` (T: the type of `lhs`)."""
    printer.print_string(f" {predicate}, ")
    printer.print_operand(lhs)
    printer.print_string(", ")
    printer.print_operand(rhs)
    printer.print_op_attributes(attributes)
    printer.print_string(" : ")
    printer.print_attribute(lhs.type)


# --------------------------------------------------------------------------- `%operand[axis] : T`


def parse_axis_query(parser: Parser) -> tuple[SSAValue, int, dict[str, Attribute]]:
    """Parse `%operand[axis] {attrs} : T`; returns (operand, axis, attrs)."""
    operand = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    axis = parser.parse_integer()
    parser.parse_punctuation("]")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    (value,) = parser.resolve_operands([operand], [t], parser.pos)
    return value, axis, attrs


def print_axis_query(printer: Printer, operand: SSAValue, axis: int, attributes: dict[str, Attribute]) -> None:
    """Print ` %operand[axis] {attrs} : T`."""
    printer.print_string(" ")
    printer.print_operand(operand)
    printer.print_string(f"[{axis}]")
    printer.print_op_attributes(attributes)
    printer.print_string(" : ")
    printer.print_attribute(operand.type)


# --------------------------------------------------------------------------- op families


class SameTypeBinaryOp(IRDLOperation):
    """`%r = <dialect>.<op> %lhs, %rhs : T` — both operands and the result have type T (a scalar for
    `kernel`, a tile for `tile`). Fields, traits, syntax and builder only: each dialect's base adds its
    own verifier."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        super().__init__(operands=[lhs, rhs], result_types=[SSAValue.get(lhs).type])


class SameTypeUnaryOp(IRDLOperation):
    """`%r = <dialect>.<op> %x : T` — the operand and the result have type T. Fields, traits, syntax and
    builder only: each dialect's base adds its own verifier."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    operand = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$operand attr-dict `:` type($result)"

    def __init__(self, operand: SSAValue | Operation):
        super().__init__(operands=[operand], result_types=[SSAValue.get(operand).type])


class SelectLikeOp(IRDLOperation):
    """`%r = <dialect>.<op> %c, %a, %b : …` — the value of `%a` where `%c` holds, else of `%b`; `%a`, `%b`
    and the result have one type T (`kernel.select`, `tile.where`). Fields after the condition,
    traits and builder: each op declares `cond` (its constraint) and its `assembly_format`."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    def __init__(self, cond: SSAValue | Operation, a: SSAValue | Operation, b: SSAValue | Operation):
        super().__init__(operands=[cond, a, b], result_types=[SSAValue.get(a).type])


class ResultOnlyOp(IRDLOperation):
    """`%r = <dialect>.<op> : T` — no operands, one result (a thread's index, a lane mask, an array
    allocation). Syntax and builder only: each op declares `result = result_def(C)`; `Op()` builds it
    with the type `C` determines (`ui32`, `!kernel.thread_index`), `Op(T)` with type `T`."""

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute | None = None):
        if result_type is None:
            from xdsl.irdl.constraints import InferenceContext

            constr = type(self).get_irdl_definition().results[0][1].constr
            if not constr.can_infer(set(), length_known=True):
                raise TypeError(f"{self.name} needs its result type")
            (result_type,) = constr.infer(InferenceContext(), length=1)
        super().__init__(result_types=[result_type])
