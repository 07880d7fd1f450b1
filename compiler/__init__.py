"""warpforge: a GPU kernel compiler in Python, built on xDSL.

    import warpforge as wf
    from warpforge import simt, f32

Kernels written in Python (`@simt.kernel`) are lowered through warpforge's own dialects
(`kernel` → `gpu` → `nvvm` → `llvm`) to LLVM IR and PTX, and launched with cuda-python (`cuda.core`).
See DESIGN.md for the pipeline, the dialects and the semantics policies.
"""

from __future__ import annotations

import os as _os

_os.environ.setdefault("LLVMLITE_ENABLE_IR_LAYER_TYPED_POINTERS", "0")

from warpforge import simt  # noqa: E402
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
    CompileError,
    DeviceError,
    KernelError,
    LaunchError,
    MovedValueError,
    WarpforgeError,
)

__version__ = "0.1.0"


def simulating() -> bool:
    """True when kernels run on the CPU simulator (`WARPFORGE_SIMULATE=1`, or `warpforge run` without a
    GPU): examples use it to pick sizes that finish in seconds."""
    return _os.environ.get("WARPFORGE_SIMULATE") == "1"

_RUNTIME_NAMES = ("Device", "DeviceBuffer", "DeviceLimits", "LaunchConfig", "Stream", "synchronize", "gpu_available")


def __getattr__(name: str):
    # the runtime imports cuda.core lazily, so `import warpforge` works on machines without CUDA
    if name in _RUNTIME_NAMES:
        from warpforge import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'warpforge' has no attribute '{name}'")


__all__ = [
    "AliasError",
    "CompileError",
    "DType",
    "DeviceError",
    "KernelError",
    "LaunchError",
    "MovedValueError",
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
    "simulating",
    "u8",
    "u16",
    "u32",
    "u64",
    *_RUNTIME_NAMES,
]
