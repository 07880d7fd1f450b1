"""Speed of the CPU simulator (`warpforge.simulator`), in simulated thread-ops per second.

A thread-op is one op of the `gpu`-level IR executed by one thread (an op run by a block of 256
threads counts 256; constants, folded ahead of time, count nothing). Three kernels:

- `vecadd`: 2^20 f32 elements, checked mode — straight-line code, every block converged;
- `collatz`: step counts of 1 … 10^5 (`while` with a data-dependent trip count, `//`, `%`) — threads
  diverge inside every warp and re-converge at the loop exit;
- `reverse`: a block reverses its 256 elements through shared memory around a `gpu.barrier`
  (hand-written `gpu`-level IR), 2^18 elements.

Each is checked against NumPy / Python. Wall time includes everything but compilation (one warm-up
launch compiles and caches the kernel first). Goal (issue 3): ≥ 1 million thread-ops/s.

    python bench/simulator_speed.py [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform

import numpy as np

from warpforge import f32, i64, simt, simulator
from warpforge.context import parse_module


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def vecadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i]


@simt.kernel
def collatz(start: simt.Slice[i64], steps: simt.DisjointSlice[i64]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(start):
        x = start[i]
        s = 0
        while x > 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            s += 1
        steps[idx] = s


REVERSE = """
builtin.module {
  gpu.module @m {
    "memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<256xf32, 3 : i32>, initial_value}> : () -> ()
    gpu.func @reverse(%a: memref<?xf32, 1 : i32>, %c: memref<?xf32, 1 : i32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %s = memref.get_global @tile : memref<256xf32, 3 : i32>
      %v = memref.load %a[%i] : memref<?xf32, 1 : i32>
      memref.store %v, %s[%tid] : memref<256xf32, 3 : i32>
      gpu.barrier
      %c255 = arith.constant 255 : index
      %j = arith.subi %c255, %tid : index
      %w = memref.load %s[%j] : memref<256xf32, 3 : i32>
      memref.store %w, %c[%i] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}
"""


def collatz_reference(x: int) -> int:
    s = 0
    while x > 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        s += 1
    return s


def bench_vecadd(n: int) -> simulator.SimStats:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    c = np.full(n, np.nan, np.float32)
    simulator.run(vecadd, 1, 256, a[:256], b[:256], c[:256])  # compile and cache
    stats = simulator.run(vecadd, n // 256, 256, a, b, c)
    assert np.array_equal(c, a + b), "vecadd: wrong result"
    return stats


def bench_collatz(n: int) -> simulator.SimStats:
    start = np.arange(1, n + 1, dtype=np.int64)
    steps = np.full(n, -1, np.int64)
    simulator.run(collatz, 1, 256, start[:256], steps[:256])
    stats = simulator.run(collatz, (n + 255) // 256, 256, start, steps)
    assert steps.tolist() == [collatz_reference(int(x)) for x in start], "collatz: wrong result"
    return stats


def bench_reverse(n: int) -> simulator.SimStats:
    module = parse_module(REVERSE)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    c = np.full(n, np.nan, np.float32)
    simulator.simulate(module, "reverse", 1, 256, [a[:256], c[:256]])
    stats = simulator.simulate(module, "reverse", n // 256, 256, [a, c])
    assert np.array_equal(c, a.reshape(-1, 256)[:, ::-1].reshape(-1)), "reverse: wrong result"
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a few seconds)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    sizes = {"vecadd": 1 << 16, "collatz": 10_000, "reverse": 1 << 14} if args.quick else {"vecadd": 1 << 20, "collatz": 100_000, "reverse": 1 << 18}
    runs = {"vecadd": bench_vecadd, "collatz": bench_collatz, "reverse": bench_reverse}
    print(f"warpforge simulator speed — {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"{'kernel':<10} {'elements':>10} {'blocks':>7} {'thread-ops':>13} {'op calls':>10} {'seconds':>8} {'thread-ops/s':>14}")
    results = {}
    for name, run in runs.items():
        stats = run(sizes[name])
        rate = stats.thread_ops_per_second
        results[name] = {"elements": sizes[name], "blocks": stats.blocks, "thread_ops": stats.thread_ops, "op_executions": stats.op_executions, "steps": stats.steps, "seconds": stats.seconds, "thread_ops_per_second": rate}
        print(f"{name:<10} {sizes[name]:>10} {stats.blocks:>7} {stats.thread_ops:>13,} {stats.op_executions:>10,} {stats.seconds:>8.2f} {rate:>14,.0f}")
    worst = min(r["thread_ops_per_second"] for r in results.values())
    print(f"slowest: {worst:,.0f} thread-ops/s ({'meets' if worst >= 1e6 else 'MISSES'} the 1,000,000 goal)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
