"""Flash attention forward in the tile model, on the tensor cores: O = softmax(Q K^T / sqrt(d)) V for
(batch, heads, sequence, head dim) tensors, causal or not, head dims 64 and 128, f16 and bf16.

One tile block per (batch, head, query tile of `block_m` rows); it keeps the Q tile in shared memory
and streams the K and V tiles of its (batch, head) through a loop (FlashAttention-2's schedule):

- `s = tile.dot(q, k.T)`: Q K^T without a transposed copy (the K tile, N×D, is K-major: exactly
  `mma.sync`'s B layout, read by `ldmatrix` without `.trans`); K and V arrive through
  `tile-pipeline`'s cp.async ring (`num_stages`), so the copies of the next tiles overlap the MMAs;
- online softmax: the running row maximum `m` and sum `l` are loop-carried rank-1 tiles, held in the
  registers of the rows they belong to (`tile.max`/`tile.sum` along the rows of the MMA accumulator
  reduce within the thread and across its quad of lanes by shuffles; no shared memory); the scale
  is folded into exp2 (`qk_scale = log2(e) / sqrt(d)`, then `tile.exp2`), and the accumulator is
  rescaled by exp2(m_old - m_new) when the maximum grows;
- `acc = tile.dot(p.astype(dt), v, acc)`: P·V with P straight from the registers of the first
  product (its m16n8 accumulator fragments are the A fragments of the next MMA);
- on sm_90a (H100/H200) both products are Hopper's `wgmma.mma_async` with A from registers: Q's
  fragments are read once before the loop, K's and V's ring slots are read by matrix descriptors
  (K's as a K-major B, in 64-element swizzle panels at d = 128), P's f16/bf16 pairs come straight
  from the S accumulator (`passes/lowerings/tile_dot_wgmma.py`); elsewhere `mma.sync`;
- causal: the loop stops at the diagonal (fully masked K tiles are skipped); keys past the diagonal
  and past the sequence's end are masked with `tile.where` on `tile.arange` indices, on the last
  tiles only: the step is written once, in a `simt.static_range(2)` loop that the compiler unrolls
  into an unmasked loop and a masked tail loop (`if tail:` is decided at compile time).

Sequence lengths need not be multiples of the tile (loads zero-fill, stores are masked). Checked
against a float64 NumPy reference (and torch's SDPA when torch and a GPU are there).

    warpforge run examples/attention.py             # PASSED: … (on the GPU, or the simulator without one)
    warpforge run --simulate examples/attention.py  # PASSED: … at a small size on the CPU simulator
"""

import math
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import bf16, f16, f32, simt, tile

HEAD_DIMS = (64, 128)
"""Head dims with a kernel (the Q/K/V tiles are BLOCK × d, d a multiple of 16 for the k16 MMAs)."""
DTYPES = {"f16": f16, "bf16": bf16}
"""Input/output element types: the 16-bit floats `mma.sync` multiplies (f32 accumulation)."""

CONFIGS = {64: (64, 64, 4, 2), 128: (128, 64, 8, 2)}
"""Per head dim: query rows per tile block (16 per warp), keys per step, warps, depth of the K/V ring
(the fastest of those `bench/attention.py --configs` timed on the H200 at S = 4096: d = 128 on 128 x 64
tiles over 8 warps 256-264 TFLOP/s, 64 x 64 over 4 warps 207). The Q tile (cp.async, once) and the
layout-conversion scratch of the causal mask share the 48 KiB of static shared memory; the K/V rings
are dynamic shared memory."""


