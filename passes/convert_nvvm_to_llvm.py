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
from xdsl.dialects.builtin import DenseArrayBase, IntAttr, IntegerAttr, IntegerType, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects import nvvm
from warpforge.dialects.llvm import AddrSpaceCastOp
from warpforge.dialects.nvvm import CvtRnX2F32Op, MBarrierWaitParityOp, NVVMIntrinsicOp, WgmmaMmaAsyncOp, WgmmaMmaAsyncRegAOp, WgmmaWaitAccumulatorsOp
from warpforge.dialects.nvvm_catalog import atom_instruction
from warpforge.rewriting import FastRewriteWalker, dialect_of, fail
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
        operands = list(op.operands)
        for index, space in spec.casts:  # e.g. TMA's destination: shared ptr<3> -> shared::cluster ptr<7>
            cast = AddrSpaceCastOp(operands[index], llvm.LLVMPointerType(IntAttr(space)))
            new_ops.append(cast)
            operands[index] = cast.results[0]
        args.extend(operands)
        for type_name, value in spec.trailing:
            typ = IntegerType(int(type_name[1:]))
            const = llvm.ConstantOp(IntegerAttr(value, typ), typ)
            new_ops.append(const)
            args.append(const.result)
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


@dataclass
class ConvertWgmmaMmaAsyncOp(RewritePattern):
    """`nvvm.wgmma.mma_async` → `llvm.inline_asm` (LLVM 22 has no wgmma intrinsic), as MLIR's
    `NVVM_WgmmaMmaAsyncOp::getPtx` does:

        { .reg .pred p; setp.ne.b32 p, $R, 0;
          wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {$0, ..., $R-1}, $R+1, $R+2, p, sa, sb, ta, tb; }

    R = n/2 `=f` outputs, tied (`0`, `1`, …) to the accumulator inputs so the registers stay in place;
    `r` the scale-d predicate (zero-extended to i32), `l` the two 64-bit descriptors; the scales and
    transposes are immediates. The asm has side effects, so LLVM does not move it across the wgmma
    fences and group ops. The result is a literal struct taken apart with `llvm.extractvalue`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, WgmmaMmaAsyncOp):
            return
        regs = len(op.acc)
        trans_a = 0 if op.layout_a.data == "row" else 1
        trans_b = 0 if op.layout_b.data == "col" else 1
        outs = ", ".join(f"${i}" for i in range(regs))
        asm = (
            "{\n.reg .pred p;\n"
            f"setp.ne.b32 p, ${regs}, 0;\n"
            f"{op.ptx_instruction()} {{{outs}}}, ${regs + 1}, ${regs + 2}, p, "
            f"{op.scale_a.value.data}, {op.scale_b.value.data}, {trans_a}, {trans_b};\n}}"
        )
        constraints = ",".join(["=f"] * regs + ["r", "l", "l"] + [str(i) for i in range(regs)])
        scale = llvm.ZExtOp(op.scale_d, IntegerType(32))
        struct = llvm.LLVMStructType.from_type_list([r.type for r in op.res])
        call = llvm.InlineAsmOp(asm, constraints, [scale.results[0], op.desc_a, op.desc_b, *op.acc], [struct], has_side_effects=True)
        parts = [llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [k]), call.results[0], r.type) for k, r in enumerate(op.res)]
        replace_op(rewriter, op, [scale, call, *parts], [p.res for p in parts])


@dataclass
class ConvertWgmmaMmaAsyncRegAOp(RewritePattern):
    """`nvvm.wgmma.mma_async.reg_a` → `llvm.inline_asm`, as `ConvertWgmmaMmaAsyncOp` but with A in
    four `r` registers (PTX ISA §9.7.15.5.2, the register-A form has no imm-trans-a):

        { .reg .pred p; setp.ne.b32 p, $R, 0;
          wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {$0, ..., $R-1}, {$R+1, ..., $R+4}, $R+5, p, sa, sb, tb; }"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaMmaAsyncRegAOp, rewriter: PatternRewriter, /):
        regs = len(op.acc)
        trans_b = 0 if op.layout_b.data == "col" else 1
        outs = ", ".join(f"${i}" for i in range(regs))
        a = ", ".join(f"${regs + 1 + i}" for i in range(len(op.a)))
        b = regs + 1 + len(op.a)
        asm = (
            "{\n.reg .pred p;\n"
            f"setp.ne.b32 p, ${regs}, 0;\n"
            f"{op.ptx_instruction()} {{{outs}}}, {{{a}}}, ${b}, p, "
            f"{op.scale_a.value.data}, {op.scale_b.value.data}, {trans_b};\n}}"
        )
        constraints = ",".join(["=f"] * regs + ["r"] + ["r"] * len(op.a) + ["l"] + [str(i) for i in range(regs)])
        scale = llvm.ZExtOp(op.scale_d, IntegerType(32))
        struct = llvm.LLVMStructType.from_type_list([r.type for r in op.res])
        call = llvm.InlineAsmOp(asm, constraints, [scale.results[0], *op.a, op.desc_b, *op.acc], [struct], has_side_effects=True)
        parts = [llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [k]), call.results[0], r.type) for k, r in enumerate(op.res)]
        replace_op(rewriter, op, [scale, call, *parts], [p.res for p in parts])


