"""The sum of 2^28 f32 values, side by side in one process: warpforge's `@tile.kernel` as in
examples/tile_sum.py — a chain of two launches (each tile block sums `tiles` tiles of BLOCK elements
into one partial; then one tile block sums the partials) — over a few (BLOCK, tiles, warps)
configurations, and torch.sum. (No Triton peer: the goal is against torch.)

Same stream, CUDA events (bench/_harness.py's `EventTimer`: 5 warm-ups, median of 25); one timed run
is both launches. GB/s counts one read of the input (4 bytes per element). Results are checked
against the float64 sum (rtol 1e-4). Goal: warpforge ≥ 0.95× torch.

    python bench/tile_sum.py [--n 268435456] [--json out.json]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import f32, i64, tile

from _harness import EventTimer, keep_gbs_row, report_vs_peers  # the same timing as bench/vecadd.py

CONFIGS = ((4096, 4, 8), (4096, 8, 8), (8192, 2, 16), (8192, 4, 16), (8192, 8, 16), (16384, 2, 16))
"""(BLOCK elements per tile, tiles per tile block, warps per CTA) tried for warpforge."""


def make_sum(block: int, num_warps: int) -> Any:
    @tile.kernel(num_warps=num_warps)
    def tile_sum(out: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)], tiles: i64):
        acc = tile.zeros((block,), f32)
        first = tile.bid(0) * tiles
        for i in range(tiles):
            acc += tile.load(x, (first + i,), (block,))
        out.store(tile.sum(acc))

    return tile_sum


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 28)
    parser.add_argument("--json")
    args = parser.parse_args()
    n = args.n
    gbytes = 4 * n / 1e9

    dev = wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng()
    x_host = rng.random(n, dtype=np.float32)
    expected = float(x_host.astype(np.float64).sum())
    x = wf.DeviceBuffer.from_host(stream, x_host)
    total = wf.DeviceBuffer.zeroed(stream, 1, f32)
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, fn: Callable[[], Any], result: Callable[[], float], **info: Any) -> None:
        ms = timer.median_ms(fn, warmup=5, runs=25)
        got = result()
        if not np.isclose(got, expected, rtol=1e-4):
            raise SystemExit(f"{name}: WRONG RESULT {got!r} vs {expected!r}")
        keep_gbs_row(results, name, ms, gbytes, 44, relative_error=abs(got - expected) / expected, **info)

    print(f"sum of {n} f32")
    for block, tiles, warps in CONFIGS:
        kern = make_sum(block, warps)
        p = -(-n // (block * tiles))
        partials = wf.DeviceBuffer.zeroed(stream, p, f32)
        first = kern.bind(wf.tensor(partials).partition((1,)), wf.tensor(x), tiles, device=dev)
        second = kern.bind(wf.tensor(total).partition((1,)), wf.tensor(partials), -(-p // block), device=dev)

        def both(first: Any = first, second: Any = second) -> None:
            first.launch(stream)
            second.launch(stream)

        record(
            f"warpforge BLOCK {block} x {tiles} tiles, {warps} warps",
            both,
            lambda: float(total.to_host(stream)[0]),
            block=block,
            tiles_per_block=tiles,
            warps=warps,
            partials=p,
        )

    try:
        import torch

        ext = torch.cuda.ExternalStream(stream.handle)
        tx = torch.as_tensor(x, device="cuda")
        holder: dict[str, Any] = {}

        def torch_sum() -> None:
            with torch.cuda.stream(ext):
                holder["s"] = torch.sum(tx)

        def torch_result() -> float:
            torch.cuda.synchronize()
            return float(holder["s"].item())

        record("torch.sum", torch_sum, torch_result)
    except Exception as e:
        print(f"torch: skipped ({type(e).__name__}: {e})")

    report_vs_peers(results, f"sum of 2^{n.bit_length() - 1} f32", 44, {"vs_torch": ("torch.sum", "warpforge / torch = {ratio:.3f} (goal ≥ 0.95)")}, args.json)


if __name__ == "__main__":
    main()
