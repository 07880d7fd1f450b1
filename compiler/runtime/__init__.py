"""warpforge's runtime: devices, streams, device memory, launch checks, launches and checked-mode
kernel errors, on cuda.core 1.2 (cuda.bindings where cuda.core lacks something).

    dev = Device(0); stream = dev.create_stream()
    a = DeviceBuffer.from_host(stream, numpy_array)
    prepared = prepare(compiled_kernel, LaunchConfig(grid=4, block=256), dev)
    launch(stream, prepared, (a, b, c))
    c.to_host()            # copies, synchronizes, raises KernelError for a recorded kernel error

Everything that checks a launch reads plain data (`CompiledKernel`, `LaunchConfig`,
`DeviceLimits`), so the checks run without a GPU; only loading and running need the driver.
Work on one stream waits for earlier work on another that used the same buffers (`stream_order`).
"""

from warpforge.runtime.aliasing import check_aliasing
from warpforge.runtime.compiled import CompiledKernel, ErrorSite, ParamSpec
from warpforge.runtime.device import Device, DeviceLimits, Stream, gpu_available, synchronize
from warpforge.runtime.errors import check_pending
from warpforge.runtime.launch import (
    Contract,
    LaunchConfig,
    PreparedLaunch,
    check_launch,
    launch,
    pack_scalar,
    prepare,
)
from warpforge.runtime.memory import DeviceBuffer, DeviceView, as_device_view

__all__ = [
    "CompiledKernel",
    "Contract",
    "Device",
    "DeviceBuffer",
    "DeviceLimits",
    "DeviceView",
    "ErrorSite",
    "LaunchConfig",
    "ParamSpec",
    "PreparedLaunch",
    "Stream",
    "as_device_view",
    "check_aliasing",
    "check_launch",
    "check_pending",
    "gpu_available",
    "launch",
    "pack_scalar",
    "prepare",
    "synchronize",
]
