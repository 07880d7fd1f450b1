"""The CPU simulator behind the runtime's API: a device, streams and buffers that run `@simt.kernel`s
on `warpforge.simulator` instead of a GPU, so a program written for the GPU runs unchanged.

```python
sim = wf.Device.simulator()            # or wf.Device(0) when WARPFORGE_SIMULATE=1
stream = sim.create_stream()
a = wf.DeviceBuffer.from_host(stream, numpy_array)        # host memory, a copy
prepared = vecadd.prepare(wf.LaunchConfig(grid=4, block=256), device=sim)
vecadd.launch(stream, prepared, a, b, c)                  # runs now, on the CPU
c.to_host(stream)                                         # KernelError here, as on the GPU
```

What is the same as on a GPU: the device's `limits` (`DeviceLimits.H200` unless given), so
`prepare` runs the same `check_launch` and refuses the same configs with the same `LaunchError`s
(it compiles the kernel for the device's chip, as the GPU path does, and also lowers it to the
`gpu` level for the simulator); `launch` checks arguments with the GPU path's code — dtype and
ndim, scalar ranges (`pack_scalar`), `AliasError` for an output overlapping another argument
(`check_aliasing`, on host addresses) — and a checked kernel's recorded error is raised as the GPU
path's `KernelError` (the same message) at the next sync point: `to_host`, `Stream.sync()`,
`Device.synchronize()`, `wf.synchronize()` or the next launch on the device, which then does not
run.

What differs: a launch runs to completion before `launch` returns, so streams order nothing;
`SimulatorError` (an op the simulator lacks, a barrier only some threads reach, a runaway loop, an
unchecked out-of-range access) is raised by `launch` itself. Kernel arguments must be
`wf.DeviceBuffer`s made on a simulator stream: NumPy arrays are refused as on the GPU (copy them
with `DeviceBuffer.from_host`), and so are torch / cupy arrays and buffers of a GPU — the simulator
cannot run on device memory. `run_only_blocks` lets a test of a huge grid run a sample of its blocks.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from warpforge.errors import DeviceError, LaunchError
from warpforge.runtime import device as _device
from warpforge.runtime import errors
from warpforge.runtime.aliasing import check_aliasing
from warpforge.runtime.compiled import RECORD_WORDS, CompiledKernel
from warpforge.runtime.device import Device, DeviceLimits, Stream, as_stream
from warpforge.runtime.launch import LaunchConfig, PreparedLaunch, check_launch, needs_shared_optin, pack_scalar
from warpforge.runtime.memory import DeviceBuffer, DeviceView, _Checker, _numpy_refusal  # pyright: ignore[reportPrivateUsage]

_handles = itertools.count(1)
_simulators: dict[tuple[DeviceLimits, int, str], SimulatorDevice] = {}
_lock = threading.Lock()


class SimulatorDevice(Device):
    """The CPU simulator as a `wf.Device` (make it with `wf.Device.simulator(limits)`): one object per
    `limits`. `name`, `limits`, `chip`, `compute_capability`, `create_stream()`, `default_stream`,
    `synchronize()` as a GPU's; `ordinal` is -1 and `raw` None. `last_stats` holds the
    `warpforge.simulator.SimStats` of the latest launch. `step_limit`: basic-block executions allowed
    per CTA before a launch stops as a runaway loop (`Device.simulator(step_limit=N)`, or the
    environment variable `WARPFORGE_SIM_STEP_LIMIT`; default `warpforge.simulator.DEFAULT_STEP_LIMIT`)."""

    simulated = True

    def __new__(cls, limits: DeviceLimits | None = None, step_limit: int | None = None, chip: str | None = None) -> SimulatorDevice:
        limits = DeviceLimits.H200 if limits is None else limits  # pyright: ignore[reportAttributeAccessIssue]
        if not isinstance(limits, DeviceLimits):
            raise DeviceError(f"Device.simulator(limits) takes a wf.DeviceLimits, got {type(limits).__name__}")
        step_limit = _step_limit(step_limit)
        chip = _chip(chip, limits)
        with _lock:
            dev = _simulators.get((limits, step_limit, chip))
            if dev is None:
                dev = object.__new__(cls)
                dev._init(limits)
                dev.step_limit = step_limit
                dev._chip = chip
                _simulators[(limits, step_limit, chip)] = dev
                with _device._devices_lock:  # pyright: ignore[reportPrivateUsage]
                    _device.simulators.append(dev)
            return dev

    def _init(self, limits: DeviceLimits) -> None:
        self.ordinal = -1
        self.raw = None
        self._limits = limits
        self._default_stream = None
        self._lock = threading.Lock()
        self._pending: list[tuple[Any, numpy.ndarray]] = []
        self._only_blocks: Sequence[Any] | None = None
        self.last_stats: Any = None

    @property
    def name(self) -> str:
        extra = f", {self._chip}" if self._chip != self.limits.chip else ""
        return f"CPU simulator ({self.limits.name} limits{extra})"

    @property
    def chip(self) -> str:
        """The chip kernels are compiled for: the limits' (`sm_90` for an H200), or the
        architecture-specific `sm_90a` when made with `Device.simulator(chip="sm_90a")` (or
        `WARPFORGE_SIM_CHIP=sm_90a`): tile kernels then take the GPU's sm_90a path — `tile.dot` on
        wgmma, fed by the TMA ring — and the simulator runs that (`warpforge.simulator.wgmma`)."""
        return self._chip

    @property
    def label(self) -> str:
        return "the CPU simulator"

    def make_current(self) -> None:
        pass

    def create_stream(self) -> Stream:
        """A new simulator stream (launches run as they are made, so streams order nothing)."""
        return SimulatorStream(self)

    def synchronize(self) -> None:
        """Raise `KernelError` for the first launch since the last sync point that recorded an error."""
        self._raise_pending()

    @contextlib.contextmanager
    def run_only_blocks(self, blocks: Sequence[int | tuple[int, ...]]) -> Iterator[None]:
        """Inside the `with`, launches on this device run only `blocks` of their grid — linear ids (x
        fastest) or (x, y, z) — in that order: a test of a grid too large to simulate samples some.
        The other blocks do not run (their outputs stay as they were)."""
        previous, self._only_blocks = self._only_blocks, list(blocks)
        try:
            yield
        finally:
            self._only_blocks = previous

    def _record(self, site_table: Any, record: numpy.ndarray) -> None:
        with self._lock:
            self._pending.append((site_table, record))

    def _raise_pending(self) -> None:
        with self._lock:
            found, self._pending = self._pending, []
        errors.raise_first(found)

    @property
    def printf_buffer_bytes(self) -> int:
        """The simulator prints at once, without a buffer: what `set_printf_buffer_bytes` last set
        (default 1 MiB, CUDA's), kept so code written for the GPU runs unchanged."""
        return getattr(self, "_printf_bytes", 1 << 20)

    def set_printf_buffer_bytes(self, nbytes: int) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise DeviceError(f"set_printf_buffer_bytes takes a positive number of bytes, got {nbytes!r}")
        self._printf_bytes = nbytes

    def __repr__(self) -> str:
        return f"wf.Device.simulator()  # {self.name}"

    def __reduce__(self) -> tuple:
        return (SimulatorDevice, (self._limits, self.step_limit, self._chip))


STEP_LIMIT_ENV = "WARPFORGE_SIM_STEP_LIMIT"
"""Environment variable: the simulator's step limit when `Device.simulator(step_limit=)` does not set it
(e.g. under `WARPFORGE_SIMULATE=1`)."""


def _step_limit(step_limit: int | None) -> int:
    """Segment executions allowed per CTA (`warpforge.simulator.DEFAULT_STEP_LIMIT` unless given, here
    or in `WARPFORGE_SIM_STEP_LIMIT`); a positive int, else `DeviceError` (`EnvironmentVariableError` for the variable)."""
    from warpforge.simulator import DEFAULT_STEP_LIMIT

    if step_limit is None:
        from warpforge.environment import integer

        return integer(STEP_LIMIT_ENV, DEFAULT_STEP_LIMIT, minimum=1, unit="steps")
    if isinstance(step_limit, bool) or not isinstance(step_limit, int) or step_limit < 1:
        raise DeviceError(f"Device.simulator(step_limit=...) takes a positive number of steps, got {step_limit!r}")
    return step_limit


CHIP_ENV = "WARPFORGE_SIM_CHIP"
"""Environment variable: the simulator's chip when `Device.simulator(chip=)` does not set it (e.g.
`WARPFORGE_SIM_CHIP=sm_90a` with `WARPFORGE_SIMULATE=1`, to run the sm_90a wgmma/TMA path)."""


def _chip(chip: str | None, limits: DeviceLimits) -> str:
    """The simulator's chip: `chip` (else `WARPFORGE_SIM_CHIP`, else the limits' chip), which must be
    the limits' chip or its architecture-specific form (`sm_90` or `sm_90a` for an H200); else
    `DeviceError` (`EnvironmentVariableError` for the variable)."""
    import os

    from_env = chip is None
    if from_env:
        chip = os.environ.get(CHIP_ENV, "").strip() or limits.chip
    from warpforge.backend.chips import CHIPS

    allowed = tuple(c for c in (limits.chip, limits.chip + "a") if c in CHIPS) or (limits.chip,)
    if not isinstance(chip, str) or chip not in allowed:
        message = (
            f"the CPU simulator with {limits.name} limits (compute capability {limits.compute_capability[0]}.{limits.compute_capability[1]}) "
            f"compiles for {' or '.join(allowed)}, got {chip!r}; another chip needs DeviceLimits of its compute capability "
            "(wf.DeviceLimits.for_testing(compute_capability=...))"
        )
        if from_env:
            from warpforge.errors import EnvironmentVariableError

            raise EnvironmentVariableError(f"{CHIP_ENV}={chip!r}: {message}")
        raise DeviceError(f"Device.simulator(chip=...): {message}")
    return chip


def simulator_for_ordinal(ordinal: int) -> Device:
    """`Device(ordinal)` with `WARPFORGE_SIMULATE=1`: the simulator for 0, `DeviceError` otherwise."""
    if ordinal != 0:
        raise DeviceError(f"WARPFORGE_SIMULATE=1: the CPU simulator is the only device, Device(0); got Device({ordinal})")
    return SimulatorDevice(None)


def in_use() -> bool:
    """True once a simulator device has been made in this process."""
    return bool(_simulators)


def raise_pending_everywhere() -> None:
    """Raise `KernelError` for the first launch on any simulator device of this process that recorded
    an error since its last sync point (what `warpforge run` checks when the program ends)."""
    for dev in list(_simulators.values()):
        dev._raise_pending()  # pyright: ignore[reportPrivateUsage]


class SimulatorStream(Stream):
    """A stream of the simulator. It has no `__cuda_stream__` (no CUDA library may use it)."""

    __slots__ = ()
    simulated = True

    def __init__(self, device: SimulatorDevice):
        self.raw = None
        self.device = device
        self._handle = next(_handles)

    @property
    def __cuda_stream__(self) -> Any:  # pyright: ignore[reportIncompatibleMethodOverride]
        raise AttributeError("a stream of the CPU simulator is not a CUDA stream")

    def sync(self) -> None:
        """Raise `KernelError` for the first launch on the device since the last sync point that
        recorded an error (launches have already completed)."""
        self.device._raise_pending()  # pyright: ignore[reportAttributeAccessIssue]

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<wf.Stream {self._handle} of the CPU simulator>"


class SimulatedBuffer(DeviceBuffer):
    """A `wf.DeviceBuffer` of the simulator: a C-contiguous NumPy array in host memory. `ptr` is its
    host address (for the aliasing check); it has no `__cuda_array_interface__`."""

    __slots__ = ("_host",)

    @classmethod
    def _create(cls, stream: Stream, shape: tuple[int, ...], dtype: numpy.dtype, *, zero: bool) -> SimulatedBuffer:
        try:
            host = (numpy.zeros if zero else numpy.empty)(shape, dtype=dtype)
        except (MemoryError, ValueError) as e:
            from warpforge.errors import DeviceError

            raise DeviceError(f"the simulator cannot allocate a buffer of shape {shape} ({dtype}) in host memory: {e}") from None
        return cls._wrap(stream, host)

    @classmethod
    def _copy_of(cls, stream: Stream, host: numpy.ndarray) -> SimulatedBuffer:
        return cls._wrap(stream, numpy.array(host, order="C", copy=True))

    @classmethod
    def _wrap(cls, stream: Stream, host: numpy.ndarray) -> SimulatedBuffer:
        self = object.__new__(cls)
        self._host = host
        self._shape, self._dtype, self._stream, self._device = host.shape, host.dtype, stream, stream.device
        self._buffer = None
        self._ptr = int(host.ctypes.data)
        return self

    def copy_from_host(self, array: Any, stream: Any = None) -> None:
        """Overwrite the buffer with a host array of the same shape and dtype."""
        host = numpy.asarray(array)
        if host.dtype != self._dtype:
            raise LaunchError(f"copy_from_host: the buffer holds {self._dtype}, the array {host.dtype}: pass array.astype(numpy.{self._dtype.name})")
        if host.shape != self._shape:
            raise LaunchError(f"copy_from_host: the buffer has shape {self._shape}, the array {host.shape}")
        self._use_stream(stream)
        self._host[...] = host

    def to_host(self, stream: Any = None) -> numpy.ndarray:
        """A new NumPy array with the buffer's contents; then, as on the GPU, raises `KernelError`
        if a launch since the last sync point recorded an error."""
        s = self._use_stream(stream)
        out = self._host.copy()
        s.sync()
        return out

    def reshape(self, *shape: Any) -> SimulatedBuffer:
        """A view of the same memory with another shape (see `DeviceBuffer.reshape`)."""
        view = super().reshape(*shape)
        assert isinstance(view, SimulatedBuffer)
        view._host = self._host.reshape(view._shape)
        return view

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:  # pyright: ignore[reportIncompatibleVariableOverride]
        raise AttributeError("a buffer of the CPU simulator lives in host memory: it has no __cuda_array_interface__")

    def __repr__(self) -> str:
        return f"<wf.DeviceBuffer shape={self._shape} dtype={self._dtype} on the CPU simulator>"


# --------------------------------------------------------------------------- prepare and launch


@dataclass(frozen=True, eq=False)
class SimulatedLaunch(PreparedLaunch):
    """`PreparedLaunch` on the simulator: also the kernel lowered to the `gpu` level."""

    program: Any = field(default=None, repr=False)
    """`warpforge.simulator.launch.LoweredKernel`."""


def prepare_kernel(kernel: Any, config: LaunchConfig, device: SimulatorDevice) -> SimulatedLaunch:
    """`kernel.prepare(config, device=simulator)`: compile `kernel` (a `SimtKernel`) for the device's
    chip as the GPU path does, lower it to the `gpu` level for the simulator, then `prepare_lowered`."""
    from warpforge.simulator.launch import lowered

    compiled = kernel.compile(device.chip)
    return prepare_lowered(compiled, lowered(kernel), config, device)


def prepare_lowered(compiled: CompiledKernel, program: Any, config: LaunchConfig, device: SimulatorDevice) -> SimulatedLaunch:
    """The simulator's `prepare` for any kernel model: `compiled` (what `check_launch` reads, and the
    source of `KernelError` messages) and `program`, the same kernel at the `gpu` level (a
    `warpforge.simulator.launch.LoweredKernel`). Runs `check_launch` against the device's limits and
    returns the token `launch` takes."""
    limits = device.limits
    check_launch(compiled, config, limits)
    return SimulatedLaunch(compiled, config, device, needs_shared_optin(compiled, config, limits), None, None, program)  # pyright: ignore[reportArgumentType]


def _simulator_number(device: Any) -> int:
    """1 for the program's first simulator device, 2 for the next, ... (in the order they were made)."""
    sims = [d for d in _device.simulators if isinstance(d, SimulatorDevice)]
    return next((i for i, d in enumerate(sims, 1) if d is device), 0)


def _host_array(obj: Any, param: Any, device: Device, kernel_name: str) -> tuple[DeviceView, numpy.ndarray]:
    """A slice argument on the simulator: a `SimulatedBuffer` of `device`; anything else is refused."""
    check = _Checker(param, kernel_name)
    if isinstance(obj, SimulatedBuffer):
        if obj.device is not device:
            here, there = obj.device.name, device.name  # pyright: ignore[reportAttributeAccessIssue]
            if here == there:  # same limits, another step limit: say which is which
                here, there = (f"{d.name} #{_simulator_number(d)} (step limit {d.step_limit})" for d in (obj.device, device))  # pyright: ignore[reportAttributeAccessIssue]
            raise check.host(f"the buffer lives on {here}, the launch is on {there}")
        check.layout(obj.shape, None, obj.dtype, "elements")
        return DeviceView(obj.ptr, obj.shape, obj.dtype, obj.nbytes, obj), obj._host  # pyright: ignore[reportPrivateUsage]
    if isinstance(obj, DeviceBuffer):
        raise check.host(
            f"the buffer lives on {obj.device.label}, but the launch is on the CPU simulator: make it on a simulator "
            f"stream, wf.DeviceBuffer.from_host(stream, {check.name}.to_host())"
        )
    if isinstance(obj, numpy.ndarray | numpy.generic):
        raise check.host(_numpy_refusal(check.name))
    if hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"):
        raise check.host(
            f"the CPU simulator runs kernels on wf.DeviceBuffers made on its streams, not on {type(obj).__name__} arrays: "
            f"copy it with wf.DeviceBuffer.from_host(stream, numpy.asarray({check.name}.cpu()))  (cupy: {check.name}.get())"
        )
    raise check.host(f"expected a wf.DeviceBuffer made on a simulator stream, got {type(obj).__name__}")


def _scalar(param: Any, value: Any, kernel_name: str) -> Any:
    packed = pack_scalar(param, value, kernel_name)  # the GPU path's checks and messages
    if param.dtype.name == "bfloat16":  # packed as its 16 bits; a float holds the value exactly
        return float(numpy.asarray(packed).view(param.dtype)[()])
    return packed


def launch_simulated(stream: Any, prepared: PreparedLaunch, args: tuple[Any, ...]) -> None:
    """`launch` for a `SimulatedLaunch` (called by `warpforge.runtime.launch` after it checked the
    token, the kernel and the argument count): check the arguments as the GPU path does, run the
    kernel on the simulator, keep a recorded error for the next sync point."""
    from warpforge.simulator import simulate
    from warpforge.simulator.launch import SiteTable

    assert isinstance(prepared, SimulatedLaunch)
    k: CompiledKernel = prepared.kernel
    dev = prepared.device
    s = as_stream(stream, dev)
    if s.device is not dev or not s.simulated:
        whose = s.device.label if s.simulated or not s.device.simulated else "a GPU (a CUDA stream)"
        raise LaunchError(f"{k.name} was prepared for {dev.label}, but the stream belongs to {whose}")
    dev._raise_pending()  # pyright: ignore[reportAttributeAccessIssue]
    views: list[DeviceView | None] = []
    values: list[Any] = []
    for p, a in zip(k.params, args):
        if p.is_slice:
            view, host = _host_array(a, p, dev, k.name)
            views.append(view)
            values.append(host)
        elif p.kind == "tensor_map":  # the TMA copies read and write the descriptor's host array
            from warpforge.runtime.tma import tensor_map_argument

            tmap = tensor_map_argument(p, a, k.name)
            if tmap.host is None:
                raise LaunchError(f"{k.name}: parameter {p.name} got a TMA descriptor of GPU memory; on the simulator make it with wf.tensor_map of a simulator buffer")
            views.append(None)
            values.append(tmap)
        else:
            views.append(None)
            values.append(_scalar(p, a, k.name))
    for p, v, host in zip(k.params, views, list(values)):  # a TMA ring's descriptors (ParamSpec.tma), as the GPU path appends them
        if p.tma:
            from warpforge.runtime.tma import simulated_descriptor

            values.extend(simulated_descriptor(v.ptr, host, box, swizzle, k.name, p.name) for box, swizzle in p.tma)  # pyright: ignore[reportOptionalMemberAccess]
    check_aliasing(k.params, views, k.name)
    program = prepared.program
    record = numpy.zeros(RECORD_WORDS, numpy.int64)
    if program.checked:
        values.append(record)
    config = prepared.config
    dev.last_stats = simulate(  # pyright: ignore[reportAttributeAccessIssue]
        program.module, program.symbol, config.grid, config.block, values,
        blocks=dev._only_blocks, dynamic_shared_bytes=config.shmem_size, step_limit=dev.step_limit,  # pyright: ignore[reportAttributeAccessIssue]
    )  # fmt: skip
    if program.checked and record[0] > 0:
        dev._record(SiteTable(k.name, program.sites), record)  # pyright: ignore[reportAttributeAccessIssue]
    for a in args:
        if isinstance(a, DeviceBuffer):
            a._stream = s  # pyright: ignore[reportPrivateUsage]
