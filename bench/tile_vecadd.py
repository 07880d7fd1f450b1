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
from collections.abc import Callable
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import f32, tile

from _harness import EventTimer, keep_gbs_row, report_vs_peers, vector_add_inputs  # the same timing as bench/vecadd.py

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
    x, y, z, expected = vector_add_inputs(stream, n)
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, fn: Callable[[], None], **info: Any) -> None:
        z.copy_from_host(np.full(n, np.nan, dtype=np.float32), stream)
        ms = timer.median_ms(fn, warmup=5, runs=25)
        got = z.to_host(stream)
        if not np.array_equal(got, expected):
            raise SystemExit(f"{name}: WRONG RESULT ({int(np.count_nonzero(got != expected))} elements differ)")
        keep_gbs_row(results, name, ms, gbytes, 40, **info)

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

    peers = {"vs_triton": ("Triton", "warpforge / best Triton = {ratio:.3f} (goal ≥ 0.98)")}
    report_vs_peers(results, f"tile vecadd, n = 2^{n.bit_length() - 1} f32", 40, peers, args.json)


if __name__ == "__main__":
    main()
