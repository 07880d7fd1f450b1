"""Host time per launch (microseconds) without a GPU: tests/test_runtime_fake_driver.py's simulated
driver, a 4096^3 Tile GEMM (examples/matmul.py's kernel, 128x256x64, compiled for sm_90a: wgmma and
its TMA ring), bound (`TileKernel.bind(...).launch(stream)`) and through the general
`runtime.launch(stream, prepared, args)`, on three kinds of arguments: `wf.DeviceBuffer`s, CUDA array
interface objects (f16, with a `stream`, as cupy's) and DLPack-only objects (bf16, as
bench/launch_overhead.py's `_DLPackOnly`), each with the launch's stream or another one as its own.

What it measures is warpforge's own Python per launch: the fake driver's calls cost next to nothing
and cuda.core's `StridedMemoryView` is a stand-in (tests/fake_memory_view.py's reading of the CAI
dict; for DLPack one `__dlpack__(stream=...)` call), so the figures are lower than a GPU host's,
where `bench/launch_overhead.py` measures the real thing. Each figure is the median of `--repeats`
means of `--launches` enqueues, after warm-ups.

    python bench/launch_overhead_fake.py [--launches 2000] [--repeats 7] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

import warpforge as wf  # noqa: E402
from warpforge import bf16, f16, f32, tile  # noqa: E402

from _harness import host_us  # noqa: E402


@tile.kernel(num_warps=8, num_stages=4, min_blocks_per_sm=1)
def gemm_f16(c: tile.Tensor[f16, (128, 256)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((128, 256), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (128, 64)), tile.load(b, (kt, tile.bid(1)), (64, 256)), acc)
    c.store(acc.astype(f16))


@tile.kernel(num_warps=8, num_stages=4, min_blocks_per_sm=1)
def gemm_bf16(c: tile.Tensor[bf16, (128, 256)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((128, 256), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (128, 64)), tile.load(b, (kt, tile.bid(1)), (64, 256)), acc)
    c.store(acc.astype(bf16))


@tile.kernel(num_warps=8, num_stages=4, min_blocks_per_sm=1, checks=True)
def gemm_f16_checked(c: tile.Tensor[f16, (128, 256)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((128, 256), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (128, 64)), tile.load(b, (kt, tile.bid(1)), (64, 256)), acc)
    c.store(acc.astype(f16))


class FakeCapsuleView:
    """cuda.core's `StridedMemoryView` on the fake driver: reads a CAI dict (tests/fake_memory_view.py);
    for a DLPack object, calls `__dlpack__(stream=...)` (the producer's ordering, as cuda.core does)
    and reads the object's metadata."""

    @staticmethod
    def from_cuda_array_interface(obj: Any, stream_ptr: int) -> Any:
        from fake_memory_view import FakeView

        return FakeView(obj.__cuda_array_interface__)

    @staticmethod
    def from_any_interface(obj: Any, stream_ptr: int) -> Any:
        from fake_memory_view import FakeView

        if hasattr(obj, "__cuda_array_interface__"):
            return FakeView(obj.__cuda_array_interface__)
        obj.__dlpack__(stream=stream_ptr)
        return FakeView(obj.cai)


class CaiArray:
    """A cupy-style device array: `__cuda_array_interface__` with a `stream`."""

    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str, stream: int):
        self.__cuda_array_interface__ = {"version": 3, "shape": shape, "typestr": typestr, "data": (ptr, False), "strides": None, "stream": stream}


