"""Compile time of every example's kernels: cold process, warm process, warm disk cache — and, where
they import (the GPU machine), Triton's and numba-cuda's compile of comparable kernels.

For each `examples/*.py`, in fresh child processes (`sys.executable`, this checkout):

| column | what is timed |
|---|---|
| `import` | `import warpforge` in a new process (NumPy is not loaded by it) |
| `numpy` | then `import numpy`, as every example and a user's program does (not counted in the columns after) |
| `cold` | after import, with an empty disk cache: every kernel of the file to PTX (`kernel.compile(chip)`; tile kernels for their `ahead_of_time` signatures) — what a user's first run pays |
| `warm proc` | the same file loaded again in that process (new kernel objects) with the disk cache off: the pipeline alone, modules and passes already imported |
| `disk ms` | a new process with the cache filled: from after `import warpforge` until every kernel is compiled (read from the disk), ready to load |
| `n`, `cold/kern`, `goal`, `met` | kernels compiled (disk-cache entries written), cold seconds per kernel, issue 13's goal for it (1.0 s, sgemm 1.5 s) and whether it is met |

`--growth` adds issue 13's "compile time grows at most linearly with the IR the frontend produces"
row: in one warm process (cache off), a tile vecadd for tiles of 2^12 .. 2^16 elements and a SIMT
kernel with a `simt.static_range` of 16 .. 1024 iterations, each with its `gpu`-stage op count and
compile seconds (median of `--runs`) — seconds per op should stay flat as the size grows.

Peers (each in its own new process, their own caches in a fresh directory): Triton's vecadd, softmax
and matmul (`kernel.warmup(...)`: compile without launching; needs torch and a GPU; warm process: the
same kernel for another `num_warps`), numba-cuda's vecadd (`cuda.compile_ptx`, which has no disk
cache). Seconds, median of `--runs` (default 3), and the ratio of warpforge's `cold` to the peer's.

The table goes to stdout as rows finish, and again in name order at the end with the list of goals
met (the end is what a remote run's output tail keeps). `--jobs` examples are timed at once (default
half the cores, at most 8: on a 16-core machine every example and peer should take about 3 minutes, estimated from
round 4's figures there, not yet measured; `--jobs 1` for figures the other jobs do not disturb); after
`--budget` seconds (270) nothing new is started and what was measured is printed. The `.pyc` files
of warpforge, xDSL and llvmlite are written first (`--no-byte-compile` to skip), as a default pip
install has them.

    python bench/compile_time.py [--runs 3] [--jobs 8] [--chip sm_90] [--only sgemm,softmax] [--growth] [--json out.json]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
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
    "triton vecadd": (r"""
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, z, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(z + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)
t1 = time.perf_counter()
a = torch.empty(1 << 20, device="cuda")
def compile_once(num_warps):
    add.warmup(a, a, a, a.numel(), BLOCK=1024, grid=(1,), num_warps=num_warps)
""", "vecadd"),
    "triton softmax": (r"""
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
def compile_once(num_warps):
    softmax.warmup(a, a, a.stride(0), 1024, BLOCK=1024, grid=(1,), num_warps=num_warps)
""", "softmax"),
    "triton matmul": (r"""
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
def compile_once(num_warps):
    matmul.warmup(x, x, x, 512, 512, 512, BM=128, BN=128, BK=32, grid=(1,), num_warps=num_warps)
""", "sgemm"),
    "numba-cuda vecadd": (r"""
from numba import cuda, float32
def add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]
t1 = time.perf_counter()
def compile_once(num_warps):  # compile_ptx keeps no cache, in memory or on disk
    cuda.compile_ptx(add, (float32[:], float32[:], float32[:]), cc=(9, 0))
""", "vecadd"),
}
"""Each peer: a script defining `compile_once(num_warps)` (its own compile of a kernel comparable to a
warpforge example, without launching), and that example's name. Triton's `warmup` compiles (needs
torch and a GPU); a second `num_warps` is a new compile of the same source in the same process (the
warm-process column); a second process with the same `TRITON_CACHE_DIR` reads Triton's disk cache."""

PEER_HEAD = "import time; t0 = time.perf_counter()\n"
PEER_TAIL = r"""
import json, sys
t2 = time.perf_counter(); compile_once(4); t3 = time.perf_counter()
out = {"import": t1 - t0, "compile": t3 - t2}
if sys.argv[1] == "cold":
    t4 = time.perf_counter(); compile_once(8); out["warm_process"] = time.perf_counter() - t4
print(json.dumps(out))
"""

GOAL_S = {"sgemm": 1.5}
"""Issue 13's cold-compile goal, seconds per kernel after import: 1.0, sgemm 1.5."""


