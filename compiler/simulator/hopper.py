"""Hopper warpgroup-control `nvvm` ops in the simulator.

The simulator runs memory operations in program order and has no asynchronous proxy, no register
allocation and (yet) no wgmma: `fence.proxy.async`, `setmaxnreg.{inc,dec}` and the wgmma
fence/commit/wait therefore change nothing observable and run as no-ops.
"""

from __future__ import annotations

from typing import Any

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.dialects import nvvm
from warpforge.simulator.engine import SimInterpreter

NO_OPS = (
    "nvvm.fence.proxy.async.shared.cta", "nvvm.fence.proxy.async", "nvvm.setmaxnreg.inc", "nvvm.setmaxnreg.dec",
    "nvvm.wgmma.fence.aligned", "nvvm.wgmma.commit.group.sync.aligned", "nvvm.wgmma.wait.group.sync.aligned",
)  # fmt: skip


def _no_op(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    return ()


_namespace: dict[str, Any] = {f"run_{name.replace('.', '_')}": impl(nvvm.op(name))(_no_op) for name in NO_OPS}
HopperFunctions = register_impls(type("HopperFunctions", (InterpreterFunctions,), _namespace))
"""`InterpreterFunctions` for the Hopper ops the simulator runs as no-ops (`NO_OPS`)."""
