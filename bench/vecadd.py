"""Vector add on 2^28 f32, side by side in one process: warpforge SIMT (checks on and off), torch.add,
a CUDA C++ kernel compiled in-process with cuda.core.Program (NVRTC), and numba-cuda where it imports.

Every kernel runs on the same CUDA stream and is timed with CUDA events on it: 5 warm-ups, then the
median of 25 runs. GB/s counts 3 × 4 bytes per element (two reads, one write). Ratios are against
numba-cuda and the CUDA C++ kernel (the goal: warpforge with checks on ≥ 0.98× both). Also reported:
the compile time of vecadd from Python source to PTX, in a cold process and warm (in-process, no cache).

    python bench/vecadd.py [--n 268435456] [--block 256] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import warpforge as wf
from warpforge import f32, simt

from _harness import EventTimer, print_gbs_table, vector_add_inputs  # noqa: F401 (EventTimer: also `from vecadd import EventTimer`)

ROOT = Path(__file__).resolve().parent.parent


@simt.kernel
def vecadd_checked(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i]


@simt.kernel(checks=False)
def vecadd_unchecked(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i]


CUDA_CPP = r"""
extern "C" __global__ void vecadd(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""


def compile_times() -> dict[str, float]:
    code = (
        "import time; t = time.perf_counter(); import sys; sys.path.insert(0, %r); "
        "import vecadd as m; m.vecadd_checked.ir('ptx'); print(time.perf_counter() - t)"
    ) % str(Path(__file__).parent)
    cold = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    vecadd_checked.ir("ptx")
    t = time.perf_counter()
    vecadd_checked.ir("ptx")
    warm = time.perf_counter() - t
    return {"cold_process_s": cold, "warm_in_process_s": warm}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 28)
    parser.add_argument("--block", type=int, default=256)
    parser.add_argument("--json")
    args = parser.parse_args()
    n, block = args.n, args.block
    grid = (n + block - 1) // block
    gbytes = 3 * 4 * n / 1e9

    dev = wf.Device(0)
    stream = dev.create_stream()
    a, b, c, expected = vector_add_inputs(stream, n)
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, float]] = {}

    def record(name: str, fn: Callable[[], None], check: Callable[[], np.ndarray] | None = None) -> None:
        c.copy_from_host(np.full(n, np.nan, dtype=np.float32), stream)
        ms = timer.median_ms(fn)
        if check is not None:
            got = check()
            if not np.array_equal(got, expected):
                raise SystemExit(f"{name}: WRONG RESULT")
        results[name] = {"ms": ms, "GB/s": gbytes / (ms / 1e3)}

    for name, kern in (("warpforge (checks on)", vecadd_checked), ("warpforge (checks off)", vecadd_unchecked)):
        prepared = kern.prepare(wf.LaunchConfig(grid=grid, block=block), device=dev)
        record(name, lambda kern=kern, prepared=prepared: kern.launch(stream, prepared, a, b, c), lambda: c.to_host(stream))

    # CUDA C++ through NVRTC (cuda.core.Program)
    from cuda.core import LaunchConfig as CoreLaunchConfig
    from cuda.core import Program, ProgramOptions
    from cuda.core import launch as core_launch

    prog = Program(CUDA_CPP, code_type="c++", options=ProgramOptions(arch=f"sm_{''.join(map(str, dev.compute_capability))}", std="c++17"))
    cpp_kernel = prog.compile("cubin").get_kernel("vecadd")
    cfg = CoreLaunchConfig(grid=grid, block=block)
    record("CUDA C++ (NVRTC)", lambda: core_launch(stream.raw, cfg, cpp_kernel, a.ptr, b.ptr, c.ptr, np.int64(n)), lambda: c.to_host(stream))

    try:
        import torch

        ext = torch.cuda.ExternalStream(stream.handle)
        ta = torch.as_tensor(a, device="cuda")
        tb = torch.as_tensor(b, device="cuda")
        tc = torch.as_tensor(c, device="cuda")

        def torch_add() -> None:
            with torch.cuda.stream(ext):
                torch.add(ta, tb, out=tc)

        record("torch.add", torch_add, lambda: c.to_host(stream))
    except Exception as e:  # report, go on
        print(f"torch: skipped ({type(e).__name__}: {e})")

    try:
        from numba import cuda as ncuda

        @ncuda.jit
        def numba_add(x, y, out):
            i = ncuda.grid(1)
            if i < out.size:
                out[i] = x[i] + y[i]

        nstream = ncuda.external_stream(stream.handle)
        na, nb, nc = (ncuda.as_cuda_array(t) for t in (a, b, c))
        record("numba-cuda", lambda: numba_add[grid, block, nstream](na, nb, nc), lambda: c.to_host(stream))
    except Exception as e:
        print(f"numba-cuda: skipped ({type(e).__name__}: {e})")

    comp = compile_times()
    ours = results["warpforge (checks on)"]["GB/s"]
    print(f"\nvecadd, n = 2^{n.bit_length() - 1} f32, block {block}, median of 25 (CUDA events)")
    print_gbs_table(results, ours, 26, "ours/this", 10)
    print(f"compile vecadd → PTX: cold process {comp['cold_process_s']:.2f} s, warm {comp['warm_in_process_s'] * 1e3:.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "compile": comp}, indent=2))


if __name__ == "__main__":
    main()
