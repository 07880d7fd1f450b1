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

from warpforge.dialects.nvvm_catalog import CATALOG, DEFAULT_PTX_FOR_SM, IntrinsicSpec

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
        if sm_number(self.chip.data) is None:
            raise VerifyException(f"#nvvm.target chip must be an sm_XX name, got '{self.chip.data}'")
        if self.features.data and ptx_number(self.features.data) is None:
            raise VerifyException(f"#nvvm.target features must name a PTX version like '+ptx80', got '{self.features.data}'")

    @property
    def sm(self) -> int:
        """Compute capability ×10 (sm_90a → 90)."""
        n = sm_number(self.chip.data)
        assert n is not None
        return n

    @property
    def ptx(self) -> int:
        """PTX ISA version ×10 that code for this target uses."""
        return ptx_number(self.features.data) or DEFAULT_PTX_FOR_SM.get(self.sm, 78)


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


NVVM = Dialect("nvvm", list(OPS.values()), [NVVMTargetAttr])
