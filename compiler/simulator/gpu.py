"""`gpu` and `nvvm` ops: thread and block ids, barriers, fences, warp collectives.

Ids come from the running block: `gpu.thread_id` is per thread, `gpu.block_id`/`block_dim`/
`grid_dim` are uniform over the block. A thread's lane is its linear id (x fastest) mod 32, its warp
the linear id // 32, as on the GPU.

Barriers (`BARRIER_OPS`) are handled by the scheduler, which cuts the CFG there (see `engine`); an
implementation runs only for a barrier inside an `scf` region or a called function, which the
simulator does not support. Fences are no-ops: the simulator runs one thread group at a time, so
memory is always coherent.

Warp collectives (`nvvm.shfl.sync.*`, `nvvm.vote.*`, `nvvm.redux.sync.*`, `nvvm.match.any.sync.*`,
`nvvm.activemask`) exchange values among the lanes of each warp that execute them together — the
scheduler runs all threads at one program point at once. PTX requires every non-exited lane named
in the member mask to execute the same instruction: a mask naming a lane at another program point
is a `SimulatorError`; so is a shuffle reading a lane that is not executing it (undefined on the
GPU). Tables: `SREGS`, `SHUFFLE_MODES`, `REDUX`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from warpforge.dialects import gpu, nvvm
from warpforge.simulator.engine import Impl, SimInterpreter, install
from warpforge.simulator.values import op_error

WARP = 32

BARRIER_OPS: frozenset[type[Operation]] = frozenset({gpu.BarrierOp, nvvm.op("nvvm.barrier0")})
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


def _shuffle(mode: str) -> Impl:
    """`shfl.sync.<mode>` (PTX ISA §9.7.9.6): mask, value, lane/offset `b`, clamp/segment `c`."""

    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        mask, value, b, c = args
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
        src = np.where(ok, j, lanes)
        return (_exchange(interp, op, value, np.broadcast_to(src, lanes.shape), lanes, warps),)

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
    _member_mask(interp, op, args[0])
    return ()


def _nvvm_barrier(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    raise _nested_barrier(op)


NVVM_OPS: dict[str, Impl] = {
    **SREGS,
    **{f"nvvm.shfl.sync.{mode}.{ty}": _shuffle(mode) for mode in SHUFFLE_MODES for ty in ("i32", "f32")},
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
