"""Launching on the simulator: `simulate` (a `gpu`-level module, NumPy arguments) and `run` (a
`@simt.kernel`, compiled and cached, with the error record and `KernelError` of the GPU path)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, MemRefType
from xdsl.interpreter import InterpreterFunctions
from xdsl.ir import Operation

from warpforge.dialects import gpu
from warpforge.errors import KernelError, LaunchError
from warpforge.simulator.arith import CONSTANT_OPS, ArithFunctions
from warpforge.simulator.control import ControlFlowFunctions
from warpforge.simulator.engine import DEFAULT_STEP_LIMIT, Compiler, Program, SimInterpreter, SimStats
from warpforge.simulator.errors import SimulatorError
from warpforge.simulator.gpu import BARRIER_OPS, GpuFunctions, NvvmFunctions
from warpforge.simulator.math import LibdeviceFunctions, MathFunctions
from warpforge.simulator.memref import MemrefFunctions
from warpforge.dialects.nvgpu_hopper import TensorMapDescriptorType
from warpforge.simulator.hopper import HopperFunctions
from warpforge.simulator.nvgpu import NvgpuFunctions
from warpforge.simulator.vector import VectorFunctions
from warpforge.simulator.wgmma import WgmmaFunctions
from warpforge.simulator.values import UNSIGNED, MemRef, dtype_of, memory_space

FUNCTIONS: tuple[InterpreterFunctions, ...] = (
    ArithFunctions(),
    MathFunctions(),
    LibdeviceFunctions(),
    MemrefFunctions(),
    VectorFunctions(),
    ControlFlowFunctions(),
    GpuFunctions(),
    NvvmFunctions(),
    NvgpuFunctions(),
    HopperFunctions(),
    WgmmaFunctions(),
)
"""Every implementation the simulator registers (one `InterpreterFunctions` per dialect family)."""


def _implementation_table() -> tuple[dict[type[Operation], tuple[InterpreterFunctions, Any]], set[str]]:
    impls: dict[type[Operation], tuple[InterpreterFunctions, Any]] = {}
    externals: set[str] = set()
    for ft in FUNCTIONS:
        for op_type, fn in type(ft)._impls():  # pyright: ignore[reportPrivateUsage]
            impls[op_type] = (ft, fn)
        for name, _ in type(ft)._ext_impls():  # pyright: ignore[reportPrivateUsage]
            externals.add(name)
    return impls, externals


IMPLS, EXTERNALS = _implementation_table()
"""Op class → (functions object, implementation); names of the external functions implemented."""


def supported_ops() -> list[str]:
    """Names of the ops the simulator implements (barriers included), sorted."""
    return sorted({t.name for t in IMPLS})


# --------------------------------------------------------------------------- programs


_programs: weakref.WeakKeyDictionary[builtin.ModuleOp, dict[str, Program]] = weakref.WeakKeyDictionary()
_programs_lock = threading.Lock()


def _find_kernel(module: builtin.ModuleOp, kernel: str) -> gpu.FuncOp:
    names = []
    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.kernel is not None:
            if op.sym_name.data == kernel:
                return op
            names.append(op.sym_name.data)
    raise SimulatorError(f"no gpu.func kernel named @{kernel} in the module (kernels: {', '.join('@' + n for n in names) or 'none'})")


def program_for(module: builtin.ModuleOp, kernel: str) -> Program:
    """The kernel `kernel` of `module`, compiled for the simulator (cached per module; do not modify
    a module after simulating it). Raises `SimulatorError` for an op without an implementation."""
    with _programs_lock:
        per_module = _programs.setdefault(module, {})
        program = per_module.get(kernel)
    if program is not None:
        return program
    func = _find_kernel(module, kernel)
    compiler = Compiler(IMPLS, EXTERNALS, BARRIER_OPS, CONSTANT_OPS)
    cfg = compiler.cfg(func.body, split_at_barriers=True)
    program = Program(module, func, cfg, compiler, tuple(func.function_type.inputs))
    with _programs_lock:
        per_module[kernel] = program
    return program


# --------------------------------------------------------------------------- simulate


def _dim3(value: int | Sequence[int], what: str) -> tuple[int, int, int]:
    dims = (value,) if isinstance(value, int | np.integer) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, int | np.integer) or d < 1 for d in dims):
        raise LaunchError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))  # pyright: ignore[reportReturnType]


def _memref_arg(t: MemRefType, value: Any, name: str) -> MemRef:
    if not isinstance(value, np.ndarray):
        raise LaunchError(f"argument {name} is a memref ({t}): pass a NumPy array, got {type(value).__name__}")
    storage = dtype_of(t.element_type)
    dt = value.dtype
    same_bits = dt == storage or (storage in UNSIGNED and dt == UNSIGNED[storage])
    if not same_bits:
        raise LaunchError(f"argument {name} holds {dt}, but the kernel's memref holds {t.element_type}")
    shape = tuple(t.get_shape())
    if value.ndim != len(shape) or any(s != DYNAMIC_INDEX and s != d for s, d in zip(shape, value.shape)):
        raise LaunchError(f"argument {name} has shape {value.shape}, but the kernel's memref is {t}")
    if not value.flags.c_contiguous:
        raise LaunchError(f"argument {name} is not C-contiguous: pass np.ascontiguousarray(...) (and copy results back)")
    if not value.flags.writeable:
        raise LaunchError(f"argument {name} is read-only")
    flat = value.view(storage).reshape(-1)
    return MemRef(flat, tuple(int(d) for d in value.shape), memory_space(t), name=name)


def _scalar_arg(t: Any, value: Any, name: str) -> Any:
    storage = dtype_of(t)
    if storage == np.bool_:
        if not isinstance(value, bool | np.bool_):
            raise LaunchError(f"argument {name} is i1: pass a bool, got {value!r}")
        return np.bool_(value)
    if isinstance(t, IntegerType | IndexType):
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise LaunchError(f"argument {name} is {t}: pass an integer, got {value!r}")
        v = int(value)
        bits = storage.itemsize * 8
        if not -(1 << (bits - 1)) <= v < (1 << bits):
            raise LaunchError(f"argument {name}={v} does not fit {t}")
        return np.array(v & ((1 << bits) - 1), dtype=np.uint64).astype(UNSIGNED[storage]).view(storage)[()]
    if not isinstance(value, int | float | np.integer | np.floating):
        raise LaunchError(f"argument {name} is {t}: pass a number, got {value!r}")
    return np.array(value, dtype=np.float64 if not isinstance(value, np.floating) else value.dtype).astype(storage)[()]


def simulate(
    module: builtin.ModuleOp,
    kernel: str,
    grid: int | tuple[int, ...],
    block: int | tuple[int, ...],
    args: Sequence[Any],
    *,
    step_limit: int | None = None,
    blocks: Sequence[int | tuple[int, ...]] | None = None,
    dynamic_shared_bytes: int = 0,
) -> SimStats:
    """Run `gpu.func @kernel` of the `gpu`-level `module` (after `kernel-to-gpu`) on the CPU, as the
    GPU would run it with `grid` × `block` threads (x, y, z; ints mean (n, 1, 1)).

    `args` follow the kernel's parameters: a NumPy array (1-D or 2-D, C-contiguous, of the element
    type's width; written in place) per memref, a NumPy scalar (or Python number) per scalar, and in
    checked mode the error record (`np.zeros(8, np.int64)`) last. `step_limit`: segment executions
    allowed per block (default `DEFAULT_STEP_LIMIT`). `blocks`: run only these blocks of the grid,
    in this order — linear ids (x fastest) or (x, y, z) — as a test of a huge grid does.
    `dynamic_shared_bytes`: the launch's dynamic shared memory per block (`LaunchConfig.shmem_size`).

    Raises `LaunchError` for arguments that do not fit or a block shape the kernel's
    `known_block_size` refuses; `SimulatorError` for unsupported ops, partial barriers, runaway
    loops and unchecked out-of-bounds accesses. Returns the launch's `SimStats`.
    """
    grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
    program = program_for(module, kernel)
    func = program.kernel
    assert isinstance(func, gpu.FuncOp)
    if func.known_block_size is not None:
        known = tuple(func.known_block_size.get_values())
        if known != block3:
            raise LaunchError(f"@{kernel} must be launched with block {known} (its known_block_size, PTX .reqntid); got {block3}")
    params = program.arg_types
    if len(args) != len(params):
        raise LaunchError(f"@{kernel} takes {len(params)} arguments, got {len(args)}")
    entry = func.body.blocks.first
    assert entry is not None
    values: list[Any] = []
    for i, (t, value, arg) in enumerate(zip(params, args, entry.args)):
        name = f"#{i} (%{arg.name_hint})" if arg.name_hint else f"#{i}"
        if isinstance(t, TensorMapDescriptorType):  # a TMA descriptor: the object itself (its `host` array)
            values.append(value)
            continue
        values.append(_memref_arg(t, value, name) if isinstance(t, MemRefType) else _scalar_arg(t, value, name))
    interp = SimInterpreter(
        module,
        list(FUNCTIONS),
        program.compiler,
        grid=grid3,
        block=block3,
        step_limit=DEFAULT_STEP_LIMIT if step_limit is None else step_limit,
        dynamic_shared_bytes=dynamic_shared_bytes,
    )
    return interp.launch(program.cfg, tuple(values), None if blocks is None else block_ids(blocks, grid3))


def block_ids(blocks: Sequence[int | tuple[int, ...]], grid: tuple[int, int, int]) -> list[tuple[int, int, int]]:
    """`blocks` — linear block ids (x fastest) or (x, y, z) tuples — as (x, y, z) ids in `grid`.
    Raises `LaunchError` for an id outside the grid."""
    gx, gy, gz = grid
    ids: list[tuple[int, int, int]] = []
    for b in blocks:
        if isinstance(b, int | np.integer):
            b = int(b)
            xyz = (b % gx, b // gx % gy, b // (gx * gy)) if b >= 0 else (-1, 0, 0)
        else:
            xyz = tuple(int(d) for d in b) + (0,) * (3 - len(b))
        if len(xyz) != 3 or not all(0 <= d < g for d, g in zip(xyz, grid)):
            raise LaunchError(f"block {b!r} is not in the grid {grid}")
        ids.append(xyz)  # pyright: ignore[reportArgumentType]
    return ids


# --------------------------------------------------------------------------- run a @simt.kernel


@dataclass(frozen=True)
class LoweredKernel:
    """A `SimtKernel` lowered to the `gpu` level for the simulator."""

    module: builtin.ModuleOp
    symbol: str
    params: tuple[Any, ...]
    index_dims: frozenset[int]
    checked: bool
    sites: tuple[Any, ...]


_lowered: dict[int, tuple[weakref.ref[Any], LoweredKernel]] = {}
_lowered_lock = threading.Lock()


def lowered(kernel: Any) -> LoweredKernel:
    """`kernel` (a `SimtKernel`) compiled to the `gpu` level, cached per kernel object."""
    key = id(kernel)
    with _lowered_lock:
        entry = _lowered.get(key)
        if entry is not None and entry[0]() is kernel:
            return entry[1]
    from warpforge.compile import error_sites, lower

    from warpforge.knobs import refuse_overrides_on_simulator

    kir = kernel.kernel_ir()
    refuse_overrides_on_simulator(kir.symbol)
    module = lower(kir.module, "gpu", module_name=kir.symbol + "_module")
    assert isinstance(module, builtin.ModuleOp)
    result = LoweredKernel(module, kir.symbol, kir.params, kir.index_dims, bool(kernel.checks), error_sites(module, kir.symbol))
    program_for(module, kir.symbol)  # compile (and report unsupported ops) once

    def forget(_: Any, key: int = key) -> None:
        with _lowered_lock:
            _lowered.pop(key, None)

    with _lowered_lock:
        _lowered[key] = (weakref.ref(kernel, forget), result)
    return result


def forget_lowered(kernel: Any) -> None:
    """Drop `kernel`'s cached `gpu`-level program (it is compiled again: a folded constant changed)."""
    with _lowered_lock:
        _lowered.pop(id(kernel), None)


