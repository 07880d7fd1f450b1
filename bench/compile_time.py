"""Compile time of every example's kernels: cold process, warm process, warm disk cache — and, where
they import (the GPU machine), Triton's and numba-cuda's compile of comparable kernels.

For each `examples/*.py`, in fresh child processes (`sys.executable`, this checkout):

| column | what is timed |
|---|---|
| `import` | `import warpforge` in a new process (NumPy is not loaded by it) |
| `numpy` | then `import numpy`, as every example and a user's program does (not counted in the columns after) |
| `cold` | after import, with an empty disk cache: every kernel of the file to PTX (`kernel.compile(chip)`; tile kernels for their `ahead_of_time` signatures) — what a user's first run pays |
| `warm proc` | the same file loaded again in that process (new kernel objects) with the disk cache off: the pipeline alone, modules and passes already imported |
| `disk` | a new process with the cache filled: from after `import warpforge` until every kernel is compiled (read from the disk), ready to load |

`--growth` adds issue 13's "compile time grows at most linearly with the IR the frontend produces"
row: in one warm process (cache off), a tile vecadd for tiles of 2^12 .. 2^16 elements and a SIMT
kernel with a `simt.static_range` of 16 .. 1024 iterations, each with its `gpu`-stage op count and
compile seconds (median of `--runs`) — seconds per op should stay flat as the size grows.

Peers (each in its own new process, their own caches in a fresh directory): Triton's vecadd, softmax
and matmul (`kernel.warmup(...)`: compile without launching; needs torch and a GPU), numba-cuda's
vecadd (`cuda.compile_ptx`). Seconds, median of `--runs` (default 3), and ratios to warpforge's `cold`.

    python bench/compile_time.py [--runs 3] [--chip sm_90] [--only sgemm,softmax] [--growth] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import importlib.util, json, sys, time, os
t0 = time.perf_counter()
import warpforge
t1 = time.perf_counter()
t_import = t1 - t0
import numpy  # every example (and a user's program) imports it: timed apart, not in `import warpforge`
t_numpy = time.perf_counter() - t1
t1 = time.perf_counter()
# what a user's program does after `import warpforge`: run its file, compile its kernels (no CLI
# modules: their imports are not part of a user's path)

def _load_file(path):
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    name = "__warpforge_user__." + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

def compile_all(module):
    for k in vars(module).values():
        if isinstance(k, warpforge.tile.TileKernel) and not k._aot:
            continue  # a tile kernel without ahead_of_time shapes compiles only at a call
        if isinstance(k, warpforge.simt.SimtKernel | warpforge.tile.TileKernel):
            k.compile(sys.argv[2])

compile_all(_load_file(sys.argv[1]))
t2 = time.perf_counter()
from warpforge import cache
out = {"import": t_import, "numpy": t_numpy, "compile": t2 - t1, "hits": cache.stats["hit"], "writes": cache.stats["write"]}
if sys.argv[3] == "cold":
    os.environ["WARPFORGE_CACHE"] = "0"
    sys.modules.pop(next(m for m in sys.modules if m.startswith("__warpforge_user__.")))
    t3 = time.perf_counter()
    compile_all(_load_file(sys.argv[1]))
    out["warm_process"] = time.perf_counter() - t3
print(json.dumps(out))
"""

PEERS = {
    "triton vecadd": r"""
import time; t0 = time.perf_counter()
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(z + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)
t1 = time.perf_counter()
a = torch.empty(1 << 20, device="cuda")
add.warmup(a, a, a, a.numel(), BLOCK=1024, grid=(1,))
""",
    "triton softmax": r"""
import time; t0 = time.perf_counter()
import torch, triton, triton.language as tl
@triton.jit
def softmax(out, inp, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(inp + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)
t1 = time.perf_counter()
a = torch.empty((64, 1024), device="cuda")
softmax.warmup(a, a, a.stride(0), 1024, BLOCK=1024, grid=(1,))
""",
    "triton matmul": r"""
import time; t0 = time.perf_counter()
import torch, triton, triton.language as tl
@triton.jit
def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM); rn = pn * BN + tl.arange(0, BN); rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y, input_precision="ieee")  # f32 FMA-exact, as sgemm
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
t1 = time.perf_counter()
x = torch.empty((512, 512), device="cuda")
matmul.warmup(x, x, x, 512, 512, 512, BM=128, BN=128, BK=32, grid=(1,))
""",
    "numba-cuda vecadd": r"""
import time; t0 = time.perf_counter()
from numba import cuda, float32
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
t1 = time.perf_counter()
cuda.compile_ptx(add, (float32[:], float32[:], float32[:]), cc=(9, 0))
""",
}

PEER_TAIL = '\nimport json; print(json.dumps({"import": t1 - t0, "compile": time.perf_counter() - t1}))\n'


