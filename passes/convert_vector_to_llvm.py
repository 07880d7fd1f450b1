"""`convert-vector-to-llvm`: 1-D `vector` loads, stores and element access → `llvm` ops.

What `tile-to-gpu` uses for 128-bit accesses (`ld.global.nc.v4.f32`, `st.global.v4.f32`): a
`vector.load` of `vector<4xf32>` from a global memref becomes one `llvm.load` of the vector type,
which the NVPTX backend emits as one vector instruction when the alignment allows it. The alignment
is the op's discardable `alignment` attribute (bytes; the caller vouches for it: `tile-to-gpu` sets it
only when the specialization proved the pointer and the offset aligned), else the element's natural
alignment (the backend then splits the access).

| op | becomes |
|---|---|
| `vector.load %m[%i…]` / `vector.store %v, %m[%i…]` | the memref descriptor's GEP (as `finalize-memref-to-llvm`), `llvm.load`/`llvm.store` of the vector (`vector<Nxi1>`: bytes, compared `!= 0` / zero-extended) |
| `vector.extract %v[k]` (static k; or a run-time index `%k`) | `llvm.extractelement %v[k : i32]` (`%k` as i64) |
| `vector.insert %s, %v[k]` (static k; or a run-time index `%k`) | `llvm.insertelement %s, %v[k : i32]` (`%k` as i64) |
| `vector.broadcast %s : T to vector<NxT>` | `llvm.mlir.undef` and N `llvm.insertelement` |

Only 1-D vectors with static positions (a diagnostic otherwise). Runs anywhere before
`reconcile-unrealized-casts` (it reads memrefs through `builtin.unrealized_conversion_cast`, like
`finalize-memref-to-llvm`).
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import llvm as xllvm
from xdsl.dialects import arith, vector
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, VectorType, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects.llvm import ExtractElementOp
from warpforge.passes.finalize_memref_to_llvm import Descriptor, load_value, natural_alignment, store_value
from warpforge.rewriting import OneSweepWalker, fail, replace_op
from warpforge.rewriting import TypedPatternApplier


def _alignment(op: Operation, vt: VectorType) -> int:
    attr = op.attributes.get("alignment")
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return natural_alignment(vt.element_type)


def _vector_type(op: Operation, value: SSAValue) -> VectorType:
    vt = value.type
    if not isinstance(vt, VectorType) or vt.get_num_dims() != 1:
        fail(op, f"handles 1-D vectors only, got {vt}")
    return vt


def _position(op: Operation, positions: list[SSAValue | int]) -> xllvm.ConstantOp:
    if len(positions) != 1 or not isinstance(positions[0], int):
        fail(op, "needs one static position")
    return xllvm.ConstantOp(IntegerAttr(positions[0], i32), i32)


class ConvertLoadOp(RewritePattern):
    """`vector.load` → GEP + `llvm.load` of the vector type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.LoadOp, rewriter: PatternRewriter, /):
        vt = _vector_type(op, op.result)
        desc = Descriptor(op.base, op)
        address = desc.element_pointer(list(op.indices))
        replace_op(rewriter, op, [*desc.ops, *load_value(address, vt, _alignment(op, vt))])


class ConvertStoreOp(RewritePattern):
    """`vector.store` → GEP + `llvm.store` of the vector."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.StoreOp, rewriter: PatternRewriter, /):
        vt = _vector_type(op, op.vector)
        desc = Descriptor(op.base, op)
        address = desc.element_pointer(list(op.indices))
        replace_op(rewriter, op, [*desc.ops, *store_value(op.vector, address, _alignment(op, vt))], [])


class ConvertExtractOp(RewritePattern):
    """`vector.extract %v[k]` → `llvm.extractelement`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.ExtractOp, rewriter: PatternRewriter, /):
        _vector_type(op, op.vector)
        if len(op.dynamic_position) == 1 and len(op.static_position) == 1:  # a run-time position (an index)
            cast = arith.IndexCastOp(op.dynamic_position[0], i64)
            replace_op(rewriter, op, [cast, ExtractElementOp(op.vector, cast.result)])
            return
        k = _position(op, op.get_mixed_position())
        replace_op(rewriter, op, [k, ExtractElementOp(op.vector, k.result)])


class ConvertInsertOp(RewritePattern):
    """`vector.insert %s, %v[k]` → `llvm.insertelement`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.InsertOp, rewriter: PatternRewriter, /):
        _vector_type(op, op.dest)
        if isinstance(op.source.type, VectorType):
            fail(op, "inserts scalars only")
        if len(op.dynamic_position) == 1 and len(op.static_position) == 1:  # a run-time position (an index)
            cast = arith.IndexCastOp(op.dynamic_position[0], i64)
            replace_op(rewriter, op, [cast, xllvm.InsertElementOp(op.dest, op.source, cast.result)])
            return
        k = _position(op, op.get_mixed_position())
        replace_op(rewriter, op, [k, xllvm.InsertElementOp(op.dest, op.source, k.result)])


class ConvertBroadcastOp(RewritePattern):
    """`vector.broadcast %s` (a scalar) → `llvm.mlir.undef` + one `llvm.insertelement` per lane."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.BroadcastOp, rewriter: PatternRewriter, /):
        vt = _vector_type(op, op.vector)
        if isinstance(op.source.type, VectorType):
            fail(op, "broadcasts scalars only")
        ops: list[Operation] = [xllvm.UndefOp(vt)]
        value = ops[0].results[0]
        for lane in range(vt.get_shape()[0]):
            k = xllvm.ConstantOp(IntegerAttr(lane, i32), i32)
            ins = xllvm.InsertElementOp(value, op.source, k.result)
            ops += [k, ins]
            value = ins.res
        replace_op(rewriter, op, ops)


class ConvertVectorToLLVMPass(ModulePass):
    """Lower 1-D vector loads, stores, extract, insert and broadcast to llvm ops."""

    name = "convert-vector-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier(
                [ConvertLoadOp(), ConvertStoreOp(), ConvertExtractOp(), ConvertInsertOp(), ConvertBroadcastOp()]
            )
        ).rewrite_module(op)