def make_attention(dt: Any, d: int, causal: bool, block_m: int = 0, block_n: int = 0, num_warps: int = 0, num_stages: int = 0) -> Any:
    """The kernel for inputs of `dt` (f16 or bf16), head dim `d`, causal or not. Its arguments:
    `o` (B, H, S, d) partitioned into (1, 1, block_m, d) tiles (the grid), `q`, `k`, `v` (B, H, S, d),
    and `qk_scale` = log2(e) / sqrt(d). Tile sizes, warps and stages: `CONFIGS[d]` where 0."""
    if d not in HEAD_DIMS:
        raise wf.UsageError(f"attention: head dim {d} is not supported (supported: {', '.join(map(str, HEAD_DIMS))})")
    if dt not in DTYPES.values():
        raise wf.UsageError(f"attention: dtype {dt} has no tensor-core MMA here (use f16 or bf16)")
    dm, dn, dw, ds = CONFIGS[d]
    block_m, block_n, num_warps, num_stages = block_m or dm, block_n or dn, num_warps or dw, num_stages or ds
    assert block_m % block_n == 0  # the causal split below: a query tile's diagonal spans whole K tiles

    @tile.kernel(num_warps=num_warps, num_stages=num_stages)
    def attention(o: tile.Tensor[dt, (1, 1, block_m, d)], q: tile.Tensor[dt, (-1, -1, -1, d)], k: tile.Tensor[dt, (-1, -1, -1, d)], v: tile.Tensor[dt, (-1, -1, -1, d)], qk_scale: f32):
        b, h, i = tile.bid(0), tile.bid(1), tile.bid(2)
        n = k.shape[2]
        qt = tile.load(q, (b, h, i, 0), (1, 1, block_m, d)).reshape((block_m, d))
        q_idx = tile.arange(block_m) + i * block_m
        m = tile.full((block_m,), -math.inf, f32)
        l = tile.zeros((block_m,), f32)
        acc = tile.zeros((block_m, d), f32)
        tiles = (n + block_n - 1) // block_n
        full = n // block_n  # K tiles with no key past the sequence's end
        if causal:
            tiles = min(tiles, (i + 1) * (block_m // block_n))  # nothing past the diagonal
            full = min(full, i * (block_m // block_n))  # wholly below the diagonal
        for tail in simt.static_range(2):  # one online-softmax step, compiled into two loops (unrolled here)
            # tail 0: the K tiles with no key to mask; tail 1: the diagonal and the sequence's end, masked
            for j in range(full if tail else 0, tiles if tail else full):
                s = tile.dot(qt, tile.load(k, (b, h, j, 0), (1, 1, block_n, d)).reshape((block_n, d)).T) * qk_scale
                if tail:
                    k_idx = tile.arange(block_n) + j * block_n
                    ok = k_idx[None, :] < n
                    if causal:
                        ok = ok & (q_idx[:, None] >= k_idx[None, :])
                    s = tile.where(ok, s, -math.inf)
                m_new = tile.maximum(m, tile.max(s, axis=1))
                alpha = tile.exp2(m - m_new)
                p = tile.exp2(s - m_new[:, None])
                l = l * alpha + tile.sum(p, axis=1)
                acc = tile.dot(p.astype(dt), tile.load(v, (b, h, j, 0), (1, 1, block_n, d)).reshape((block_n, d)), acc * alpha[:, None])
                m = m_new
        o.store((acc / l[:, None]).astype(dt).reshape((1, 1, block_m, d)))

    return attention


attention_f16_d64_causal = make_attention(f16, 64, True)
"""One kernel at module level, compiled and checked ahead of time (`warpforge compile`, the examples'
ptxas test); `attention()` makes the others on first use."""
attention_f16_d64_causal.ahead_of_time(
    tile.spec(f16, (4, 32, 4096, 64), partition=(1, 1, CONFIGS[64][0], 64)), *(tile.spec(f16, (4, 32, 4096, 64)) for _ in range(3)), tile.spec(f32)
)

_KERNELS: dict[tuple[Any, int, bool, int, int, int, int], Any] = {(f16, 64, True, 0, 0, 0, 0): attention_f16_d64_causal}


def _shape_of(x: Any) -> tuple[int, ...]:
    return tuple(int(s) for s in x.shape)


def attention(q: Any, k: Any, v: Any, causal: bool = False, dtype: Any = f16, block_m: int = 0, block_n: int = 0, num_warps: int = 0, num_stages: int = 0) -> Any:
    """O = softmax(Q K^T / sqrt(d) [causal mask]) V: a lazy chain whose `.first()` is O, (B, H, S, d)
    of `dtype`. `q`, `k`, `v`: (B, H, S, d) chain tensors or host arrays of `dtype` (f16 or bf16), d
    in `HEAD_DIMS`; the same shape each (self-attention; causal needs it). Raises `wf.UsageError`
    for another rank, mismatched shapes, a head dim without a kernel or a dtype without an MMA,
    before anything runs."""
    shapes = [_shape_of(x) for x in (q, k, v)]
    if any(len(s) != 4 for s in shapes):
        raise wf.UsageError(f"attention: q, k and v are (batch, heads, sequence, head dim) tensors of rank 4, got shapes {shapes}")
    if shapes[0] != shapes[1] or shapes[1] != shapes[2]:
        raise wf.UsageError(f"attention: q, k and v must have one shape (B, H, S, d), got q {shapes[0]}, k {shapes[1]}, v {shapes[2]}")
    bsz, heads, seq, d = shapes[0]
    if d not in HEAD_DIMS:
        raise wf.UsageError(f"attention: head dim {d} is not supported (supported: {', '.join(map(str, HEAD_DIMS))})")
    key = (dtype, d, causal, block_m, block_n, num_warps, num_stages)
    if key not in _KERNELS:
        _KERNELS[key] = make_attention(dtype, d, causal, block_m, block_n, num_warps, num_stages)
    args = [wf.from_host(x) if isinstance(x, np.ndarray) else x for x in (q, k, v)]
    o = wf.empty((bsz, heads, seq, d), dtype).partition((1, 1, block_m or CONFIGS[d][0], d))
    return _KERNELS[key](o, *args, math.log2(math.e) / math.sqrt(d))


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """float64 NumPy attention."""
    q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
    s = q64 @ k64.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[2]
        s = np.where(np.arange(n)[:, None] >= np.arange(n)[None, :], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v64


def check(name: str, got: np.ndarray, want: np.ndarray, dt: Any) -> None:
    """|O - O_ref| ≤ a few 16-bit roundings of max |V| (P and O are rounded to `dt`: 2^-11 for f16,
    2^-8 for bf16, relative)."""
    ulp = 2.0**-10 if dt is f16 else 2.0**-7
    tol = 4 * ulp * np.abs(want).max(axis=-1, keepdims=True) + 2 * ulp
    err = np.abs(got.astype(np.float64) - want)
    if not np.all(err <= tol):
        bad = np.unravel_index(np.argmax(err - tol), err.shape)
        raise SystemExit(f"FAILED: {name} O{bad} = {got[bad]}, expected {want[bad]} (|error| {err[bad]:.3g} > {tol[bad].item():.3g})")


def main() -> None:
    simulating = wf.simulating()
    rng = np.random.default_rng(20261201)
    stream = wf.Device(0).create_stream()
    if simulating:  # the CPU simulator: one small shape per case, 64-row tiles over 4 warps
        cases = [(f16, 64, True, (1, 2, 80, 64))]  # one kernel (the module-level one): the simulator test runs every example
        cfg: dict[str, int] = {}
    else:
        cases = [(dt, d, c, (2, 3, 1000, d)) for dt in (f16, bf16) for d in HEAD_DIMS for c in (False, True)]
        cfg = {}
    for dt, d, causal, shape in cases:
        q, k, v = (rng.standard_normal(shape).astype(dt.np) for _ in range(3))
        got = attention(q, k, v, causal, dt, **cfg).first().unpartition().to_host().sync_on(stream)
        name = f"{dt} d={d} {'causal' if causal else 'non-causal'} {shape}"
        check(name, got, reference(q, k, v, causal), dt)
        if not simulating:
            _check_torch(name, got, q, k, v, causal, dt)
    where = "the CPU simulator" if simulating else "the GPU"
    kinds = ", ".join(sorted({f"{c[0].name} d={c[1]} {'causal' if c[2] else 'non-causal'}" for c in cases}))
    print(f"PASSED: flash attention forward on {where}, sequence lengths not a multiple of the tile, matches NumPy: {kinds}")


def _check_torch(name: str, got: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool, dt: Any) -> None:
    """Also against torch's scaled_dot_product_attention when torch with CUDA is installed."""
    try:
        import torch
    except ImportError:
        return
    if not torch.cuda.is_available():
        return
    tdt = torch.float16 if dt is f16 else torch.bfloat16
    tq, tk, tv = (torch.from_numpy(x.astype(np.float32)).to("cuda", tdt) for x in (q, k, v))
    want = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal).float().cpu().numpy().astype(np.float64)
    check(name + " vs torch SDPA", got, want, dt)


if __name__ == "__main__":
    main()
