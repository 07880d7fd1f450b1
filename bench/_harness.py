"""What the benchmarks share: CUDA-event timing on one stream, the torch/Triton peers' setup and checked
TFLOP/s rows, and the GB/s rows, table, ratios to peers and JSON.

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

    def __init__(self, stream_handle: int, hold: Callable[[], None] | None = None):
        from cuda.bindings import driver as drv

        self.drv, self.stream, self.hold = drv, stream_handle, hold

    def median_ms(self, fn: Callable[[], None], warmup: int = 5, runs: int = 25) -> float:
        """GPU time per launch: all runs are enqueued back to back, an event between each. With `hold`
        (a callable that enqueues a ~20 ms busy kernel on the stream, e.g. `torch.cuda._sleep`), the
        runs are queued while the GPU is held, so the events time the kernels alone even when a launch
        costs the host more than the kernel runs (a 0.2 ms GEMM); without it, host-side launch overhead
        overlaps the previous kernel only as long as the host keeps ahead of the GPU."""
        drv = self.drv
        for _ in range(warmup):
            fn()
        drv.cuStreamSynchronize(self.stream)
        events = [drv.cuEventCreate(0)[1] for _ in range(runs + 1)]
        if self.hold is not None:
            self.hold()
        drv.cuEventRecord(events[0], self.stream)
        for k in range(runs):
            fn()
            drv.cuEventRecord(events[k + 1], self.stream)
        drv.cuEventSynchronize(events[-1])
        times = [drv.cuEventElapsedTime(events[k], events[k + 1])[1] for k in range(runs)]
        for e in events:
            drv.cuEventDestroy(e)
        return statistics.median(times)


class TorchPeers:
    """What a benchmark against torch (and optionally Triton) sets up: warpforge's device 0, one stream
    of it, an `EventTimer` on that stream, the torch `ExternalStream` wrapping it (so torch's kernels
    queue behind ours), and the Triton kernel `make_triton()` returns with the `triton` module
    (`kernel` and `triton` are None with `no_triton`, or when making it fails: that is printed, and
    the benchmark goes on without Triton)."""

    def __init__(self, no_triton: bool, make_triton: Callable[[], tuple[Any, Any]]):
        import torch

        import warpforge as wf

        self.device = wf.Device(0)
        self.stream = self.device.create_stream()
        self.ext = torch.cuda.ExternalStream(self.stream.handle)

        def hold() -> None:  # ~20 ms of GPU time at the H200's 1.98 GHz, on our stream
            with torch.cuda.stream(self.ext):
                torch.cuda._sleep(40_000_000)  # pyright: ignore[reportAttributeAccessIssue]

        self.timer = EventTimer(self.stream.handle, hold)
        self.triton_kernel: Any = None
        self.triton: Any = None
        if not no_triton:
            try:
                self.triton_kernel, self.triton = make_triton()
            except Exception as e:  # report, go on
                print(f"Triton: skipped ({type(e).__name__}: {e})")

    def tflops_timer(
        self, row: dict[str, dict[str, float]], shown: str, where: str, flops: float, reference: Any, tol: float, name_width: int, ms_width: int, warmup: int, runs: int = 25
    ) -> Callable[[str, Callable[[], None], Callable[[], Any]], None]:
        """`timed(name, fn, got)`: runs `fn` once on the stream (a failure is printed, the row gets no
        entry), compares the torch tensor `got()` with `reference` (max |got - reference| <= `tol`, else
        SystemExit naming `where`), times `fn` (median ms of `runs` after `warmup`) and keeps
        `row[name] = {ms, TFLOP/s (from `flops`), max_abs_err_vs_torch}`, printing a line that starts with
        `shown` (the name padded to `name_width`, the ms to `ms_width`)."""

        def timed(name: str, fn: Callable[[], None], got: Callable[[], Any]) -> None:
            try:
                fn()
                self.stream.sync()
            except Exception as e:  # report, go on with the others
                print(f"  {shown} {name:{name_width}} FAILED to run: {type(e).__name__}: {e}", flush=True)
                return
            err = float((got().float() - reference).abs().max())
            if not err <= tol:
                raise SystemExit(f"{name}: WRONG RESULT at {where}: max |ours - torch| = {err} (allowed {tol})")
            ms = self.timer.median_ms(fn, warmup=warmup, runs=runs)
            row[name] = {"ms": ms, "TFLOP/s": flops / (ms / 1e3) / 1e12, "max_abs_err_vs_torch": err}
            print(f"  {shown} {name:{name_width}} {ms:{ms_width}.3f} ms {row[name]['TFLOP/s']:7.1f} TFLOP/s", flush=True)

        return timed


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


def host_us(fn: Callable[[], None], sync: Callable[[], None], launches: int, repeats: int, warmup: int = 20) -> float:
    """Host microseconds per call of `fn` (an enqueue: no synchronization between calls): after
    `warmup` calls and a `sync()`, the median over `repeats` of the mean of `launches` calls, each
    repeat followed by `sync()` (bench/launch_overhead.py and its fake-driver twin)."""
    import time

    for _ in range(warmup):
        fn()
    sync()
    means = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(launches):
            fn()
        means.append((time.perf_counter() - t0) / launches * 1e6)
        sync()
    return statistics.median(means)
