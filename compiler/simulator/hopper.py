"""Hopper ops in the simulator: `nvvm` warpgroup control, and the `nvgpu` mbarrier and TMA ops.

The simulator runs memory operations in program order and has no asynchronous proxy and no register
allocation: `fence.proxy.async`, `prefetch.tensormap`, `setmaxnreg.{inc,dec}`, the wgmma
fence/commit/wait and the bulk async-group commit/wait therefore change nothing observable and run
as no-ops (`NO_OPS`); `wgmma.mma_async` itself is `warpforge.simulator.wgmma` (executed per
warpgroup, its result written at once). `elect.sync` elects the lowest active lane of each warp, as
the GPU does (PTX ISA §9.7.13.12).

**Shared-window addresses** (`memref.extract_aligned_pointer_as_index` of shared memory, which
wgmma descriptors and `nvvm.mbarrier.wait.parity` carry): the CTA's dynamic shared memory starts at
`DYNAMIC_SHARED_ADDRESS` (16-byte aligned, not 1024-byte aligned, so a kernel's own alignment of its
rings is exercised), other shared allocations follow it; `_shared_bytes` maps an address back.
mbarriers are keyed by that location (allocation, byte offset), so two `memref.view`s of the same
bytes are one barrier. `nvvm.mbarrier.wait.parity` (the blocking wait) must find its phase complete
when it runs: one that would block is a `SimulatorError` (nothing else runs while an op runs).

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

from xdsl.dialects import llvm, memref

from warpforge.dialects import nvgpu_hopper, nvvm
from warpforge.simulator.arith import CONSTANT_OPS
from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.values import BF16, MemRef, dtype_of, op_error

SHARED = 3

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


DYNAMIC_SHARED_ADDRESS = 0x410
"""Where the simulator places a CTA's dynamic shared memory in the shared window (bytes): 16-byte
aligned, as CUDA guarantees, and deliberately not 1024-byte aligned, so a kernel that needs a
1024-byte aligned ring (wgmma's and TMA's 128-byte swizzle) must align it itself, as on the GPU."""


@dataclass
class _SharedWindow:
    """One CTA's shared-memory state: its mbarriers by location, and the shared-window address of
    each allocation whose address a kernel took (`memref.extract_aligned_pointer_as_index`)."""

    barriers: dict[tuple[int, int], _Barrier]
    bases: dict[int, tuple[int, np.ndarray]]  # id(root array) -> (address, root bytes)
    end: int = 0


def _window(interp: SimInterpreter) -> _SharedWindow:
    """This CTA's `_SharedWindow` (new for each block, with its fresh shared memory)."""
    st = getattr(interp, "_shared_window", None)
    if st is None or st[0] is not interp.shared:
        st = (interp.shared, _SharedWindow({}, {}))
        interp._shared_window = st  # pyright: ignore[reportAttributeAccessIssue]
    return st[1]


