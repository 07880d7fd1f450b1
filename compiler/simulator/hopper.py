"""Hopper ops in the simulator: `nvvm` warpgroup control, and the `nvgpu` mbarrier and TMA ops.

The simulator runs memory operations in program order and has no asynchronous proxy, no register
allocation and (yet) no wgmma: `fence.proxy.async`, `prefetch.tensormap`, `setmaxnreg.{inc,dec}`,
the wgmma fence/commit/wait and the bulk async-group commit/wait therefore change nothing observable
and run as no-ops (`NO_OPS`). `elect.sync` elects the lowest active lane of each warp, as the GPU
does (PTX ISA §9.7.13.12).

**mbarriers** (`nvgpu.mbarrier.*`, PTX ISA §9.7.13.15) are modelled per CTA: a barrier has its
expected arrival count, the arrivals still pending in the current phase, a transaction count (bytes)
and the phase number. `init` starts phase 0; each arriving thread decrements the pending count
(`arrive.expect_tx` first adds its bytes to the transaction count); a TMA load's completion subtracts
its bytes. When both reach zero the phase completes: the phase number advances and the pending count
is reset. `try_wait.parity p` is true when the phase of parity `p` has completed, i.e. the current
phase's parity differs from `p` (PTX ISA §9.7.13.15.16; one difference was seen on the H200: a
`try_wait.parity 0` right after `init`, before any arrival, returned true there —
`tests/test_hopper_simt_tma.py` keeps it as an expected failure until it is understood). More arrivals than a phase expects is a `SimulatorError` (undefined
on the GPU), as is using a barrier before its `init`.

**TMA copies** (`nvgpu.tma.async.load/store`, PTX ISA §9.7.9.25.5) complete when issued: a load
reads the box at the issuing thread's coordinates from the descriptor's tensor (the simulated
buffer's host array; elements outside the tensor read as zero, as the GPU's zero fill), writes it
into the shared array in the descriptor's swizzle (CUTLASS's `Swizzle<B, 4, 3>`: 16-byte chunk bits
4..4+B of the byte offset XORed with bits 7..7+B, B = 1, 2, 3 for 32B, 64B, 128B), and completes the
box's bytes on the barrier; a store writes the in-bounds part of the (unswizzled) box back.

What this cannot show: the GPU's copies are asynchronous, so a kernel that reads the shared box
before waiting on the barrier may see old data there, and may see the new data here. The simulator
runs the threads at the lowest program point first; a wait that only a later program point (another
branch, e.g. a producer warp) could satisfy never completes here: after `SPIN_LIMIT` failed tries in
a row the simulator stops with a `SimulatorError` naming the wait, instead of spinning to its step limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.dialects import nvgpu_hopper, nvvm
from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.values import MemRef, op_error

SPIN_LIMIT = 10_000
"""Failed `try_wait`s in a row on one barrier phase after which the simulator reports a wait that
cannot complete in its schedule."""

NO_OPS = (
    "nvvm.fence.proxy.async.shared.cta", "nvvm.fence.proxy.async", "nvvm.setmaxnreg.inc", "nvvm.setmaxnreg.dec",
    "nvvm.wgmma.fence.aligned", "nvvm.wgmma.commit.group.sync.aligned", "nvvm.wgmma.wait.group.sync.aligned",
    "nvvm.prefetch.tensormap", "nvvm.cp.async.bulk.commit.group", "nvvm.cp.async.bulk.wait_group",
    "nvvm.cp.async.bulk.wait_group.read",
)  # fmt: skip


NOT_SIMULATED = (
    "nvvm.mbarrier.init.shared", "nvvm.mbarrier.arrive.shared", "nvvm.mbarrier.arrive.expect_tx",
    "nvvm.mbarrier.try_wait.parity", "nvvm.barrier", "nvvm.barrier.arrive",
)  # fmt: skip


def _no_op(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    return ()


def _not_simulated(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    raise op_error(
        op,
        "is not interpreted by the simulator: it simulates the gpu level, where mbarriers are nvgpu.mbarrier.* ops "
        "(simt.mbarrier); counted named barriers are not modelled; run it on a GPU",
    )


def _elect_sync(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    tids = interp.frame.tids
    lin = interp.linear_tid if tids is None else tids
    warps = lin // 32
    leader_of = {int(w): int(lin[warps == w].min()) for w in np.unique(warps)}
    leaders = np.array([leader_of[int(w)] for w in warps], dtype=np.int64)
    return ((leaders % 32).astype(np.int32), lin == leaders)


def _linear(interp: SimInterpreter) -> np.ndarray:
    tids = interp.frame.tids
    return interp.linear_tid if tids is None else tids


def _per_thread(x: Any, n: int) -> np.ndarray:
    return x if type(x) is np.ndarray else np.full(n, x)


@dataclass
class _Barrier:
    count: int
    pending: int
    tx: int = 0
    phase: int = 0
    failed: int = 0


def _barriers(interp: SimInterpreter) -> dict[int, _Barrier]:
    """This CTA's mbarriers by the identity of their shared memory (new for each block)."""
    st = getattr(interp, "_mbarriers", None)
    if st is None or st[0] is not interp.shared:
        st = (interp.shared, {})
        interp._mbarriers = st  # pyright: ignore[reportAttributeAccessIssue]
    return st[1]


