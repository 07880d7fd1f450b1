"""`convert-gpu-to-nvvm`: `gpu` ids, barriers and functions → `nvvm` special-register reads and `func`.

Mirrors MLIR's `convert-gpu-to-nvvm` (GPUToNVVM), for warpforge's `gpu` dialect:

| `gpu` op | becomes |
|---|---|
| `gpu.thread_id/block_id/block_dim/grid_dim x\\|y\\|z` | `nvvm.read.ptx.sreg.{tid,ctaid,ntid,nctaid}.{x,y,z} : i32`, then `arith.index_castui` to `index` (unsigned registers, PTX ISA §10 "Special Registers") |
| `gpu.block_dim` in a kernel with `known_block_size` | `arith.constant` (the launch contract fixes it) |
| `gpu.thread_id` in a kernel with `known_block_size` | the register read, then `arith.minui` with extent − 1 (a no-op that gives LLVM the range, so bounds checks on thread-id indices fold) |
| `gpu.global_id x\\|y\\|z` | `block_id * block_dim + thread_id`, computed in `index` (64-bit: never wraps past 2^31 threads) |
| `gpu.lane_id` | `nvvm.read.ptx.sreg.laneid` + `arith.index_castui` |
| `gpu.barrier` | `nvvm.barrier0` (`bar.sync 0`) |
| `gpu.barrier_reduce popc\\|and\\|or` | `nvvm.barrier0.popc\\|and\\|or` (`bar.red`) |
| `gpu.thread_fence block\\|device\\|system` | `nvvm.membar.cta\\|gl\\|sys` |
| `gpu.warp_sync %mask` | `nvvm.bar.warp.sync` |
| `gpu.vote any\\|all`, `gpu.ballot`, `gpu.active_mask`, `gpu.match_any` | `nvvm.vote.*.sync` / `nvvm.activemask` / `nvvm.match.any.sync.*`, full warp mask |
| `gpu.shuffle <mode>` | `nvvm.shfl.sync.<mode>.{i32,f32}[p]` with PTX's clamp `((32 - width) << 8) \\| 31` (`\\| 0` for `up`); 64-bit values as two 32-bit shuffles |
| `gpu.subgroup_reduce` | `nvvm.redux.sync.*` (i32, whole warp, sm_80+), else a butterfly of `gpu.shuffle xor` |
| `gpu.atomic_cmpxchg` | GEP + `llvm.cmpxchg` (scope/ordering attributes as on `memref.atomic_rmw`) + `llvm.extractvalue` |
| `gpu.atomic_add_pair` | `llvm.atomicrmw fadd` on `vector<2xf16/bf16>` (insert/extractelement) |
| `gpu.printf` | the format as a constant `.global` string, the arguments stored into a local buffer (CUDA's layout), `llvm.call @vprintf` |
| `memref.atomic_rmw` ordered (not `relaxed`) or of `system` scope, where PTX has the `atom` | GEP + `nvvm.atomicrmw` (inline PTX `atom.<sem>.<scope>…`: LLVM's NVPTX backend would drop both); the function's parameters lose `llvm.noalias`/`llvm.readonly` when the ordering is not relaxed |
| `gpu.dynamic_shared_memory` | descriptor of `@__wf_dynamic_shared` (`llvm.mlir.global external`, addr_space 3, align 16) and `%dynamic_smem_size` |
| `gpu.func` | `func.func`; a kernel carries `nvvm.kernel`, `known_block_size` becomes `nvvm.reqntid`; argument attributes and `nvvm.*`/`llvm.*` attributes (e.g. `nvvm.maxntid`) are kept |
| `gpu.return` | `func.return` |

The `gpu.module` and its `#nvvm.target` stay: the target check, the exporter and the PTX emitter read
them. Every new op takes the source op's location.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
    f32,
    f64,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from xdsl.rewriter import InsertPoint

from warpforge.dialects import gpu, nvvm
from warpforge.dialects.arith import AtomicRMWKind, IndexCastUIOp
from warpforge.dialects.nvvm import NVVMTargetAttr
from warpforge.dialects.llvm import AddrSpaceCastOp, AtomicRMWOp, CmpXchgOp, ExtractElementOp
from warpforge.passes.finalize_memref_to_llvm import (
    PTX_SCOPES,
    Descriptor,
    atomic_names,
    atomic_ordering,
    atomic_syncscope,
    build_descriptor,
    needs_ptx_atom,
)
from warpforge.rewriting import OneSweepWalker, enclosing_op, fail, ops_of_dialect, walk_ops
from warpforge.rewriting import replace_op
from warpforge.rewriting import TypedPatternApplier

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
    parent = enclosing_op(op, lambda p: isinstance(p, gpu.FuncOp | func.FuncOp))
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
        if isinstance(op, gpu.ThreadIdOp) and (block := _known_block_size(op)) is not None:
            # tid < block extent: `umin(tid, extent - 1)` (a no-op) tells LLVM the range, so bounds
            # checks of shared-memory indices computed from the thread id fold away
            read = nvvm.op(f"nvvm.read.ptx.sreg.tid.{op.dim}")()
            top = arith.ConstantOp(IntegerAttr(block["xyz".index(op.dim)] - 1, i32))
            bounded = arith.MinUIOp(read, top)
            cast = IndexCastUIOp(bounded, IndexType())
            replace_op(rewriter, op, [read, top, bounded, cast], [cast.result])
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


# --------------------------------------------------------------------------- synchronization


_MEMBAR = {"block": "nvvm.membar.cta", "device": "nvvm.membar.gl", "system": "nvvm.membar.sys"}
"""`gpu.thread_fence` scope → the catalog's `membar` (PTX `fence.sc.{cta,gpu,sys}` on sm_70+)."""


