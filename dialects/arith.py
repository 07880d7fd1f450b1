"""The `arith` dialect: xDSL's, plus `arith.index_castui`, which MLIR has and xDSL 0.75 lacks.

warpforge's context registers `Arith` below in place of xDSL's `arith` (as it does for `gpu` and
`llvm`), so every upstream `arith` op parses and prints as before.

| op | meaning | why |
|---|---|---|
| `arith.index_castui` | zero-extending / truncating cast between `index` and an integer | thread and block ids (`%tid.x` is an unsigned 32-bit register), `len()`, unsigned indices |

```mlir
%i = arith.index_castui %tid : i32 to index
```
"""

from __future__ import annotations

from enum import IntEnum

from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """`arith.index_castui`: an integer to `index` or back, treating the integer as unsigned.

    Widening zero-extends, narrowing truncates (MLIR's `arith.index_castui`). Exactly one side is
    `index`. `convert-index-to-llvm` lowers it to `llvm.zext` / `llvm.trunc` (`index` is 64-bit).
    """

    name = "arith.index_castui"

    input = operand_def(base(IntegerType) | base(IndexType))
    result = result_def(base(IntegerType) | base(IndexType))

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input_arg: SSAValue | Operation, target_type: Attribute):
        super().__init__(operands=[input_arg], result_types=[target_type])

    def verify_(self) -> None:
        if isinstance(self.input.type, IndexType) == isinstance(self.result.type, IndexType):
            raise VerifyException(
                f"'arith.index_castui' casts between index and an integer type, got {self.input.type} to {self.result.type}"
            )


class AtomicRMWKind(IntEnum):
    """MLIR's `arith::AtomicRMWKind` (`ArithBase.td`): the `kind` property of `memref.atomic_rmw`,
    an `i64` with these values. The one table of them in warpforge: frontends pick a kind, passes and
    the simulator read it back with `AtomicRMWKind.of(op)`.

    `llvm_op` is the `atomicrmw` operation it becomes (LLVM LangRef; `mulf`/`muli` have none). Float
    `maximumf`/`minimumf` propagate NaN (LLVM `fmaximum`/`fminimum`), `maxnumf`/`minnumf` ignore it.
    """

    addf = 0
    addi = 1
    andi = 2
    assign = 3
    maximumf = 4
    maxnumf = 5
    maxs = 6
    maxu = 7
    minimumf = 8
    minnumf = 9
    mins = 10
    minu = 11
    mulf = 12
    muli = 13
    ori = 14
    xori = 15

    @property
    def llvm_op(self) -> str | None:
        """The `llvm.atomicrmw` operation (`add`, `fmaximum`, `umin`, …); None for `mulf`/`muli`."""
        return _LLVM_ATOMIC_OPS.get(self)

    @property
    def is_float(self) -> bool:
        """Defined on floats only (`xchg`, i.e. `assign`, works on both)."""
        return self in (AtomicRMWKind.addf, AtomicRMWKind.maximumf, AtomicRMWKind.maxnumf,
                        AtomicRMWKind.minimumf, AtomicRMWKind.minnumf, AtomicRMWKind.mulf)  # fmt: skip

    @classmethod
    def of(cls, op: Operation) -> AtomicRMWKind:
        """The kind of a `memref.atomic_rmw` (ValueError for a value MLIR does not define)."""
        return cls(op.kind.value.data)  # pyright: ignore[reportAttributeAccessIssue]

    def attr(self) -> IntegerAttr:
        """The `kind` property value (`IntegerAttr` of type i64)."""
        return IntegerAttr(int(self), i64)


_LLVM_ATOMIC_OPS: dict[AtomicRMWKind, str] = {
    AtomicRMWKind.addf: "fadd", AtomicRMWKind.addi: "add", AtomicRMWKind.andi: "and", AtomicRMWKind.assign: "xchg",
    AtomicRMWKind.maximumf: "fmaximum", AtomicRMWKind.maxnumf: "fmax", AtomicRMWKind.maxs: "max",
    AtomicRMWKind.maxu: "umax", AtomicRMWKind.minimumf: "fminimum", AtomicRMWKind.minnumf: "fmin",
    AtomicRMWKind.mins: "min", AtomicRMWKind.minu: "umin", AtomicRMWKind.ori: "or", AtomicRMWKind.xori: "xor",
}  # fmt: skip


Arith = Dialect("arith", [*xarith.Arith.operations, IndexCastUIOp], list(xarith.Arith.attributes))
"""xDSL's `arith` dialect plus `IndexCastUIOp`; replaces xDSL's registration in warpforge's context."""
