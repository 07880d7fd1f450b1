"""`gpu` and `nvvm` ops: thread and block ids, barriers (plain and reducing), fences, warp sync, warp
collectives.

Ids come from the running block: `gpu.thread_id` is per thread, `gpu.block_id`/`block_dim`/
`grid_dim` are uniform over the block. A thread's lane is its linear id (x fastest) mod 32, its warp
the linear id // 32, as on the GPU.

Barriers (`BARRIER_OPS`) are handled by the scheduler, which cuts the CFG there (see `engine`); an
implementation runs only for a barrier inside an `scf` region or a called function, which the
simulator does not support. The reducing barriers (`gpu.barrier_reduce popc|and|or`,
`nvvm.barrier0.popc|and|or`; PTX `bar.red`, CUDA `__syncthreads_count/and/or`) are barriers too:
when the scheduler releases the block it reduces their predicate over every thread of the block
(`BARRIER_REDUCTIONS`) and gives all of them the result. Fences (`gpu.thread_fence`, `nvvm.membar.*`)
are no-ops: the simulator runs one thread group at a time, one op after another, so memory is
sequentially consistent.

Warp collectives (`nvvm.shfl.sync.*[p]`, `nvvm.vote.*`, `nvvm.redux.sync.*`, `nvvm.match.any.sync.*`,
`nvvm.activemask`, `nvvm.bar.warp.sync`) exchange values among the lanes of each warp that execute
them together — the scheduler runs all threads at one program point at once. PTX requires every
non-exited lane named in the member mask to execute the same instruction: a mask naming a lane at
another program point is a `SimulatorError`; so is a shuffle reading a lane that is not executing it,
or has exited (undefined on the GPU). Exited lanes take no part in votes, ballots, `match.any` and
`redux.sync`.

The `gpu` collectives (`GPU_OPS`) are the `nvvm` ones with the full-warp mask `convert-gpu-to-nvvm`
gives them, with its exact PTX semantics: `gpu.shuffle` uses the clamp `((32 - width) << 8) | 31`
(`| 0` for `up`), so `up`/`down` past the edge of a `width`-lane segment keep the lane's own value
and `valid` is false; a 64-bit value moves whole (the GPU's two 32-bit halves come from the same
lane). `gpu.subgroup_reduce` combines in the GPU's order — the shuffle butterfly (offsets size/2 … 1),
so float results are bit-identical — and, like the lowering, reads every lane of the cluster (an
exited or diverged one is an error), except for i32 whole-warp add/and/or/xor/min/max on sm_80+,
which becomes `redux.sync` and leaves exited lanes out. Tables: `SREGS`, `SHUFFLE_MODES`, `REDUX`,
`NVVM_OPS`, `GPU_OPS`, `BARRIER_REDUCTIONS`.

`gpu.printf` prints one line per thread that runs it, in thread order, to `sys.stdout` at once,
formatted by printf's rules (`warpforge.dialects._printf.format_printf`), as CUDA's `vprintf` does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.dialects.builtin import i32
from xdsl.ir import Operation

from warpforge.dialects import gpu, nvvm
from warpforge.dialects._printf import format_printf
from warpforge.simulator.engine import BARRIER_RESULTS, Impl, SimInterpreter, install
from warpforge.simulator.values import BF16, UNSIGNED, dtype_of, op_error

WARP = 32

def _barrier_count(op: Operation, operands: list[Any], threads: int) -> tuple[Any, ...]:
    pred = operands[0]
    if type(pred) is not np.ndarray:
        return (np.int32(threads if pred else 0),)
    return (np.int32(np.count_nonzero(pred)),)


def _barrier_and(op: Operation, operands: list[Any], threads: int) -> tuple[Any, ...]:
    return (np.bool_(np.all(operands[0])),)


def _barrier_or(op: Operation, operands: list[Any], threads: int) -> tuple[Any, ...]:
    return (np.bool_(np.any(operands[0])),)


def _barrier_reduce(op: Operation, operands: list[Any], threads: int) -> tuple[Any, ...]:
    kind = op.kind.data.value  # pyright: ignore[reportAttributeAccessIssue]
    return {"popc": _barrier_count, "and": _barrier_and, "or": _barrier_or}[kind](op, operands, threads)


BARRIER_REDUCTIONS: dict[type[Operation], Callable[[Operation, list[Any], int], tuple[Any, ...]]] = {
    gpu.BarrierReduceOp: _barrier_reduce,
    nvvm.op("nvvm.barrier0.popc"): _barrier_count,
    nvvm.op("nvvm.barrier0.and"): _barrier_and,
    nvvm.op("nvvm.barrier0.or"): _barrier_or,
}
"""Barriers that reduce a predicate over every thread of the block (PTX `bar.red.popc.u32` /
`.and.pred` / `.or.pred`, CUDA `__syncthreads_count/and/or`): count (i32), all, any (i1). The
scheduler computes them when it releases the block (`engine.BARRIER_RESULTS`)."""
BARRIER_RESULTS.update(BARRIER_REDUCTIONS)

BARRIER_OPS: frozenset[type[Operation]] = frozenset({gpu.BarrierOp, nvvm.op("nvvm.barrier0"), *BARRIER_REDUCTIONS})
"""Block-wide barriers: the scheduler parks threads there until every thread of the block arrives."""


def _tid(interp: SimInterpreter, dim: int) -> np.ndarray:
    full = interp.thread_ids[dim]
    tids = interp.frame.tids
    return full if tids is None else full[tids]


def _linear(interp: SimInterpreter) -> np.ndarray:
    tids = interp.frame.tids
    return interp.linear_tid if tids is None else tids


_DIM = {"x": 0, "y": 1, "z": 2}


def _dim_of(op: Operation) -> int:
    return _DIM[op.dim]  # pyright: ignore[reportAttributeAccessIssue]


@register_impls
class GpuFunctions(InterpreterFunctions):
    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interp: SimInterpreter, op: gpu.ThreadIdOp, args: PythonValues) -> PythonValues:
        return (_tid(interp, interp.static(op, _dim_of)),)

    @impl(gpu.BlockIdOp)
    def run_block_id(self, interp: SimInterpreter, op: gpu.BlockIdOp, args: PythonValues) -> PythonValues:
        return (interp.block_id[interp.static(op, _dim_of)],)

    @impl(gpu.BlockDimOp)
    def run_block_dim(self, interp: SimInterpreter, op: gpu.BlockDimOp, args: PythonValues) -> PythonValues:
        return (np.int64(interp.block_dims[interp.static(op, _dim_of)]),)

    @impl(gpu.GridDimOp)
    def run_grid_dim(self, interp: SimInterpreter, op: gpu.GridDimOp, args: PythonValues) -> PythonValues:
        return (np.int64(interp.grid[interp.static(op, _dim_of)]),)

    @impl(gpu.GlobalIdOp)
    def run_global_id(self, interp: SimInterpreter, op: gpu.GlobalIdOp, args: PythonValues) -> PythonValues:
        d = interp.static(op, _dim_of)
        return (interp.block_id[d] * np.int64(interp.block_dims[d]) + _tid(interp, d),)

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interp: SimInterpreter, op: gpu.LaneIdOp, args: PythonValues) -> PythonValues:
        return (_linear(interp) % WARP,)

    @impl(gpu.BarrierOp)
    def run_barrier(self, interp: SimInterpreter, op: gpu.BarrierOp, args: PythonValues) -> PythonValues:
        raise _nested_barrier(op)


def _nested_barrier(op: Operation) -> Exception:
    return op_error(op, "a barrier inside an scf region or a called function is not supported by the simulator (put it in the kernel's body)")


# --------------------------------------------------------------------------- nvvm: special registers


def _sreg(kind: str, dim: int) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        if kind == "tid":
            return (_tid(interp, dim).astype(np.int32),)
        if kind == "ntid":
            return (np.int32(interp.block_dims[dim]),)
        if kind == "ctaid":
            return (np.int32(interp.block_id[dim]),)
        return (np.int32(interp.grid[dim]),)

    return run


SREGS: dict[str, Impl] = {
    f"nvvm.read.ptx.sreg.{kind}.{axis}": _sreg(kind, d) for kind in ("tid", "ntid", "ctaid", "nctaid") for axis, d in _DIM.items()
}
SREGS["nvvm.read.ptx.sreg.laneid"] = lambda ft, interp, op, args: ((_linear(interp) % WARP).astype(np.int32),)
SREGS["nvvm.read.ptx.sreg.warpsize"] = lambda ft, interp, op, args: (np.int32(WARP),)
SREGS["nvvm.read.ptx.sreg.clock64"] = lambda ft, interp, op, args: (np.int64(interp.stats.thread_ops),)
SREGS["nvvm.read.ptx.sreg.globaltimer"] = lambda ft, interp, op, args: (np.int64(interp.stats.thread_ops),)
"""Special-register reads (`nvvm.read.ptx.sreg.*`, i32; the clocks count simulated thread-ops)."""


# --------------------------------------------------------------------------- nvvm: warp collectives


def _lane_bits(interp: SimInterpreter, tids: np.ndarray) -> np.ndarray:
    """Per warp of the block: the bit mask of the lanes among the threads `tids`."""
    bits = np.zeros((interp.T + WARP - 1) // WARP, np.uint64)
    np.bitwise_or.at(bits, tids // WARP, np.left_shift(np.uint64(1), (tids % WARP).astype(np.uint64)))
    return bits


def _member_mask(interp: SimInterpreter, op: Operation, mask: Any) -> tuple[np.ndarray, np.ndarray]:
    """(lanes, warps) of the active threads; checks that every lane named in each thread's member
    mask executes this op now, or has exited (PTX: "all non-exited threads named in membermask")."""
    lin = _linear(interp)
    lanes, warps = lin % WARP, lin // WARP
    present = _lane_bits(interp, lin)
    gone = _lane_bits(interp, np.flatnonzero(interp.exited))
    nwarps = len(present)
    exists = np.zeros(nwarps, np.uint64)  # lanes that exist in each warp (a partial last warp)
    full_warps, rest = divmod(interp.T, WARP)
    exists[:full_warps] = np.uint64(0xFFFFFFFF)
    if rest:
        exists[full_warps] = np.uint64((1 << rest) - 1)
    m = np.broadcast_to(np.asarray(mask).astype(np.int64) & 0xFFFFFFFF, lin.shape).astype(np.uint64)
    missing = m & exists[warps] & ~present[warps] & ~gone[warps]
    if missing.any():
        k = int(np.flatnonzero(missing)[0])
        lane = int(np.log2(int(missing[k]) & -int(missing[k])))
        raise op_error(
            op,
            f"lane {lane} of warp {int(warps[k])} is named in the member mask {int(m[k]):#010x} but is not executing this op "
            f"(it diverged or exited; block {interp.where_block()}): PTX requires the named lanes to execute it together",
        )
    return lanes, warps


def _exchange(interp: SimInterpreter, op: Operation, value: Any, src: np.ndarray, lanes: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """Each active thread's `value` from lane `src` of its warp (which must be active)."""
    lin = _linear(interp)
    full = np.zeros(interp.T, np.asarray(value).dtype)
    active = np.zeros(interp.T, bool)
    full[lin] = value
    active[lin] = True
    source = warps * WARP + src
    ok = (source < interp.T) & active[np.minimum(source, interp.T - 1)]
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        raise op_error(op, f"lane {int(lanes[k])} of warp {int(warps[k])} reads lane {int(src[k])}, which is not executing this shuffle (undefined on the GPU; block {interp.where_block()})")
    return full[source]


