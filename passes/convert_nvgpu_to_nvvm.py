"""`convert-nvgpu-to-nvvm`: `nvgpu` tensor-core and async-copy ops → `nvvm` catalog ops (MLIR's pass
of the same name, for warpforge's scalar-element `nvgpu` ops).

| `nvgpu` op | becomes |
|---|---|
| `nvgpu.mma.sync` | the `MMA_SHAPES` row's `nvvm.mma.sync.<shape>.row.col.<d>.<a>.<b>.<c>`; elements packed into its registers: f16 pairs as `vector<2xf16>`, bf16 pairs and tf32 (f32 bits) and 8-bit quadruples as `i32` (`llvm.insertelement` + `llvm.bitcast`), results unpacked the same way |
| `nvgpu.ldmatrix` | GEP to this lane's row (as `finalize-memref-to-llvm` computes addresses) + `nvvm.ldmatrix.x<N>[.trans].b16`, each `i32` split into its two 16-bit elements |
| `nvgpu.device_async_copy` | GEPs to both ends + `nvvm.cp.async.{ca,cg}.shared.global.<bytes>`; with `srcElements`, the `.s` form with `src_size = srcElements · element bytes` (zero-fill) |
| `nvgpu.device_async_create_group` | `nvvm.cp.async.commit.group` |
| `nvgpu.device_async_wait {numGroups = N}` | `nvvm.cp.async.wait.group N` |

Runs before `convert-gpu-to-nvvm` and `finalize-memref-to-llvm` (the memref descriptors are read
through `builtin.unrealized_conversion_cast`, folded by `reconcile-unrealized-casts`). Every new op
takes the source op's location.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects import nvgpu, nvvm
from warpforge.dialects.element_types import byte_size
from warpforge.dialects.llvm import ExtractElementOp
from warpforge.passes.finalize_memref_to_llvm import Descriptor
from warpforge.rewriting import OneSweepWalker, TypedPatternApplier, fail, integer_attr, ops_of_dialect, replace_op


class _Ops(list[Operation]):
    def add(self, op: Operation) -> SSAValue:
        self.append(op)
        return op.results[0]


def _pack(ops: _Ops, elements: list[SSAValue], register: str) -> list[SSAValue]:
    """`elements` packed into registers of catalog type `register` (`v2f16` or `i32`), in order,
    the lower index in the lower bits."""
    if register == "f32" or (register == "i32" and isinstance(elements[0].type, IntegerType) and elements[0].type.width.data == 32):
        return list(elements)
    if register == "i32" and not isinstance(elements[0].type, IntegerType) and elements[0].type.bitwidth == 32:  # pyright: ignore[reportAttributeAccessIssue]
        return [ops.add(llvm.BitcastOp(e, i32)) for e in elements]  # tf32: the f32's bits
    per = 32 // (elements[0].type.width.data if isinstance(elements[0].type, IntegerType) else elements[0].type.bitwidth)  # pyright: ignore[reportAttributeAccessIssue]
    vec_t = VectorType(elements[0].type, [per])
    out = []
    for r in range(len(elements) // per):
        vec = ops.add(llvm.UndefOp(vec_t))
        for k in range(per):
            pos = ops.add(llvm.ConstantOp(integer_attr(k, i32), i32))
            vec = ops.add(llvm.InsertElementOp(vec, elements[r * per + k], pos))
        out.append(vec if register == "v2f16" else ops.add(llvm.BitcastOp(vec, i32)))
    return out


def _unpack(ops: _Ops, registers: list[SSAValue], elem: Attribute) -> list[SSAValue]:
    """The inverse of `_pack`: registers (`f32`, `i32` or `vector<2xf16>`) → elements of type `elem`."""
    if registers[0].type == elem:
        return list(registers)
    bits = elem.width.data if isinstance(elem, IntegerType) else elem.bitwidth  # pyright: ignore[reportAttributeAccessIssue]
    per = 32 // bits
    vec_t = VectorType(elem, [per])
    out = []
    for reg in registers:
        vec = reg if reg.type == vec_t else ops.add(llvm.BitcastOp(reg, vec_t))
        for k in range(per):
            pos = ops.add(llvm.ConstantOp(integer_attr(k, i32), i32))
            out.append(ops.add(ExtractElementOp(vec, pos)))
    return out


class ConvertMmaSyncOp(RewritePattern):
    """`nvgpu.mma.sync` → the catalog row's `nvvm.mma.sync.*`, elements packed into registers."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu.MmaSyncOp, rewriter: PatternRewriter, /):
        row = op.row
        ops = _Ops()
        a = _pack(ops, list(op.a), row.a_regs[0])
        b = _pack(ops, list(op.b), row.b_regs[0])
        c = _pack(ops, list(op.c), row.c_regs[0])
        mma = nvvm.op(row.op)(*a, *b, *c)
        ops.append(mma)
        d = _unpack(ops, list(mma.results), op.c[0].type)
        replace_op(rewriter, op, list(ops), d)