def run(
    kernel: Any, grid: int | tuple[int, ...], block: int | tuple[int, ...], *args: Any, step_limit: int | None = None, shmem_size: int = 0
) -> SimStats:
    """Run the `@simt.kernel` `kernel` on the simulator with `grid` × `block` threads, as
    `kernel[grid, block](*args)` would on the GPU: slices are NumPy arrays of the parameter's dtype
    and rank (outputs written in place), scalars are numbers that fit the parameter's dtype;
    `shmem_size`: the bytes of dynamic shared memory per block (`LaunchConfig.shmem_size`).

    The runtime's own launch path on the simulator device (`warpforge.runtime.simulated`): the same
    `check_launch` (block, grid, index domain, shared memory) and argument checks (dtype, rank,
    scalar ranges, aliasing) as a GPU launch — the arrays are the buffers' memory, not copies. In
    checked mode a recorded error is raised here as `KernelError` with the site's file:line (the
    message the GPU path gives). Raises `LaunchError`/`AliasError` for arguments or launch shapes the
    GPU path refuses, `SimulatorError` as `simulate` does. Returns the run's statistics.
    """
    from warpforge.runtime import LaunchConfig, launch
    from warpforge.runtime.simulated import SimulatedBuffer, SimulatorDevice, prepare_kernel

    device = SimulatorDevice(step_limit=step_limit) if step_limit is not None else SimulatorDevice()
    device._raise_pending()  # pyright: ignore[reportPrivateUsage]  (an error of an earlier launch is not ours)
    stream = device.create_stream()
    buffers = [SimulatedBuffer._wrap(stream, a) if isinstance(a, np.ndarray) else a for a in args]  # pyright: ignore[reportPrivateUsage]
    prepared = prepare_kernel(kernel, LaunchConfig(grid=grid, block=block, shmem_size=shmem_size), device)
    launch(stream, prepared, tuple(buffers), kernel=prepared.kernel)
    device._raise_pending()  # pyright: ignore[reportPrivateUsage]
    return device.last_stats  # pyright: ignore[reportAttributeAccessIssue]


class SiteTable:
    """What `warpforge.runtime.errors.format_record` reads of a compiled kernel: its name and sites."""

    def __init__(self, name: str, sites: tuple[Any, ...]):
        from warpforge.runtime.compiled import ErrorSite
        from warpforge.compile import site_message

        self.name = name
        self.error_sites = tuple(ErrorSite(s.id, s.kind, site_message(s), s.filename, s.line, s.col, s.operands) for s in sites)

    def error_site(self, site_id: int) -> Any:
        for site in self.error_sites:
            if site.id == site_id:
                return site
        return None


def kernel_error(name: str, sites: tuple[Any, ...], record: np.ndarray) -> KernelError:
    """The `KernelError` the GPU runtime raises for this error record (its `format_record`)."""
    from warpforge.runtime.errors import format_record

    text, kw = format_record(SiteTable(name, sites), [int(v) for v in record])  # pyright: ignore[reportArgumentType]
    return KernelError(text, **kw)
