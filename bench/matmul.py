"""Half-precision GEMM (C = A @ B, f16 and bf16 inputs, row-major) side by side in one process:
warpforge's SIMT tensor-core kernel (examples/hgemm_simt.py: mma.sync + ldmatrix + a two-stage
cp.async ring, checks on and off), warpforge's Tile kernel (`tile.dot` in a K loop, as
examples/matmul.py: accumulator in mma.sync registers, a cp.async ring of `num_stages`) in each of
`TILE_CONFIGS` on both tile.dot paths (wgmma on sm_90a, its operands by TMA when `tile-tma-ring`
applies: labelled "wgmma+TMA"; mma.sync on sm_90) and in each of `DEEP_CONFIGS` on wgmma, torch.matmul (cuBLAS) and a plain blocked Triton `tl.dot` kernel written here
(a few autotuned configs). Shapes: 4096^3, 8192^3 and the skinny 128 x 8192 x 8192.

Every kernel runs on the same CUDA stream, timed with CUDA events (bench/_harness.py: warm-ups, then
the median of 25 back-to-back runs); TFLOP/s counts 2·M·N·K flops. The Tile kernels round C to the
inputs' dtype in the epilogue and write that, as torch and Triton do (`--out f32`: the f32 accumulator,
twice the bytes; the SIMT kernel writes f32); each result is checked against torch's before it is timed.

    python bench/matmul.py [--shapes 4096,4096,4096 ...] [--dtypes f16 bf16] [--configs 128x256x32_w8_s3_mb1 ...]
                           [--paths wgmma mma.sync] [--out f32|input] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import linecache
import sys
import time
from pathlib import Path
from typing import Any


import warpforge as wf
from warpforge import bf16, f16, f32, tile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import hgemm_simt  # noqa: E402
from _harness import TorchPeers  # noqa: E402

SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (128, 8192, 8192))
TILE_CONFIGS = (
    (128, 128, 64, 8, 3, 2), (128, 128, 32, 8, 3, 1), (128, 128, 64, 8, 3, 1), (128, 128, 32, 8, 3, 2), (128, 128, 32, 8, 4, 2),
    (64, 128, 64, 4, 3, 2), (64, 64, 64, 4, 3, 2), (128, 256, 32, 8, 3, 1), (128, 256, 32, 8, 4, 1), (128, 128, 64, 8, 4, 1),
    (128, 256, 64, 8, 3, 1), (128, 256, 64, 8, 4, 1), (128, 128, 64, 8, 5, 1),
)  # fmt: skip
"""(BM, BN, BK, num_warps, num_stages, min_blocks_per_sm) of the Tile kernels tried; the first is
examples/matmul.py's. Each runs on both `tile.dot` paths of an H100/H200 (`PATHS`): wgmma (sm_90a, the
default there: BM = 16 x num_warps qualifies) and mma.sync (compiled for sm_90)."""

DEEP_CONFIGS = ((64, 128, 64, 4, 8, 1), (64, 64, 64, 4, 6, 2), (128, 256, 32, 8, 6, 1))
"""Deep TMA rings, run on the wgmma path only. A wgmma ring of S slots prefetches S - 2 steps (step
k reads one slot while step k - 1's group in flight still reads another): the skinny 128 x 8192 x 8192
waits on HBM latency, so it wants tiles that fill the 132 SMs (64 x 128: 128 CTAs; 64 x 64: 256 CTAs,
2 per SM) with 4-6 steps in flight. Each fits the 227 KiB a CTA can have (8 stages of 64 x 128 x 64: 198,656 bytes with the
mbarriers and the 1 KiB alignment pad) and compiles without spills (ptxas -v, printed at the end)."""

PATHS = {"wgmma": None, "mma.sync": "sm_90"}
"""Tile path label -> the chip its kernels are compiled for (None: the device's tile chip, sm_90a on 9.0)."""

_TILE_SOURCE = """
@tile.kernel(num_warps={w}, num_stages={s}, min_blocks_per_sm={mb})
def {name}(c: tile.Tensor[{out}, ({bm}, {bn})], a: tile.Tensor[{dt}, (-1, -1)], b: tile.Tensor[{dt}, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros(({bm}, {bn}), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), ({bm}, {bk})), tile.load(b, (kt, tile.bid(1)), ({bk}, {bn})), acc)
    c.store(acc{cast})
"""
# One module-level kernel per (dtype, config): a tile kernel's annotations are evaluated in its
# module's globals, so the tile shapes are spelled into each kernel's source; the frontend reads a
# kernel's source, so each generated one is registered in linecache under its own file name.
TILE_KERNELS: dict[tuple[str, str], dict[tuple[int, ...], Any]] = {(dt, out): {} for dt in ("f16", "bf16") for out in ("f32", "input")}
"""(input dtype, output: "f32" = the accumulator, "input" = rounded to the inputs' dtype in the
epilogue, as torch.matmul and the Triton kernel write C) -> config -> kernel."""
for _dt, _out in TILE_KERNELS:
    for _cfg in TILE_CONFIGS + DEEP_CONFIGS:
        _bm, _bn, _bk, _w, _s, _mb = _cfg
        _name = f"tile_matmul_{_dt}_{_bm}x{_bn}x{_bk}_w{_w}_s{_s}_mb{_mb}" + ("" if _out == "f32" else f"_out_{_dt}")
        _src = _TILE_SOURCE.format(name=_name, dt=_dt, bm=_bm, bn=_bn, bk=_bk, w=_w, s=_s, mb=_mb, out="f32" if _out == "f32" else _dt, cast="" if _out == "f32" else f".astype({_dt})")
        _file = f"<bench/matmul.py:{_name}>"
        linecache.cache[_file] = (len(_src), None, _src.splitlines(True), _file)
        exec(compile(_src, _file, "exec"), globals())  # noqa: S102
        TILE_KERNELS[_dt, _out][_cfg] = globals()[_name]


class _DLPackOnly:
    """A torch tensor seen through DLPack alone (shape, dtype, `__dlpack__`)."""

    def __init__(self, t: Any):
        self.t, self.shape, self.dtype = t, tuple(t.shape), t.dtype

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self.t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self.t.__dlpack_device__()


def triton_matmul() -> Any:
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=4, num_warps=4),
        triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 128, "BK": 64}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 64}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # noqa: N803
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))

    return kernel, triton


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", nargs="+", default=[",".join(map(str, s)) for s in SHAPES])
    parser.add_argument("--dtypes", nargs="+", default=["f16", "bf16"])
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--no-simt", action="store_true", help="skip the SIMT kernel")
    parser.add_argument("--json")
    parser.add_argument("--configs", nargs="+", help="only these tile configs, as BMxBNxBK_wW_sS_mbM (e.g. 128x256x32_w8_s3_mb1)")
    parser.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS), help="tile.dot paths to run")
    parser.add_argument("--out", default="input", choices=["f32", "input"], help="what the Tile kernels write: C rounded to the inputs' dtype (the default, as torch and Triton), or the f32 accumulator")
    args = parser.parse_args()

    import torch

    peers = TorchPeers(args.no_triton, triton_matmul)
    dev, stream, ext, triton_kernel, triton = peers.device, peers.stream, peers.ext, peers.triton_kernel, peers.triton
    results: dict[str, dict[str, dict[str, float]]] = {}
    compile_s: dict[str, float] = {}
    regs: dict[str, str] = {}
    for dname in args.dtypes:
        dt = getattr(wf, dname)
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[dname]
        simt_kernels = {} if args.no_simt else {f"warpforge SIMT mma.sync (checks {'on' if ch else 'off'})": hgemm_simt.make_hgemm(dt, checks=ch) for ch in (True, False)}
        tile_kernels = TILE_KERNELS[dname, args.out]
        for shape in args.shapes:
            m, n, k = (int(x) for x in shape.split(","))
            flops = 2.0 * m * n * k
            g = torch.Generator(device="cuda").manual_seed(m + n + k)
            ta = torch.randn((m, k), device="cuda", dtype=tdt, generator=g)
            tb = torch.randn((k, n), device="cuda", dtype=tdt, generator=g)
            tc = torch.empty((m, n), device="cuda", dtype=tdt)
            out32 = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
            tile_out = out32 if args.out == "f32" else torch.full((m, n), float("nan"), device="cuda", dtype=tdt)
            torch.cuda.synchronize()
            row: dict[str, dict[str, float]] = {}

            def torch_mm() -> None:
                with torch.cuda.stream(ext):
                    torch.matmul(ta, tb, out=tc)

            torch_mm()
            stream.sync()
            reference = tc.float()
            tol = 0.02 * float(reference.abs().max()) + 1e-3  # f16/bf16 output rounding of torch's result
            timed = peers.tflops_timer(row, f"{dname} {shape:18}", f"{dname} {shape}", flops, reference, tol, name_width=44, ms_width=8, warmup=3)
            timed("torch.matmul (cuBLAS)", torch_mm, lambda: tc)
            if triton_kernel is not None:
                tt = torch.empty((m, n), device="cuda", dtype=tdt)

                def run_triton() -> None:
                    with torch.cuda.stream(ext):
                        triton_kernel[lambda meta: (triton.cdiv(m, meta["BM"]), triton.cdiv(n, meta["BN"]))](ta, tb, tt, m, n, k)

                timed("Triton tl.dot (autotuned)", run_triton, lambda: tt)
            grid = ((n + hgemm_simt.BN - 1) // hgemm_simt.BN, (m + hgemm_simt.BM - 1) // hgemm_simt.BM, 1)
            for name, kern in simt_kernels.items():
                t0 = time.perf_counter()
                prepared = kern.prepare(wf.LaunchConfig(grid=grid, block=hgemm_simt.THREADS), device=dev)
                compile_s.setdefault(f"{name} {dname}", time.perf_counter() - t0)
                out32.fill_(float("nan"))

                def run_simt(kern: Any = kern, prepared: Any = prepared) -> None:
                    kern.launch(stream, prepared, ta.view(-1), tb.view(-1), out32.view(-1), m, n, k)

                timed(name, run_simt, lambda: out32)
            # bind wraps device memory (wf.tensor); torch's bf16 __cuda_array_interface__ has a
            # typestr NumPy cannot name, so bf16 inputs are passed through DLPack only
            wrap = (lambda x: x) if dname == "f16" else _DLPackOnly
            for (bm, bn, bk, w, s, mb), tile_kernel in tile_kernels.items():
                if args.configs and f"{bm}x{bn}x{bk}_w{w}_s{s}_mb{mb}" not in args.configs:
                    continue
                for path in args.paths:
                    if path != "wgmma" and (bm, bn, bk, w, s, mb) in DEEP_CONFIGS:
                        continue
                    label = f"Tile {path} {bm}x{bn}x{bk} w{w} s{s}" + (f" {mb} CTA/SM" if mb > 1 else "")
                    t0 = time.perf_counter()
                    try:
                        bound = tile_kernel.bind(wf.tensor(tile_out if args.out == "f32" else wrap(tile_out)).partition((bm, bn)), wf.tensor(wrap(ta)), wf.tensor(wrap(tb)), -(-k // bk), device=dev, chip=PATHS[path])
                    except Exception as e:
                        print(f"  {dname} {shape:18} {label}: FAILED to bind: {type(e).__name__}: {e}", flush=True)
                        continue
                    compile_s.setdefault(f"{label} {dname}", time.perf_counter() - t0)
                    ptx = bound.compiled.kernel.ptx
                    if path == "wgmma" and "wgmma.mma_async" not in ptx:
                        print(f"  {dname} {shape:18} {label}: not on wgmma (the dot does not qualify), skipped", flush=True)
                        continue
                    if "cp.async.bulk.tensor" in ptx:  # the operands arrive by TMA (tile-tma-ring), else by the cp.async ring
                        label = label.replace(f"Tile {path}", f"Tile {path}+TMA")
                    try:
                        from warpforge.report import report

                        res = report(bound.compiled.kernel, warn=False).kernels[0]
                        regs[label] = f"{res.registers} regs, {res.spill_stores} B spill stores"
                    except Exception as e:  # no ptxas: no register figures
                        regs[label] = f"ptxas -v: {type(e).__name__}"
                    tile_out.fill_(float("nan"))
                    timed(label, lambda bound=bound: bound.launch(stream), lambda: tile_out)
            base = row["torch.matmul (cuBLAS)"]["TFLOP/s"]
            for r in row.values():
                r["vs_torch"] = r["TFLOP/s"] / base
            results[f"{dname} {shape}"] = row
    print("\nGEMM, median of 25 (CUDA events); TFLOP/s and ratio to torch.matmul (cuBLAS); the Tile kernels write C in " + ("f32" if args.out == "f32" else "the inputs' dtype"))
    print(f"{'case':22} {'kernel':44} {'ms':>8} {'TFLOP/s':>8} {'vs torch':>9} {'vs Triton':>9}")
    for case, row in results.items():
        tri = row.get("Triton tl.dot (autotuned)", {}).get("TFLOP/s")
        for name, r in row.items():
            vs_tri = f"{r['TFLOP/s'] / tri:9.3f}" if tri else f"{'-':>9}"
            print(f"{case:22} {name:44} {r['ms']:8.3f} {r['TFLOP/s']:8.1f} {r['vs_torch']:9.3f} {vs_tri}")
    print("compile (first prepare/bind, s): " + ", ".join(f"{n}: {s:.1f}" for n, s in compile_s.items()))
    print("ptxas -v (per thread): " + "; ".join(f"{n}: {r}" for n, r in regs.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "compile_s": compile_s, "ptxas": regs}, indent=2))


if __name__ == "__main__":
    main()
