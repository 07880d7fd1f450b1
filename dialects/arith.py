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

from xdsl.dialects import arith as xarith
from xdsl.dialects.builtin import IndexType, IntegerType
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


Arith = Dialect("arith", [*xarith.Arith.operations, IndexCastUIOp], list(xarith.Arith.attributes))
"""xDSL's `arith` dialect plus `IndexCastUIOp`; replaces xDSL's registration in warpforge's context."""
