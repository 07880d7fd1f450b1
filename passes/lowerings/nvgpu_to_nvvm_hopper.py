"""`convert-nvgpu-to-nvvm` patterns for the mbarrier and TMA ops (`dialects/nvgpu_hopper.py`), and the
rewrite of TMA descriptor parameters into `__grid_constant__` pointers.

| `nvgpu` | becomes |
|---|---|
| a `!nvgpu.tensormap.descriptor` parameter of a `gpu.func` | `!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64, nvvm.grid_constant}`: the 128-byte `CUtensorMap` in the kernel's parameter space (PTX `.param .align 64 .b8 p[128]`), addressed generically |
| `nvgpu.mbarrier.init` / `.arrive` / `.arrive.expect_tx` / `.try_wait.parity` | `nvvm.mbarrier.init.shared` / `nvvm.mbarrier.arrive.shared` / `nvvm.mbarrier.arrive.expect_tx` / `nvvm.mbarrier.try_wait.parity` on the barrier's `ptr addrspace(3)` |
| `nvgpu.tma.async.load` | `nvvm.cp.async.bulk.tensor.shared.cluster.global.<r>d` (coordinates reversed: PTX takes the innermost first) |
| `nvgpu.tma.async.store` | `nvvm.cp.async.bulk.tensor.global.shared.cta.<r>d` |
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IntAttr, IntegerAttr, IntegerType, ModuleOp, UnitAttr, i64
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import Rewriter

from warpforge.dialects import gpu, nvgpu_hopper, nvvm
from warpforge.passes.finalize_memref_to_llvm import Descriptor
from warpforge.rewriting import replace_op

TENSOR_MAP_BYTES = 128


def grid_constant_attrs() -> DictionaryAttr:
    """The parameter attributes of a TMA descriptor (`__grid_constant__ const CUtensorMap`)."""
    return DictionaryAttr(
        {
            "llvm.byval": llvm.LLVMArrayType(IntAttr(TENSOR_MAP_BYTES), IntegerType(8)),
            "llvm.align": IntegerAttr(64, i64),
            "nvvm.grid_constant": UnitAttr(),
        }
    )


def rewrite_descriptor_parameters(module: ModuleOp) -> None:
    """Every `!nvgpu.tensormap.descriptor` parameter of a `gpu.func` becomes a `!llvm.ptr` with the
    grid-constant attributes (its uses, the TMA ops, are rewritten to `nvvm` right after)."""
    for fn in module.walk():
        if not isinstance(fn, gpu.FuncOp) or not fn.body.blocks:
            continue
        inputs = list(fn.function_type.inputs.data)
        if not any(isinstance(t, nvgpu_hopper.TensorMapDescriptorType) for t in inputs):
            continue
        attrs = list(fn.arg_attrs.data) if fn.arg_attrs is not None else [DictionaryAttr({})] * len(inputs)
        entry = fn.body.blocks.first
        assert entry is not None
        for i, t in enumerate(inputs):
            if isinstance(t, nvgpu_hopper.TensorMapDescriptorType):
                inputs[i] = llvm.LLVMPointerType()
                attrs[i] = grid_constant_attrs()
                Rewriter.replace_value_with_new_type(entry.args[i], inputs[i])
        fn.function_type = FunctionType.from_lists(inputs, list(fn.function_type.outputs.data))
        fn.arg_attrs = ArrayAttr(attrs)


class ConvertMBarrierInitOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.MBarrierInitOp, rewriter: PatternRewriter, /):
        bar = Descriptor(op.barrier, op)
        ptr = bar.pointer()
        replace_op(rewriter, op, [*bar.ops, nvvm.op("nvvm.mbarrier.init.shared")(ptr, op.count)], [])


class ConvertMBarrierArriveOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.MBarrierArriveOp, rewriter: PatternRewriter, /):
        bar = Descriptor(op.barrier, op)
        ptr = bar.pointer()
        replace_op(rewriter, op, [*bar.ops, nvvm.op("nvvm.mbarrier.arrive.shared")(ptr)], [])


class ConvertMBarrierArriveExpectTxOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.MBarrierArriveExpectTxOp, rewriter: PatternRewriter, /):
        bar = Descriptor(op.barrier, op)
        ptr = bar.pointer()
        replace_op(rewriter, op, [*bar.ops, nvvm.op("nvvm.mbarrier.arrive.expect_tx")(ptr, op.txcount)], [])


class ConvertMBarrierTryWaitParityOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.MBarrierTryWaitParityOp, rewriter: PatternRewriter, /):
        bar = Descriptor(op.barrier, op)
        ptr = bar.pointer()
        wait = nvvm.op("nvvm.mbarrier.try_wait.parity")(ptr, op.phaseParity)
        replace_op(rewriter, op, [*bar.ops, wait], [wait.results[0]])


class ConvertTmaAsyncLoadOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.TmaAsyncLoadOp, rewriter: PatternRewriter, /):
        dst, bar = Descriptor(op.dst, op), Descriptor(op.barrier, op)
        dst_ptr, bar_ptr = dst.pointer(), bar.pointer()
        coords = list(op.coordinates)[::-1]
        copy = nvvm.op(f"nvvm.cp.async.bulk.tensor.shared.cluster.global.{len(coords)}d")(dst_ptr, bar_ptr, op.tensorMapDescriptor, *coords)
        replace_op(rewriter, op, [*dst.ops, *bar.ops, copy], [])


class ConvertTmaAsyncStoreOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu_hopper.TmaAsyncStoreOp, rewriter: PatternRewriter, /):
        src = Descriptor(op.src, op)
        src_ptr = src.pointer()
        coords = list(op.coordinates)[::-1]
        copy = nvvm.op(f"nvvm.cp.async.bulk.tensor.global.shared.cta.{len(coords)}d")(src_ptr, op.tensorMapDescriptor, *coords)
        replace_op(rewriter, op, [*src.ops, copy], [])


PATTERNS = (
    ConvertMBarrierInitOp, ConvertMBarrierArriveOp, ConvertMBarrierArriveExpectTxOp, ConvertMBarrierTryWaitParityOp,
    ConvertTmaAsyncLoadOp, ConvertTmaAsyncStoreOp,
)  # fmt: skip