@dataclass
class ConvertBarrierReduceOp(RewritePattern):
    """`gpu.barrier_reduce popc|and|or %p` → `nvvm.barrier0.popc|and|or %p` (`bar.red`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.BarrierReduceOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, nvvm.op(f"nvvm.barrier0.{op.kind.data.value}")(op.predicate))


@dataclass
class ConvertThreadFenceOp(RewritePattern):
    """`gpu.thread_fence block|device|system` → `nvvm.membar.cta|gl|sys`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.ThreadFenceOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, nvvm.op(_MEMBAR[op.scope.data.value])())


@dataclass
class ConvertWarpSyncOp(RewritePattern):
    """`gpu.warp_sync %mask` → `nvvm.bar.warp.sync %mask` (sm_70+)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.WarpSyncOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, nvvm.op("nvvm.bar.warp.sync")(op.mask))


# --------------------------------------------------------------------------- warp collectives

FULL_MASK = -1
"""Every lane of the warp (0xffffffff as a signless i32)."""


def _full_mask() -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(FULL_MASK, i32))


@dataclass
class ConvertVoteOp(RewritePattern):
    """`gpu.vote any|all %p` → `nvvm.vote.any|all.sync %full_mask, %p`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.VoteOp, rewriter: PatternRewriter, /):
        mask = _full_mask()
        replace_op(rewriter, op, [mask, nvvm.op(f"nvvm.vote.{op.kind.data.value}.sync")(mask, op.predicate)])


@dataclass
class ConvertBallotOp(RewritePattern):
    """`gpu.ballot %p` → `nvvm.vote.ballot.sync %full_mask, %p`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.BallotOp, rewriter: PatternRewriter, /):
        mask = _full_mask()
        replace_op(rewriter, op, [mask, nvvm.op("nvvm.vote.ballot.sync")(mask, op.predicate)])


@dataclass
class ConvertActiveMaskOp(RewritePattern):
    """`gpu.active_mask` → `nvvm.activemask`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.ActiveMaskOp, rewriter: PatternRewriter, /):
        replace_op(rewriter, op, nvvm.op("nvvm.activemask")())