def shuffle_lanes(interp: SimInterpreter, op: Operation, mode: str, mask: Any, value: Any, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """`shfl.sync.<mode>` (PTX ISA §9.7.9.6) for the active threads: member mask, value, lane/offset
    `b`, clamp/segment `c`. Returns (the value read, whether the source lane was in range); out of
    range, a lane reads its own value."""
    lanes, warps = _member_mask(interp, op, mask)
    b = np.asarray(b).astype(np.int64) & 0x1F
    c = np.asarray(c).astype(np.int64)
    cval, segmask = c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lanes & segmask) | (cval & ~segmask)
    min_lane = lanes & segmask
    if mode == "up":
        j = lanes - b
        ok = j >= max_lane
    elif mode == "down":
        j = lanes + b
        ok = j <= max_lane
    elif mode == "bfly":
        j = lanes ^ b
        ok = j <= max_lane
    else:  # idx
        j = min_lane | (b & ~segmask)
        ok = j <= max_lane
    ok = np.broadcast_to(ok, lanes.shape)
    src = np.where(ok, j, lanes)
    return _exchange(interp, op, value, np.broadcast_to(src, lanes.shape), lanes, warps), ok


def _shuffle(mode: str, with_predicate: bool = False) -> Impl:
    """`nvvm.shfl.sync.<mode>.<t>` (mask, value, b, c) → value; the `…p` forms also give the predicate."""

    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        mask, value, b, c = args
        got, ok = shuffle_lanes(interp, op, mode, mask, value, b, c)
        return (got, ok.copy()) if with_predicate else (got,)

    return run


