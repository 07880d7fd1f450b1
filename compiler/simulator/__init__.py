"""The CPU simulator: runs a kernel's `gpu`-level IR (the IR the GPU path lowers to PTX) on the CPU,
as the GPU would — so CI checks warpforge's semantics, and its lowering, without a GPU.

```python
import numpy as np
from warpforge import simulator

c = np.full(1000, np.nan, np.float32)
simulator.run(vecadd, 4, 256, a, b, c)          # a @simt.kernel; KernelError as on the GPU
simulator.simulate(module, "vecadd", (4, 1, 1), (256, 1, 1), [a, b, c, np.zeros(8, np.int64)])
```

Programs use it through the runtime's API instead: `wf.Device.simulator()` (or `wf.Device(0)` with
`WARPFORGE_SIMULATE=1`, which `warpforge run` sets without a GPU) is a device whose buffers, `prepare`,
`launch` and `kernel[grid, block]` run here (`warpforge.runtime.simulated`). It compiles for `sm_90`;
`wf.Device.simulator(chip="sm_90a")` (or `WARPFORGE_SIM_CHIP=sm_90a`) compiles tile kernels as for an
H100/H200 — `tile.dot` on wgmma fed by the TMA + mbarrier ring — and runs that (`hopper`, `wgmma`).

Design (details in `engine`): op implementations are xDSL interpreter functions (`arith`, `math`
and libdevice, `memref`, `cf`/`scf`/`func`, `gpu`, `nvvm`), *vectorized*: a value is a NumPy array
holding it for every thread that executes the op together, so one op costs one NumPy call. Blocks
run one after another; in a block the threads at the same program point run together, divergent
branches split them and they re-converge where the branches join; barriers hold threads until the
whole block arrives. Shared memory is fresh for every block.

Errors: `SimulatorError` (an op without an implementation, a barrier only some threads reach, a
runaway loop past the step limit, an unchecked out-of-bounds access), `LaunchError`/`AliasError`
for arguments the GPU path refuses, and `KernelError` from `run` for checked-mode errors.

Adding an op is a table entry: a function `(functions, interpreter, op, args) -> results` over
per-thread arrays, installed with `engine.install` into the dialect's `InterpreterFunctions`
(`arith.INT_BINARY`, `math.FLOAT_UNARY`, `math.LIBDEVICE`, `memref.ATOMIC_KINDS`, `gpu.NVVM_OPS`, …).
It reads the executing threads from `interpreter.frame` (`n`, `tids`: linear thread ids, None for
the whole block); a new block-wide barrier op goes into `gpu.BARRIER_OPS` (one that computes a
result over the block also into `gpu.BARRIER_REDUCTIONS`); a warp collective uses
`gpu._member_mask`/`_exchange`/`shuffle_lanes`; `gpu`-level ops are entries of `gpu.GPU_OPS`.
`supported_ops()` lists what is implemented.
"""

from __future__ import annotations

from warpforge.simulator.engine import DEFAULT_STEP_LIMIT, SimStats
from warpforge.simulator.errors import SimulatorError
from warpforge.simulator.launch import program_for, run, simulate, supported_ops

__all__ = ["DEFAULT_STEP_LIMIT", "SimStats", "SimulatorError", "program_for", "run", "simulate", "supported_ops"]
