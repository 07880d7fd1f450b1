"""`convert-gpu-to-nvvm`: `gpu` ids, barriers and functions → `nvvm` special-register reads and `func`.

Mirrors MLIR's `convert-gpu-to-nvvm` (GPUToNVVM), for warpforge's `gpu` dialect:

| `gpu` op | becomes |
|---|---|
| `gpu.thread_id/block_id/block_dim/grid_dim x\\|y\\|z` | `nvvm.read.ptx.sreg.{tid,ctaid,ntid,nctaid}.{x,y,z} : i32`, then `arith.index_castui` to `index` (unsigned registers, PTX ISA §10 "Special Registers") |
| `gpu.block_dim` in a kernel with `known_block_size` | `arith.constant` (the launch contract fixes it) |
| `gpu.global_id x\\|y\\|z` | `block_id * block_dim + thread_id`, computed in `index` (64-bit: never wraps past 2^31 threads) |
| `gpu.lane_id` | `nvvm.read.ptx.sreg.laneid` + `arith.index_castui` |
| `gpu.barrier` | `nvvm.barrier0` (`bar.sync 0`) |
| `gpu.func` | `func.func`; a kernel carries `nvvm.kernel`, `known_block_size` becomes `nvvm.reqntid`; argument attributes and `nvvm.*`/`llvm.*` attributes (e.g. `nvvm.maxntid`) are kept |
| `gpu.return` | `func.return` |

The `gpu.module` and its `#nvvm.target` stay: the target check, the exporter and the PTX emitter read
them. Every new op takes the source op's location.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects import gpu, nvvm
from warpforge.dialects.arith import IndexCastUIOp
from warpforge.rewriting import dialect_of, fail
from warpforge.rewriting import replace_op

_SREG: dict[type[gpu._DimensionOp], str] = {  # pyright: ignore[reportPrivateUsage]
    gpu.ThreadIdOp: "tid",
    gpu.BlockIdOp: "ctaid",
    gpu.BlockDimOp: "ntid",
    gpu.GridDimOp: "nctaid",
}
"""`gpu` id op → PTX special register (PTX ISA §10: `%tid`, `%ctaid`, `%ntid`, `%nctaid`)."""

_KEEP_PREFIXES = ("nvvm.", "llvm.")
"""Discardable `gpu.func` attributes carried to the `func.func` (launch bounds, LLVM attributes)."""


def _read_sreg(register: str) -> tuple[list[Operation], SSAValue]:
    """Ops reading PTX special register `register` (e.g. `tid.x`) as an `index`."""
    read = nvvm.op(f"nvvm.read.ptx.sreg.{register}")()
    cast = IndexCastUIOp(read, IndexType())
    return [read, cast], cast.result


def _known_block_size(op: Operation) -> tuple[int, ...] | None:
    """The exact block shape of the kernel enclosing `op`, if its launch contract fixes one."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.FuncOp | func.FuncOp):
        parent = parent.parent_op()
    if isinstance(parent, gpu.FuncOp) and parent.known_block_size is not None:
        return tuple(parent.known_block_size.get_values())
    if isinstance(parent, func.FuncOp) and isinstance(bounds := parent.attributes.get("nvvm.reqntid"), DenseArrayBase):
        return tuple(int(v) for v in bounds.get_values())
    return None


@dataclass
class ConvertDimensionOp(RewritePattern):
    """`gpu.thread_id/block_id/block_dim/grid_dim <d>` → `nvvm.read.ptx.sreg.<reg>.<d>` + `arith.index_castui`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp, rewriter: PatternRewriter, /):
        if isinstance(op, gpu.BlockDimOp) and (block := _known_block_size(op)) is not None:
            const = arith.ConstantOp(IntegerAttr(block["xyz".index(op.dim)], IndexType()))
            replace_op(rewriter, op, const)
            return
        ops, value = _read_sreg(f"{_SREG[type(op)]}.{op.dim}")
        replace_op(rewriter, op, ops, [value])


@dataclass
class ConvertGlobalIdOp(RewritePattern):
    """`gpu.global_id <d>` → `block_id * block_dim + thread_id` in `index` (the `gpu` ops, lowered in turn)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.GlobalIdOp, rewriter: PatternRewriter, /):
        block_id, block_dim, thread_id = gpu.BlockIdOp(op.dim), gpu.BlockDimOp(op.dim), gpu.ThreadIdOp(op.dim)
        scaled = arith.MuliOp(block_id, block_dim)
        index = arith.AddiOp(scaled, thread_id)
        replace_op(rewriter, op, [block_id, block_dim, thread_id, scaled, index])


@dataclass
class ConvertLaneIdOp(RewritePattern):
    """`gpu.lane_id` → `nvvm.read.ptx.sreg.laneid` + `arith.index_castui`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.LaneIdOp, rewriter: PatternRewriter, /):
        ops, value = _read_sreg("laneid")
        replace_op(rewriter, op, ops, [value])


@dataclass
class ConvertBarrierOp(RewritePattern):
    """`gpu.barrier` → `nvvm.barrier0`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.BarrierOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, nvvm.op("nvvm.barrier0")())


@dataclass
class ConvertFuncOp(RewritePattern):
    """`gpu.func` → `func.func` with `nvvm.kernel` / `nvvm.reqntid` for kernels; the body moves over."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.FuncOp, rewriter: PatternRewriter, /):
        body = op.detach_region(op.body)
        new = func.FuncOp(op.sym_name.data, op.function_type, body, arg_attrs=op.arg_attrs)
        attrs: dict[str, Attribute] = {}
        if op.kernel is not None:
            attrs["nvvm.kernel"] = UnitAttr()
            if op.known_block_size is not None:
                attrs["nvvm.reqntid"] = op.known_block_size
        elif op.known_block_size is not None:
            fail(op, "has known_block_size but is not a kernel (launch bounds apply to kernels only)")
        attrs.update((k, v) for k, v in op.attributes.items() if k.startswith(_KEEP_PREFIXES) and k not in attrs)
        new.attributes.update(attrs)
        new.location = op.location
        replace_op(rewriter, op, new)


@dataclass
class ConvertReturnOp(RewritePattern):
    """`gpu.return` → `func.return`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.ReturnOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, func.ReturnOp(*op.args))


class ConvertGpuToNVVMPass(ModulePass):
    """Lower `gpu` ids, barriers and functions to `nvvm` special registers, `nvvm.barrier0` and `func.func`."""

    name = "convert-gpu-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    ConvertFuncOp(),
                    ConvertReturnOp(),
                    ConvertGlobalIdOp(),
                    ConvertDimensionOp(),
                    ConvertLaneIdOp(),
                    ConvertBarrierOp(),
                ]
            )
        ).rewrite_module(op)
        for inner in op.walk():
            if dialect_of(inner) == "gpu" and not isinstance(inner, gpu.ModuleOp):
                fail(inner, "has no lowering to nvvm")

