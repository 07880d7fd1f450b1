"""Flash attention forward (O = softmax(Q K^T / sqrt(d)) V, f16, (B, H, S, d) contiguous) side by side
in one process: warpforge's tile kernel (examples/attention.py: tile.dot on the H200's wgmma with A from
registers (mma.sync on other chips), Q K^T with K read transposed in place, P·V with P from the
registers, K/V through a cp.async ring), torch's
`scaled_dot_product_attention` with the flash backend (FlashAttention-2) and with the cuDNN backend,
and a FlashAttention-2-style Triton kernel written here (a few autotuned configs).

Shapes: B = 4, H = 32, S in {1024, 4096, 16384}, d in {64, 128}, causal and not. Every kernel runs on
the same CUDA stream, timed with CUDA events (bench/_harness.py: warm-ups, then the median of
back-to-back runs); TFLOP/s counts 4·B·H·S²·d flops (two matmuls), half of that when causal. Each
result is checked against torch's SDPA before it is timed.

    python bench/attention.py [--seqs 1024 4096] [--dims 64 128] [--causal 0 1] [--json out.json]
                              [--configs 64x64:4:2 128x64:8:2]   # ours: BLOCK_MxBLOCK_N:warps:stages

Without `--configs` ours runs `examples/attention.py`'s `CONFIGS[d]`; with it, every config listed (each
its own row), and the ratio line compares the fastest of ours with each peer.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import warpforge as wf
from warpforge import f16

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import attention as wf_attention  # noqa: E402
from _harness import TorchPeers  # noqa: E402

BATCH, HEADS = 4, 32
SEQS = (1024, 4096, 16384)
DIMS = (64, 128)


def triton_attention() -> Any:
    """A FlashAttention-2 forward in Triton: one program per (query tile, batch·head); K/V tiles in a
    loop with the running max and sum; the scale folded into exp2; causal stops at the diagonal."""
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": 128, "BN": 64}, num_stages=3, num_warps=4),
        triton.Config({"BM": 128, "BN": 64}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128}, num_stages=3, num_warps=8),
        triton.Config({"BM": 64, "BN": 64}, num_stages=3, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["S", "D", "CAUSAL"])
    @triton.jit
    def kernel(q_ptr, k_ptr, v_ptr, o_ptr, qk_scale, S, D: tl.constexpr, CAUSAL: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):  # noqa: N803
        start = tl.program_id(0) * BM
        base = tl.program_id(1).to(tl.int64) * S * D
        rm = start + tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rd = tl.arange(0, D)
        q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0.0)
        m_i = tl.full((BM,), float("-inf"), tl.float32)
        l_i = tl.zeros((BM,), tl.float32)
        acc = tl.zeros((BM, D), tl.float32)
        hi = tl.minimum(S, start + BM) if CAUSAL else S
        for n0 in range(0, hi, BN):
            cols = n0 + rn
            k = tl.load(k_ptr + base + cols[None, :] * D + rd[:, None], mask=cols[None, :] < S, other=0.0)  # (D, BN): K^T
            s = tl.dot(q, k) * qk_scale
            ok = cols[None, :] < S
            if CAUSAL:
                ok = ok & (rm[:, None] >= cols[None, :])
            s = tl.where(ok, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            alpha = tl.math.exp2(m_i - m_new)
            p = tl.math.exp2(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_ptr + base + cols[:, None] * D + rd[None, :], mask=cols[:, None] < S, other=0.0)
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        out = acc / l_i[:, None]
        tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], out.to(o_ptr.dtype.element_ty), mask=rm[:, None] < S)

    return kernel, triton


def _config(text: str) -> tuple[int, int, int, int]:
    """`BMxBN:warps:stages` (e.g. 128x64:8:2) as make_attention's (block_m, block_n, num_warps, num_stages)."""
    try:
        tiles, warps, stages = text.split(":")
        bm, bn = tiles.split("x")
        return int(bm), int(bn), int(warps), int(stages)
    except ValueError:
        raise SystemExit(f"--configs: {text!r} is not BLOCK_MxBLOCK_N:warps:stages (e.g. 128x64:8:2)") from None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seqs", nargs="+", type=int, default=list(SEQS))
    parser.add_argument("--dims", nargs="+", type=int, default=list(DIMS))
    parser.add_argument("--causal", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--heads", type=int, default=HEADS)
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json")
    parser.add_argument("--configs", nargs="+", default=[], help="our kernel's BLOCK_MxBLOCK_N:warps:stages (default: CONFIGS[d])")
    args = parser.parse_args()
    configs = [_config(c) for c in args.configs]

    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    peers = TorchPeers(args.no_triton, triton_attention)
    dev, stream, ext, triton_kernel, triton = peers.device, peers.stream, peers.ext, peers.triton_kernel, peers.triton
    results: dict[str, dict[str, dict[str, float]]] = {}
    compile_s: dict[str, float] = {}
    b, h = args.batch, args.heads
    for d in args.dims:
        for causal in (bool(c) for c in args.causal):
            ours_cfgs = configs or [wf_attention.CONFIGS[d]]
            kerns = {cfg: wf_attention.make_attention(f16, d, causal, *cfg) for cfg in ours_cfgs}
            for seq in args.seqs:
                key = f"d={d} S={seq} {'causal' if causal else 'full'}"
                flops = 4.0 * b * h * seq * seq * d * (0.5 if causal else 1.0)
                g = torch.Generator(device="cuda").manual_seed(seq + d + causal)
                q, k, v = (torch.randn((b, h, seq, d), device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                scale = 1.0 / math.sqrt(d)
                torch.cuda.synchronize()
                with torch.cuda.stream(ext), sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    reference = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
                stream.sync()
                tol = 4 * 2.0**-10 * float(reference.abs().max()) + 2e-3  # f16 roundings of P and O
                row: dict[str, dict[str, float]] = {}
                timed = peers.tflops_timer(row, f"{key:22}", key, flops, reference, tol, name_width=34, ms_width=9, warmup=2, runs=args.runs)

                for name, backend in (("torch SDPA flash", SDPBackend.FLASH_ATTENTION), ("torch SDPA cuDNN", SDPBackend.CUDNN_ATTENTION)):
                    held: list[Any] = [None]  # SDPA allocates its output (torch's caching allocator: no cudaMalloc per run)

                    def run_sdpa(backend: Any = backend, held: list[Any] = held) -> None:
                        with torch.cuda.stream(ext), sdpa_kernel(backend):
                            held[0] = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

                    timed(name, run_sdpa, lambda held=held: held[0])
                if triton_kernel is not None:
                    ot = torch.empty_like(q)

                    def run_triton() -> None:
                        with torch.cuda.stream(ext):
                            triton_kernel[lambda meta: (triton.cdiv(seq, meta["BM"]), b * h)](q, k, v, ot, scale * math.log2(math.e), seq, D=d, CAUSAL=causal)

                    timed("Triton flash attention (autotuned)", run_triton, lambda: ot)
                ours = torch.empty_like(q)
                mine_names = []
                for cfg, kern in kerns.items():
                    bm, bn, nw, ns = cfg
                    name = "warpforge tile (examples/attention.py)" if not configs else f"warpforge {bm}x{bn} w{nw} s{ns}"
                    t0 = time.perf_counter()
                    try:
                        bound = kern.bind(wf.tensor(ours).partition((1, 1, bm, d)), wf.tensor(q), wf.tensor(k), wf.tensor(v), scale * math.log2(math.e), device=dev)
                    except Exception as e:
                        print(f"  {key:22} {name}: FAILED to bind: {type(e).__name__}: {e}", flush=True)
                        continue
                    compile_s.setdefault(f"{name} d={d} {'causal' if causal else 'full'}", time.perf_counter() - t0)
                    ours.fill_(float("nan"))
                    timed(name, lambda bound=bound: bound.launch(stream), lambda: ours)
                    mine_names.append(name)
                best = max((row[n] for n in mine_names if n in row), key=lambda r: r["TFLOP/s"], default=None)
                if best:
                    ratios = {n: best["TFLOP/s"] / r["TFLOP/s"] for n, r in row.items() if n not in mine_names}
                    print(f"  {key:22} ours (best, {best['TFLOP/s']:.1f} TFLOP/s) / " + ", ".join(f"{n}: {x:.2f}" for n, x in ratios.items()), flush=True)
                results[key] = row
                del q, k, v
                torch.cuda.empty_cache()
    print("compile seconds (first bind):", {k: round(v, 1) for k, v in compile_s.items()})
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "compile_s": compile_s}, indent=2))


if __name__ == "__main__":
    main()
