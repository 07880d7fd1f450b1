"""The `nvvm` dialect: NVIDIA's PTX instructions as ops, named as in MLIR's NVVM dialect
(https://mlir.llvm.org/docs/Dialects/NVVMDialect/).

Every op is built from one row of `warpforge.dialects.nvvm_catalog.CATALOG`; the row gives its
operands and results, the LLVM intrinsic it lowers to (`convert-nvvm-to-llvm`) and the minimum SM /
PTX version it needs (checked by `check-nvvm-target` against the enclosing `gpu.module`'s target).

```mlir
%tid = nvvm.read.ptx.sreg.tid.x : i32
nvvm.barrier0
%v = nvvm.shfl.sync.bfly.f32 %mask, %x, %offset, %clamp : (i32, f32, i32, i32) -> f32
```

`#nvvm.target<chip = "sm_90", features = "+ptx80", O = 3>` names the target of a `gpu.module`.

One op is not an intrinsic: `nvvm.atomicrmw` (an `atom` with a memory ordering and scope, from the
catalog's `ATOM_OPS`), which `convert-nvvm-to-llvm` lowers to inline PTX.
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    IntAttr,
    IntegerAttr,
    VectorType,
    f16,
    StringAttr,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.nvvm_catalog import CATALOG, IntrinsicSpec

_TYPES: dict[str, TypeAttribute] = {
    "i1": i1, "i32": i32, "i64": i64, "f16": f16, "f32": f32, "f64": f64,
    "v2f16": VectorType(f16, [2]), "ptr1": LLVMPointerType(IntAttr(1)), "ptr3": LLVMPointerType(IntAttr(3)),
}  # fmt: skip
"""Catalog type names → MLIR types (pointers are `llvm` pointers in the NVPTX address spaces)."""


def catalog_type(name: str) -> TypeAttribute:
    """The MLIR type of a catalog type name (`"v2f16"` → `vector<2xf16>`)."""
    return _TYPES[name]


# --------------------------------------------------------------------------- target


@irdl_attr_definition
class NVVMTargetAttr(ParametrizedAttribute):
    """`#nvvm.target<chip = "sm_90", features = "+ptx80", O = 3>`: the GPU a `gpu.module` is compiled for.

    `chip` is an `sm_XX[a]` name; `features` a `+ptxNN` string fixing the PTX ISA version (absent:
    the chip's default, e.g. sm_90 → PTX 7.8); `O` the LLVM optimization level.
    """

    name = "nvvm.target"

    chip: StringAttr
    features: StringAttr
    O: IntAttr

    def __init__(self, chip: str = "sm_90", features: str = "+ptx80", O: int = 3):
        super().__init__(StringAttr(chip), StringAttr(features), IntAttr(O))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        values: dict[str, Attribute] = {"chip": StringAttr("sm_90"), "features": StringAttr(""), "O": IntAttr(3)}
        if parser.parse_optional_punctuation("<") is None:
            return [values["chip"], values["features"], values["O"]]

        def parse_entry() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key in ("chip", "features"):
                values[key] = StringAttr(parser.parse_str_literal())
            elif key == "O":
                values[key] = IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=False))
            else:
                parser.raise_error(f"unknown #nvvm.target parameter '{key}' (expected chip, features or O)", pos, parser.pos)

        parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_entry)
        parser.parse_punctuation(">")
        return [values["chip"], values["features"], values["O"]]

    def print_parameters(self, printer: Printer) -> None:
        parts = [f'chip = "{self.chip.data}"']
        if self.features.data:
            parts.append(f'features = "{self.features.data}"')
        if self.O.data != 3:
            parts.append(f"O = {self.O.data}")
        printer.print_string("<" + ", ".join(parts) + ">")

    def verify(self) -> None:
        from warpforge.backend.chips import chip, parse_features
        from warpforge.errors import TargetError

        try:  # the chip table (`warpforge.backend.chips`); a too-old PTX version is refused at code generation
            chip(self.chip.data)
            parse_features(self.features.data, known_only=False)
        except TargetError as e:
            raise VerifyException(f"#nvvm.target: {e}") from None

    @property
    def sm(self) -> int:
        """Compute capability ×10 (sm_90a → 90)."""
        n = sm_number(self.chip.data)
        assert n is not None
        return n

    @property
    def ptx(self) -> int:
        """PTX ISA version ×10 that code for this target uses."""
        from warpforge.backend.chips import CHIPS

        row = CHIPS.get(self.chip.data)
        return ptx_number(self.features.data) or (row.default_ptx if row else 80)


def sm_number(chip: str) -> int | None:
    """`sm_90` / `sm_90a` → 90; None if `chip` is not an SM name."""
    m = re.fullmatch(r"sm_(\d+)[af]?", chip)
    return int(m.group(1)) if m else None


def ptx_number(features: str) -> int | None:
    """`+ptx80` → 80; None if `features` names no PTX version."""
    m = re.search(r"\+ptx(\d+)", features)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------- ops from the catalog


class NVVMIntrinsicOp(IRDLOperation):
    """Base of every catalog-built `nvvm` op; `SPEC` is its catalog row."""

    SPEC: ClassVar[IntrinsicSpec]

    def __init__(self, *operands: SSAValue | Operation, **properties: int):
        spec = type(self).SPEC
        if len(operands) != len(spec.operands):
            raise ValueError(f"{spec.op} takes {len(spec.operands)} operands, got {len(operands)}")
        if set(properties) != {name for name, _ in spec.properties}:
            raise ValueError(f"{spec.op} takes the properties {[n for n, _ in spec.properties]}, got {sorted(properties)}")
        props = {name: IntegerAttr(properties[name], _TYPES[typ]) for name, typ in spec.properties}
        super().__init__(operands=list(operands), result_types=[_TYPES[t] for t in spec.results], properties=props)


def _class_name(op_name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[._]", op_name.removeprefix("nvvm."))) + "Op"


def _assembly_format(spec: IntrinsicSpec) -> str:
    if spec.properties:
        assert not spec.operands and not spec.results, "properties only on ops without operands/results"
        return " ".join(f"${name}" for name, _ in spec.properties) + " attr-dict"
    if not spec.operands and not spec.results:
        return "attr-dict"
    if not spec.operands:
        return "attr-dict `:` type(results)"
    if not spec.results:
        return "operands attr-dict `:` type(operands)"
    return "operands attr-dict `:` functional-type(operands, results)"


def _define(spec: IntrinsicSpec) -> type[NVVMIntrinsicOp]:
    namespace: dict[str, object] = {
        "__annotations__": {"SPEC": ClassVar[IntrinsicSpec]},
        "__doc__": f"`{spec.ptx}`: {spec.summary}.\n\nLowers to `{spec.intrinsic}`; needs {spec.sm}, PTX {spec.ptx_version}.",
        "__module__": __name__,
        "__qualname__": _class_name(spec.op),
        "name": spec.op,
        "SPEC": spec,
        "assembly_format": _assembly_format(spec),
    }
    for name, typ in zip(spec.operand_names(), spec.operands):
        namespace[name] = operand_def(_TYPES[typ])
    for name, typ in spec.properties:
        assert typ == "i32"
        namespace[name] = prop_def(IntegerAttr[I32])
    for i, typ in enumerate(spec.results):
        namespace["res" if len(spec.results) == 1 else f"res{i}"] = result_def(_TYPES[typ])
    if spec.pure:
        namespace["traits"] = traits_def(Pure())
    return irdl_op_definition(type(_class_name(spec.op), (NVVMIntrinsicOp,), namespace))


OPS: dict[str, type[NVVMIntrinsicOp]] = {name: _define(spec) for name, spec in CATALOG.items()}
"""Every `nvvm` op class, by op name."""

globals().update({cls.__name__: cls for cls in OPS.values()})


def op(name: str) -> type[NVVMIntrinsicOp]:
    """The `nvvm` op class named `name` (e.g. `"nvvm.read.ptx.sreg.tid.x"`)."""
    return OPS[name]


# --------------------------------------------------------------------------- scoped, ordered atomics

from xdsl.dialects.llvm import LLVMPointerType  # noqa: E402
from xdsl.irdl import AnyAttr, VarConstraint, prop_def  # noqa: E402
from xdsl.parser import Parser  # noqa: E402

from warpforge.dialects.nvvm_catalog import ATOM_OPS, ATOM_SCOPES, ATOM_SEMANTICS, ATOM_SPACES, AtomSpec  # noqa: E402


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`%old = nvvm.atomicrmw add %ptr, %val {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32`.

    PTX `atom{.sem}{.scope}{.space}.op.type` (PTX ISA §9.7.13.5): atomically `*ptr = *ptr <op> val`,
    giving the value before, with the memory ordering `sem` (`relaxed`, `acquire`, `release`,
    `acq_rel`, or `seq_cst` = `fence.sc` then `atom.acquire`) at scope `scope` (`cta`, `cluster`, `gpu`,
    `sys`). `bin_op` and the value type pick a row of `nvvm_catalog.ATOM_OPS` (`add`/`fadd`/`and`/`or`/
    `xor`/`xchg`/`max`/`min`/`umax`/`umin` on i32, i64, f32, f64, f16, bf16 where PTX has them); the
    pointer's address space (1 global, 3 shared, 0 generic) gives `.space`.

    warpforge's op, not MLIR's: MLIR spells this `llvm.atomicrmw` with a `syncscope`, but LLVM 22's
    NVPTX backend drops ordering and scope there, so `convert-nvvm-to-llvm` lowers this op to
    `llvm.inline_asm` instead. `check-nvvm-target` checks its chip and PTX requirements.
    """

    name = "nvvm.atomicrmw"

    T: ClassVar = VarConstraint("T", AnyAttr())
    bin_op = prop_def(StringAttr)
    sem = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)

    def __init__(self, bin_op: str, ptr: SSAValue | Operation, val: SSAValue | Operation, sem: str, scope: str):
        props: dict[str, Attribute] = {"bin_op": StringAttr(bin_op), "sem": StringAttr(sem), "scope": StringAttr(scope)}
        super().__init__(operands=[ptr, val], result_types=[SSAValue.get(val).type], properties=props)

    @property
    def spec(self) -> AtomSpec:
        """The catalog row of this operation and value type (KeyError if PTX has no such `atom`)."""
        return ATOM_OPS[(self.bin_op.data, str(self.val.type))]

    @property
    def space(self) -> int:
        """The pointer's NVPTX address space."""
        ptr_t = self.ptr.type
        assert isinstance(ptr_t, LLVMPointerType)
        return ptr_t.addr_space.data if isinstance(ptr_t.addr_space, IntAttr) else 0

    def verify_(self) -> None:
        if (self.bin_op.data, str(self.val.type)) not in ATOM_OPS:
            have = sorted({f"{o} {t}" for o, t in ATOM_OPS})
            raise VerifyException(f"PTX has no atom '{self.bin_op.data}' on {self.val.type} (have: {', '.join(have)})")
        if self.sem.data not in ATOM_SEMANTICS:
            raise VerifyException(f"unknown sem '{self.sem.data}', expected one of {', '.join(ATOM_SEMANTICS)}")
        if self.scope.data not in ATOM_SCOPES:
            raise VerifyException(f"unknown scope '{self.scope.data}', expected one of {', '.join(ATOM_SCOPES)}")
        if self.space not in ATOM_SPACES:
            raise VerifyException(f"atom works on global (1), shared (3) or generic (0) pointers, got {self.ptr.type}")

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        bin_op = parser.parse_identifier()
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        pos = parser.pos
        attrs = dict(parser.parse_optional_attr_dict())
        sem, scope = attrs.pop("sem", None), attrs.pop("scope", None)
        if not isinstance(sem, StringAttr) or not isinstance(scope, StringAttr):
            parser.raise_error('nvvm.atomicrmw needs {sem = "...", scope = "..."}', pos, parser.pos)
        parser.parse_punctuation(":")
        ptr_t = parser.parse_type()
        parser.parse_punctuation(",")
        val_t = parser.parse_type()
        ptr_v, val_v = parser.resolve_operands([ptr, val], [ptr_t, val_t], parser.pos)
        op = cls(bin_op, ptr_v, val_v, sem.data, scope.data)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bin_op.data} ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.val)
        printer.print_string(f' {{sem = "{self.sem.data}", scope = "{self.scope.data}"}}')
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(", ")
        printer.print_attribute(self.val.type)


NVVM = Dialect("nvvm", [*OPS.values(), AtomicRMWOp], [NVVMTargetAttr])