class DLPackArray:
    """A DLPack-only device array (shape, dtype, `__dlpack__`, `__dlpack_device__`)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], dtype: Any):
        self.shape, self.dtype = shape, np.dtype(dtype)
        self.cai = {"version": 3, "shape": shape, "typestr": self.dtype, "data": (ptr, False), "strides": None}  # what the fake view reads
        self.orders: list[int] = []

    def __dlpack__(self, stream: Any = None) -> Any:
        self.orders.append(stream)
        if len(self.orders) > 64:
            del self.orders[:32]
        return object()

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)


def setup() -> Any:
    """The fake driver of tests/test_runtime_fake_driver.py, installed for the rest of the process."""
    import cuda.core
    import cuda.core.utils
    import pytest

    import test_runtime_fake_driver as fd
    from test_tile_fake_driver import AnyEntry
    from warpforge.runtime import tma

    mp = pytest.MonkeyPatch()
    sim = fd.Sim()
    fd.FAKE_DEVICES.clear()
    fd.FAKE_DEVICES[0] = fd.FakeCoreDevice(sim, 0)
    mp.setattr(fd._driver, "driver", lambda: fd.FakeDriver(sim))
    mp.setattr(cuda.core, "Device", lambda ordinal: fd.FAKE_DEVICES[ordinal])
    mp.setattr(cuda.core, "Stream", fd.FakeStream)
    mp.setattr(cuda.core, "LegacyPinnedMemoryResource", lambda: type("MR", (), {"allocate": lambda self, n: fd.FakeBuffer(sim.alloc(n))})())
    mp.setattr(cuda.core, "ObjectCode", type("OC", (), {"from_ptx": staticmethod(lambda ptx, name="": fd.FakeObjectCode(ptx, sim))}))
    mp.setattr(cuda.core, "launch", lambda stream, config, kernel, *args: None)
    mp.setattr(cuda.core.utils, "StridedMemoryView", FakeCapsuleView)
    mp.setattr(tma, "_core_descriptor", lambda req: ("tensor map", req.address))  # no driver to encode one
    fd.gpu_available.cache_clear()
    sim.kernels = AnyEntry({"gemm_f16": (0, None), "gemm_bf16": (0, None), "gemm_f16_checked": (0, None)})
    return sim




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--only", default="", help="run (and with --profile, profile) only the rows whose label contains this")
    args = parser.parse_args()

    setup()
    from warpforge.runtime import launch

    dev = wf.Device(0)
    s, other = dev.create_stream(), dev.create_stream()
    m = n = k = 4096
    rows: list[tuple[str, float]] = []
    profiled: list[tuple[str, Callable[[], None]]] = []
    for dname, kernel, dt in (("f16", gemm_f16, np.float16), ("bf16", gemm_bf16, wf.bf16.np), ("f16 checked", gemm_f16_checked, np.float16)):
        pa, pb, pc = (0x7F00_0000_0000 + i * (1 << 30) for i in range(3))  # foreign memory the no-op kernel never touches
        typestr = np.dtype(dt).str
        kinds: dict[str, tuple[Any, Any, Any]] = {}
        kinds["DeviceBuffer"] = tuple(wf.DeviceBuffer.empty(s, (m, n), np.dtype(dt)) for _ in range(3))  # type: ignore[assignment]
        if dname.startswith("f16"):  # CAI has no bfloat16 typestr
            kinds["CAI, own stream"] = tuple(CaiArray(p, (m, n), typestr, s.handle) for p in (pc, pa, pb))  # type: ignore[assignment]
            kinds["CAI, other stream"] = tuple(CaiArray(p, (m, n), typestr, other.handle) for p in (pc, pa, pb))  # type: ignore[assignment]
        if dname != "f16 checked":
            kinds["DLPack"] = tuple(DLPackArray(p, (m, n), dt) for p in (pc, pa, pb))  # type: ignore[assignment]
        for kind, (c, a, b) in kinds.items():
            label = f"{dname} {kind}"
            if args.only and args.only not in label:
                continue
            try:
                bound = kernel.bind(wf.tensor(c).partition((128, 256)), wf.tensor(a), wf.tensor(b), k // 64, device=dev)
            except wf.WarpforgeError as e:  # e.g. an older checkout that cannot bind it
                print(f"  {label}: bind failed: {type(e).__name__}: {e}"[:160])
                continue
            rows.append((f"{label}: bind().launch", host_us(lambda: bound.launch(s), s.sync, args.launches, args.repeats, warmup=50)))
            prepared, arrays, ck = bound.prepared, list(bound.arrays), bound.compiled.kernel
            rows.append((f"{label}: runtime.launch", host_us(lambda: launch(s, prepared, arrays, kernel=ck), s.sync, args.launches, args.repeats, warmup=50)))
            if args.only or kind == "CAI, own stream" or (dname == "bf16" and kind == "DLPack"):
                profiled.append((f"{label} bind().launch", lambda bound=bound: bound.launch(s)))
    print("host time per launch (us) on the fake driver, 4096^3 GEMM 128x256x64 (sm_90a, TMA ring; unchecked but the 'checked' rows), median of means")
    for name, us in rows:
        print(f"  {name:44} {us:8.2f}")
    if args.profile:
        for name, fn in profiled:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(args.launches):
                fn()
            prof.disable()
            s.sync()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
            print(f"\ncProfile of {name}, {args.launches} launches (by own time):")
            print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main()
