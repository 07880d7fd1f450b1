"""Host time per launch (microseconds) of a bound tile GEMM (`TileKernel.bind(...).launch(stream)`) on
torch tensors (f16 through `__cuda_array_interface__`, bf16 through DLPack), next to the launch of a Triton kernel and of `torch.matmul` on the same tensors, in
one process on one stream; then a cProfile of the bound launch's hottest functions.

A GEMM whose launch costs the host more than the kernel runs is timed at the host's speed, whatever
the kernel: this is the figure that tells. Each row is the mean of `--launches` enqueues (no
synchronization between them; the queue does not fill: 4096^3 GEMMs take ~0.2 ms each), after 20
warm-ups; the median of `--repeats` such means.

    python bench/launch_overhead.py [--launches 300] [--repeats 5] [--no-profile] [--json out.json]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import warpforge as wf  # noqa: E402
from warpforge import bf16, f16  # noqa: E402

from _harness import host_us  # noqa: E402
from matmul import TILE_KERNELS, _DLPackOnly, triton_matmul  # noqa: E402




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--json", help="also write the rows here (name -> host us per launch)")
    args = parser.parse_args()

    import torch

    dev = wf.Device(0)
    stream = dev.create_stream()
    ext = torch.cuda.ExternalStream(stream.handle)
    m = n = k = 4096
    cfg = (128, 256, 64, 8, 4, 1)
    bm, bn, bk = cfg[:3]
    rows: list[tuple[str, float]] = []
    profiled: Any = None
    triton_kernel, triton = triton_matmul()
    for dname, dt, tdt in (("f16", f16, torch.float16), ("bf16", bf16, torch.bfloat16)):
        kernel = TILE_KERNELS[dname, "input"][cfg]
        ta = torch.randn((m, k), device="cuda", dtype=tdt)
        tb = torch.randn((k, n), device="cuda", dtype=tdt)
        tc = torch.empty((m, n), device="cuda", dtype=tdt)
        wrap = (lambda x: x) if dname == "f16" else _DLPackOnly
        bound = kernel.bind(wf.tensor(wrap(tc)).partition((bm, bn)), wf.tensor(wrap(ta)), wf.tensor(wrap(tb)), -(-k // bk), device=dev)
        rows.append((f"{dname} tile bind().launch, torch tensors", host_us(lambda: bound.launch(stream), stream.sync, args.launches, args.repeats)))
        if dname == "f16":
            profiled = bound

        def run_triton() -> None:
            with torch.cuda.stream(ext):
                triton_kernel[lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(n, meta["BN"]))](ta, tb, tc, m, n, k)

        def run_torch() -> None:
            with torch.cuda.stream(ext):
                torch.matmul(ta, tb, out=tc)

        rows.append((f"{dname} Triton launch (autotuned, cached)", host_us(run_triton, stream.sync, args.launches, args.repeats)))
        rows.append((f"{dname} torch.matmul", host_us(run_torch, stream.sync, args.launches, args.repeats)))
    print("\nhost time per launch (us), 4096^3 GEMM, median of means")
    for name, us in rows:
        print(f"  {name:48} {us:8.1f}")
    if args.json:
        import json

        Path(args.json).write_text(json.dumps(dict(rows), indent=2))
    if not args.no_profile and profiled is not None:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.launches):
            profiled.launch(stream)
        prof.disable()
        stream.sync()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(22)
        print("\ncProfile of f16 bind().launch (by own time):")
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])


if __name__ == "__main__":
    main()
