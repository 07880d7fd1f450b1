"""SGEMM (C = A @ B, f32, row-major) side by side in one process: warpforge's tiled SIMT kernel
(examples/sgemm.py: 128 x 128 block tiles, 8 x 8 register blocking, double-buffered shared memory)
with checks on and off, with and without `min_blocks_per_sm=2`, against torch.matmul in fp32 with
TF32 disabled (`torch.backends.cuda.matmul.allow_tf32 = False`, i.e. cuBLAS SGEMM: ≈ 51 TFLOP/s on
an H200).

Every kernel runs on the same CUDA stream, timed with CUDA events: 3 warm-ups, then the median of 25
back-to-back runs. TFLOP/s counts 2·M·N·K flops. Each result is checked against torch's before it
is timed. The ratio `ours/torch` is what the issue asks for.

    python bench/sgemm.py [--sizes 4096 8192] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import warpforge as wf
from warpforge import simt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import sgemm as example  # noqa: E402
from _harness import EventTimer  # noqa: E402


def variants() -> dict[str, simt.SimtKernel]:
    base = example.sgemm
    out = {}
    for checks in (True, False):
        for min_blocks in (2, None):
            name = f"warpforge (checks {'on' if checks else 'off'}{', 2 blocks/SM' if min_blocks else ''})"
            out[name] = simt.kernel(base.fn, contract=base.contract, checks=checks, min_blocks_per_sm=min_blocks)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--json")
    args = parser.parse_args()

    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = wf.Device(0)
    stream = dev.create_stream()
    timer = EventTimer(stream.handle)
    ext = torch.cuda.ExternalStream(stream.handle)
    kernels = variants()
    compile_s = {}
    for name, kern in kernels.items():
        t = time.perf_counter()
        kern.compile(dev.chip)
        compile_s[name] = time.perf_counter() - t

    # what ptxas says of each kernel as compiled and, for checked ones, of the proven specialization a
    # launch runs when the entry condition holds (every size here): registers and spills per thread
    resources: dict[str, str] = {}
    for name, kern in kernels.items():
        shown = {"as compiled": kern}
        if kern.compile(dev.chip).launch_condition:
            shown["proven (runs)"] = kern.proven_specialization()
        try:
            parts = []
            for label, k in shown.items():
                r = k.report(dev.chip).kernels[0]
                parts.append(f"{label} {r.registers} regs, {r.spill_stores}/{r.spill_loads} B spill st/ld")
            resources[name] = "; ".join(parts)
        except Exception as e:  # no ptxas on this machine: no register figures
            resources[name] = f"ptxas -v: {type(e).__name__}"
        print(f"{name:44} {resources[name]}", flush=True)

    results: dict[str, dict[str, dict[str, float]]] = {}
    for size in args.sizes:
        m = n = k = size
        flops = 2.0 * m * n * k
        rng = np.random.default_rng()
        a = wf.DeviceBuffer.from_host(stream, rng.standard_normal(m * k, dtype=np.float32))
        b = wf.DeviceBuffer.from_host(stream, rng.standard_normal(k * n, dtype=np.float32))
        c = wf.DeviceBuffer.from_host(stream, np.full(m * n, np.nan, dtype=np.float32))
        ta = torch.as_tensor(a, device="cuda").view(m, k)
        tb = torch.as_tensor(b, device="cuda").view(k, n)
        tc = torch.empty((m, n), dtype=torch.float32, device="cuda")

        def torch_mm() -> None:
            with torch.cuda.stream(ext):
                torch.matmul(ta, tb, out=tc)

        torch_mm()
        stream.sync()
        reference = tc.cpu().numpy()
        row: dict[str, dict[str, float]] = {}
        row["torch.matmul fp32 (TF32 off)"] = {"ms": (ms := timer.median_ms(torch_mm, warmup=3))}
        row["torch.matmul fp32 (TF32 off)"]["TFLOP/s"] = flops / (ms / 1e3) / 1e12
        scale = np.sqrt(k) * 1e-5 * np.abs(reference).max()
        for name, kern in kernels.items():
            prepared = kern.prepare(wf.LaunchConfig(grid=example.grid_for(m, n), block=(example.THREADS_X, example.THREADS_Y, 1)), device=dev)

            def run(kern: simt.SimtKernel = kern, prepared=prepared) -> None:
                kern.launch(stream, prepared, a, b, c, m, n, k)

            run()
            got = c.to_host(stream).reshape(m, n)
            err = float(np.abs(got - reference).max())
            if not err <= scale:
                raise SystemExit(f"{name}: WRONG RESULT at {size}: max |ours - torch| = {err} (allowed {scale})")
            ms = timer.median_ms(run, warmup=3)
            row[name] = {"ms": ms, "TFLOP/s": flops / (ms / 1e3) / 1e12, "max_abs_err_vs_torch": err}
        torch_tflops = row["torch.matmul fp32 (TF32 off)"]["TFLOP/s"]
        for r in row.values():
            r["vs_torch"] = r["TFLOP/s"] / torch_tflops
        results[str(size)] = row
        print(f"\nSGEMM {m}x{k} @ {k}x{n} f32, median of 25 (CUDA events), TF32 off")
        print(f"{'kernel':44} {'ms':>8} {'TFLOP/s':>8} {'vs torch':>9}")
        for name, r in row.items():
            print(f"{name:44} {r['ms']:8.3f} {r['TFLOP/s']:8.2f} {r['vs_torch']:9.3f}")
    best = {size: max((r["vs_torch"], name) for name, r in row.items() if name.startswith("warpforge")) for size, row in results.items()}
    for size, (ratio, name) in best.items():
        print(f"best warpforge at {size}: {name}, {ratio:.3f} x torch fp32")
    print("compile (Python source → PTX): " + ", ".join(f"{n}: {s:.1f} s" for n, s in compile_s.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "best": {s: {"ratio": r, "kernel": n} for s, (r, n) in best.items()}, "compile_s": compile_s, "ptxas": resources}, indent=2))


if __name__ == "__main__":
    main()
