"""Run a `@simt.kernel` on host arrays and get the outputs back, on the GPU or on the CPU simulator,
through the same runtime API (`wf.Device`, `DeviceBuffer`, `prepare`, `launch`), so the
semantic-policy tests are written once and check both.

    from kernel_runner import backend  # the fixture: "gpu" (marked gpu) and "simulator"

    def test_x(backend):
        out, = backend.run(kernel, grid, block, a, poisoned(n, np.int32))[1:]
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

BACKENDS = ("gpu", "simulator")


class Backend:
    """Where kernels run: `name` is "gpu" (`wf.Device(0)`) or "simulator" (`wf.Device.simulator()`)."""

    def __init__(self, name: str):
        assert name in BACKENDS
        self.name = name

    @property
    def device(self) -> Any:
        import warpforge as wf

        if self.name == "simulator":
            return wf.Device.simulator()
        dev = wf.Device(0)
        assert not dev.simulated, "WARPFORGE_SIMULATE=1 makes Device(0) the simulator: unset it to test the GPU"
        return dev

    def run(self, kernel: Any, grid: Any, block: Any, *args: Any, shmem: int = 0) -> list[np.ndarray]:
        """Launch `kernel` with NumPy arrays copied to the device (scalars passed as they are) on a new
        stream, with `shmem` bytes of dynamic shared memory per block; returns every array argument
        copied back, in order. Raises what the launch or the kernel raises (`KernelError` from the
        copy back)."""
        import warpforge as wf

        dev = self.device
        stream = dev.create_stream()
        dev_args = [wf.DeviceBuffer.from_host(stream, a) if isinstance(a, np.ndarray) else a for a in args]
        prepared = kernel.prepare(wf.LaunchConfig(grid=grid, block=block, shmem_size=shmem), device=dev)
        kernel.launch(stream, prepared, *dev_args)
        return [d.to_host(stream) for d in dev_args if isinstance(d, wf.DeviceBuffer)]

    def only_blocks(self, blocks: Sequence[int]) -> contextlib.AbstractContextManager[None]:
        """The simulator runs only `blocks` of the launches inside the `with` (a grid too large to
        simulate); the GPU runs every block."""
        return self.device.run_only_blocks(blocks) if self.name == "simulator" else contextlib.nullcontext()

    def __repr__(self) -> str:
        return self.name


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "simulator"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Each test that takes it runs twice: on the GPU (marked `gpu`, skipped without one) and on the
    CPU simulator (always, so CI checks it)."""
    import warpforge as wf

    b = Backend(request.param)
    yield b
    if b.name == "simulator":  # no KernelError left pending for the next test
        with contextlib.suppress(wf.KernelError):
            b.device.synchronize()


def run_gpu(kernel: Any, grid: Any, block: Any, *args: Any) -> list[np.ndarray]:
    """`Backend("gpu").run(...)`."""
    return Backend("gpu").run(kernel, grid, block, *args)


def poisoned(n: int, dtype: Any) -> np.ndarray:
    """An output buffer full of a value no correct kernel writes (NaN for floats, a sentinel for ints)."""
    dt = np.dtype(dtype)
    if dt.kind == "f" or dt.name == "bfloat16":  # ml_dtypes' bfloat16 has kind "V"
        return np.full(n, np.nan, dtype=dt)
    if dt.kind == "b":
        return np.zeros(n, dtype=dt)
    return np.full(n, np.iinfo(dt).max // 3 + 7, dtype=dt)