@dataclass
class ConvertMatchAnyOp(RewritePattern):
    """`gpu.match_any %v : i32|i64` → `nvvm.match.any.sync.i32|i64 %full_mask, %v` (sm_70+)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.MatchAnyOp, rewriter: PatternRewriter, /):
        mask = _full_mask()
        width = op.value.type.width.data  # pyright: ignore[reportAttributeAccessIssue]
        replace_op(rewriter, op, [mask, nvvm.op(f"nvvm.match.any.sync.i{width}")(mask, op.value)])


_SHFL_MODE = {"xor": "bfly", "up": "up", "down": "down", "idx": "idx"}
"""`gpu.shuffle` mode → PTX `shfl.sync` mode (`xor` is PTX's butterfly)."""


def _clamp(mode: str, width: SSAValue) -> tuple[list[Operation], SSAValue]:
    """PTX's `c` operand for a segment of `width` lanes: `(32 - width) << 8`, `| 31` except for `up`
    (PTX ISA §9.7.9.6: the segment mask in bits 8–12, the clamp lane in bits 0–4)."""
    known = gpu._constant_value(width)  # pyright: ignore[reportPrivateUsage]
    if known is not None:
        value = ((32 - known) << 8) | (0 if mode == "up" else 31)
        const = arith.ConstantOp(IntegerAttr(value, i32))
        return [const], const.result
    c32, c8 = arith.ConstantOp(IntegerAttr(32, i32)), arith.ConstantOp(IntegerAttr(8, i32))
    seg = arith.SubiOp(c32, width)
    shifted = arith.ShLIOp(seg, c8)
    ops: list[Operation] = [c32, c8, seg, shifted]
    if mode == "up":
        return ops, shifted.result
    c31 = arith.ConstantOp(IntegerAttr(31, i32))
    clamp = arith.OrIOp(shifted, c31)
    return [*ops, c31, clamp], clamp.result


@dataclass
class ConvertShuffleOp(RewritePattern):
    """`gpu.shuffle <mode> %v, %offset, %width : T` → `nvvm.shfl.sync.<mode>.<i32|f32>[p]`, full mask.

    The `p` form (value and in-range predicate) is used only when `%valid` has uses. 64-bit values are
    split into two 32-bit halves, each shuffled, then joined (`f64` through `arith.bitcast`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.ShuffleOp, rewriter: PatternRewriter, /):
        mode = op.mode.data.value
        typ = op.value.type
        if not gpu.is_shuffle_type(typ):
            fail(op, f"moves {typ}; gpu.shuffle takes {gpu.SHUFFLE_TYPES}")
        ops, clamp = _clamp(mode, op.width)
        mask = _full_mask()
        ops.append(mask)
        want_valid = bool(op.valid.uses)

        def shfl(value: SSAValue, kind: str) -> tuple[SSAValue, SSAValue | None]:
            name = f"nvvm.shfl.sync.{_SHFL_MODE[mode]}.{kind}{'p' if want_valid else ''}"
            call = nvvm.op(name)(mask, value, op.offset, clamp)
            ops.append(call)
            return call.results[0], (call.results[1] if want_valid else None)

        if isinstance(typ, IntegerType) and typ.width.data == 32 or typ == f32:
            result, valid = shfl(op.value, "i32" if isinstance(typ, IntegerType) else "f32")
        else:  # 64 bits: two 32-bit shuffles
            bits: SSAValue = op.value
            if typ == f64:
                cast = arith.BitcastOp(op.value, i64)
                ops.append(cast)
                bits = cast.result
            c32 = arith.ConstantOp(IntegerAttr(32, i64))
            lo = arith.TruncIOp(bits, i32)
            hi = arith.TruncIOp(arith.ShRUIOp(bits, c32), i32)
            ops += [c32, lo, hi.input.owner, hi]  # pyright: ignore[reportArgumentType]
            lo_r, valid = shfl(lo.result, "i32")
            hi_r, _ = shfl(hi.result, "i32")
            lo64, hi64 = arith.ExtUIOp(lo_r, i64), arith.ExtUIOp(hi_r, i64)
            joined = arith.OrIOp(lo64, arith.ShLIOp(hi64, c32))
            ops += [lo64, hi64, joined.rhs.owner, joined]  # pyright: ignore[reportArgumentType]
            result = joined.result
            if typ == f64:
                back = arith.BitcastOp(result, f64)
                ops.append(back)
                result = back.result
        if valid is None:
            true = arith.ConstantOp(IntegerAttr(1, i1))  # unused: DCE removes it
            ops.append(true)
            valid = true.result
        replace_op(rewriter, op, ops, [result, valid])


_REDUX: dict[str, str] = {"add": "add", "and": "and", "or": "or", "xor": "xor", "minsi": "min", "maxsi": "max", "minui": "umin", "maxui": "umax"}
"""`gpu.subgroup_reduce` ops `redux.sync` has for 32-bit integers (sm_80+): op → catalog suffix."""

_COMBINE: dict[str, tuple[Callable[[SSAValue, SSAValue], Operation], Callable[[SSAValue, SSAValue], Operation] | None]] = {
    "add": (arith.AddiOp, arith.AddfOp),
    "mul": (arith.MuliOp, arith.MulfOp),
    "minsi": (arith.MinSIOp, None),
    "minui": (arith.MinUIOp, None),
    "maxsi": (arith.MaxSIOp, None),
    "maxui": (arith.MaxUIOp, None),
    "and": (arith.AndIOp, None),
    "or": (arith.OrIOp, None),
    "xor": (arith.XOrIOp, None),
    "minnumf": (arith.MinnumfOp, arith.MinnumfOp),
    "maxnumf": (arith.MaxnumfOp, arith.MaxnumfOp),
    "minimumf": (arith.MinimumfOp, arith.MinimumfOp),
    "maximumf": (arith.MaximumfOp, arith.MaximumfOp),
}
"""`gpu.subgroup_reduce` op → the `arith` op combining two partial results (integers, floats)."""


def module_target(op: Operation) -> NVVMTargetAttr:
    """The `#nvvm.target` of the `gpu.module` enclosing `op` (sm_90 / PTX 8.0 without one)."""
    parent = enclosing_op(op, lambda p: isinstance(p, gpu.ModuleOp))
    if isinstance(parent, gpu.ModuleOp) and isinstance(parent.target, NVVMTargetAttr):
        return parent.target
    return NVVMTargetAttr("sm_90", "+ptx80")


def shuffle_payload(value: SSAValue, ops: list[Operation]) -> tuple[SSAValue, Callable[[SSAValue, list[Operation]], SSAValue]]:
    """`value` as something `gpu.shuffle` moves, and how to get the original type back from the
    shuffled payload: 32/64-bit values move as they are, narrower ones as the low bits of an i32."""
    typ = value.type
    if gpu.is_shuffle_type(typ):
        return value, lambda v, _ops: v
    width = typ.width.data if isinstance(typ, IntegerType) else typ.bitwidth  # pyright: ignore[reportAttributeAccessIssue]
    narrow = IntegerType(width)
    bits = value
    if not isinstance(typ, IntegerType):
        cast = arith.BitcastOp(value, narrow)
        ops.append(cast)
        bits = cast.result
    wide = arith.ExtUIOp(bits, i32)
    ops.append(wide)

    def back(v: SSAValue, more: list[Operation]) -> SSAValue:
        low = arith.TruncIOp(v, narrow)
        more.append(low)
        if isinstance(typ, IntegerType):
            return low.result
        cast_back = arith.BitcastOp(low.result, typ)
        more.append(cast_back)
        return cast_back.result

    return wide.result, back


@dataclass
class ConvertSubgroupReduceOp(RewritePattern):
    """`gpu.subgroup_reduce <op> %x` → `nvvm.redux.sync.<op>` (i32 add/and/or/xor/min/max over the whole
    warp, on sm_80+ with PTX ≥ 7.0), else a butterfly: `log2(size)` rounds of `gpu.shuffle xor` and the
    combining `arith` op, after which every lane of the cluster holds the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.SubgroupReduceOp, rewriter: PatternRewriter, /):
        kind = op.op.data.value
        typ = op.value.type
        target = module_target(op)
        redux = nvvm.CATALOG.get(f"nvvm.redux.sync.{_REDUX.get(kind, '')}")
        if (
            typ == i32
            and kind in _REDUX
            and op.size == 32
            and redux is not None
            and target.sm >= redux.min_sm
            and target.ptx >= redux.min_ptx
        ):
            mask = _full_mask()
            replace_op(rewriter, op, [mask, nvvm.op(redux.op)(op.value, mask)])
            return
        int_op, float_op = _COMBINE[kind]
        combine = float_op if isinstance(typ, AnyFloat) else int_op
        assert combine is not None
        ops: list[Operation] = []
        c32 = arith.ConstantOp(IntegerAttr(32, i32))
        ops.append(c32)
        acc: SSAValue = op.value
        offset = op.size // 2
        while offset >= 1:
            payload, back = shuffle_payload(acc, ops)
            off = arith.ConstantOp(IntegerAttr(offset, i32))
            shuffle = gpu.ShuffleOp("xor", payload, off, c32)
            ops += [off, shuffle]
            other = back(shuffle.shuffle_result, ops)
            step = combine(acc, other)
            ops.append(step)
            acc = step.results[0]
            offset //= 2
        replace_op(rewriter, op, ops, [acc])


