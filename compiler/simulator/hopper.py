"""Hopper `nvvm` ops in the simulator.

The simulator runs memory operations in program order and has no asynchronous proxy, no register
allocation and (yet) no wgmma: `fence.proxy.async`, `prefetch.tensormap`, `setmaxnreg.{inc,dec}` and
the wgmma fence/commit/wait therefore change nothing observable and run as no-ops (`NO_OPS`).
`elect.sync` elects the lowest active lane of each warp, as the GPU does (PTX ISA §9.7.13.12).

Not interpreted (`NOT_SIMULATED`, a `SimulatorError` naming the op): mbarriers and named barriers
with a thread count — they take `llvm` pointers or need arrival counting across warps that the
simulator's barrier segments do not model; SIMT kernels do not produce them yet. (The TMA copies,
`nvvm.cp.async.bulk.*`, likewise appear only in nvvm-level IR.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.dialects import nvvm
from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.values import op_error

NO_OPS = (
    "nvvm.fence.proxy.async.shared.cta", "nvvm.fence.proxy.async", "nvvm.setmaxnreg.inc", "nvvm.setmaxnreg.dec",
    "nvvm.wgmma.fence.aligned", "nvvm.wgmma.commit.group.sync.aligned", "nvvm.wgmma.wait.group.sync.aligned",
    "nvvm.prefetch.tensormap",
)  # fmt: skip


NOT_SIMULATED = (
    "nvvm.mbarrier.init.shared", "nvvm.mbarrier.arrive.shared", "nvvm.mbarrier.arrive.expect_tx",
    "nvvm.mbarrier.try_wait.parity", "nvvm.barrier", "nvvm.barrier.arrive",
)  # fmt: skip


def _no_op(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    return ()


def _not_simulated(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    raise op_error(op, "is not interpreted by the simulator (mbarriers and counted named barriers are not modelled); run it on a GPU")


def _elect_sync(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    tids = interp.frame.tids
    lin = interp.linear_tid if tids is None else tids
    warps = lin // 32
    leader_of = {int(w): int(lin[warps == w].min()) for w in np.unique(warps)}
    leaders = np.array([leader_of[int(w)] for w in warps], dtype=np.int64)
    return ((leaders % 32).astype(np.int32), lin == leaders)


_namespace: dict[str, Any] = {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_no_op) for name in NO_OPS}
_namespace |= {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_not_simulated) for name in NOT_SIMULATED}
_namespace["run_elect_sync"] = impl(nvvm.op("nvvm.elect.sync"))(_elect_sync)
HopperFunctions = register_impls(type("HopperFunctions", (InterpreterFunctions,), _namespace))
"""`InterpreterFunctions` for the Hopper ops the simulator runs as no-ops (`NO_OPS`)."""