SHUFFLE_MODES = ("bfly", "up", "down", "idx")


def _per_warp_bits(interp: SimInterpreter, pred: Any, lanes: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """For each active thread: the ballot of its warp (bit l set when lane l's `pred` holds)."""
    on = np.broadcast_to(np.asarray(pred, bool), lanes.shape)
    return _lane_bits(interp, (warps * WARP + lanes)[on])[warps]


def _vote(kind: str) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        mask, pred = args
        lanes, warps = _member_mask(interp, op, mask)
        m = np.broadcast_to(np.asarray(mask).astype(np.int64) & 0xFFFFFFFF, lanes.shape).astype(np.uint64)
        yes = _per_warp_bits(interp, pred, lanes, warps) & m
        if kind == "ballot":
            return (yes.astype(np.uint32).view(np.int32),)
        if kind == "any":
            return (yes != 0,)
        no = _per_warp_bits(interp, ~np.asarray(pred, bool), lanes, warps) & m
        return (no == 0,)

    return run


def _activemask(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    lin = _linear(interp)
    lanes, warps = lin % WARP, lin // WARP
    return (_per_warp_bits(interp, True, lanes, warps).astype(np.uint32).view(np.int32),)


REDUX: dict[str, tuple[Callable[..., Any], bool]] = {
    "add": (np.add, False), "min": (np.minimum, False), "max": (np.maximum, False),
    "umin": (np.minimum, True), "umax": (np.maximum, True),
    "and": (np.bitwise_and, False), "or": (np.bitwise_or, False), "xor": (np.bitwise_xor, False),
}  # fmt: skip
"""`nvvm.redux.sync.<kind>` → (ufunc, on the unsigned view)."""


def _redux(kind: str) -> Impl:
    ufunc, unsigned = REDUX[kind]

    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        value, mask = args
        lanes, warps = _member_mask(interp, op, mask)
        v = np.broadcast_to(np.asarray(value, np.int32), lanes.shape)
        v = v.view(np.uint32) if unsigned else v
        m = np.broadcast_to(np.asarray(mask).astype(np.int64) & 0xFFFFFFFF, lanes.shape)
        in_mask = ((m >> lanes) & 1).astype(bool)
        out = np.empty(len(lanes), v.dtype)
        for w in np.unique(warps):
            sel = warps == w
            members = sel & in_mask
            out[sel] = ufunc.reduce(v[members]) if members.any() else 0
        return (out.view(np.int32),)

    return run


def _match_any(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    mask, value = args
    lanes, warps = _member_mask(interp, op, mask)
    v = np.broadcast_to(value, lanes.shape)
    m = np.broadcast_to(np.asarray(mask).astype(np.int64) & 0xFFFFFFFF, lanes.shape)
    same = (warps[:, None] == warps[None, :]) & (v[:, None] == v[None, :]) & (((m[:, None] >> lanes[None, :]) & 1) == 1)
    bits = (same * (np.int64(1) << lanes[None, :])).sum(axis=1)
    return (bits.astype(np.uint32).view(np.int32),)


def _no_op(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    return ()


def _warp_sync(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    """`bar.warp.sync mask`: every lane named must execute it (here: at this program point, or have
    exited), and the executing lane must be named (PTX: undefined otherwise)."""
    lanes, warps = _member_mask(interp, op, args[0])
    m = np.broadcast_to(np.asarray(args[0]).astype(np.int64) & 0xFFFFFFFF, lanes.shape)
    outside = ((m >> lanes) & 1) == 0
    if outside.any():
        k = int(np.flatnonzero(outside)[0])
        raise op_error(op, f"lane {int(lanes[k])} of warp {int(warps[k])} executes it but is not in its mask {int(m[k]):#010x} (undefined on the GPU; block {interp.where_block()})")
    return ()


def _nvvm_barrier(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    raise _nested_barrier(op)


NVVM_OPS: dict[str, Impl] = {
    **SREGS,
    **{f"nvvm.shfl.sync.{mode}.{ty}": _shuffle(mode) for mode in SHUFFLE_MODES for ty in ("i32", "f32")},
    **{f"nvvm.shfl.sync.{mode}.{ty}p": _shuffle(mode, True) for mode in SHUFFLE_MODES for ty in ("i32", "f32")},
    "nvvm.read.ptx.sreg.dynamic_smem_size": lambda ft, interp, op, args: (np.int32(interp.dynamic_shared_bytes),),
    "nvvm.barrier0.popc": _nvvm_barrier,
    "nvvm.barrier0.and": _nvvm_barrier,
    "nvvm.barrier0.or": _nvvm_barrier,
    "nvvm.vote.any.sync": _vote("any"),
    "nvvm.vote.all.sync": _vote("all"),
    "nvvm.vote.ballot.sync": _vote("ballot"),
    "nvvm.activemask": _activemask,
    **{f"nvvm.redux.sync.{kind}": _redux(kind) for kind in REDUX},
    "nvvm.match.any.sync.i32": _match_any,
    "nvvm.match.any.sync.i64": _match_any,
    "nvvm.bar.warp.sync": _warp_sync,
    "nvvm.barrier0": _nvvm_barrier,
    "nvvm.membar.cta": _no_op,
    "nvvm.membar.gl": _no_op,
    "nvvm.membar.sys": _no_op,
}
"""`nvvm` op name → implementation. An op of the catalog missing here is reported as unsupported."""


class NvvmFunctions(InterpreterFunctions):
    """`nvvm` ops, installed from `NVVM_OPS` (those the catalog defines)."""


for _name, _run in NVVM_OPS.items():
    if _name in nvvm.OPS:
        install(NvvmFunctions, nvvm.OPS[_name], _run)
register_impls(NvvmFunctions)


# --------------------------------------------------------------------------- gpu: warp collectives, reducing barriers, fences
#
# The `gpu` forms of the collectives name the whole warp (the mask `convert-gpu-to-nvvm` gives them is
# 0xffffffff), so they share the `nvvm` implementations above with that mask: every lane of the warp
# must execute them at this program point, or have exited.

FULL_MASK = np.int32(-1)
"""Every lane of the warp (0xffffffff as a signless i32), the mask of the `gpu`-level collectives."""

_GPU_SHUFFLE_MODE = {"xor": "bfly", "up": "up", "down": "down", "idx": "idx"}


def _gpu_shuffle(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    """`gpu.shuffle <mode> %v, %offset, %width` as `convert-gpu-to-nvvm` lowers it: `shfl.sync` with the
    full mask and the clamp `((32 - width) << 8) | 31` (`| 0` for `up`); a 64-bit value moves as its two
    32-bit halves, from the same source lane — the same as moving it whole."""
    value, offset, width = args
    mode = interp.static(op, lambda o: _GPU_SHUFFLE_MODE[o.mode.data.value])
    w = np.asarray(width).astype(np.int64)
    c = ((32 - w) << 8) | (0 if mode == "up" else 31)
    got, ok = shuffle_lanes(interp, op, mode, FULL_MASK, value, offset, c)
    return (got, ok.copy())


def _gpu_vote(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    kind = interp.static(op, lambda o: o.kind.data.value)
    return _VOTES[kind](ft, interp, op, (FULL_MASK, args[0]))


def _gpu_ballot(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    return _VOTES["ballot"](ft, interp, op, (FULL_MASK, args[0]))


def _gpu_match_any(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    return _match_any(ft, interp, op, (FULL_MASK, args[0]))


_VOTES = {"any": _vote("any"), "all": _vote("all"), "ballot": _vote("ballot")}


def _identity(kind: str, dt: np.dtype) -> Any:
    """The neutral element of an integer reduction (for lanes that exited before a `redux.sync`)."""
    info = np.iinfo(dt)
    u = np.iinfo(UNSIGNED.get(dt, dt))
    return {
        "add": 0, "or": 0, "xor": 0, "and": -1, "minsi": info.max, "maxsi": info.min,
        "minui": np.array(u.max, UNSIGNED[dt]).view(dt)[()], "maxui": 0,
    }[kind]  # fmt: skip


def _float_combine(kind: str) -> Callable[[Any, Any], Any]:
    from warpforge.simulator.arith import _maximumf, _maxnumf, _minimumf, _minnumf  # pyright: ignore[reportPrivateUsage]

    return {"add": np.add, "mul": np.multiply, "minnumf": _minnumf, "maxnumf": _maxnumf, "minimumf": _minimumf, "maximumf": _maximumf}[kind]


def _int_combine(kind: str, dt: np.dtype) -> Callable[[Any, Any], Any]:
    if kind in ("minui", "maxui"):
        udt = UNSIGNED[dt]
        fn = np.minimum if kind == "minui" else np.maximum
        return lambda a, b: fn(a.view(udt), b.view(udt)).view(dt)
    return {
        "add": np.add, "mul": np.multiply, "minsi": np.minimum, "maxsi": np.maximum,
        "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    }[kind]  # fmt: skip


_REDUX_KINDS = {"add": "add", "and": "and", "or": "or", "xor": "xor", "minsi": "min", "maxsi": "max", "minui": "umin", "maxui": "umax"}
"""`gpu.subgroup_reduce` ops that `convert-gpu-to-nvvm` turns into `redux.sync` (i32, whole warp, sm_80+)."""


def module_target(op: Operation) -> tuple[int, int]:
    """(sm, ptx) ×10 of the `#nvvm.target` of the `gpu.module` around `op` (sm_90 / PTX 8.0 without one)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.ModuleOp):
        parent = parent.parent_op()
    target = parent.target if parent is not None else None
    if isinstance(target, nvvm.NVVMTargetAttr):
        return target.sm, target.ptx
    return 90, 80


def _uses_redux(op: gpu.SubgroupReduceOp, kind: str) -> bool:
    """Whether `convert-gpu-to-nvvm` lowers `op` to `redux.sync` (else: a butterfly of shuffles)."""
    spec = nvvm.CATALOG.get(f"nvvm.redux.sync.{_REDUX_KINDS.get(kind, '')}")
    if spec is None or op.value.type != i32 or kind not in _REDUX_KINDS or op.size != 32:
        return False
    sm, ptx = module_target(op)
    return sm >= spec.min_sm and ptx >= spec.min_ptx


def _subgroup_info(op: gpu.SubgroupReduceOp) -> tuple[str, int, Callable[[Any, Any], Any], np.dtype, bool]:
    kind = op.op.data.value
    dt = dtype_of(op.value.type)
    combine = _float_combine(kind) if dt.kind == "f" or dt == BF16 else _int_combine(kind, dt)
    return kind, op.size, combine, dt, _uses_redux(op, kind)


def _subgroup_reduce(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    """`gpu.subgroup_reduce <op> %x [cluster(size = s)]`, combined in the order the GPU combines it:
    the butterfly of `convert-gpu-to-nvvm` — rounds with offsets s/2, …, 2, 1, each lane combining its
    value with lane `lane ^ offset`'s (`combine(own, other)`) — so float sums round as on the GPU and
    every lane of a cluster gets the same bits. Every lane of the warp that has not exited must execute
    it (the lowering's shuffles name the whole warp), and every lane of a cluster that executes it (the
    butterfly reads them all); `redux.sync` (32-bit integers over the whole warp on sm_80+) leaves
    exited lanes out, as PTX defines."""
    assert isinstance(op, gpu.SubgroupReduceOp)
    kind, size, combine, dt, redux = interp.static(op, _subgroup_info)
    lin = _linear(interp)
    nwarps = (interp.T + WARP - 1) // WARP
    present = np.zeros(nwarps * WARP, bool)
    present[lin] = True
    # the lowering's shuffles (or redux.sync) name the whole warp: a diverged lane is an error, even
    # in another cluster; exited lanes are allowed by the mask, and redux.sync leaves them out
    _member_mask(interp, op, FULL_MASK)
    if not redux:  # but the butterfly reads every lane of the cluster
        clusters = present.reshape(nwarps, WARP // size, size)
        partial = clusters.any(axis=2) & ~clusters.all(axis=2)
        if partial.any():
            w, c = (int(v) for v in np.argwhere(partial)[0])
            lane = c * size + int(np.flatnonzero(~clusters[w, c])[0])
            raise op_error(
                op,
                f"lane {lane} of warp {w} has exited (block {interp.where_block()}): a warp reduction over "
                f"{size} lanes needs every lane of the cluster (on the GPU it would read an undefined value)",
            )
    table = np.zeros(nwarps * WARP, dt)
    if redux:
        table[:] = _identity(kind, dt)
    table[lin] = args[0]
    table = table.reshape(nwarps, WARP)
    lanes = np.arange(WARP)
    offset = size // 2
    while offset >= 1:
        table = combine(table, table[:, lanes ^ offset])
        offset //= 2
    return (table.reshape(-1)[lin].astype(dt, copy=False),)


def _no_op_fence(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    """`gpu.thread_fence`: the simulator runs one group of threads at a time, one op after another, so
    memory is sequentially consistent and a fence has nothing to order."""
    return ()


def _gpu_warp_sync(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    return _warp_sync(ft, interp, op, args)


def _gpu_barrier_reduce(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    raise _nested_barrier(op)


def _printf(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    """`gpu.printf`: one line per thread running it, in thread order (linear id, x fastest), formatted
    by printf's rules (`_printf.format_printf`), written to `sys.stdout` at once (the GPU's appear at
    the next synchronization; the simulator's launch is synchronous)."""
    fmt = op.format.data  # pyright: ignore[reportAttributeAccessIssue]
    n = interp.frame.n
    columns = [a if type(a) is np.ndarray else None for a in args]
    out = []
    for j in range(n):
        out.append(format_printf(fmt, [a if c is None else c[j] for a, c in zip(args, columns)]))
    sys.stdout.write("".join(out))
    return ()


GPU_OPS: dict[type[Operation], Impl] = {
    gpu.PrintfOp: _printf,
    gpu.ShuffleOp: _gpu_shuffle,
    gpu.VoteOp: _gpu_vote,
    gpu.BallotOp: _gpu_ballot,
    gpu.ActiveMaskOp: _activemask,
    gpu.MatchAnyOp: _gpu_match_any,
    gpu.SubgroupReduceOp: _subgroup_reduce,
    gpu.ThreadFenceOp: _no_op_fence,
    gpu.WarpSyncOp: _gpu_warp_sync,
    gpu.BarrierReduceOp: _gpu_barrier_reduce,  # only reached inside a region: the scheduler handles it
}
"""`gpu` collectives, fences and the reducing barrier (outside the scheduler) → implementation."""

for _op_type, _run in GPU_OPS.items():
    install(GpuFunctions, _op_type, _run)
register_impls(GpuFunctions)