def run_child(code: list[str], env: dict[str, str]) -> dict[str, float] | None:
    proc = subprocess.run([sys.executable, *code], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-3:]  # the output's tail comes back from the GPU machine: keep it short
        sys.stderr.write(f"{' '.join(code[:3])[:120]}: exit {proc.returncode}: {' | '.join(tail)[-400:]}\n")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bench_example(path: Path, chip: str, runs: int) -> dict[str, float] | None:
    rows: dict[str, list[float]] = {"import": [], "numpy": [], "cold": [], "warm_process": [], "disk": [], "kernels": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="wf-bench-cache-") as cache_dir:
            env = {**os.environ, "WARPFORGE_CACHE_DIR": cache_dir}
            env.pop("WARPFORGE_CACHE", None)
            cold = run_child(["-c", CHILD, str(path), chip, "cold"], env)
            warm = run_child(["-c", CHILD, str(path), chip, "disk"], env) if cold is not None else None
        if cold is None or warm is None:
            return None
        rows["import"].append(cold["import"])
        rows["numpy"].append(cold["numpy"])
        rows["cold"].append(cold["compile"])
        rows["warm_process"].append(cold["warm_process"])
        rows["disk"].append(warm["compile"])
        rows["kernels"].append(cold["writes"])  # one cache entry written per kernel compiled
    return {k: median(v) for k, v in rows.items()}


def bench_peer(name: str, runs: int) -> dict[str, float] | None:
    times: dict[str, list[float]] = {"import": [], "cold": [], "warm_process": [], "disk": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="peer-cache-") as cache_dir:
            env = {**os.environ, "TRITON_CACHE_DIR": cache_dir, "NUMBA_CACHE_DIR": cache_dir}
            script = Path(cache_dir) / "peer.py"  # a file, not `-c`: triton.jit reads its kernel's source
            script.write_text(PEER_HEAD + textwrap.dedent(PEERS[name][0]) + PEER_TAIL)
            cold = run_child([str(script), "cold"], env)
            warm = run_child([str(script), "disk"], env) if cold is not None else None
        if cold is None or warm is None:
            return None
        times["import"].append(cold["import"])
        times["cold"].append(cold["compile"])
        times["warm_process"].append(cold["warm_process"])
        times["disk"].append(warm["compile"])
    out = {k: median(v) for k, v in times.items()}
    if name.startswith("numba"):
        out["disk"] = float("nan")  # compile_ptx has no disk cache: the second process compiles again
    return out


def peer_importable(name: str) -> bool:
    module = "triton" if name.startswith("triton") else "numba.cuda"
    proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, cwd=ROOT)
    return proc.returncode == 0


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