# --------------------------------------------------------------------------- memory

DYNAMIC_SHARED_SYMBOL = "__wf_dynamic_shared"
"""The `extern .shared` array every `gpu.dynamic_shared_memory` of a module refers to."""


@dataclass
class ConvertDynamicSharedMemoryOp(RewritePattern):
    """`gpu.dynamic_shared_memory` → the descriptor `{addressof @__wf_dynamic_shared, %dynamic_smem_size}`
    of `memref<?xi8, 3>`, declaring once per `gpu.module`
    `llvm.mlir.global external @__wf_dynamic_shared() {addr_space = 3, alignment = 16} : !llvm.array<0 x i8>`
    (PTX `.extern .shared .align 16 .b8 __wf_dynamic_shared[]`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.DynamicSharedMemoryOp, rewriter: PatternRewriter, /):
        block = _symbol_block(op)
        if not any(isinstance(o, llvm.GlobalOp) and o.sym_name.data == DYNAMIC_SHARED_SYMBOL for o in block.ops):
            decl = llvm.GlobalOp(
                llvm.LLVMArrayType(0, IntegerType(8)), DYNAMIC_SHARED_SYMBOL, "external", addr_space=gpu.WORKGROUP, alignment=16
            )
            decl.location = op.location
            rewriter.insert(decl, InsertPoint.at_start(block))
        address = llvm.AddressOfOp(DYNAMIC_SHARED_SYMBOL, llvm.LLVMPointerType(IntAttr(gpu.WORKGROUP)))
        size = nvvm.op("nvvm.read.ptx.sreg.dynamic_smem_size")()
        size64 = arith.ExtUIOp(size, i64)
        typ = op.result.type
        assert isinstance(typ, MemRefType)
        desc_ops, value = build_descriptor(typ, op, address.result, [size64.result])
        replace_op(rewriter, op, [address, size, size64, *desc_ops], [value])


_FAILURE_ORDERING = {"monotonic": "monotonic", "acquire": "acquire", "release": "monotonic", "acq_rel": "acquire", "seq_cst": "seq_cst"}
"""A cmpxchg's failure ordering for its success ordering (LLVM: no release part on failure)."""