def _barrier(interp: SimInterpreter, op: Any, m: Any) -> _Barrier:
    if not isinstance(m, MemRef):
        raise op_error(op, "the mbarrier differs between threads; the simulator does not support that")
    b = _barriers(interp).get(id(m.data))
    if b is None:
        raise op_error(op, f"uses an mbarrier before simt.mbarrier_init initialized it (block {interp.where_block()}); on the GPU its state is undefined")
    return b


def _complete(b: _Barrier) -> None:
    if b.pending == 0 and b.tx == 0:
        b.phase += 1
        b.pending = b.count
        b.failed = 0


def _arrive(interp: SimInterpreter, op: Any, b: _Barrier, n: int) -> None:
    if n > b.pending:
        raise op_error(
            op,
            f"{n} threads arrive on an mbarrier whose phase {b.phase} expects only {b.pending} more arrivals of {b.count} "
            f"(block {interp.where_block()}); on the GPU that is undefined behaviour",
        )
    b.pending -= n
    _complete(b)


_SWIZZLE_BITS = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


def _swizzled_offsets(nbytes: int, itemsize: int, swizzle: str) -> np.ndarray:
    """For each element of a box in row-major order, its element offset in shared memory under the
    swizzle (`Swizzle<B, 4, 3>` on the byte offset; identity for "none")."""
    flat = np.arange(nbytes // itemsize, dtype=np.int64)
    bits = _SWIZZLE_BITS[swizzle]
    if not bits:
        return flat
    addr = flat * itemsize
    addr = addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
    return addr // itemsize


def _box_slices(host: np.ndarray, start: list[int], box: tuple[int, ...]) -> tuple[tuple[slice, ...], tuple[slice, ...]] | None:
    """The in-bounds part of the box at `start`: (slices of the tensor, slices of the box), or None when empty."""
    src, dst = [], []
    for s, b, n in zip(start, box, host.shape):
        lo, hi = max(s, 0), min(s + b, n)
        if lo >= hi:
            return None
        src.append(slice(lo, hi))
        dst.append(slice(lo - s, hi - s))
    return tuple(src), tuple(dst)


def _coords(args: Any, n: int) -> np.ndarray:
    return np.stack([_per_thread(c, n).astype(np.int64) for c in args], axis=-1).reshape(n, len(args))


def _tensor_map(op: Any, desc: Any) -> Any:
    host = getattr(desc, "host", None)
    if not isinstance(host, np.ndarray):
        raise op_error(op, "the simulator needs the descriptor of a simulated buffer (wf.tensor_map of a DeviceBuffer on the simulator)")
    return desc


def _mbarrier_init(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    m, count = args
    counts = np.unique(_per_thread(count, len(_linear(interp))))
    if len(counts) != 1:
        raise op_error(op, f"threads initialize one mbarrier with different counts {counts.tolist()} (block {interp.where_block()})")
    _barriers(interp)[id(m.data)] = _Barrier(int(counts[0]), int(counts[0]))
    return ()


def _mbarrier_arrive(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    _arrive(interp, op, _barrier(interp, op, args[0]), len(_linear(interp)))
    return ()


def _mbarrier_arrive_expect_tx(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    b = _barrier(interp, op, args[0])
    n = len(_linear(interp))
    b.tx += int(_per_thread(args[1], n).astype(np.int64).sum())
    _arrive(interp, op, b, n)
    return ()


def _mbarrier_try_wait(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    b = _barrier(interp, op, args[0])
    n = len(_linear(interp))
    parity = _per_thread(args[1], n).astype(np.int64) & 1
    done = parity != (b.phase & 1)
    if done.any():
        b.failed = 0
    else:
        b.failed += 1
        if b.failed > SPIN_LIMIT:
            raise op_error(
                op,
                f"waits for phase parity {int(parity[0])} of an mbarrier in phase {b.phase} ({b.pending} of {b.count} arrivals and "
                f"{b.tx} transaction bytes outstanding) and no thread the simulator can run completes it (block {interp.where_block()}): "
                "the expected arrivals or bytes never come, or only a later program point (another branch) provides them, "
                "which the simulator's lowest-program-point-first schedule cannot reach while this wait spins",
            )
    return (done,)


def _tma_box(interp: SimInterpreter, op: Any, desc: Any, coords: PythonValues) -> tuple[np.ndarray, tuple[int, ...], np.ndarray, np.ndarray]:
    """What a TMA copy of `op` moves: the tensor's host memory, the box (outermost first), each
    issuing thread's box start (threads × rank) and the box's elements in shared-memory order (its
    swizzle)."""
    t = op.tensorMapDescriptor.type
    box, swizzle = t.dims, t.swizzle.data
    host: np.ndarray = _tensor_map(op, desc).host
    starts = _coords(coords, len(_linear(interp)))
    order = _swizzled_offsets(int(np.prod(box)) * host.itemsize, host.itemsize, swizzle)
    return host, box, starts, order


def _tma_load(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    rank = interp.static(op, lambda o: len(o.coordinates))
    host, box, starts, order = _tma_box(interp, op, args[0], args[1 : 1 + rank])
    m, dst = args[1 + rank], args[2 + rank]
    b = _barrier(interp, op, m)
    for k in range(len(starts)):  # each issuing thread's copy, in thread order
        tile = np.zeros(box, host.dtype)
        parts = _box_slices(host, starts[k].tolist(), box)
        if parts is not None:
            tile[parts[1]] = host[parts[0]]
        dst.data[order] = tile.reshape(-1).view(dst.data.dtype) if tile.dtype != dst.data.dtype else tile.reshape(-1)
        b.tx -= int(tile.nbytes)
        _complete(b)
    return ()


def _tma_store(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    rank = interp.static(op, lambda o: len(o.coordinates))
    src = args[0]
    host, box, starts, order = _tma_box(interp, op, args[1], args[2 : 2 + rank])
    tile = src.data[order].reshape(box)
    if tile.dtype != host.dtype:
        tile = tile.view(host.dtype)
    for k in range(len(starts)):
        parts = _box_slices(host, starts[k].tolist(), box)
        if parts is not None:
            host[parts[0]] = tile[parts[1]]
    return ()


_namespace: dict[str, Any] = {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_no_op) for name in NO_OPS}
_namespace |= {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_not_simulated) for name in NOT_SIMULATED}
_namespace["run_elect_sync"] = impl(nvvm.op("nvvm.elect.sync"))(_elect_sync)
_namespace["run_mbarrier_init"] = impl(nvgpu_hopper.MBarrierInitOp)(_mbarrier_init)
_namespace["run_mbarrier_arrive"] = impl(nvgpu_hopper.MBarrierArriveOp)(_mbarrier_arrive)
_namespace["run_mbarrier_arrive_expect_tx"] = impl(nvgpu_hopper.MBarrierArriveExpectTxOp)(_mbarrier_arrive_expect_tx)
_namespace["run_mbarrier_try_wait"] = impl(nvgpu_hopper.MBarrierTryWaitParityOp)(_mbarrier_try_wait)
_namespace["run_tma_load"] = impl(nvgpu_hopper.TmaAsyncLoadOp)(_tma_load)
_namespace["run_tma_store"] = impl(nvgpu_hopper.TmaAsyncStoreOp)(_tma_store)
HopperFunctions = register_impls(type("HopperFunctions", (InterpreterFunctions,), _namespace))
"""`InterpreterFunctions` for the Hopper ops: no-ops (`NO_OPS`), elect.sync, mbarriers and TMA copies."""