def byte_compile() -> None:
    """Write the `.pyc` files of warpforge, xDSL and llvmlite, as a pip install does by default (a
    machine with PYTHONDONTWRITEBYTECODE=1 and `pip --no-compile` would otherwise compile every
    module from source in every process, 15-20 % of a small kernel's cold compile)."""
    code = (
        "import compileall, importlib.util, os, sys\n"
        "dirs = {os.path.dirname(importlib.util.find_spec(m).origin) for m in ('warpforge', 'warpforge.dialects', 'warpforge.passes', 'xdsl', 'llvmlite')}\n"
        "ok = all(compileall.compile_dir(d, quiet=2) for d in sorted(dirs))\n"
        "sys.exit(0 if ok else 1)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False)


def fmt(x: float | None, width: int, digits: int = 3) -> str:
    return f"{'-':>{width}}" if x is None or x != x else f"{x:{width}.{digits}f}"


def example_row(name: str, r: dict[str, float] | None) -> str:
    if r is None:
        return f"{name:20} failed (see stderr)"
    kernels = max(int(r["kernels"]), 1)
    per = r["cold"] / kernels
    goal = GOAL_S.get(name, 1.0)
    met = "yes" if per <= goal else "no"
    return (
        f"{name:20} {kernels:3} {r['import']:7.3f} {r['numpy']:7.3f} {r['cold']:7.3f} {fmt(r['warm_process'], 9)} "
        f"{1000 * r['disk']:8.1f} {per:9.3f} {goal:5.1f} {met:>4}"
    )


EXAMPLE_HEADER = f"{'kernels of':20} {'n':>3} {'import':>7} {'numpy':>7} {'cold':>7} {'warm proc':>9} {'disk ms':>8} {'cold/kern':>9} {'goal':>5} {'met':>4}"


def peer_row(name: str, r: dict[str, float] | None, ours: dict[str, float] | None) -> str:
    if r is None:
        return f"{name:20} does not run here (not installed, or no GPU)"
    ratio = ours["cold"] / r["cold"] if ours else float("nan")
    return f"{name:20} {'':3} {r['import']:7.3f} {'':7} {r['cold']:7.3f} {fmt(r['warm_process'], 9)} {fmt(1000 * r['disk'], 8, 1)} {PEERS[name][1]:>9} {fmt(ratio, 14, 2)}"


PEER_HEADER = f"{'peer':20} {'':3} {'import':>7} {'':7} {'cold':>7} {'warm proc':>9} {'disk ms':>8} {'vs ours':>9} {'ours/peer cold':>14}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--only", help="comma-separated example names (default: every example)")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--jobs", type=int, default=max(1, min(8, (os.cpu_count() or 2) // 2)), help="examples timed at once (default: half the cores, at most 8)")
    parser.add_argument("--budget", type=float, default=270.0, help="seconds after which no new example or peer is started (default 270): the table always comes back")
    parser.add_argument("--no-byte-compile", action="store_true", help="do not write .pyc files of warpforge, xDSL and llvmlite first")
    parser.add_argument("--growth", action="store_true", help="also the compile-time growth rows (tile size, static_range length)")
    parser.add_argument("--no-examples", action="store_true", help="skip the examples (e.g. --growth alone)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    started = time.monotonic()
    examples = sorted((ROOT / "examples").glob("*.py"))
    if args.only:
        wanted = set(args.only.split(","))
        examples = [p for p in examples if p.stem in wanted]
    if args.no_examples:
        examples = []
    if not args.no_byte_compile:
        byte_compile()
    # the slowest first, so the budget cuts the small ones, which finish in seconds
    slow = ["attention", "layernorm", "matmul", "hgemm_simt", "sgemm"]
    examples.sort(key=lambda p: (slow.index(p.stem) if p.stem in slow else len(slow), p.stem))
    print(f"# bench/compile_time.py: chip {args.chip}, {args.runs} run(s) each (median), {args.jobs} example(s) at once, "
          f"{os.cpu_count()} cores; seconds unless marked; 'cold/kern' is cold / kernels, the goal is issue 13's", flush=True)
    results: dict[str, Any] = {}
    skipped: list[str] = []
    # one pool for both: the slowest examples, then the peers (a Triton process imports torch and
    # initializes CUDA: seconds), then the rest; the budget cuts the small ones, which finish in seconds
    slow_count = sum(p.stem in slow for p in examples)
    peers = [] if args.no_peers else [n for n in PEERS if peer_importable(n)]
    peers_absent = [] if args.no_peers else [n for n in PEERS if n not in peers]
    tasks: list[tuple[str, Any]] = [("example", p) for p in examples[:slow_count]] + [("peer", n) for n in peers] + [("example", p) for p in examples[slow_count:]]

    def timed(task: tuple[str, Any]) -> tuple[str, str, dict[str, float] | None]:
        kind, what = task
        name = what.stem if kind == "example" else what
        if time.monotonic() - started > args.budget:
            skipped.append(name)
            return kind, name, {"skipped": 1.0}
        return kind, name, bench_example(what, args.chip, args.runs) if kind == "example" else bench_peer(what, args.runs)

    print(EXAMPLE_HEADER, flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for kind, name, r in pool.map(timed, tasks):
            if r is not None and "skipped" in r:
                continue
            results[name] = r
            print(example_row(name, r) if kind == "example" else peer_row(name, r, results.get(PEERS[name][1])), flush=True)
    for name in peers_absent:
        results[name] = None
    peers_ran = [n for n in PEERS if n in results]
    if args.growth:
        rows = bench_growth(args.runs)
        results["growth"] = rows
    # the whole table again, in name order, last: the tail of the output is what a remote run returns
    print(f"\n# summary ({time.monotonic() - started:.0f} s)")
    print(EXAMPLE_HEADER)
    for name in sorted(r for r in results if r in {p.stem for p in examples}):
        print(example_row(name, results[name]))
    if peers_ran:
        print(PEER_HEADER)
        for name in peers_ran:
            print(peer_row(name, results[name], results.get(PEERS[name][1])))
    met = [n for n, r in sorted(results.items()) if n in {p.stem for p in examples} and r is not None and example_row(n, r).endswith("yes")]
    not_met = [n for n, r in sorted(results.items()) if n in {p.stem for p in examples} and (r is None or not example_row(n, r).endswith("yes"))]
    print(f"goal met: {', '.join(met) or 'none'}; not met: {', '.join(not_met) or 'none'}" + (f"; not timed (budget): {', '.join(skipped)}" if skipped else ""))
    if args.growth:
        print(f"\n{'compile-time growth':22} {'size':>7} {'gpu ops':>8} {'compile s':>10} {'ms per op':>10}")
        for label, size, ops, seconds in results["growth"] or []:
            print(f"{label:22} {size:7} {ops:8} {seconds:10.3f} {1000 * seconds / max(ops, 1):10.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