@dataclass
class ConvertAtomicCmpxchgOp(RewritePattern):
    """`gpu.atomic_cmpxchg %m[%i], %cmp, %new` → GEP + `llvm.cmpxchg` (scope and ordering from the
    op's `syncscope`/`ordering` attributes, as for `memref.atomic_rmw`) + `llvm.extractvalue [0]`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.AtomicCmpxchgOp, rewriter: PatternRewriter, /):
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        ordering = atomic_ordering(op)
        cas = CmpXchgOp(address, op.cmp, op.new, ordering, _FAILURE_ORDERING[ordering], atomic_syncscope(op))
        old = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), cas.res, op.result.type)
        replace_op(rewriter, op, [*desc.ops, cas, old], [old.res])


@dataclass
class ConvertAtomicAddPairOp(RewritePattern):
    """`gpu.atomic_add_pair %m[%i], %lo, %hi` → `<2 x T>` built with `llvm.insertelement`, GEP,
    `llvm.atomicrmw fadd` on the vector (aligned to its 4 bytes), the two old halves extracted."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.AtomicAddPairOp, rewriter: PatternRewriter, /):
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        vec_t = VectorType(op.lo.type, [2])
        undef = llvm.UndefOp(vec_t)
        c0, c1 = llvm.ConstantOp(IntegerAttr(0, i32), i32), llvm.ConstantOp(IntegerAttr(1, i32), i32)
        v0 = llvm.InsertElementOp(undef.res, op.lo, c0.result)
        v1 = llvm.InsertElementOp(v0.res, op.hi, c1.result)
        rmw = AtomicRMWOp(address, v1.res, "fadd", atomic_ordering(op), atomic_syncscope(op))
        lo, hi = ExtractElementOp(rmw.res, c0.result), ExtractElementOp(rmw.res, c1.result)
        replace_op(rewriter, op, [*desc.ops, undef, c0, c1, v0, v1, rmw, lo, hi], [lo.res, hi.res])


