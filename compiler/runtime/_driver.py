"""Thin helpers over `cuda.bindings.driver` for what cuda.core 1.2 lacks (async memset, raw copies,
kernel attributes), turning driver failures into `DeviceError`.

cuda.bindings calls return `(CUresult, *values)`; `check` raises on anything but CUDA_SUCCESS.
Imports are lazy so that `warpforge.runtime` imports (and its launch checks run) without a driver.
"""

from __future__ import annotations

from typing import Any

from warpforge.errors import DeviceError, WarpforgeError

NO_DRIVER_HINT = (
    "no CUDA driver / no GPU found; warpforge compiles kernels to PTX without a GPU, but running them "
    "needs an NVIDIA GPU and its driver (libcuda.so) — or the CPU simulator: wf.Device.simulator(), "
    "WARPFORGE_SIMULATE=1, or `warpforge run FILE.py`"
)


def driver() -> Any:
    """The `cuda.bindings.driver` module."""
    from cuda.bindings import driver as drv

    return drv


def error_text(err: Any) -> str:
    """`CUDA_ERROR_X: description` for a `CUresult`."""
    drv = driver()
    try:
        name = drv.cuGetErrorName(err)[1].decode()
        desc = drv.cuGetErrorString(err)[1].decode()
        return f"{name}: {desc}"
    except Exception:  # the name lookup itself failed: fall back to the enum's repr
        return repr(err)


_STICKY = ("ILLEGAL_ADDRESS", "LAUNCH_FAILED", "MISALIGNED_ADDRESS", "ILLEGAL_INSTRUCTION", "HARDWARE_STACK_ERROR", "ECC_UNCORRECTABLE")
_STICKY_HINT = (
    "; a kernel faulted and the CUDA context is no longer usable (checked kernels never fault: was one "
    "compiled with checks=False, or written by hand?): restart the process"
)


def with_sticky_hint(text: str) -> str:
    return text + _STICKY_HINT if any(code in text for code in _STICKY) else text


def check(result: tuple, what: str) -> Any:
    """Unpack a cuda.bindings result; raise `DeviceError("<what> failed: CUDA_ERROR_…")` on failure.

    Returns None, the single value, or a tuple of values.
    """
    err, *values = result
    if err != driver().CUresult.CUDA_SUCCESS:
        raise DeviceError(with_sticky_hint(f"{what} failed: {error_text(err)}"))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def wrap_driver_failure(e: BaseException, what: str) -> WarpforgeError:
    """A warpforge error for an exception raised by cuda.core / cuda.bindings while doing `what`.

    warpforge errors pass through; a missing driver library becomes the no-driver `DeviceError`.
    """
    if isinstance(e, WarpforgeError):
        return e
    if type(e).__name__ == "DynamicLibNotFoundError":
        return DeviceError(f"{NO_DRIVER_HINT} ({what}: {e})")
    return DeviceError(with_sticky_hint(f"{what} failed: {type(e).__name__}: {e}"))


def memset_zero_async(ptr: int, nbytes: int, stream_handle: int) -> None:
    """Zero `nbytes` bytes of device memory at `ptr`, in stream order (`cuMemsetD8Async`)."""
    if nbytes:
        check(driver().cuMemsetD8Async(ptr, 0, nbytes, stream_handle), "cuMemsetD8Async")


def copy_htod_async(dst: int, src_host: int, nbytes: int, stream_handle: int) -> None:
    """Host → device copy in stream order (`cuMemcpyHtoDAsync`). A pageable source may be reused
    as soon as this returns (the driver stages it)."""
    if nbytes:
        check(driver().cuMemcpyHtoDAsync(dst, src_host, nbytes, stream_handle), "cuMemcpyHtoDAsync")


def copy_dtoh_async(dst_host: int, src: int, nbytes: int, stream_handle: int) -> None:
    """Device → host copy in stream order (`cuMemcpyDtoHAsync`); complete only after a sync/event."""
    if nbytes:
        check(driver().cuMemcpyDtoHAsync(dst_host, src, nbytes, stream_handle), "cuMemcpyDtoHAsync")


def device_count() -> int:
    """Number of CUDA devices. Raises `DeviceError` without a driver or when `cuInit` fails."""
    try:
        drv = driver()
        err = drv.cuInit(0)[0]
        if err != drv.CUresult.CUDA_SUCCESS:
            raise DeviceError(f"{NO_DRIVER_HINT} (cuInit: {error_text(err)})")
        return int(check(drv.cuDeviceGetCount(), "cuDeviceGetCount"))
    except Exception as e:
        raise wrap_driver_failure(e, "finding a GPU") from None
