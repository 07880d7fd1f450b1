"""warpforge: a GPU kernel compiler in Python, built on xDSL.

    import warpforge as wf
    from warpforge import simt, f32

Kernels written in Python (`@simt.kernel`) are lowered through warpforge's own dialects
(`kernel` → `gpu` → `nvvm` → `llvm`) to LLVM IR and PTX, and launched with cuda-python (`cuda.core`).
See DESIGN.md for the pipeline, the dialects and the semantics policies.
"""

from __future__ import annotations

import os as _os
import sys as _sys

_os.environ.setdefault("LLVMLITE_ENABLE_IR_LAYER_TYPED_POINTERS", "0")

from warpforge import lazy_formats as _lazy_formats  # noqa: E402

_lazy_formats.install()  # xDSL parses an op's assembly format at its first parse/print, not at its definition

from warpforge import simt  # noqa: E402
from warpforge.frontend.annotations import Constant  # noqa: E402  (wf.Constant[int]: compile-time parameters)
from warpforge import tile  # noqa: E402
from warpforge.runtime.lazy import arange, empty, from_host, full, ones, tensor, zeros  # noqa: E402  (the Tile model's lazy host chain)
from warpforge.dtypes import (  # noqa: E402
    DType,
    bf16,
    bool_,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
)
from warpforge.errors import (  # noqa: E402
    AliasError,
    AnnotationError,
    ChainNotRunError,
    CompileError,
    CompileWarning,
    DeviceError,
    EnvironmentVariableError,
    KernelError,
    LaunchError,
    LaunchUsageError,
    MovedValueError,
    UsageError,
    TargetError,
    WarpforgeError,
)

__version__ = "0.1.0"


def simulating() -> bool:
    """True when kernels run on the CPU simulator: `WARPFORGE_SIMULATE=1` (which `warpforge run` sets
    without a GPU, or with `--simulate`), or once the program made the simulator device
    (`wf.Device.simulator()`). Examples use it to pick sizes that finish in seconds."""
    from warpforge.environment import flag

    if flag("WARPFORGE_SIMULATE"):
        return True
    simulated = _sys.modules.get("warpforge.runtime.simulated")
    return simulated is not None and simulated.in_use()

_RUNTIME_NAMES = ("Device", "DeviceBuffer", "DeviceLimits", "LaunchConfig", "Stream", "synchronize", "gpu_available")


def __getattr__(name: str):
    # the runtime imports cuda.core lazily, so `import warpforge` works on machines without CUDA
    if name in _RUNTIME_NAMES:
        from warpforge import runtime

        return getattr(runtime, name)
    if name == "tensor_map":  # wf.tensor_map(buffer, box, swizzle): a TMA descriptor (warpforge.runtime.tma)
        from warpforge.runtime.tma import tensor_map

        return tensor_map
    raise AttributeError(f"module 'warpforge' has no attribute '{name}'")


__all__ = [
    "Constant",
    "AliasError",
    "AnnotationError",
    "ChainNotRunError",
    "CompileError",
    "CompileWarning",
    "DType",
    "DeviceError",
    "EnvironmentVariableError",
    "KernelError",
    "LaunchError",
    "LaunchUsageError",
    "MovedValueError",
    "UsageError",
    "TargetError",
    "WarpforgeError",
    "bf16",
    "bool_",
    "f16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "simt",
    "tile",
    "arange",
    "empty",
    "from_host",
    "full",
    "ones",
    "tensor",
    "zeros",
    "simulating",
    "u8",
    "u16",
    "u32",
    "u64",
    *_RUNTIME_NAMES,
]
