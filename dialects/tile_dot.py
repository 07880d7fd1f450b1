"""`tile.dot`: the matrix product of two 2-D tiles on the tensor cores (`mma.sync`), accumulated.

```mlir
%d = tile.dot %a, %b, %acc : !tile.tile<64x32xf16>, !tile.tile<32x64xf16>, !tile.tile<64x64xf32> -> !tile.tile<64x64xf32>
%e = tile.dot %x, %y, %acc {allow_tf32} : !tile.tile<32x16xf32>, !tile.tile<16x32xf32>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
```

D (M×N) = A (M×K) · B (K×N) + acc (M×N). Inputs f16 or bf16 with an f32 accumulator, f32 (multiplied
as tf32: only with `allow_tf32`, as Triton's `input_precision="tf32"`), or 8-bit integers (si8/ui8)
with an si32 accumulator — the catalog's `MMA_SHAPES` (`warpforge.dialects.nvvm_catalog`). M, N ≥ 16
and K ≥ 16 (≥ 32 for 8-bit inputs), powers of two as every tile dimension. `tile-to-gpu` lowers it
(`passes/lowerings/tile_dot.py`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, UnitAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.tile import TileType


def mma_input_kind(t: Attribute) -> str | None:
    """The PTX input type `tile.dot` multiplies elements of `t` as (f32 as tf32), or None."""
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float32Type):
        return "tf32"
    if isinstance(t, IntegerType) and t.width.data == 8:
        return "u8" if t.signedness.data.name == "UNSIGNED" else "s8"
    return None


def accumulator_of(kind: str) -> str:
    """The accumulator element type (as text) `tile.dot` uses for an input kind."""
    return "si32" if kind in ("s8", "u8") else "f32"


def min_k(kind: str) -> int:
    return 32 if kind in ("s8", "u8") else 16


@irdl_op_definition
class DotOp(IRDLOperation):
    """`tile.dot %a, %b, %acc`: `a @ b + acc` of 2-D tiles with `mma.sync` (shapes and types: module doc)."""

    name = "tile.dot"

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    acc = operand_def(TileType)
    result = result_def(TileType)
    allow_tf32 = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc) `->` type($result)"

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, acc: SSAValue | Operation, allow_tf32: bool = False):
        props = {"allow_tf32": UnitAttr()} if allow_tf32 else {}
        super().__init__(operands=[lhs, rhs, acc], result_types=[SSAValue.get(acc).type], properties=props)

    def verify_(self) -> None:
        a, b, c = self.lhs.type, self.rhs.type, self.acc.type
        assert isinstance(a, TileType) and isinstance(b, TileType) and isinstance(c, TileType)
        what = f"tile.dot of {a} and {b}"
        if a.rank != 2 or b.rank != 2 or c.rank != 2:
            raise VerifyException(f"{what}: both operands and the accumulator are 2-D tiles")
        (m, k), (k2, n) = a.dims, b.dims
        if k != k2:
            raise VerifyException(f"{what}: the inner dimensions differ ({k} and {k2})")
        if a.element_type != b.element_type:
            raise VerifyException(f"{what}: both operands have one element type")
        kind = mma_input_kind(a.element_type)
        if kind is None:
            raise VerifyException(f"{what}: no mma.sync for {a.element_type} (f16, bf16, f32 as tf32, 8-bit integers)")
        if kind == "tf32" and self.allow_tf32 is None:
            raise VerifyException(f"{what}: f32 inputs multiply as tf32; the op needs the allow_tf32 property")
        if str(c.element_type) != accumulator_of(kind):
            raise VerifyException(f"{what}: the accumulator is {accumulator_of(kind)} for {kind} inputs, got {c.element_type}")
        if c.dims != (m, n) or self.result.type != c:
            raise VerifyException(f"{what}: the accumulator and the result are {m}x{n} of {accumulator_of(kind)}, got {c} -> {self.result.type}")
        if m < 16 or n < 16 or k < min_k(kind):
            raise VerifyException(f"{what}: M and N must be at least 16 and K at least {min_k(kind)}")


TILE_DOT_OPS = (DotOp,)


def extend_tile(tile_dialect: Dialect) -> Dialect:
    """The `tile` dialect with `tile.dot` added (the registry's `tile` factory)."""
    ops = list(tile_dialect.operations)
    ops += [op for op in TILE_DOT_OPS if op not in ops]
    return Dialect(tile_dialect.name, ops, list(tile_dialect.attributes))