# --------------------------------------------------------------------------- formatted output

VPRINTF = "vprintf"
"""CUDA's device printf: `i32 @vprintf(ptr %format, ptr %args)`, `%args` a buffer holding the
arguments one after another, each aligned to its size (CUDA C Programming Guide, "Formatted Output";
PTX ISA §7.1.2 "System Calls": `vprintf`)."""

PRINTF_STRING_PREFIX = "__wf_printf_"


def _printf_string(block: Block, text: str, rewriter: PatternRewriter, location: object) -> str:
    """The symbol of a NUL-terminated constant `text` in global memory, declared once per module."""
    for o in block.ops:
        if isinstance(o, llvm.GlobalOp) and o.sym_name.data.startswith(PRINTF_STRING_PREFIX):
            if isinstance(o.value, StringAttr) and o.value.data == text + "\0":
                return o.sym_name.data
    count = sum(1 for o in block.ops if isinstance(o, llvm.GlobalOp) and o.sym_name.data.startswith(PRINTF_STRING_PREFIX))
    name = f"{PRINTF_STRING_PREFIX}{count}"
    raw = (text + "\0").encode()
    g = llvm.GlobalOp(
        llvm.LLVMArrayType(len(raw), IntegerType(8)), name, "internal", addr_space=1, constant=True, value=StringAttr(text + "\0"), alignment=1
    )
    g.location = location  # pyright: ignore[reportAttributeAccessIssue]
    rewriter.insert(g, InsertPoint.at_start(block))
    return name


def _generic_address(symbol: str, ops: list[Operation]) -> SSAValue:
    address = llvm.AddressOfOp(symbol, llvm.LLVMPointerType(IntAttr(1)))
    generic = AddrSpaceCastOp(address.result, llvm.LLVMPointerType())
    ops += [address, generic]
    return generic.results[0]


@dataclass
class ConvertPrintfOp(RewritePattern):
    """`gpu.printf "fmt", %args…` → the format as a constant global string (`.global .b8 …[]`,
    addrspace-cast to a generic pointer), the arguments stored into a local buffer (`llvm.alloca` of
    i8 in the entry block, 8-aligned; each i32 at a 4-aligned, each i64/f64/pointer at an 8-aligned
    offset), and `llvm.call @vprintf(%format, %buffer)` (null without arguments), declaring
    `llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32` once per module. An `i1` (`%s`) passes the
    address of the string `True` or `False`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: gpu.PrintfOp, rewriter: PatternRewriter, /):
        block = _symbol_block(op)
        ptr = llvm.LLVMPointerType()
        if not any(isinstance(o, llvm.FuncOp) and o.sym_name.data == VPRINTF for o in block.ops):
            decl = llvm.FuncOp(VPRINTF, llvm.LLVMFunctionType([ptr, ptr], i32), linkage=llvm.LinkageAttr("external"))
            decl.location = op.location
            rewriter.insert(decl, InsertPoint.at_start(block))
        ops: list[Operation] = []
        fmt = _generic_address(_printf_string(block, op.format.data, rewriter, op.location), ops)
        if not op.args:
            null = llvm.ZeroOp(result_types=[ptr])
            ops.append(null)
            buffer = null.res
        else:
            offsets: list[int] = []
            size = 0
            for a in op.args:
                width = 4 if a.type == i32 else 8
                size = (size + width - 1) // width * width
                offsets.append(size)
                size += width
            fn = enclosing_op(op, lambda p: isinstance(p, gpu.FuncOp | func.FuncOp))
            if fn is None:
                fail(op, "is not inside a function")
            n = llvm.ConstantOp(IntegerAttr(size, i32), i32)
            alloca = llvm.AllocaOp(n.result, IntegerType(8), alignment=8)
            for new in (n, alloca):
                new.location = op.location
            entry = fn.regions[0].blocks.first
            assert entry is not None
            rewriter.insert([n, alloca], InsertPoint.at_start(entry))
            buffer = alloca.res
            for a, offset in zip(op.args, offsets):
                value: SSAValue = a
                if a.type == i1:
                    true_s = _generic_address(_printf_string(block, "True", rewriter, op.location), ops)
                    false_s = _generic_address(_printf_string(block, "False", rewriter, op.location), ops)
                    select = llvm.SelectOp(a, true_s, false_s)
                    ops.append(select)
                    value = select.results[0]
                slot = llvm.GEPOp.from_mixed_indices(buffer, [offset], IntegerType(8), result_type=ptr, inbounds=True)
                store = llvm.StoreOp(value, slot.result, alignment=4 if a.type == i32 else 8)
                ops += [slot, store]
        call = llvm.CallOp(VPRINTF, fmt, buffer, return_type=i32)
        ops.append(call)
        replace_op(rewriter, op, ops, [])


@dataclass
class ConvertOrderedAtomicRMWOp(RewritePattern):
    """`memref.atomic_rmw` that `llvm.atomicrmw` would weaken (an ordering other than relaxed, or
    system scope; `finalize_memref_to_llvm.needs_ptx_atom`) → GEP + `nvvm.atomicrmw` with the PTX
    `sem` and `scope`. The rest stay for `finalize-memref-to-llvm`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AtomicRMWOp, rewriter: PatternRewriter, /):
        if not needs_ptx_atom(op):
            return
        atomic_ordering(op)  # an unknown ordering or scope is a diagnostic
        atomic_syncscope(op)
        scope, sem = atomic_names(op)
        bin_op = AtomicRMWKind.of(op).llvm_op
        assert bin_op is not None
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        atom = nvvm.AtomicRMWOp(bin_op, address, op.value, sem, PTX_SCOPES[scope])
        replace_op(rewriter, op, [*desc.ops, atom], [atom.res])


