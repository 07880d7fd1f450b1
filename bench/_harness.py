"""What the benchmarks share: CUDA-event timing on one stream, and the GB/s rows, table, ratios to peers and JSON.

Imported by the scripts in bench/ as a sibling module (`python bench/<name>.py` puts bench/ on the path).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping
from pathlib import Path
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


def keep_gbs_row(results: dict[str, dict[str, Any]], name: str, ms: float, gbytes: float, name_width: int, **info: Any) -> None:
    """Keep a timed result as `results[name]` (ms, GB/s for `gbytes` moved per run, `info`) and print its row."""
    results[name] = {"ms": ms, "GB/s": gbytes / (ms / 1e3), **info}
    print(f"  {name:{name_width}} {ms:8.3f} ms {gbytes / (ms / 1e3):8.0f} GB/s", flush=True)


def report_vs_peers(
    results: Mapping[str, Mapping[str, Any]], title: str, name_width: int, peers: Mapping[str, tuple[str, str | None]], json_path: str | None
) -> None:
    """The summary of a GB/s benchmark: the best warpforge result, the table (`print_gbs_table`), one
    ratio line per peer and the `--json` file.

    `peers` maps a JSON key (`"vs_triton"`) to (the prefix of the peer's result names, the line that
    prints its ratio, `{ratio}` filled in with `.3f`, or None to write the ratio to the JSON only); a
    peer's ratio is the best warpforge GB/s over the peer's best, None when the peer did not run. The
    JSON is {"results", "best" (the best warpforge's name), and one key per peer}."""
    ours_name = best_warpforge(results)
    ours = results[ours_name]["GB/s"]
    ratios: dict[str, float | None] = {}
    for key, (prefix, _) in peers.items():
        theirs = max((r["GB/s"] for k, r in results.items() if k.startswith(prefix)), default=None)
        ratios[key] = ours / theirs if theirs else None
    print(f"\n{title}, median of 25 (CUDA events); best warpforge: {ours_name}")
    print_gbs_table(results, ours, name_width)
    for key, (_, line) in peers.items():
        if line is not None and ratios[key] is not None:
            print(line.format(ratio=ratios[key]))
    if json_path:
        Path(json_path).write_text(json.dumps({"results": results, "best": ours_name, **ratios}, indent=2))


def vector_add_inputs(stream: Any, n: int) -> tuple[Any, Any, Any, Any]:
    """What bench/vecadd.py and bench/tile_vecadd.py time: two fresh random f32 vectors of `n` elements
    on the device, an f32 output of `n` poisoned with NaN, and the expected sum on the host
    (`DeviceBuffer`, `DeviceBuffer`, `DeviceBuffer`, numpy array)."""
    import numpy as np

    import warpforge as wf

    rng = np.random.default_rng()
    a_host = rng.standard_normal(n, dtype=np.float32)
    b_host = rng.standard_normal(n, dtype=np.float32)
    expected = a_host + b_host
    a, b = wf.DeviceBuffer.from_host(stream, a_host), wf.DeviceBuffer.from_host(stream, b_host)
    return a, b, wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32)), expected
