"""GPUs and streams: `Device`, `Stream`, `DeviceLimits`, `gpu_available`.

`Device(ordinal)` wraps `cuda.core.Device` (one `Device` object per ordinal in a process) and makes
its primary context current. Its `default_stream` is a stream warpforge creates once per device —
not cuda.core's legacy default stream, which serializes with every other stream.

`DeviceLimits` is the plain data every launch check reads, so the checks run without a GPU
(`DeviceLimits.H200`, `DeviceLimits.for_testing(...)`).

`Device.simulator()` — and `Device(0)` when `WARPFORGE_SIMULATE=1` — is the CPU simulator with the
same API (`warpforge.runtime.simulated`); `Device.simulated` tells them apart.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, replace
from typing import Any

from warpforge.errors import DeviceError, LaunchError
from warpforge.runtime import _driver

KIB = 1024


@dataclass(frozen=True)
class DeviceLimits:
    """The limits a launch is checked against (CUDA device attributes).

    Shared memory in bytes per block: `max_shared_per_block` is what any kernel gets (48 KiB);
    `max_shared_per_block_optin` what a kernel may use after opting in
    (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`; 227 KiB on sm_90).
    Grid y and z are at most 65535 on every current GPU; only x goes to 2^31 - 1.
    """

    name: str
    compute_capability: tuple[int, int]
    max_threads_per_block: int
    max_block_dim: tuple[int, int, int]
    max_grid_dim: tuple[int, int, int]
    max_shared_per_block: int
    max_shared_per_block_optin: int
    warp_size: int = 32
    multiprocessor_count: int = 0

    @classmethod
    def from_device(cls, device: Any) -> DeviceLimits:
        """Read the limits of a `Device` (warpforge's) or a `cuda.core.Device`."""
        raw = device.raw if isinstance(device, Device) else device
        try:
            p = raw.properties
            return cls(
                name=raw.name,
                compute_capability=(p.compute_capability_major, p.compute_capability_minor),
                max_threads_per_block=p.max_threads_per_block,
                max_block_dim=(p.max_block_dim_x, p.max_block_dim_y, p.max_block_dim_z),
                max_grid_dim=(p.max_grid_dim_x, p.max_grid_dim_y, p.max_grid_dim_z),
                max_shared_per_block=p.max_shared_memory_per_block,
                max_shared_per_block_optin=p.max_shared_memory_per_block_optin,
                warp_size=p.warp_size,
                multiprocessor_count=p.multiprocessor_count,
            )
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "reading the device limits") from None

    @classmethod
    def for_testing(cls, **overrides: Any) -> DeviceLimits:
        """`DeviceLimits.H200` with some fields replaced (e.g. `compute_capability=(8, 0)`)."""
        return replace(cls.H200, **overrides)

    @property
    def chip(self) -> str:
        """`sm_XY` for the compute capability."""
        return f"sm_{self.compute_capability[0]}{self.compute_capability[1]}"


DeviceLimits.H200 = DeviceLimits(  # type: ignore[attr-defined]
    name="NVIDIA H200",
    compute_capability=(9, 0),
    max_threads_per_block=1024,
    max_block_dim=(1024, 1024, 64),
    max_grid_dim=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * KIB,
    max_shared_per_block_optin=227 * KIB,
    warp_size=32,
    multiprocessor_count=132,
)
"""An H200 (sm_90, 132 SMs): the preset for testing launch checks without a GPU."""


@functools.cache
def gpu_available() -> bool:
    """True when a CUDA driver and at least one GPU are present. Never raises."""
    try:
        return _driver.device_count() > 0
    except Exception:
        return False


_devices: dict[int, Device] = {}
_devices_lock = threading.Lock()
_current = threading.local()


class Device:
    """A GPU (`Device(0)`): one object per ordinal in a process.

    Raises `DeviceError` when there is no driver or GPU, or the ordinal does not exist. With
    `WARPFORGE_SIMULATE=1`, `Device(0)` is the CPU simulator (`Device.simulator()`).
    """

    ordinal: int
    raw: Any
    """The `cuda.core.Device`."""
    simulated = False
    """True for the CPU simulator (`Device.simulator()`)."""

    def __new__(cls, ordinal: int | Device = 0) -> Device:
        if isinstance(ordinal, Device):
            return ordinal
        if isinstance(ordinal, bool) or not isinstance(ordinal, int):
            raise DeviceError(f"a device ordinal is an int (0 for the first GPU), got {type(ordinal).__name__} {ordinal!r}")
        from warpforge.environment import flag

        if flag("WARPFORGE_SIMULATE"):
            from warpforge.runtime.simulated import simulator_for_ordinal

            return simulator_for_ordinal(ordinal)
        with _devices_lock:
            dev = _devices.get(ordinal)
            if dev is None:
                dev = object.__new__(cls)
                dev._open(ordinal)
                _devices[ordinal] = dev
            return dev

    def _open(self, ordinal: int) -> None:
        count = _driver.device_count()
        if count == 0:
            raise DeviceError(f"{_driver.NO_DRIVER_HINT} (the driver reports 0 GPUs)")
        if not 0 <= ordinal < count:
            raise DeviceError(f"GPU {ordinal} does not exist: {count} GPU(s) found (ordinals 0 to {count - 1})")
        try:
            import cuda.core as core

            self.raw = core.Device(ordinal)
            self.raw.set_current()
        except Exception as e:
            raise _driver.wrap_driver_failure(e, f"opening GPU {ordinal}") from None
        self.ordinal = ordinal
        self._limits: DeviceLimits | None = None
        self._default_stream: Stream | None = None
        self._lock = threading.Lock()
        _current.ordinal = ordinal

    @classmethod
    def simulator(cls, limits: DeviceLimits | None = None, *, step_limit: int | None = None, chip: str | None = None) -> Device:
        """The CPU simulator as a device, with this API and `limits` (default `DeviceLimits.H200`,
        so launches are checked as on an H200). Kernels run on `warpforge.simulator`, buffers live in
        host memory. `step_limit`: basic-block executions per CTA before a launch is stopped as a
        runaway loop (default: `WARPFORGE_SIM_STEP_LIMIT`, else 1,000,000). `chip`: what kernels are
        compiled for, the limits' chip (default; `WARPFORGE_SIM_CHIP` overrides) or `"sm_90a"` on
        compute capability 9.0, where tile kernels take the GPU's wgmma + TMA path. One object per
        `limits`, `step_limit` and `chip`. See `warpforge.runtime.simulated`."""
        from warpforge.runtime.simulated import SimulatorDevice

        return SimulatorDevice(limits, step_limit, chip)

    @property
    def label(self) -> str:
        """`GPU 0` (or `the CPU simulator`), for messages."""
        return f"GPU {self.ordinal}"

    def make_current(self) -> None:
        """Make this device's primary context current on the calling thread (cheap when it is)."""
        if getattr(_current, "ordinal", None) != self.ordinal:
            try:
                self.raw.set_current()
            except Exception as e:
                raise _driver.wrap_driver_failure(e, f"making GPU {self.ordinal} current") from None
            _current.ordinal = self.ordinal

    @property
    def name(self) -> str:
        return self.raw.name

    @property
    def compute_capability(self) -> tuple[int, int]:
        """(major, minor), e.g. (9, 0) for an H200."""
        return self.limits.compute_capability

    @property
    def chip(self) -> str:
        """`sm_XY`, e.g. `sm_90`."""
        return self.limits.chip

    @property
    def limits(self) -> DeviceLimits:
        """The device's `DeviceLimits` (read once)."""
        if self._limits is None:
            self._limits = DeviceLimits.from_device(self)
        return self._limits

    def create_stream(self) -> Stream:
        """A new non-blocking stream on this device."""
        self.make_current()
        try:
            return Stream(self.raw.create_stream(), self)
        except Exception as e:
            raise _driver.wrap_driver_failure(e, f"creating a stream on GPU {self.ordinal}") from None

    @property
    def default_stream(self) -> Stream:
        """warpforge's stream for this device, created on first use (not the legacy NULL stream)."""
        if self._default_stream is None:
            with self._lock:
                if self._default_stream is None:
                    self._default_stream = self.create_stream()
        return self._default_stream

    def synchronize(self) -> None:
        """Wait for all work on the device, then raise `KernelError` for any checked launch that
        recorded an error."""
        from warpforge.runtime import errors

        self.make_current()
        try:
            self.raw.sync()
        except Exception as e:
            raise _driver.wrap_driver_failure(e, f"synchronizing GPU {self.ordinal}") from None
        errors.check_pending(device=self)

    @property
    def printf_buffer_bytes(self) -> int:
        """Bytes of the buffer kernel `print()` output passes through (CUDA's printf FIFO,
        `CU_LIMIT_PRINTF_FIFO_SIZE`, default 1 MiB). Output beyond it between two synchronizations is
        lost — CUDA overwrites the oldest — so a kernel that prints a lot needs a larger one
        (`set_printf_buffer_bytes`)."""
        self.make_current()
        drv = _driver.driver()
        limit = drv.CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE
        return int(_driver.check(drv.cuCtxGetLimit(limit), "reading the printf buffer size (cuCtxGetLimit)"))

    def set_printf_buffer_bytes(self, nbytes: int) -> None:
        """Resize the printf buffer (`cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)`). Call it before the
        first launch of a kernel that prints: CUDA refuses it afterwards (a `DeviceError`)."""
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise DeviceError(f"set_printf_buffer_bytes takes a positive number of bytes, got {nbytes!r}")
        self.make_current()
        drv = _driver.driver()
        _driver.check(
            drv.cuCtxSetLimit(drv.CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE, nbytes),
            f"setting the printf buffer to {nbytes} bytes (cuCtxSetLimit; it must come before the first launch of a kernel that prints)",
        )

    def __repr__(self) -> str:
        return f"wf.Device({self.ordinal})  # {self.name}"

    def __reduce__(self) -> tuple:
        return (Device, (self.ordinal,))


class Stream:
    """A CUDA stream of a `Device` (wraps `cuda.core.Stream`).

    `.raw` is the cuda.core stream, `.handle` the `CUstream` address as an int, and `__cuda_stream__`
    passes through, so torch (`torch.cuda.ExternalStream(s.handle)`), cupy and cuda.core accept it.
    """

    __slots__ = ("raw", "device", "_handle")
    simulated = False
    """True for a stream of the CPU simulator."""

    def __init__(self, raw: Any, device: Device):
        self.raw = raw
        self.device = device
        self._handle = int(raw.handle)

    @property
    def handle(self) -> int:
        """The `CUstream` address."""
        return self._handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return self.raw.__cuda_stream__()

    def sync(self) -> None:
        """Wait for the stream's work, then raise `KernelError` for any completed checked launch of
        this device that recorded an error."""
        from warpforge.runtime import errors

        try:
            self.raw.sync()
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "synchronizing a stream") from None
        errors.check_pending(device=self.device)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and other._handle == self._handle

    def __hash__(self) -> int:
        return hash(self._handle)

    def __repr__(self) -> str:
        return f"<wf.Stream 0x{self._handle:x} on GPU {self.device.ordinal}>"


def as_stream(stream: Any, device: Device | None = None) -> Stream:
    """A warpforge `Stream` for `stream`: a `Stream`, a `cuda.core.Stream`, any object with
    `__cuda_stream__` or a `.cuda_stream` int (torch), or None for `device`'s (or GPU 0's)
    `default_stream`. Raises `LaunchError` for anything else."""
    if isinstance(stream, Stream):
        return stream
    if stream is None:
        return (device or Device(0)).default_stream
    try:
        import cuda.core as core

        if isinstance(stream, core.Stream):
            raw = stream
        elif hasattr(stream, "__cuda_stream__"):
            raw = core.Stream.from_handle(int(stream.__cuda_stream__()[1]))
        elif isinstance(getattr(stream, "cuda_stream", None), int):
            raw = core.Stream.from_handle(stream.cuda_stream)
        else:
            raise LaunchError(
                f"expected a stream (wf.Stream, cuda.core.Stream, or an object with __cuda_stream__), "
                f"got {type(stream).__name__}: create one with wf.Device(0).create_stream()"
            )
        owner = Device(raw.device.device_id)
    except LaunchError:
        raise
    except Exception as e:
        raise _driver.wrap_driver_failure(e, "using a foreign stream") from None
    return Stream(raw, owner)


def synchronize() -> None:
    """Synchronize every device warpforge has opened, then raise `KernelError` for any checked
    launch that recorded an error."""
    with _devices_lock:
        devices = list(_devices.values()) + simulators
    for dev in devices:
        dev.synchronize()


simulators: list[Device] = []
"""The CPU simulator devices made in this process (`warpforge.runtime.simulated`), for `synchronize`."""