def _barriers(interp: SimInterpreter) -> dict[tuple[int, int], _Barrier]:
    """This CTA's mbarriers by location (`_location`: the same bytes through any view are one barrier)."""
    return _window(interp).barriers


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _pointer(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _location(m: MemRef) -> tuple[int, int]:
    """(identity of the allocation, byte offset in it) of a memref's first element: views of one
    allocation (`memref.view` of the dynamic shared memory) at the same bytes name the same place."""
    root = _root(m.data)
    return id(root), _pointer(m.data) - _pointer(root)


def shared_address(interp: SimInterpreter, m: MemRef) -> int:
    """The shared-window byte address of a shared memref's first element in this CTA: the dynamic
    shared memory at `DYNAMIC_SHARED_ADDRESS`, other shared allocations after it (16-byte aligned)
    in the order their address is first taken."""
    w = _window(interp)
    root = _root(m.data)
    entry = w.bases.get(id(root))
    if entry is None:
        nbytes = root.size * root.itemsize
        dynamic = interp.shared.get(("dynamic-shared",))  # pyright: ignore[reportArgumentType]
        if dynamic is not None and _root(dynamic.data) is root:
            base = DYNAMIC_SHARED_ADDRESS
        else:
            dyn = DYNAMIC_SHARED_ADDRESS + int(interp.dynamic_shared_bytes)
            base = (max(w.end, dyn) + 15) & ~15
        w.end = max(w.end, base + nbytes)
        entry = (base, root.reshape(-1).view(np.uint8))
        w.bases[id(root)] = entry
    return entry[0] + _pointer(m.data) - _pointer(root)


def _shared_bytes(interp: SimInterpreter, op: Any, address: int, what: str) -> tuple[int, np.ndarray, int]:
    """The shared allocation holding window `address`: (its identity, its bytes, the address's offset in it)."""
    for key, (base, raw) in _window(interp).bases.items():
        if base <= address < base + raw.size:
            return key, raw, address - base
    known = ", ".join(f"[{b:#x}, {b + r.size:#x})" for b, r in _window(interp).bases.values()) or "none"
    raise op_error(op, f"{what} {address:#x} is in no shared allocation of this CTA (block {interp.where_block()}; allocations: {known})")


def _barrier(interp: SimInterpreter, op: Any, m: Any) -> _Barrier:
    if not isinstance(m, MemRef):
        raise op_error(op, "the mbarrier differs between threads; the simulator does not support that")
    b = _barriers(interp).get(_location(m))
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
    _barriers(interp)[_location(m)] = _Barrier(int(counts[0]), int(counts[0]))
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
    return (_try_wait(interp, op, _barrier(interp, op, args[0]), args[1]),)


def _mbarrier_wait_parity(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    """`nvvm.mbarrier.wait.parity %addr, %parity`: the blocking wait (a try_wait loop in one op). The
    threads running it together cannot give way to others inside an op, so the phase must already
    be complete for every one of them; a wait that would block is a `SimulatorError` (on the GPU it
    hangs, or only another program point could release it, which the simulator's schedule does not
    reach from inside the op)."""
    n = len(_linear(interp))
    addrs = np.unique(_per_thread(args[0], n).astype(np.int64) & 0xFFFFFFFF)
    parity = _per_thread(args[1], n).astype(np.int64) & 1
    for address in addrs.tolist():
        key, _, offset = _shared_bytes(interp, op, int(address), "the mbarrier address")
        b = _barriers(interp).get((key, offset))
        if b is None:
            raise op_error(op, f"waits on shared address {int(address):#x}, where simt.mbarrier_init initialized no mbarrier (block {interp.where_block()})")
        mine = parity[(_per_thread(args[0], n).astype(np.int64) & 0xFFFFFFFF) == address]
        blocked = mine == (b.phase & 1)
        if blocked.any():
            raise op_error(
                op,
                f"waits for phase parity {int(mine[blocked][0])} of the mbarrier at {int(address):#x}, in phase {b.phase} ({b.pending} of "
                f"{b.count} arrivals and {b.tx} transaction bytes outstanding), and nothing the simulator ran before it completes "
                f"that phase (block {interp.where_block()}): the arrivals or bytes never come (a hang on the GPU), or only threads "
                "at a later program point provide them, which the simulator cannot run while this wait blocks",
            )
    return ()


def _try_wait(interp: SimInterpreter, op: Any, b: _Barrier, parity_arg: Any) -> np.ndarray:
    n = len(_linear(interp))
    parity = _per_thread(parity_arg, n).astype(np.int64) & 1
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
    return done


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


def _extract_aligned_pointer(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    """`memref.extract_aligned_pointer_as_index`: for shared memory its shared-window address
    (`shared_address`), which `nvvm.mbarrier.wait.parity` and wgmma descriptors carry; for global
    memory the host array's address (what the runtime's alignment checks see on the simulator)."""
    m = args[0]
    if not isinstance(m, MemRef) or m.per_thread:
        raise op_error(op, "takes the address of thread-private or per-thread memory; the simulator has no address for it")
    if m.space == SHARED:
        return (np.int64(shared_address(interp, m)),)
    return (np.int64(_pointer(m.data)),)


def _undef_value(op: Any) -> Any:
    """`llvm.mlir.undef`: NaN for floats (an undefined register read by mistake shows), 0 otherwise."""
    dt = dtype_of(op.res.type)
    return dt.type(np.nan) if dt.kind == "f" or dt == BF16 else dt.type(0)


def _undef(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    return (interp.static(op, _undef_value),)


def _wait_accumulators(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    """`nvvm.wgmma.wait_accumulators`: the accumulators unchanged (the simulator's wgmma writes them at once)."""
    return args


def _cvt_rn_x2(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    """`nvvm.cvt.rn.x2.f32`: hi and lo rounded to nearest-even to f16/bf16, packed (hi in the upper half) into an i32."""
    dt = np.dtype(np.float16) if op.type.data == "f16" else BF16
    assert dt is not None

    def bits(x: Any) -> np.ndarray:
        return np.asarray(x, np.float32).astype(dt).view(np.uint16).astype(np.uint32)

    return ((bits(args[0]) << 16 | bits(args[1])).view(np.int32),)


_namespace: dict[str, Any] = {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_no_op) for name in NO_OPS}
_namespace |= {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_not_simulated) for name in NOT_SIMULATED}
_namespace["run_elect_sync"] = impl(nvvm.op("nvvm.elect.sync"))(_elect_sync)
_namespace["run_mbarrier_init"] = impl(nvgpu_hopper.MBarrierInitOp)(_mbarrier_init)
_namespace["run_mbarrier_arrive"] = impl(nvgpu_hopper.MBarrierArriveOp)(_mbarrier_arrive)
_namespace["run_mbarrier_arrive_expect_tx"] = impl(nvgpu_hopper.MBarrierArriveExpectTxOp)(_mbarrier_arrive_expect_tx)
_namespace["run_mbarrier_try_wait"] = impl(nvgpu_hopper.MBarrierTryWaitParityOp)(_mbarrier_try_wait)
_namespace["run_tma_load"] = impl(nvgpu_hopper.TmaAsyncLoadOp)(_tma_load)
_namespace["run_tma_store"] = impl(nvgpu_hopper.TmaAsyncStoreOp)(_tma_store)
_namespace["run_mbarrier_wait_parity"] = impl(nvvm.MBarrierWaitParityOp)(_mbarrier_wait_parity)
_namespace["run_wgmma_wait_accumulators"] = impl(nvvm.WgmmaWaitAccumulatorsOp)(_wait_accumulators)
_namespace["run_cvt_rn_x2_f32"] = impl(nvvm.CvtRnX2F32Op)(_cvt_rn_x2)
_namespace["run_extract_aligned_pointer"] = impl(memref.ExtractAlignedPointerAsIndexOp)(_extract_aligned_pointer)
_namespace["run_undef"] = impl(llvm.UndefOp)(_undef)
CONSTANT_OPS[llvm.UndefOp] = _undef_value
HopperFunctions = register_impls(type("HopperFunctions", (InterpreterFunctions,), _namespace))
"""`InterpreterFunctions` for the Hopper ops: no-ops (`NO_OPS`), elect.sync, mbarriers and TMA copies."""
