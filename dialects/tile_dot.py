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

from collections.abc import Sequence

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerAttr, IntegerType, UnitAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue, Use
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects.tile import PartitionViewType, PermuteOp, TileType, TransposeOp


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


# --------------------------------------------------------------------------- the cp.async ring of a pipelined K loop
#
# `tile-pipeline` rewrites a K loop whose `tile.dot` operands are `tile.load`s into these ops (as
# Triton's pipeliner and MLIR's nvgpu pipelining do with their own): operand tiles go to a
# `stages`-deep ring of shared-memory slots by `cp.async`, one commit group per K step, and the dot
# reads its operands from a slot (`ldmatrix`), never from registers.


def _ring_props(ring: int, stages: int) -> dict[str, Attribute]:
    return {"ring": IntegerAttr(ring, i64), "stages": IntegerAttr(stages, i64)}


def _check_ring(op: IRDLOperation, shape: tuple[int, ...], elem: Attribute) -> None:
    stages = op.stages.value.data  # pyright: ignore[reportAttributeAccessIssue]
    if not 1 <= stages <= 8:
        raise VerifyException(f"stages is in [1, 8], got {stages}")
    if len(shape) != 2 or not isinstance(elem, Float16Type | BFloat16Type):
        raise VerifyException(f"a ring holds 2-D tiles of f16 or bf16 (the cp.async/ldmatrix path), got {'x'.join(map(str, shape))} of {elem}")
    if shape[1] < 8:
        raise VerifyException(f"ring rows are whole 16-byte chunks (at least 8 elements), got {shape[1]}")


@irdl_op_definition
class AsyncCopyOp(IRDLOperation):
    """`tile.async_copy %p[%i, %j] into %slot {ring = 0, stages = 3}`: start copying the tile at tile
    coordinates (i, j) of the partition view (of rank 2, or up to 4 with tile dimensions of 1 before
    the last two: `ring_tile_shape`) into slot `%slot` (si64, in [0, stages)) of shared ring
    `ring`, with `cp.async.cg` 16-byte copies (PTX ISA §9.7.9.25.3.1) that zero-fill past the tensor's
    edges (the view's padding must be 0). The copy is complete only after a `tile.async_wait` that
    covers its commit group. The view holds 16-bit floats, 16-byte aligned rows a multiple of 8."""

    name = "tile.async_copy"

    view = operand_def(PartitionViewType)
    coords = var_operand_def()
    slot = operand_def()
    ring = prop_def(IntegerAttr)
    stages = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$view `[` $coords `]` `into` $slot attr-dict `:` type($view) `,` type($slot) `,` type($coords)"

    def __init__(self, view: SSAValue, coords: Sequence[SSAValue], slot: SSAValue, ring: int, stages: int):
        super().__init__(operands=[view, coords, slot], properties=_ring_props(ring, stages))

    def verify_(self) -> None:
        vt = self.view.type
        assert isinstance(vt, PartitionViewType)
        dims = vt.tile_type.dims
        _check_ring(self, ring_tile_shape(dims) or dims, vt.tile_type.element_type)
        if len(self.coords) != len(dims):
            raise VerifyException(f"a copy of a {len(dims)}-D view takes {len(dims)} coordinates, got {len(self.coords)}")


def ring_tile_shape(dims: Sequence[int]) -> tuple[int, int] | None:
    """The 2-D tile a ring slot holds for a partition tile of `dims`: its last two dimensions when
    every other is 1 (a (1, 1, 64, 128) tile of a (batch, heads, sequence, head dim) tensor), else None."""
    if len(dims) < 2 or any(d != 1 for d in dims[:-2]):
        return None
    return dims[-2], dims[-1]


@irdl_op_definition
class AsyncCommitOp(IRDLOperation):
    """`tile.async_commit`: close the group of `tile.async_copy`s issued since the last commit
    (`cp.async.commit_group`, PTX ISA §9.7.9.25.3.2); an empty group is allowed."""

    name = "tile.async_commit"
    assembly_format = "attr-dict"


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """`tile.async_wait {pending = 1}`: wait until at most `pending` of this thread's commit groups are
    still in flight (`cp.async.wait_group`, PTX ISA §9.7.9.25.3.3), then a CTA barrier, so every
    thread's copies of the completed groups are visible and earlier readers of the ring are done."""

    name = "tile.async_wait"

    pending = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        if not 0 <= self.pending.value.data <= 7:
            raise VerifyException(f"pending is in [0, 7] (cp.async.wait_group), got {self.pending.value.data}")


def _dot_operand(use: Use) -> bool:
    return isinstance(use.operation, DotOp) and use.index < 2


@irdl_op_definition
class RingTileOp(IRDLOperation):
    """`%t = tile.ring_tile %slot {ring = 0, stages = 3} : si64 -> !tile.tile<128x32xf16>`: the tile in
    slot `%slot` of shared ring `ring` (after a `tile.async_wait` covering its copy). Only `tile.dot`
    reads it, directly or through a `tile.transpose` (its operands come from shared memory by `ldmatrix`)."""

    name = "tile.ring_tile"

    slot = operand_def()
    result = result_def(TileType)
    ring = prop_def(IntegerAttr)
    stages = prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$slot attr-dict `:` type($slot) `->` type($result)"

    def __init__(self, slot: SSAValue, ring: int, stages: int, result_type: TileType):
        super().__init__(operands=[slot], result_types=[result_type], properties=_ring_props(ring, stages))

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TileType)
        _check_ring(self, t.dims, t.element_type)
        if any(not _dot_operand(u) and not (isinstance(u.operation, TransposeOp | PermuteOp) and all(_dot_operand(w) for w in u.operation.results[0].uses)) for u in self.result.uses):
            raise VerifyException("its tile is read only as a tile.dot A or B operand (or through a tile.transpose that is one)")


TILE_DOT_OPS = (AsyncCommitOp, AsyncCopyOp, AsyncWaitOp, DotOp, RingTileOp)
