"""Layer-norm forward (rows × n, normalized over n, with gamma and beta), side by side in one process:
warpforge's tile kernels from examples/layernorm.py (a row in one (1, n) tile up to n = 4096, else a
statistics launch and a normalization launch), torch.nn.functional.layer_norm, and a Triton kernel
written here (one program per row, the row in one block; the mean, then the masked variance, as
Triton's tutorial does).

Same stream, CUDA events (bench/_harness.py's `EventTimer`: 5 warm-ups, median of 25 back-to-back
launches). GB/s counts one read of x, one write of y, and gamma and beta once
((2 · rows · n + 2 · n) · bytes per element). Results are checked against a float64 reference on
64 random rows (f32: 1e-4, bf16: 3e-2, f16: 5e-3 relative to 1 + |y|).

    python bench/layernorm.py [--rows 4096] [--cols 4096] [--dtype f32|bf16|f16] [--json out.json]
"""

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import warpforge as wf

from _harness import EventTimer, keep_gbs_row, report_vs_peers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import layernorm as ln  # noqa: E402  (the example's kernels)

TOLERANCE = {"f32": 1e-4, "bf16": 3e-2, "f16": 5e-3}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=4096)
    parser.add_argument("--dtype", default="bf16", choices=sorted(TOLERANCE))
    parser.add_argument("--json")
    args = parser.parse_args()
    rows, n = args.rows, args.cols
    dt = {"f32": wf.f32, "bf16": wf.bf16, "f16": wf.f16}[args.dtype]
    item = dt.np.itemsize
    gbytes = (2 * rows * n + 2 * n) * item / 1e9

    dev = wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng()
    x_host = (3 * rng.standard_normal((rows, n)) + 1).astype(dt.np)
    g_host = rng.standard_normal((1, n)).astype(dt.np)
    b_host = rng.standard_normal((1, n)).astype(dt.np)
    check_rows = rng.choice(rows, size=min(64, rows), replace=False)
    expected = ln.reference(x_host[check_rows], g_host, b_host)
    x, g, b = (wf.DeviceBuffer.from_host(stream, a) for a in (x_host, g_host, b_host))
    y = wf.DeviceBuffer.from_host(stream, np.full((rows, n), np.nan, dtype=dt.np))
    timer = EventTimer(stream.handle)
    results: dict[str, dict[str, Any]] = {}
    tol = TOLERANCE[args.dtype]

    def record(name: str, fn: Callable[[], Any], result: Callable[[], np.ndarray], poison: Callable[[], Any] | None = None, **info: Any) -> None:
        if poison is None:
            y.copy_from_host(np.full((rows, n), np.nan, dtype=dt.np), stream)
        else:
            poison()
        ms = timer.median_ms(fn, warmup=5, runs=25)
        got = result()[check_rows].astype(np.float64)
        if not np.all(np.abs(got - expected) <= tol * (1 + np.abs(expected))):
            raise SystemExit(f"{name}: WRONG RESULT (max abs error {np.nanmax(np.abs(got - expected)):.3e})")
        keep_gbs_row(results, name, ms, gbytes, 44, **info)

    print(f"layernorm forward, {rows} x {n} {dt.name}")
    row, stats, apply = ln._BY_DTYPE[dt.np.name]  # pyright: ignore[reportPrivateUsage]
    eps = np.float32(ln.EPS)
    if n <= ln.BLOCK:
        width = 1 << max(0, (n - 1).bit_length())
        bound = row.bind(wf.tensor(y).partition((1, width)), wf.tensor(x), wf.tensor(g), wf.tensor(b), eps, device=dev)
        record(f"warpforge tile (1, {width}), one launch", lambda: bound.launch(stream), lambda: y.to_host(stream), tile=[1, width])
    else:
        s = wf.DeviceBuffer.from_host(stream, np.zeros((rows, 2), np.float32))
        b1 = stats.bind(wf.tensor(s).partition((1, 2)), wf.tensor(x), eps, device=dev)
        b2 = apply.bind(wf.tensor(y).partition((1, ln.BLOCK)), wf.tensor(x), wf.tensor(s), wf.tensor(g), wf.tensor(b), device=dev)

        def two() -> None:
            b1.launch(stream)
            b2.launch(stream)

        record(f"warpforge stats + apply (1, {ln.BLOCK})", two, lambda: y.to_host(stream), tile=[1, ln.BLOCK])

    try:
        import torch
        import torch.nn.functional as F  # noqa: N812

        ext = torch.cuda.ExternalStream(stream.handle)
        def to_torch(a: np.ndarray) -> Any:  # bf16 has no NumPy/CAI type string torch reads: through its bits
            if args.dtype == "bf16":
                return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16).cuda()
            return torch.from_numpy(a).cuda()

        tx, tg, tb = to_torch(x_host), to_torch(g_host), to_torch(b_host)
        ty = torch.full_like(tx, float("nan"))
        holder: dict[str, Any] = {}

        def torch_ln() -> None:
            with torch.cuda.stream(ext):
                holder["y"] = F.layer_norm(tx, (n,), tg[0], tb[0], eps=ln.EPS)

        def torch_result() -> np.ndarray:
            torch.cuda.synchronize()
            return holder["y"].float().cpu().numpy()

        record("torch.nn.functional.layer_norm", torch_ln, torch_result, poison=lambda: holder.clear())
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def layernorm_kernel(y_ptr, x_ptr, g_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):  # noqa: N803
                r = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                mask = cols < n_cols
                v = tl.load(x_ptr + r * stride + cols, mask=mask, other=0.0).to(tl.float32)
                mean = tl.sum(v, axis=0) / n_cols
                d = tl.where(mask, v - mean, 0.0)
                rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n_cols + eps)
                gv = tl.load(g_ptr + cols, mask=mask).to(tl.float32)
                bv = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
                tl.store(y_ptr + r * stride + cols, (d * rstd * gv + bv).to(y_ptr.dtype.element_ty), mask=mask)

            block = triton.next_power_of_2(n)
            if block <= 65536:
                for warps in (4, 8, 16):

                    def run_triton(warps: int = warps) -> None:
                        with torch.cuda.stream(ext):
                            layernorm_kernel[(rows,)](ty, tx, tg, tb, tx.stride(0), n, ln.EPS, BLOCK=block, num_warps=warps)

                    record(f"Triton BLOCK {block}, {warps} warps", run_triton, lambda: ty.float().cpu().numpy(), poison=lambda: ty.fill_(float("nan")), warps=warps)
        except Exception as e:
            print(f"Triton: skipped ({type(e).__name__}: {e})")
    except Exception as e:
        print(f"torch: skipped ({type(e).__name__}: {e})")

    peers = {"vs_triton": ("Triton", "warpforge / best Triton = {ratio:.3f}"), "vs_torch": ("torch.nn.functional.layer_norm", "warpforge / torch = {ratio:.3f}")}
    report_vs_peers(results, f"layernorm {rows} x {n} {dt.name}", 44, peers, args.json)


if __name__ == "__main__":
    main()