@dataclass
class ConvertWgmmaWaitAccumulatorsOp(RewritePattern):
    """`nvvm.wgmma.wait_accumulators` → `llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned n;"`
    with k `=f` outputs tied (`0`, `1`, …) to the k accumulator inputs: the registers stay in place and
    every read of a result depends on the asm, so LLVM cannot hoist it above the wait (it could above
    the operand-less `llvm.nvvm.wgmma.wait_group.sync.aligned`). With no values it is that wait alone."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WgmmaWaitAccumulatorsOp, rewriter: PatternRewriter, /):
        regs = len(op.values)
        asm = f"wgmma.wait_group.sync.aligned {op.n.value.data};"
        if regs == 0:
            replace_op(rewriter, op, [llvm.InlineAsmOp(asm, "~{memory}", [], [], has_side_effects=True)], [])
            return
        constraints = ",".join(["=f"] * regs + [str(i) for i in range(regs)] + ["~{memory}"])
        struct = llvm.LLVMStructType.from_type_list([r.type for r in op.res])
        call = llvm.InlineAsmOp(asm, constraints, list(op.values), [struct], has_side_effects=True)
        parts = [llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [k]), call.results[0], r.type) for k, r in enumerate(op.res)]
        replace_op(rewriter, op, [call, *parts], [p.res for p in parts])


@dataclass
class ConvertCvtRnX2F32Op(RewritePattern):
    """`nvvm.cvt.rn.x2.f32` → `llvm.inline_asm "cvt.rn.f16x2.f32 $0, $1, $2;" "=r,f,f"` (no side
    effects: LLVM may schedule, merge or drop it like any pure instruction)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CvtRnX2F32Op, rewriter: PatternRewriter, /):
        call = llvm.InlineAsmOp(f"{op.ptx_instruction()} $0, $1, $2;", "=r,f,f", [op.hi, op.lo], [IntegerType(32)], has_side_effects=False)
        replace_op(rewriter, op, [call], [call.results[0]])


@dataclass
class ConvertMBarrierWaitParityOp(RewritePattern):
    """`nvvm.mbarrier.wait.parity` → `llvm.inline_asm has_side_effects` of a PTX loop (labels are
    local to the `{ }` block, so the asm may appear many times in a kernel):

        { .reg .pred p; wait: mbarrier.try_wait.parity.shared.b64 p, [$0], $1; @!p bra.uni wait; }

    with a `~{memory}` clobber: the shared-memory reads that the wait guards stay after it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MBarrierWaitParityOp, rewriter: PatternRewriter, /):
        asm = "{\n.reg .pred p;\nwait:\nmbarrier.try_wait.parity.shared.b64 p, [$0], $1;\n@!p bra.uni wait;\n}"
        call = llvm.InlineAsmOp(asm, "r,r,~{memory}", [op.addr, op.parity], [], has_side_effects=True)
        replace_op(rewriter, op, [call], [])


class ConvertNVVMToLLVMPass(ModulePass):
    """Lower every `nvvm` op to `llvm.call_intrinsic` of the LLVM intrinsic its catalog row names."""

    name = "convert-nvvm-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        FastRewriteWalker(GreedyRewritePatternApplier([ConvertWgmmaMmaAsyncOp(), ConvertWgmmaMmaAsyncRegAOp()])).rewrite_module(op)
        FastRewriteWalker(GreedyRewritePatternApplier([ConvertNVVMIntrinsicOp(), ConvertAtomicRMWOp(), ConvertMBarrierWaitParityOp(), ConvertWgmmaWaitAccumulatorsOp(), ConvertCvtRnX2F32Op()])).rewrite_module(op)
        for inner in op.walk():
            if dialect_of(inner) == "nvvm":
                fail(inner, "is not a catalog op and has no lowering to llvm")