class ConvertLdMatrixOp(RewritePattern):
    """`nvgpu.ldmatrix` → GEP + `nvvm.ldmatrix.x<N>[.trans].b16`, registers split into elements."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu.LdMatrixOp, rewriter: PatternRewriter, /):
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        ops = _Ops(desc.ops)
        name = f"nvvm.ldmatrix.x{op.numTiles.value.data}{'.trans' if op.transpose is not None else ''}.b16"
        load = nvvm.op(name)(address)
        ops.append(load)
        elements = _unpack(ops, list(load.results), op.res[0].type)
        replace_op(rewriter, op, list(ops), elements)


class ConvertDeviceAsyncCopyOp(RewritePattern):
    """`nvgpu.device_async_copy` → `nvvm.cp.async.{ca,cg}.shared.global.<bytes>[.s]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu.DeviceAsyncCopyOp, rewriter: PatternRewriter, /):
        src, dst = Descriptor(op.src, op), Descriptor(op.dst, op)
        src_ptr = src.element_pointer(list(op.srcIndices))
        dst_ptr = dst.element_pointer(list(op.dstIndices))
        ops = _Ops([*src.ops, *dst.ops])
        nbytes = op.byte_count()
        cache = "cg" if op.bypassL1 is not None else "ca"
        args: list[SSAValue] = [dst_ptr, src_ptr]
        suffix = ""
        if op.srcElements is not None:
            elem_bytes = byte_size(op.dst.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
            n = ops.add(arith.IndexCastOp(op.srcElements, i32))
            size = ops.add(arith.MuliOp(n, ops.add(arith.ConstantOp(IntegerAttr(elem_bytes, i32)))))
            args.append(size)
            suffix = ".s"
        ops.append(nvvm.op(f"nvvm.cp.async.{cache}.shared.global.{nbytes}{suffix}")(*args))
        replace_op(rewriter, op, list(ops), [])


class ConvertDeviceAsyncCreateGroupOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu.DeviceAsyncCreateGroupOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, [nvvm.op("nvvm.cp.async.commit.group")()], [])


class ConvertDeviceAsyncWaitOp(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvgpu.DeviceAsyncWaitOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, [nvvm.op("nvvm.cp.async.wait.group")(n=op.numGroups.value.data)], [])


class ConvertNVGPUToNVVMPass(ModulePass):
    """Lower `nvgpu` mma.sync, ldmatrix, cp.async, mbarrier and TMA ops to `nvvm` catalog ops."""

    name = "convert-nvgpu-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from warpforge.passes.lowerings import nvgpu_to_nvvm_hopper as hopper  # mbarriers, TMA

        hopper.rewrite_descriptor_parameters(op)
        OneSweepWalker(
            TypedPatternApplier(  # each op offered only to the patterns of its type
                [
                    ConvertMmaSyncOp(),
                    ConvertLdMatrixOp(),
                    ConvertDeviceAsyncCopyOp(),
                    ConvertDeviceAsyncCreateGroupOp(),
                    ConvertDeviceAsyncWaitOp(),
                    *(pattern() for pattern in hopper.PATTERNS),
                ]
            )
        ).rewrite_module(op)
        for inner in ops_of_dialect(op, "nvgpu"):
            fail(inner, "has no lowering to nvvm")