def run_child(code: list[str], env: dict[str, str]) -> dict[str, float] | None:
    proc = subprocess.run([sys.executable, *code], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_example(path: Path, chip: str, runs: int) -> dict[str, float] | None:
    rows: dict[str, list[float]] = {"import": [], "numpy": [], "cold": [], "warm_process": [], "disk": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="wf-bench-cache-") as cache_dir:
            env = {**os.environ, "WARPFORGE_CACHE_DIR": cache_dir}
            env.pop("WARPFORGE_CACHE", None)
            cold = run_child(["-c", CHILD, str(path), chip, "cold"], env)
            warm = run_child(["-c", CHILD, str(path), chip, "disk"], env)
        if cold is None or warm is None:
            return None
        rows["import"].append(cold["import"])
        rows["numpy"].append(cold["numpy"])
        rows["cold"].append(cold["compile"])
        rows["warm_process"].append(cold["warm_process"])
        rows["disk"].append(warm["compile"])
    return {k: median(v) for k, v in rows.items()}


def bench_peer(name: str, runs: int) -> dict[str, float] | None:
    times: dict[str, list[float]] = {"import": [], "cold": [], "disk": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="peer-cache-") as cache_dir:
            env = {**os.environ, "TRITON_CACHE_DIR": cache_dir, "NUMBA_CACHE_DIR": cache_dir}
            script = Path(cache_dir) / "peer.py"  # a file, not `-c`: triton.jit reads its kernel's source
            script.write_text(textwrap.dedent(PEERS[name]) + PEER_TAIL)
            cold = run_child([str(script)], env)
            warm = run_child([str(script)], env)
        if cold is None or warm is None:
            return None
        times["import"].append(cold["import"])
        times["cold"].append(cold["compile"])
        times["disk"].append(warm["compile"])
    return {k: median(v) for k, v in times.items()}


GROWTH = r"""
import json, os, statistics, sys, time
os.environ["WARPFORGE_CACHE"] = "0"
import warpforge as wf
from warpforge import f32, simt, tile
import warpforge.compile as C

runs = int(sys.argv[1])
ops = {}
C.warn_if_large = lambda name, n, *a: ops.__setitem__("n", n)  # the gpu-stage op count of each compile

def tile_kernel(b):
    @tile.kernel
    def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
        z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))
    add.ahead_of_time(tile.spec(f32, (4 * b,), partition=(b,)), tile.spec(f32, (4 * b,)), tile.spec(f32, (4 * b,)))
    return add

def simt_kernel(n):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"unrolled_{n}.py")  # kernels need a source file
    with open(path, "w") as f:
        f.write(
            "import warpforge as wf\nfrom warpforge import simt\n\n"
            "@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))\n"
            "def unrolled(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):\n"
            "    idx = simt.index_1d()\n"
            "    acc = wf.f32(0)\n"
            f"    for q in simt.static_range({n}):\n"
            f"        acc += x[(idx.get() * {n} + q) % len(x)] * (q % 3)\n"
            "    out[idx] = acc\n"
        )
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"unrolled_{n}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.unrolled

tile_kernel(1 << 10).compile("sm_90")  # warm: imports and first-use costs are not growth
rows = []
for label, make, sizes in (("tile vecadd, tile of", tile_kernel, [1 << k for k in range(12, 17)]),
                           ("simt static_range of", simt_kernel, [16, 64, 256, 1024])):
    for size in sizes:
        times = []
        for _ in range(runs):
            k = make(size)
            t = time.perf_counter()
            k.compile("sm_90")
            times.append(time.perf_counter() - t)
        rows.append([label, size, ops.get("n", 0), statistics.median(times)])
print(json.dumps(rows))
"""


def bench_growth(runs: int) -> list[list] | None:
    with tempfile.TemporaryDirectory(prefix="wf-growth-") as d:  # kernels need a source file
        script = Path(d) / "growth.py"
        script.write_text(GROWTH)
        proc = subprocess.run([sys.executable, str(script), str(runs)], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--only", help="comma-separated example names (default: every example)")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--growth", action="store_true", help="also the compile-time growth rows (tile size, static_range length)")
    parser.add_argument("--no-examples", action="store_true", help="skip the examples (e.g. --growth alone)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    examples = sorted((ROOT / "examples").glob("*.py"))
    if args.only:
        wanted = set(args.only.split(","))
        examples = [p for p in examples if p.stem in wanted]
    if args.no_examples:
        examples = []
    results: dict[str, Any] = {}
    print(f"{'kernels of':22} {'import s':>9} {'numpy s':>8} {'cold s':>8} {'warm proc s':>12} {'disk s':>8} {'cold/disk':>10}")
    for path in examples:
        r = bench_example(path, args.chip, args.runs)
        results[path.stem] = r
        if r is None:
            print(f"{path.stem:22} failed (see stderr)")
            continue
        print(f"{path.stem:22} {r['import']:9.3f} {r['numpy']:8.3f} {r['cold']:8.3f} {r['warm_process']:12.3f} {r['disk']:8.3f} {r['cold'] / max(r['disk'], 1e-9):10.0f}")
    if not args.no_peers:
        ours = {"triton vecadd": "vecadd", "triton softmax": "softmax", "triton matmul": "sgemm", "numba-cuda vecadd": "vecadd"}
        print(f"\n{'peer':22} {'import s':>9} {'cold s':>8} {'disk s':>8} {'warpforge cold / peer cold':>27}")
        for name in PEERS:
            r = bench_peer(name, args.runs)
            results[name] = r
            if r is None:
                print(f"{name:22} does not run here (not installed, or no GPU)")
                continue
            mine = results.get(ours[name])
            ratio = f"{mine['cold'] / r['cold']:27.2f}" if mine else f"{'n/a':>27}"
            print(f"{name:22} {r['import']:9.3f} {r['cold']:8.3f} {r['disk']:8.3f} {ratio}")
    if args.growth:
        rows = bench_growth(args.runs)
        results["growth"] = rows
        print(f"\n{'compile-time growth':22} {'size':>7} {'gpu ops':>8} {'compile s':>10} {'ms per op':>10}")
        for label, size, ops, seconds in rows or []:
            print(f"{label:22} {size:7} {ops:8} {seconds:10.3f} {1000 * seconds / max(ops, 1):10.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
