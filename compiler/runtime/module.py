"""Loading a kernel's PTX onto a device, cached in memory.

`load_kernel` loads the cubin ptxas makes of `CompiledKernel.ptx` when ptxas is installed (cached on
disk with the kernel, see `warpforge.report`: the driver's JIT is skipped), else the PTX itself with
`cuda.core.ObjectCode.from_ptx(ptx_bytes)` (bytes: a str would be taken as a file path), and looks up
`.entry`; the driver then JIT-compiles the PTX (and keeps its own disk cache, `~/.nv/ComputeCache`).
Loaded kernels are cached per (device ordinal, the PTX's SHA-256, entry symbol).

When the driver rejects the PTX, `DeviceError` carries the driver's message and, where `ptxas` is
installed, ptxas's diagnostics for the same PTX (the driver's JIT gives no log through cuda.core).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from warpforge.errors import DeviceError
from warpforge.runtime import _driver
from warpforge.runtime.compiled import CompiledKernel

if TYPE_CHECKING:
    from warpforge.runtime.device import Device


@dataclass
class LoadedKernel:
    """A kernel loaded on one device: the `cuda.core.Kernel` (`function`), its `ObjectCode`, and the
    dynamic shared memory limit set on it so far (bytes; 0 = the default 48 KiB)."""

    function: Any
    object_code: Any
    device_ordinal: int
    max_dynamic_shared: int = 0
    from_cubin: bool = False
    """True when ptxas's cubin was loaded (no driver JIT), False when the driver JIT-compiled the PTX."""


_cache: dict[tuple[int, str, str], LoadedKernel] = {}
_lock = threading.Lock()


def module_key(kernel: CompiledKernel) -> str:
    """The cache key of a kernel's module: the SHA-256 of its PTX.

    Content-addressed on purpose: two kernels with the same source text can compile to different code
    (a closure constant, a global, a specialization), and reusing the first one's module for the second
    would run the wrong code silently. Hashing the PTX happens once per `prepare`, not per launch."""
    return "ptx:" + hashlib.sha256(kernel.ptx.encode()).hexdigest()


def load_kernel(kernel: CompiledKernel, device: Device) -> LoadedKernel:
    """The loaded kernel for `kernel` on `device` (cached). Raises `DeviceError` when the driver
    rejects the PTX or the module has no `.entry` named `kernel.entry`."""
    key = (device.ordinal, module_key(kernel), kernel.entry)
    loaded = _cache.get(key)
    if loaded is not None:
        return loaded
    with _lock:
        loaded = _cache.get(key)
        if loaded is None:
            loaded = _load(kernel, device)
            _cache[key] = loaded
    return loaded


def _load(kernel: CompiledKernel, device: Device) -> LoadedKernel:
    device.make_current()
    loaded = _load_cubin(kernel, device)
    if loaded is not None:
        return loaded
    try:
        import cuda.core as core

        code = core.ObjectCode.from_ptx(kernel.ptx.encode(), name=kernel.name)
        function = code.get_kernel(kernel.entry)
        # load it into this device's context now (lazy loading would defer a JIT failure to the launch)
        drv = _driver.driver()
        _driver.check(drv.cuKernelGetFunction(function.handle), "cuKernelGetFunction")
    except Exception as e:
        raise DeviceError(_load_failure(kernel, device, e)) from None
    return LoadedKernel(function, code, device.ordinal)


def _load_cubin(kernel: CompiledKernel, device: Device) -> LoadedKernel | None:
    """Load the cubin ptxas made of the kernel's PTX (from the disk cache, or ptxas now), skipping the
    driver's JIT; None when there is none (no ptxas, `WARPFORGE_PTXAS=0`, ptxas rejected it) or the
    driver refuses it — the PTX path then loads (or explains) it."""
    import cuda.core as core

    from_cubin = getattr(core.ObjectCode, "from_cubin", None)
    if from_cubin is None or device.chip not in (kernel.chip, kernel.chip.removesuffix("a")):  # sm_90a runs on sm_90
        return None
    from warpforge.report import cubin

    blob = cubin(kernel)
    if blob is None:
        return None
    try:
        code = from_cubin(blob, name=kernel.name)
        function = code.get_kernel(kernel.entry)
        drv = _driver.driver()
        _driver.check(drv.cuKernelGetFunction(function.handle), "cuKernelGetFunction")
    except Exception:  # e.g. a cubin from a newer ptxas than the driver: let the driver JIT the PTX
        return None
    return LoadedKernel(function, code, device.ordinal, from_cubin=True)


def _load_failure(kernel: CompiledKernel, device: Device, e: BaseException) -> str:
    if type(e).__name__ == "DynamicLibNotFoundError":
        return f"loading {kernel.name}: {_driver.NO_DRIVER_HINT}"
    text = str(e)
    if "NOT_FOUND" in text:
        return f"the PTX of {kernel.name} has no .entry named {kernel.entry!r} (driver: {text})"
    message = f"the CUDA driver rejected the PTX of {kernel.name} (.entry {kernel.entry}, {kernel.chip}) on {device.name}: {text}"
    if "UNSUPPORTED_PTX_VERSION" in text:
        message += _ptx_version_hint(kernel.ptx)
    diagnostics = _ptxas_diagnostics(kernel)
    if diagnostics:
        message += f"\nptxas says:\n{diagnostics}"
    return message


def _ptx_version_hint(ptx: str) -> str:
    """Why the driver refused the PTX version, from the chip table (`warpforge.backend.chips`)."""
    import re

    from warpforge.backend.chips import driver_max_ptx, driver_version, ptx_text

    m = re.search(r"^\.version (\d+)\.(\d)", ptx, re.MULTILINE)
    newest, release = driver_max_ptx(), driver_version()
    if m is None or newest is None or release is None:
        return ""
    return (
        f"\nthe PTX is version {m.group(1)}.{m.group(2)}; the installed driver (CUDA {release[0]}.{release[1]}) accepts PTX up to "
        f"{ptx_text(newest)}: compile with features='+ptx{newest}' if the chip allows it, or update the driver"
    )


def _ptxas_diagnostics(kernel: CompiledKernel) -> str | None:
    try:
        from warpforge.backend.toolkit import PtxasError, run_ptxas

        run_ptxas(kernel.ptx, kernel.chip, verbose=False)
    except PtxasError as e:
        return str(e)
    except Exception:  # no ptxas, or it failed to run: nothing to add
        return None
    return None


def set_max_dynamic_shared(loaded: LoadedKernel, device: Device, nbytes: int) -> None:
    """Opt `loaded` in to `nbytes` of dynamic shared memory per block on `device`
    (`cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)`), needed above 48 KiB.
    Only ever raised, so a config prepared earlier with more keeps working."""
    if nbytes <= loaded.max_dynamic_shared:
        return
    with _lock:
        if nbytes <= loaded.max_dynamic_shared:
            return
        drv = _driver.driver()
        attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        _driver.check(
            drv.cuKernelSetAttribute(attr, nbytes, loaded.function.handle, drv.CUdevice(device.ordinal)),
            f"opting in to {nbytes} bytes of dynamic shared memory (cuKernelSetAttribute)",
        )
        loaded.max_dynamic_shared = nbytes


def clear_cache() -> None:
    """Forget every loaded kernel (the modules are unloaded when no launch token refers to them)."""
    with _lock:
        _cache.clear()
