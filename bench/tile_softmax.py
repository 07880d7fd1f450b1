"""Row softmax of an 8192 × 8192 f32 matrix, side by side in one process: warpforge's `@tile.kernel`
(one tile block per row, the row as one (1, 8192) tile in registers; 8, 16 and 32 warps), Triton's
tutorial fused softmax (one program per row, BLOCK 8192; 8 and 16 warps) and torch.softmax.

Same stream, CUDA events (bench/_harness.py's `EventTimer`: 5 warm-ups, median of 25 back-to-back
launches). GB/s counts one read and one write of the matrix (2 × 4 bytes per element). warpforge's
`tile.exp` on f32 is `ex2.approx(x·log2 e)` (documented accuracy: about 2 ulp); Triton's `tl.exp` is
the same instruction. Results are checked against a float64 reference on 64 random rows.
Goal: warpforge ≥ 1.0× Triton.

    python bench/tile_softmax.py [--rows 8192] [--cols 8192] [--json out.json]
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import f32, tile

from _harness import EventTimer, keep_gbs_row, report_vs_peers  # the same timing as bench/vecadd.py

WARPS = (8, 16, 32)


def make_softmax(num_warps: int) -> Any:
    @tile.kernel(num_warps=num_warps)
    def softmax(out: tile.Tensor[f32, (1, "C")], x: tile.Tensor[f32, (-1, -1)]):
        row = tile.load_tile_like(x, out, padding=-math.inf)
        e = tile.exp(row - tile.max(row, axis=1, keepdims=True))
        out.store(e * (1.0 / tile.sum(e, axis=1, keepdims=True)))

    return softmax


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--cols", type=int, default=8192)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows, cols = args.rows, args.cols
    tile_cols = 1 << (cols - 1).bit_length()
    gbytes = 2 * 4 * rows * cols / 1e9

    dev = wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng()
    x_host = (4 * rng.standard_normal((rows, cols))).astype(np.float32)
    check_rows = rng.choice(rows, size=min(64, rows), replace=False)
    sample = x_host[check_rows].astype(np.float64)
    e = np.exp(sample - sample.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    out = wf.DeviceBuffer.from_host(stream, np.full((rows, cols), np.nan, dtype=np.float32))
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, Any]] = {}

    def record(name: str, fn: Callable[[], Any], result: Callable[[], np.ndarray], **info: Any) -> None:
        out.copy_from_host(np.full((rows, cols), np.nan, dtype=np.float32), stream)
        ms = timer.median_ms(fn, warmup=5, runs=25)
        got = result()[check_rows]
        if not np.allclose(got, expected, rtol=1e-4, atol=1e-9):
            raise SystemExit(f"{name}: WRONG RESULT (max abs error {np.nanmax(np.abs(got - expected)):.3e})")
        keep_gbs_row(results, name, ms, gbytes, 40, **info)

    print(f"softmax, {rows} x {cols} f32")
    for warps in WARPS:
        bound = make_softmax(warps).bind(wf.tensor(out).partition((1, tile_cols)), wf.tensor(x), device=dev)
        record(f"warpforge tile (1, {tile_cols}), {warps} warps", lambda bound=bound: bound.launch(stream), lambda: out.to_host(stream), tile=[1, tile_cols], warps=warps)

    try:
        import torch

        ext = torch.cuda.ExternalStream(stream.handle)
        tx, tout = torch.as_tensor(x, device="cuda"), torch.as_tensor(out, device="cuda")
        holder: dict[str, Any] = {}

        def torch_softmax() -> None:
            with torch.cuda.stream(ext):
                holder["y"] = torch.softmax(tx, dim=1)

        def torch_result() -> np.ndarray:
            torch.cuda.synchronize()
            return holder["y"].cpu().numpy()

        record("torch.softmax", torch_softmax, torch_result)
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):  # noqa: N803
                row = tl.program_id(0)
                offsets = tl.arange(0, BLOCK)
                mask = offsets < n_cols
                v = tl.load(in_ptr + row * in_stride + offsets, mask=mask, other=-float("inf"))
                v = v - tl.max(v, axis=0)
                num = tl.exp(v)
                tl.store(out_ptr + row * out_stride + offsets, num / tl.sum(num, axis=0), mask=mask)

            for warps in (8, 16):

                def run_triton(warps: int = warps) -> None:
                    with torch.cuda.stream(ext):
                        softmax_kernel[(rows,)](tout, tx, tx.stride(0), tout.stride(0), cols, BLOCK=tile_cols, num_warps=warps)

                record(f"Triton BLOCK {tile_cols}, {warps} warps", run_triton, lambda: out.to_host(stream), warps=warps)
        except Exception as e:
            print(f"Triton: skipped ({type(e).__name__}: {e})")
    except Exception as e:
        print(f"torch: skipped ({type(e).__name__}: {e})")

    peers = {"vs_triton": ("Triton", "warpforge / best Triton = {ratio:.3f} (goal ≥ 1.0)"), "vs_torch": ("torch.softmax", None)}
    report_vs_peers(results, f"softmax {rows} x {cols} f32", 40, peers, args.json)


if __name__ == "__main__":
    main()
