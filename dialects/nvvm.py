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
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
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
from xdsl.ir import Attribute, Block, Dialect, Operation, Use, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_attr_definition, irdl_op_definition, operand_def, prop_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import parse_colon_types, print_attrs_and_types
from warpforge.dialects.nvvm_catalog import CATALOG, WGMMA_SPEC, WGMMA_TYPES, IntrinsicSpec, WGMMAType

_TYPES: dict[str, TypeAttribute] = {
    "i1": i1, "i32": i32, "i64": i64, "f16": f16, "f32": f32, "f64": f64,
    "v2f16": VectorType(f16, [2]), "ptr1": LLVMPointerType(IntAttr(1)), "ptr3": LLVMPointerType(IntAttr(3)),
    "ptr": LLVMPointerType(),
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

    @property
    def arch_specific(self) -> bool:
        """True for an architecture-specific chip (`sm_90a`): its `a`-only instructions (wgmma,
        setmaxnreg) are available, and its code runs only on that exact compute capability."""
        return self.chip.data.endswith("a")


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

    def verify_(self) -> None:
        check = _VERIFIERS.get(self.name)
        if check is not None:
            check(self)


def _constant_value(value: SSAValue) -> int | None:
    """The integer a value is known to be (`arith.constant` / `llvm.mlir.constant`), else None."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.name in ("arith.constant", "llvm.mlir.constant"):
        attr = owner.properties.get("value")
        if attr is None:
            attr = owner.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _property(op: Operation, name: str) -> int:
    attr = op.properties[name]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _verify_setmaxnreg(op: Operation) -> None:
    regs = _property(op, "regs")
    if not (24 <= regs <= 256 and regs % 8 == 0):
        raise VerifyException(f"'{op.name}' register count must be a multiple of 8 in [24, 256] (PTX ISA §9.7.19.5), got {regs}")


def _verify_named_barrier(op: Operation) -> None:
    bar_id, count = (_constant_value(v) for v in op.operands)
    if bar_id is not None and not 0 <= bar_id <= 15:
        raise VerifyException(f"'{op.name}' barrier id must be in [0, 15] (PTX ISA §9.7.13.1), got {bar_id}")
    if count is not None and (count <= 0 or count % 32):
        raise VerifyException(f"'{op.name}' thread count must be a positive multiple of 32 (PTX ISA §9.7.13.1), got {count}")


def _verify_mbarrier_init(op: Operation) -> None:
    count = _constant_value(op.operands[1])
    if count is not None and not 1 <= count <= (1 << 20) - 1:
        raise VerifyException(f"'{op.name}' arrival count must be in [1, 2^20 - 1] (PTX ISA §9.7.13.15.1), got {count}")


def _verify_group_depth(op: Operation) -> None:
    n = _property(op, "n")
    if n < 0:
        raise VerifyException(f"'{op.name}' group count must be >= 0, got {n}")


def _verify_tx_count(op: Operation) -> None:
    tx = _constant_value(op.operands[1])
    if tx is not None and not 0 <= tx <= (1 << 20) - 1:
        raise VerifyException(f"'{op.name}' transaction count must be in [0, 2^20 - 1] bytes (PTX ISA §9.7.13.15.1), got {tx}")


_VERIFIERS = {
    "nvvm.setmaxnreg.inc": _verify_setmaxnreg,
    "nvvm.setmaxnreg.dec": _verify_setmaxnreg,
    "nvvm.barrier": _verify_named_barrier,
    "nvvm.barrier.arrive": _verify_named_barrier,
    "nvvm.mbarrier.init.shared": _verify_mbarrier_init,
    "nvvm.mbarrier.arrive.expect_tx": _verify_tx_count,
    "nvvm.wgmma.wait.group.sync.aligned": _verify_group_depth,
    "nvvm.cp.async.bulk.wait_group": _verify_group_depth,
    "nvvm.cp.async.bulk.wait_group.read": _verify_group_depth,
    "nvvm.cp.async.wait.group": _verify_group_depth,
}
"""Rules beyond operand types, by op name (immediate ranges from the PTX ISA)."""


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
        assert typ in ("i32", "i64")
        namespace[name] = prop_def(IntegerAttr[I32] if typ == "i32" else IntegerAttr[I64])
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
        ptr_t, val_t = parse_colon_types(parser, 2)
        ptr_v, val_v = parser.resolve_operands([ptr, val], [ptr_t, val_t], parser.pos)
        op = cls(bin_op, ptr_v, val_v, sem.data, scope.data)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bin_op.data} ")
        printer.print_list([self.ptr, self.val], printer.print_operand)
        printer.print_string(f' {{sem = "{self.sem.data}", scope = "{self.scope.data}"}}')
        print_attrs_and_types(printer, self, [self.ptr.type, self.val.type])


# --------------------------------------------------------------------------- warpgroup MMA (inline PTX)


class WgmmaMmaAsyncBase(IRDLOperation):
    """What the two forms of `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{type}.{type}` (PTX ISA 9.0
    §9.7.15.5.2) share: B (16×n) in shared memory named by a 64-bit matrix descriptor `desc_b`, the
    scale-d predicate, the accumulator D (64×n f32, `n/2` registers per thread of the warpgroup,
    `acc` in, `res` out), the immediates, the verifier (the catalog's `WGMMA_TYPES` row) and the rule
    for accumulators in flight (`check_accumulators_in_flight`). The leaf ops differ in A: from shared
    memory (`nvvm.wgmma.mma_async`, `desc_a`) or from registers (`nvvm.wgmma.mma_async.reg_a`, `a`)."""

    SPEC: ClassVar[IntrinsicSpec] = WGMMA_SPEC

    # the leaf ops declare the operands (in PTX order: A, desc_b, scale_d, acc), `res` and the properties
    # n, type, layout_b, scale_a, scale_b that the methods here read

    @property
    def wgmma_type(self) -> WGMMAType | None:
        return next((t for t in WGMMA_TYPES if t.ab == self.type.data), None)

    def _layouts(self) -> tuple[tuple[str, str], ...]:
        return (("layout_b", self.layout_b.data),)

    def verify_(self) -> None:
        n = self.n.value.data
        row = self.wgmma_type
        if row is None:
            known = ", ".join(t.ab for t in WGMMA_TYPES)
            raise VerifyException(f"'{self.name}' has no {self.type.data} form with an f32 accumulator (supported: {known})")
        if not (8 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"'{self.name}' n must be a multiple of 8 in [8, 256] (PTX ISA §9.7.15.5.2), got {n}")
        if len(self.acc) != n // 2:
            raise VerifyException(f"'{self.name}' m64n{n}k{row.k} takes {n // 2} f32 accumulators per thread, got {len(self.acc)}")
        for name, value in self._layouts():
            if value not in ("row", "col"):
                raise VerifyException(f"'{self.name}' {name} must be \"row\" or \"col\", got \"{value}\"")
        for name, value in (("scale_a", self.scale_a.value.data), ("scale_b", self.scale_b.value.data)):
            if value not in (1, -1):
                raise VerifyException(f"'{self.name}' {name} must be 1 or -1, got {value}")
        check_accumulators_in_flight(self)

    def ptx_instruction(self) -> str:
        """The PTX mnemonic with qualifiers (`wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16`)."""
        row = self.wgmma_type
        assert row is not None
        return f"wgmma.mma_async.sync.aligned.m64n{self.n.value.data}k{row.k}.{row.d}.{row.ab}.{row.ab}"


def _wgmma_properties(n: int, type: str, layout_b: str, scale_a: int, scale_b: int, layout_a: str | None = None) -> dict[str, Attribute]:
    """The properties in the order the ops print them (n, type, [layout_a,] layout_b, scales)."""
    a = {} if layout_a is None else {"layout_a": StringAttr(layout_a)}
    return {
        "n": IntegerAttr(n, i32), "type": StringAttr(type), **a, "layout_b": StringAttr(layout_b),
        "scale_a": IntegerAttr(scale_a, i32), "scale_b": IntegerAttr(scale_b, i32),
    }  # fmt: skip


@irdl_op_definition
class WgmmaMmaAsyncOp(WgmmaMmaAsyncBase):
    """`wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{type}.{type}` (PTX ISA 9.0 §9.7.15.5.2), as MLIR's
    `nvvm.wgmma.mma_async`: the 128 threads of a warpgroup multiply A (64×16) by B (16×n), both in
    shared memory named by 64-bit matrix descriptors (`desc_a`, `desc_b`, §9.7.15.5.1: start address,
    leading/stride byte offsets >> 4, swizzle mode), into D (64×n f32, `n/2` registers per thread):
    D = scale_a·A · scale_b·B + (scale_d ? C : 0). `layout_a = "row"` / `layout_b = "col"` are the
    K-major layouts (no transpose); the other layouts set the transpose immediates.

    ```mlir
    %d:4 = nvvm.wgmma.mma_async %da, %db, %scale_d, (%c0, %c1, %c2, %c3) <{n = 8 : i32, type = "f16",
        layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32}> : f32, f32, f32, f32 -> f32, f32, f32, f32
    ```

    The results are written by the hardware until the group is waited for: they may only be read as
    the accumulator `acc` of a following `nvvm.wgmma.mma_async`, carried through a loop, or through the
    results of an `nvvm.wgmma.wait_accumulators` with `n = 0` — see `check_accumulators_in_flight`. Needs sm_90a, PTX 8.0; LLVM 22 has no
    intrinsic, so `convert-nvvm-to-llvm` writes inline PTX (`=f` outputs tied to the `acc` inputs).
    """

    name = "nvvm.wgmma.mma_async"

    desc_a = operand_def(i64)
    desc_b = operand_def(i64)
    scale_d = operand_def(i1)
    acc = var_operand_def(f32)
    res = var_result_def(f32)

    n = prop_def(IntegerAttr[I32])
    type = prop_def(StringAttr)
    layout_a = prop_def(StringAttr)
    layout_b = prop_def(StringAttr)
    scale_a = prop_def(IntegerAttr[I32])
    scale_b = prop_def(IntegerAttr[I32])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$desc_a `,` $desc_b `,` $scale_d `,` `(` $acc `)` attr-dict `:` type($acc) `->` type($res)"

    def __init__(
        self, desc_a: SSAValue, desc_b: SSAValue, scale_d: SSAValue, acc: list[SSAValue], *, n: int, type: str = "f16",
        layout_a: str = "row", layout_b: str = "col", scale_a: int = 1, scale_b: int = 1,
    ):  # fmt: skip
        super().__init__(
            operands=[desc_a, desc_b, scale_d, acc],
            result_types=[[f32] * len(acc)],
            properties=_wgmma_properties(n, type, layout_b, scale_a, scale_b, layout_a=layout_a),
        )

    def _layouts(self) -> tuple[tuple[str, str], ...]:
        return (("layout_a", self.layout_a.data), ("layout_b", self.layout_b.data))


WGMMA_A_REGISTERS = 4
"""b32 registers of a thread's A fragment in `wgmma.mma_async` m64nNk16 with A from registers (PTX ISA
§9.7.15.5.1.1, "Register fragments", A of .f16/.bf16: eight 16-bit elements, two per register)."""


@irdl_op_definition
class WgmmaMmaAsyncRegAOp(WgmmaMmaAsyncBase):
    """`wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{type}.{type} d, {a0, a1, a2, a3}, b-desc, p, ...`
    (PTX ISA 9.0 §9.7.15.5.2, the form with A in registers): as `nvvm.wgmma.mma_async`, but A (64×16)
    comes from four b32 registers per thread of the warpgroup (`a`, i32, each two 16-bit elements of
    `type`, the lower index in the low half; §9.7.15.5.1.1 "Register fragments", A of m64nNk16: warp
    w of the warpgroup, lane l, register j, half h holds A[16w + 8·(j % 2) + l/4][8·(j/2) + 2·(l % 4) + h]
    — the D fragment of an m64n16 accumulator, so the f16 pairs of a product's accumulator columns
    16s … 16s + 15 are the A of k-step s: FlashAttention's P·V). B is in shared memory (`desc_b`);
    there is no A transpose (A in registers is K-major), so only `layout_b` is given.

    ```mlir
    %d:4 = nvvm.wgmma.mma_async.reg_a(%a0, %a1, %a2, %a3), %db, %scale_d, (%c0, %c1, %c2, %c3) <{n = 8 : i32,
        type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32}> : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
    ```

    The accumulator rule is `nvvm.wgmma.mma_async`'s (`check_accumulators_in_flight`); the A registers,
    too, are read by the tensor cores until the group retires (PTX ISA §9.7.15.6: registers written
    before the `wgmma.fence` that precedes the op). Needs sm_90a, PTX 8.0; `convert-nvvm-to-llvm`
    writes inline PTX (`r` inputs for A)."""

    name = "nvvm.wgmma.mma_async.reg_a"

    a = var_operand_def(i32)
    desc_b = operand_def(i64)
    scale_d = operand_def(i1)
    acc = var_operand_def(f32)
    res = var_result_def(f32)

    n = prop_def(IntegerAttr[I32])
    type = prop_def(StringAttr)
    layout_b = prop_def(StringAttr)
    scale_a = prop_def(IntegerAttr[I32])
    scale_b = prop_def(IntegerAttr[I32])

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = "`(` $a `)` `,` $desc_b `,` $scale_d `,` `(` $acc `)` attr-dict `:` `(` type($a) `)` `,` type($acc) `->` type($res)"

    def __init__(
        self, a: list[SSAValue], desc_b: SSAValue, scale_d: SSAValue, acc: list[SSAValue], *, n: int, type: str = "f16",
        layout_b: str = "col", scale_a: int = 1, scale_b: int = 1,
    ):  # fmt: skip
        super().__init__(
            operands=[a, desc_b, scale_d, acc],
            result_types=[[f32] * len(acc)],
            properties=_wgmma_properties(n, type, layout_b, scale_a, scale_b),
        )

    def verify_(self) -> None:
        if len(self.a) != WGMMA_A_REGISTERS:
            raise VerifyException(f"'{self.name}' takes A as {WGMMA_A_REGISTERS} i32 registers per thread (PTX ISA §9.7.15.5.1.1), got {len(self.a)}")
        super().verify_()


WGMMA_WAIT_ACCUMULATORS_SPEC = IntrinsicSpec(
    "nvvm.wgmma.wait_accumulators", "", (), (), 90, 80, "wgmma.wait_group.sync.aligned",
    "wgmma.wait_group that takes the accumulators of the groups it retires and returns them (PTX ISA §9.7.15.8); "
    "lowered to inline PTX so that every read of an accumulator depends on the wait", convergent=True, arch_specific=True,
)  # fmt: skip
"""The target requirement of `nvvm.wgmma.wait_accumulators` (not a catalog op: its lowering is inline PTX)."""


@irdl_op_definition
class WgmmaWaitAccumulatorsOp(IRDLOperation):
    """`wgmma.wait_group.sync.aligned n` (PTX ISA §9.7.15.8) that takes accumulators and returns them:
    `%r:k = nvvm.wgmma.wait_accumulators %acc... {n = 0 : i64} : f32, ... -> f32, ...`. The results
    are the same registers, readable once the wait returns (n = 0: every group retired).

    `nvvm.wgmma.wait.group.sync.aligned` has no operands, so nothing orders a plain read of a
    `nvvm.wgmma.mma_async` result after it once both are LLVM IR: LLVM sees the wgmma's inline-asm
    outputs as ready at once and may hoist a read (a `cvt`, a `max`) above the wait intrinsic. ptxas
    then finds the accumulator read while its group is in flight and serializes every wgmma of the
    kernel (its note C7514). Reading the accumulators through this op's results makes each read
    depend on the wait, as Triton's `warp_group_dot_wait` does with its operands. `tile-to-gpu`
    writes it after a K loop whose wgmma groups stay in flight (`fence_wgmma_accumulators`). Needs
    sm_90a, PTX 8.0; `convert-nvvm-to-llvm` writes inline PTX with `=f` outputs tied to the inputs."""

    name = "nvvm.wgmma.wait_accumulators"
    SPEC: ClassVar[IntrinsicSpec] = WGMMA_WAIT_ACCUMULATORS_SPEC

    values = var_operand_def(f32)
    res = var_result_def(f32)
    n = prop_def(IntegerAttr[I64])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$values attr-dict `:` type($values) `->` type($res)"

    def __init__(self, values: Sequence[SSAValue], n: int = 0):
        super().__init__(operands=[list(values)], result_types=[[v.type for v in values]], properties={"n": IntegerAttr(n, i64)})

    def verify_(self) -> None:
        if self.n.value.data < 0:
            raise VerifyException(f"'{self.name}' group count must be >= 0, got {self.n.value.data}")
        if len(self.values) != len(self.res):
            raise VerifyException(f"'{self.name}' returns one value per operand, got {len(self.values)} operands and {len(self.res)} results")


def check_accumulators_in_flight(op: WgmmaMmaAsyncBase) -> None:
    """The rule for accumulators in flight (Triton's pipeliner keeps the same one): a result of `op`
    is still being written by the tensor cores until a `wgmma.wait_group` retires its group, and LLVM
    believes inline-asm outputs are ready at once. So each result may be used only

    1. as an `acc` operand of another `nvvm.wgmma.mma_async` (chained MMAs of the same group/loop),
    2. by a terminator that carries it into a loop iteration or out of a region (`scf.yield`, `cf.br`,
       `cf.cond_br`): the block argument / op result it becomes obeys the same rule, or
    3. as an operand of `nvvm.wgmma.wait_accumulators {n = 0}`, whose results are readable.

    A `wait_accumulators` with n > 0 leaves the newest groups in flight: its results obey the same
    rule. A read after a bare `nvvm.wgmma.wait.group.sync.aligned 0` is refused too: the wait has no
    operands, so once in LLVM IR nothing keeps the read after it (LLVM may hoist it, and ptxas then
    serializes the kernel's wgmmas). Raises `VerifyException` naming the reading op.

    And `op` must be committed: an `nvvm.wgmma.commit.group.sync.aligned` follows it in its block
    or, after the op holding it, in an enclosing one; an uncommitted wgmma belongs to no wgmma-group,
    so no `wgmma.wait_group` retires it (PTX ISA §9.7.15.7)."""
    from xdsl.ir import BlockArgument

    at: Operation | None = op
    committed = False
    while at is not None and not committed:
        nxt = at.next_op
        while nxt is not None and nxt.name != "nvvm.wgmma.commit.group.sync.aligned":
            nxt = nxt.next_op
        committed = nxt is not None
        parent = at.parent_op()
        at = parent if parent is not None and parent.name not in ("func.func", "gpu.func", "llvm.func", "builtin.module", "gpu.module") else None
    if not committed and op.parent_block() is not None:
        raise VerifyException(
            f"'{op.name}' is not committed: no 'nvvm.wgmma.commit.group.sync.aligned' follows it, so it belongs to no "
            "wgmma-group and no wgmma.wait_group retires it (PTX ISA §9.7.15.7)"
        )

    seen: set[SSAValue] = set()
    work: list[SSAValue] = list(op.res)
    while work:
        value = work.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in list(value.uses):
            user = use.operation
            carried = _carried_into(value, use)
            if carried is not None:
                work.extend(carried)
                continue
            loc = getattr(user, "location", None)
            where = f" at {loc}" if loc is not None and "unknown" not in str(loc) else ""
            kind = "loop-carried accumulator" if isinstance(value, BlockArgument) else "accumulator"
            raise VerifyException(
                f"'{op.name}' {kind} is read by '{user.name}'{where} while its wgmma group may still be in flight: "
                "read it only as the next wgmma's accumulator, or through the results of "
                "'nvvm.wgmma.wait_accumulators' with n = 0 (a bare 'nvvm.wgmma.wait.group.sync.aligned' does not order the read)"
            )


def _carried_into(value: SSAValue, use: Use) -> list[SSAValue] | None:
    """Where `use` of the in-flight accumulator `value` carries it: the values that then hold it in
    flight (a loop's iteration argument and result, a branch's block arguments, a
    `wait_accumulators` with n > 0's result); [] when the use consumes it safely (the next wgmma's
    accumulator, a `wait_accumulators` with n = 0); None when the use reads it (the rule of
    `check_accumulators_in_flight`)."""
    user = use.operation
    if isinstance(user, WgmmaMmaAsyncBase) and user.operands[use.index] in user.acc:
        return []
    if isinstance(user, WgmmaWaitAccumulatorsOp):
        return [user.res[use.index]] if user.n.value.data > 0 else []  # n > 0: the newest groups stay in flight
    if user.name == "scf.yield":
        parent = user.parent_op()
        out: list[SSAValue] = []
        if parent is not None and parent.name == "scf.for":
            out.append(parent.regions[0].blocks.first.args[use.index + 1])  # pyright: ignore[reportOptionalMemberAccess]
        if parent is not None and use.index < len(parent.results):
            out.append(parent.results[use.index])
        return out
    if user.name == "scf.for" and use.index >= 3:  # an iter_args initial value
        return [user.regions[0].blocks.first.args[use.index - 3 + 1], user.results[use.index - 3]]  # pyright: ignore[reportOptionalMemberAccess]
    if user.name in _BRANCHES:
        return [successor.args[k] for successor in user.successors for k, operand in enumerate(_successor_operands(user, successor)) if operand is value]
    return None


def _in_flight_values(root: Operation) -> list[SSAValue]:
    """The values of `root` that may hold a wgmma group's accumulators in flight: the results of every
    `nvvm.wgmma.mma_async` (either form), and what carries them (`_carried_into`), in order of discovery."""
    found: dict[SSAValue, None] = {}
    work: list[SSAValue] = [r for op in root.walk() if isinstance(op, WgmmaMmaAsyncBase) for r in op.res]
    while work:
        value = work.pop()
        if value in found:
            continue
        found[value] = None
        for use in value.uses:
            work.extend(_carried_into(value, use) or ())
    return list(found)


def fence_wgmma_accumulators(root: Operation) -> int:
    """Make every read of a wgmma accumulator after a bare `nvvm.wgmma.wait.group.sync.aligned 0`
    depend on the wait: each such wait becomes `nvvm.wgmma.wait_accumulators {n = 0}` of the
    in-flight values that are visible at it and read after it (in its block, or nested in an op after
    it), and those reads take its results. A wait with nothing to fence stays as it is. Returns the
    number of waits rewritten. Reads the rule cannot reach this way (after the region holding the wait)
    are left to `check_accumulators_in_flight`, which refuses them."""
    waits = [op for op in root.walk() if op.name == "nvvm.wgmma.wait.group.sync.aligned" and _property(op, "n") == 0]
    if not waits:
        return 0
    values = _in_flight_values(root)
    rewritten = 0
    for wait in waits:
        block = wait.parent_block()
        if block is None:
            continue
        chosen: list[tuple[SSAValue, list[tuple[Operation, int]]]] = []
        for value in values:
            if not _visible_at(value, wait):
                continue
            later = [(use.operation, use.index) for use in value.uses if _after(wait, block, use.operation)]
            if later:
                chosen.append((value, later))
        if not chosen:
            continue
        fenced = WgmmaWaitAccumulatorsOp([value for value, _ in chosen], n=0)
        fenced.location = wait.location  # pyright: ignore[reportAttributeAccessIssue]
        block.insert_op_before(fenced, wait)
        wait.detach()
        wait.erase()
        for (_, uses), result in zip(chosen, fenced.res, strict=True):
            for user, index in uses:
                user.operands[index] = result
        rewritten += 1
    return rewritten


def _after(wait: Operation, block: Block, user: Operation) -> bool:
    ancestor = block.find_ancestor_op_in_block(user)
    return ancestor is not None and ancestor is not wait and wait.is_before_in_block(ancestor)


def _visible_at(value: SSAValue, wait: Operation) -> bool:
    """`value` is defined in a block enclosing `wait` (an argument of it, or the result of an op before
    `wait`'s ancestor there)."""
    from xdsl.ir import BlockArgument

    if isinstance(value, BlockArgument):
        return value.block.is_ancestor(wait)
    owner = value.owner
    assert isinstance(owner, Operation)
    block = owner.parent_block()
    if block is None:
        return False
    ancestor = block.find_ancestor_op_in_block(wait)
    return ancestor is not None and ancestor is not owner and owner.is_before_in_block(ancestor)


_BRANCHES = ("cf.br", "cf.cond_br", "llvm.br", "llvm.cond_br")
"""Branches that carry an accumulator into a block argument (the `cf` forms, and the `llvm` forms
that hand-written LLVM-dialect IR such as tests/hopper_wgmma_kernel.mlir uses)."""


def _successor_operands(branch: Operation, successor: Block) -> list[SSAValue]:
    if branch.name in ("cf.br", "llvm.br"):
        return list(branch.operands)
    # cf.cond_br / llvm.cond_br: condition, then the true destination's operands, then the false destination's
    true_ops = list(getattr(branch, "then_arguments", ()))
    false_ops = list(getattr(branch, "else_arguments", ()))
    return true_ops if successor is branch.successors[0] else false_ops


# --------------------------------------------------------------------------- packed f32 -> 16-bit conversion (inline PTX)

CVT_X2_SPEC = IntrinsicSpec(
    "nvvm.cvt.rn.x2.f32", "", (), (), 80, 70, "cvt.rn.f16x2.f32",
    "two f32 rounded to nearest-even into one .f16x2 / .bf16x2 register (PTX ISA §9.7.9.21, cvt); inline PTX",
)  # fmt: skip
"""The target requirement of `nvvm.cvt.rn.x2.f32` (sm_80, PTX 7.0; not a catalog op: its lowering is inline PTX)."""


@irdl_op_definition
class CvtRnX2F32Op(IRDLOperation):
    """`%d = nvvm.cvt.rn.x2.f32 %hi, %lo {type = "f16"} : f32, f32 -> i32`: PTX `cvt.rn.f16x2.f32 d, a, b`
    (or `cvt.rn.bf16x2.f32`, `type = "bf16"`; PTX ISA §9.7.9.21): `hi` (PTX's a) rounded to nearest-even
    into the upper 16 bits of `d`, `lo` (b) into the lower — one instruction for two elements where two
    `cvt.rn.f16.f32` and a pack (`prmt`) would be three (the register-A fragments of a wgmma from an f32
    accumulator: attention's P). Pure; needs sm_80, PTX 7.0; `convert-nvvm-to-llvm` writes inline PTX."""

    name = "nvvm.cvt.rn.x2.f32"
    SPEC: ClassVar[IntrinsicSpec] = CVT_X2_SPEC
    TYPES: ClassVar[tuple[str, ...]] = ("f16", "bf16")

    hi = operand_def(f32)
    lo = operand_def(f32)
    res = result_def(i32)
    type = prop_def(StringAttr)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$hi `,` $lo attr-dict `:` type($hi) `,` type($lo) `->` type($res)"

    def __init__(self, hi: SSAValue, lo: SSAValue, type: str = "f16"):
        super().__init__(operands=[hi, lo], result_types=[i32], properties={"type": StringAttr(type)})

    def verify_(self) -> None:
        if self.type.data not in self.TYPES:
            raise VerifyException(f"'{self.name}' type must be one of {', '.join(self.TYPES)} (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32), got \"{self.type.data}\"")

    def ptx_instruction(self) -> str:
        return f"cvt.rn.{self.type.data}x2.f32"


# --------------------------------------------------------------------------- blocking mbarrier wait (inline PTX)

MBARRIER_WAIT_SPEC = IntrinsicSpec(
    "nvvm.mbarrier.wait.parity", "", (), (), 90, 78, "mbarrier.try_wait.parity.shared.b64",
    "wait until the mbarrier completes the phase of the given parity: mbarrier.try_wait.parity in a PTX loop "
    "(PTX ISA §9.7.13.15.16), as MLIR lowers nvvm.mbarrier.try_wait.parity.shared",
)  # fmt: skip
"""The target requirement of `nvvm.mbarrier.wait.parity` (not a catalog op: its lowering is inline PTX)."""


@irdl_op_definition
class MBarrierWaitParityOp(IRDLOperation):
    """`nvvm.mbarrier.wait.parity %addr, %parity : i32, i32`: wait until the mbarrier at shared-window
    address `addr` (i32, 8-byte aligned) has completed the phase whose parity is `parity` (0 or 1;
    PTX ISA §9.7.13.15.16: parity 1 on a fresh barrier, in phase 0, passes at once — the phase
    before counts as complete). Lowered by `convert-nvvm-to-llvm` to inline PTX that loops on
    `mbarrier.try_wait.parity` (a structured loop inside one op, as MLIR's
    `nvvm.mbarrier.try_wait.parity.shared`), with a memory clobber so no shared-memory access moves
    across it. Needs sm_90, PTX 7.8."""

    name = "nvvm.mbarrier.wait.parity"
    SPEC: ClassVar[IntrinsicSpec] = MBARRIER_WAIT_SPEC

    addr = operand_def(i32)
    parity = operand_def(i32)

    assembly_format = "$addr `,` $parity attr-dict `:` type($addr) `,` type($parity)"

    def __init__(self, addr: SSAValue, parity: SSAValue):
        super().__init__(operands=[addr, parity])


NVVM = Dialect("nvvm", [*OPS.values(), AtomicRMWOp, MBarrierWaitParityOp, WgmmaMmaAsyncOp, WgmmaMmaAsyncRegAOp, WgmmaWaitAccumulatorsOp, CvtRnX2F32Op], [NVVMTargetAttr])
