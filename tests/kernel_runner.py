"""Run a `@simt.kernel` on host arrays and get the outputs back, on the GPU (and, once the simulator
lands, on the CPU), so the semantic-policy tests are written once for both."""

from __future__ import annotations

from typing import Any

import numpy as np


def run_gpu(kernel: Any, grid: Any, block: Any, *args: Any) -> list[np.ndarray]:
    """Launch `kernel[grid, block]` with NumPy arrays copied to the device (scalars passed as they are);
    returns every array argument copied back, in order. Raises what the launch or the kernel raises."""
    import warpforge as wf

    dev = wf.Device(0)
    stream = dev.create_stream()
    dev_args = [wf.DeviceBuffer.from_host(stream, a) if isinstance(a, np.ndarray) else a for a in args]
    prepared = kernel.prepare(wf.LaunchConfig(grid=grid, block=block), device=dev)
    kernel.launch(stream, prepared, *dev_args)
    return [d.to_host(stream) for d in dev_args if isinstance(d, wf.DeviceBuffer)]


def poisoned(n: int, dtype: Any) -> np.ndarray:
    """An output buffer full of a value no correct kernel writes (NaN for floats, a sentinel for ints)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.full(n, np.nan, dtype=dt)
    if dt.kind == "b":
        return np.zeros(n, dtype=dt)
    return np.full(n, np.iinfo(dt).max // 3 + 7, dtype=dt)
