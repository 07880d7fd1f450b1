"""`convert-nvvm-to-llvm`: every `nvvm` op → `llvm.call_intrinsic` of its catalog row's LLVM intrinsic.

Driven purely by `warpforge.dialects.nvvm_catalog`: the row's `intrinsic` names the callee, its
`immediates`, then its integer properties (`nvvm.cp.async.wait.group 1`), become `llvm.mlir.constant`s
passed first, then the op's operands in order; the result
types are the op's. For example

    %r = nvvm.shfl.sync.bfly.f32 %mask, %x, %off, %clamp : (i32, f32, i32, i32) -> f32
    nvvm.barrier0

become

    %r = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.f32"(%mask, %x, %off, %clamp) : (i32, f32, i32, i32) -> f32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%c0) : (i32) -> ()

An op with several results (`nvvm.shfl.sync.bfly.f32p`: the value and whether the source lane was
in range) calls an intrinsic returning a literal struct and takes it apart with `llvm.extractvalue`.

MLIR's NVVM dialect reaches the same intrinsics through `mlir-translate` (`NVVMToLLVMIRTranslation`).
`nvvm.atomicrmw` (an ordered or system-scoped atomic, which LLVM's NVPTX backend would weaken) is
the one op that is not an intrinsic: it becomes `llvm.inline_asm` of its PTX `atom` instruction,

    %old = nvvm.atomicrmw add %p, %v {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32
    %old = llvm.inline_asm has_side_effects "atom.acq_rel.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %p, %v : (!llvm.ptr<1>, i32) -> i32

Run `check-nvvm-target` first: the intrinsics are emitted as they are, whatever the chip.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects import nvvm
from warpforge.dialects.nvvm import NVVMIntrinsicOp
from warpforge.dialects.nvvm_catalog import atom_instruction
from warpforge.rewriting import dialect_of, fail
from warpforge.rewriting import replace_op


@dataclass
class ConvertNVVMIntrinsicOp(RewritePattern):
    """Any catalog `nvvm` op → `llvm.call_intrinsic "<SPEC.intrinsic>"(immediates..., operands...)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, NVVMIntrinsicOp):
            return
        spec = type(op).SPEC
        new_ops: list[Operation] = []
        args: list[SSAValue] = []
        for type_name, value in spec.immediates:
            if not type_name.startswith("i"):
                fail(op, f"has a non-integer immediate {type_name} in its catalog row")
            typ = IntegerType(int(type_name[1:]))
            const = llvm.ConstantOp(IntegerAttr(value, typ), typ)
            new_ops.append(const)
            args.append(const.result)
        for name, type_name in spec.properties:
            typ = IntegerType(int(type_name[1:]))
            attr = op.properties[name]
            assert isinstance(attr, IntegerAttr)
            const = llvm.ConstantOp(IntegerAttr(attr.value.data, typ), typ)
            new_ops.append(const)
            args.append(const.result)
        args.extend(op.operands)
        if len(op.results) <= 1:
            call = llvm.CallIntrinsicOp(spec.intrinsic, args, [r.type for r in op.results])
            new_ops.append(call)
            replace_op(rewriter, op, new_ops, list(call.results))
            return
        # several results: the intrinsic returns a literal struct, taken apart with extractvalue
        struct = llvm.LLVMStructType.from_type_list([r.type for r in op.results])
        call = llvm.CallIntrinsicOp(spec.intrinsic, args, [struct])
        new_ops.append(call)
        parts = [llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [k]), call.results[0], r.type) for k, r in enumerate(op.results)]
        new_ops += parts
        replace_op(rewriter, op, new_ops, [p.res for p in parts])


_REGISTERS = {16: "h", 32: "r", 64: "l"}
"""Value width → NVPTX inline-asm register constraint (`.b16`, `.b32`, `.b64`)."""


@dataclass
class ConvertAtomicRMWOp(RewritePattern):
    """`nvvm.atomicrmw` → `llvm.inline_asm has_side_effects` of the PTX `atom` the catalog spells
    (`nvvm_catalog.atom_instruction`), with a `~{memory}` clobber so LLVM keeps other memory
    accesses on their side of it. Float values travel as integers of their width (`llvm.bitcast`):
    PTX takes `.b16/.b32/.b64` registers for `.f16/.f32/.f64` operations."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: nvvm.AtomicRMWOp, rewriter: PatternRewriter, /):
        spec = op.spec
        reg = _REGISTERS[spec.bits]
        typ = op.val.type
        ops: list[Operation] = []
        val: SSAValue = op.val
        if not isinstance(typ, IntegerType):
            cast = llvm.BitcastOp(op.val, IntegerType(spec.bits))
            ops.append(cast)
            val = cast.result
        asm = llvm.InlineAsmOp(
            atom_instruction(spec, op.sem.data, op.scope.data, op.space),
            f"={reg},l,{reg},~{{memory}}",
            [op.ptr, val],
            [IntegerType(spec.bits)],
            has_side_effects=True,
        )
        ops.append(asm)
        result = asm.results[0]
        if not isinstance(typ, IntegerType):
            back = llvm.BitcastOp(result, typ)
            ops.append(back)
            result = back.result
        replace_op(rewriter, op, ops, [result])


class ConvertNVVMToLLVMPass(ModulePass):
    """Lower every `nvvm` op to `llvm.call_intrinsic` of the LLVM intrinsic its catalog row names."""

    name = "convert-nvvm-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([ConvertNVVMIntrinsicOp(), ConvertAtomicRMWOp()])).rewrite_module(op)
        for inner in op.walk():
            if dialect_of(inner) == "nvvm":
                fail(inner, "is not a catalog op and has no lowering to llvm")
