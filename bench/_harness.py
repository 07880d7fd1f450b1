"""What the benchmarks share: CUDA-event timing on one stream, and the GB/s table with ratios.

Imported by the scripts in bench/ as a sibling module (`python bench/<name>.py` puts bench/ on the path).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from typing import Any


class EventTimer:
    """Times a callable on one stream with CUDA events (cuda.bindings): warm-ups, then the median."""

    def __init__(self, stream_handle: int):
        from cuda.bindings import driver as drv

        self.drv, self.stream = drv, stream_handle

    def median_ms(self, fn: Callable[[], None], warmup: int = 5, runs: int = 25) -> float:
        """GPU time per launch: all runs are enqueued back to back, an event between each, so host-side
        launch overhead overlaps the previous kernel instead of being counted (as long as the host keeps
        ahead of the GPU, which ~1 ms kernels guarantee)."""
        drv = self.drv
        for _ in range(warmup):
            fn()
        drv.cuStreamSynchronize(self.stream)
        events = [drv.cuEventCreate(0)[1] for _ in range(runs + 1)]
        drv.cuEventRecord(events[0], self.stream)
        for k in range(runs):
            fn()
            drv.cuEventRecord(events[k + 1], self.stream)
        drv.cuEventSynchronize(events[-1])
        times = [drv.cuEventElapsedTime(events[k], events[k + 1])[1] for k in range(runs)]
        for e in events:
            drv.cuEventDestroy(e)
        return statistics.median(times)


def best_warpforge(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The name of the fastest (highest GB/s) of the results whose name starts with `warpforge`."""
    return max((k for k in results if k.startswith("warpforge")), key=lambda k: results[k]["GB/s"])


def print_gbs_table(results: Mapping[str, Mapping[str, Any]], ours: float, name_width: int, ratio_header: str = "best ours/this", ratio_width: int = 15) -> None:
    """One row per result: name, ms, GB/s, and `ours` (GB/s) divided by the row's GB/s."""
    print(f"{'kernel':{name_width}} {'ms':>8} {'GB/s':>8} {ratio_header:>{ratio_width}}")
    for name, r in results.items():
        print(f"{name:{name_width}} {r['ms']:8.3f} {r['GB/s']:8.0f} {ours / r['GB/s']:{ratio_width}.3f}")
