"""Tile vector add on 2^28 f32, side by side in one process: warpforge's `@tile.kernel` (several tile
sizes and warp counts; the best is compared), Triton's tutorial vector add (BLOCK 1024 and 4096) and
torch.add.

Every kernel runs on the same CUDA stream, timed with CUDA events on it (bench/_harness.py's
`EventTimer`: 5 warm-ups, then 25 launches back to back with an event between each; the median).
GB/s counts 3 × 4 bytes per element. warpforge's kernel has no checks to compile out (no integer
division: no error record), so "checks on" is what runs. Goal: warpforge ≥ 0.98× Triton.

    python bench/tile_vecadd.py [--n 268435456] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import f32, tile

from _harness import EventTimer, best_warpforge, print_gbs_table  # the same timing as bench/vecadd.py

CONFIGS = ((1024, 4), (2048, 4), (2048, 8), (4096, 4), (4096, 8), (8192, 8))
"""(tile elements, warps per CTA) tried for warpforge."""


def make_add(num_warps: int) -> Any:
    @tile.kernel(num_warps=num_warps)
    def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
        z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))

    return add


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 28)
    parser.add_argument("--json")
    args = parser.parse_args()
    n = args.n
    gbytes = 3 * 4 * n / 1e9

    dev = wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng()
    x_host = rng.standard_normal(n, dtype=np.float32)
    y_host = rng.standard_normal(n, dtype=np.float32)
    expected = x_host + y_host
    x = wf.DeviceBuffer.from_host(stream, x_host)
    y = wf.DeviceBuffer.from_host(stream, y_host)
    z = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, fn: Callable[[], None], **info: Any) -> None:
        z.copy_from_host(np.full(n, np.nan, dtype=np.float32), stream)
        ms = timer.median_ms(fn, warmup=5, runs=25)
        got = z.to_host(stream)
        if not np.array_equal(got, expected):
            raise SystemExit(f"{name}: WRONG RESULT ({int(np.count_nonzero(got != expected))} elements differ)")
        results[name] = {"ms": ms, "GB/s": gbytes / (ms / 1e3), **info}
        print(f"  {name:40} {ms:8.3f} ms {gbytes / (ms / 1e3):8.0f} GB/s", flush=True)

    print(f"tile vecadd, n = {n} f32")
    kernels = {w: make_add(w) for w in sorted({w for _, w in CONFIGS})}
    for block, warps in CONFIGS:
        bound = kernels[warps].bind(wf.tensor(z).partition((block,)), wf.tensor(x), wf.tensor(y), device=dev)
        assert bound.block == warps * 32
        record(f"warpforge tile {block}, {warps} warps", lambda bound=bound: bound.launch(stream), tile=block, warps=warps, threads=bound.block)

    try:
        import torch

        ext = torch.cuda.ExternalStream(stream.handle)
        tx, ty, tz = (torch.as_tensor(b, device="cuda") for b in (x, y, z))

        def torch_add() -> None:
            with torch.cuda.stream(ext):
                torch.add(tx, ty, out=tz)

        record("torch.add", torch_add)
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def triton_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):  # noqa: N803
                pid = tl.program_id(axis=0)
                offsets = pid * BLOCK + tl.arange(0, BLOCK)
                mask = offsets < n_elements
                tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)

            for block in (1024, 4096):

                def run_triton(block: int = block) -> None:
                    with torch.cuda.stream(ext):
                        triton_add[(triton.cdiv(n, block),)](tx, ty, tz, n, BLOCK=block)

                record(f"Triton BLOCK {block}", run_triton, tile=block)
        except Exception as e:  # report, go on
            print(f"Triton: skipped ({type(e).__name__}: {e})")
    except Exception as e:
        print(f"torch: skipped ({type(e).__name__}: {e})")

    ours_name = best_warpforge(results)
    ours = results[ours_name]["GB/s"]
    triton_best = max((r["GB/s"] for k, r in results.items() if k.startswith("Triton")), default=None)
    print(f"\ntile vecadd, n = 2^{n.bit_length() - 1} f32, median of 25 (CUDA events); best warpforge: {ours_name}")
    print_gbs_table(results, ours, 40)
    if triton_best:
        print(f"warpforge / best Triton = {ours / triton_best:.3f} (goal ≥ 0.98)")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "best": ours_name, "vs_triton": ours / triton_best if triton_best else None}, indent=2))


if __name__ == "__main__":
    main()