_ORDERED = ("acquire", "release", "acq_rel", "seq_cst")


def drop_noalias_around_ordered_atomics(module: Operation) -> None:
    """Remove `llvm.noalias`/`llvm.readonly` from the parameters of every function holding an ordered
    `nvvm.atomicrmw`. LLVM cannot see into inline PTX: for a `noalias` parameter it would conclude
    the asm never touches that memory and move loads and stores of it across the acquire/release
    (and `readonly` gives `ld.global.nc`, which is not coherent with writes other threads publish)."""
    for fn in walk_ops(module):
        if not isinstance(fn, func.FuncOp) or fn.arg_attrs is None:
            continue
        if not any(isinstance(o, nvvm.AtomicRMWOp) and o.sem.data in _ORDERED for o in walk_ops(fn)):
            continue
        fn.arg_attrs = ArrayAttr(
            [DictionaryAttr({k: v for k, v in d.data.items() if k not in ("llvm.noalias", "llvm.readonly")}) for d in fn.arg_attrs]
        )


def _symbol_block(op: Operation) -> Block:
    parent = enclosing_op(op, lambda p: isinstance(p, gpu.ModuleOp | ModuleOp))
    if parent is None:
        fail(op, "is not inside a module")
    return parent.regions[0].block


class ConvertGpuToNVVMPass(ModulePass):
    """Lower `gpu` ids, barriers and functions to `nvvm` special registers, `nvvm.barrier0` and `func.func`."""

    name = "convert-gpu-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier(
                [
                    ConvertFuncOp(),
                    ConvertReturnOp(),
                    ConvertGlobalIdOp(),
                    ConvertDimensionOp(),
                    ConvertLaneIdOp(),
                    ConvertBarrierOp(),
                    ConvertBarrierReduceOp(),
                    ConvertThreadFenceOp(),
                    ConvertWarpSyncOp(),
                    ConvertVoteOp(),
                    ConvertBallotOp(),
                    ConvertActiveMaskOp(),
                    ConvertMatchAnyOp(),
                    ConvertSubgroupReduceOp(),
                    ConvertShuffleOp(),
                    ConvertDynamicSharedMemoryOp(),
                    ConvertAtomicCmpxchgOp(),
                    ConvertAtomicAddPairOp(),
                    ConvertPrintfOp(),
                    ConvertOrderedAtomicRMWOp(),
                ]
            )
        ).rewrite_module(op)
        drop_noalias_around_ordered_atomics(op)
        for inner in ops_of_dialect(op, "gpu"):
            if not isinstance(inner, gpu.ModuleOp):
                fail(inner, "has no lowering to nvvm")

