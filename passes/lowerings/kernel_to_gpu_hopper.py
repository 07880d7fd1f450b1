"""`kernel-to-gpu` lowerings of the mbarrier and TMA ops (`dialects/kernel_hopper.py`) to the `nvgpu`
ops of `dialects/nvgpu_hopper.py`; registered into `kernel_to_gpu`'s table with `@lowers` when that
module loads.

| `kernel` op | becomes |
|---|---|
| `kernel.mbarrier_init` | `nvgpu.mbarrier.init`, then `nvvm.fence.proxy.async.shared.cta` (the initialized barrier is visible to the TMA unit's complete-tx) |
| `kernel.mbarrier_arrive` / `_arrive_expect_tx` / `_try_wait_parity` | `nvgpu.mbarrier.arrive` / `.arrive.expect_tx` / `.try_wait.parity` |
| `kernel.elect_sync` | `nvvm.elect.sync` with the full mask `0xffffffff`, its `i1` (the leader) |
| `kernel.tma_load` / `kernel.tma_store` | `nvgpu.tma.async.load` / `nvgpu.tma.async.store` (coordinates i32, outermost first) |

The `!kernel.tensor_map` parameter itself becomes `!nvgpu.tensormap.descriptor` (`convert_type`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import Operation

from warpforge.dialects import kernel_hopper, nvgpu_hopper, nvvm
from warpforge.passes.kernel_to_gpu import Emitter, FunctionLowering, lowers


@lowers(kernel_hopper.MbarrierInitOp)
def _init(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_hopper.MbarrierInitOp)
    emit(nvgpu_hopper.MBarrierInitOp(fl.v(op.barrier), fl.v(op.count)))
    emit(nvvm.op("nvvm.fence.proxy.async.shared.cta")())
    return None


@lowers(kernel_hopper.MbarrierArriveOp)
def _arrive(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_hopper.MbarrierArriveOp)
    emit(nvgpu_hopper.MBarrierArriveOp(fl.v(op.barrier)))
    return None


@lowers(kernel_hopper.MbarrierArriveExpectTxOp)
def _arrive_expect_tx(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_hopper.MbarrierArriveExpectTxOp)
    emit(nvgpu_hopper.MBarrierArriveExpectTxOp(fl.v(op.barrier), fl.v(op.tx_count)))
    return None


@lowers(kernel_hopper.MbarrierTryWaitParityOp)
def _try_wait(fl: FunctionLowering, op: Operation, emit: Emitter):
    assert isinstance(op, kernel_hopper.MbarrierTryWaitParityOp)
    return emit(nvgpu_hopper.MBarrierTryWaitParityOp(fl.v(op.barrier), fl.v(op.parity)))


@lowers(kernel_hopper.TmaLoadOp)
def _tma_load(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_hopper.TmaLoadOp)
    emit(nvgpu_hopper.TmaAsyncLoadOp(fl.v(op.desc), [fl.v(c) for c in op.coords], fl.v(op.barrier), fl.v(op.tile)))
    return None


@lowers(kernel_hopper.TmaStoreOp)
def _tma_store(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_hopper.TmaStoreOp)
    emit(nvgpu_hopper.TmaAsyncStoreOp(fl.v(op.tile), fl.v(op.desc), [fl.v(c) for c in op.coords]))
    return None


@lowers(kernel_hopper.ElectSyncOp)
def _elect_sync(fl: FunctionLowering, op: Operation, emit: Emitter):
    elect = nvvm.op("nvvm.elect.sync")(emit.const(-1, i32))
    emit(elect)
    return elect.results[1]
