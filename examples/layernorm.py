"""Fused layer normalization forward, y = (x - mean) / sqrt(var + eps) * gamma + beta over each row,
in the tile model, for rows of any length, f32, bf16 and f16 inputs with f32 statistics.

- Rows that fit one tile (n ≤ BLOCK): `layernorm_row_*`, one tile block per row. The row is loaded
  once into registers as a (1, BLOCK) tile (past n: padding 0), converted to f32; the mean is its sum
  over n; the variance is the mean of the *masked* squared deviations (two passes over the registers,
  not E[x²] − E[x]², which cancels); the normalized row times gamma plus beta is stored in x's dtype.
- Longer rows: two launches of one lazy chain, one synchronization. `layernorm_stats_*` (one tile
  block per row) loops over the row's column tiles twice — the sum for the mean, then the masked
  squared deviations — and stores (mean, 1/sqrt(var + eps)) in a (rows, 2) f32 tensor;
  `layernorm_apply_*` (one tile block per (row, column tile)) normalizes its tile with them.

Checked against a float64 NumPy reference (the biased variance, as torch.nn.functional.layer_norm).

    warpforge run examples/layernorm.py             # PASSED: … (on the GPU, or the simulator without one)
    warpforge run --simulate examples/layernorm.py  # PASSED: … at a small size on the CPU simulator
"""

from typing import Any

import numpy as np

import warpforge as wf
from warpforge import bf16, f16, f32, tile

BLOCK = 4096
"""Columns per tile: a row of up to 4096 elements is one tile (16 KiB of f32 registers per CTA)."""
EPS = 1e-5


def make_layernorm(dt: Any, block: int = BLOCK) -> tuple[Any, Any, Any]:
    """The three kernels for inputs of dtype `dt` and column tiles of `block` (a power of two)."""

    @tile.kernel
    def layernorm_row(y: tile.Tensor[dt, (1, "C")], x: tile.Tensor[dt, (-1, -1)], gamma: tile.Tensor[dt, (1, -1)], beta: tile.Tensor[dt, (1, -1)], eps: f32):
        n = x.shape[1]
        inv_n = 1.0 / f32(n)
        t = tile.load_tile_like(x, y).astype(f32)
        inside = tile.arange(y.shape[1])[None, :] < n
        mean = tile.sum(t, axis=1, keepdims=True) * inv_n
        d = tile.where(inside, t - mean, 0.0)
        rstd = tile.rsqrt(tile.sum(d * d, axis=1, keepdims=True) * inv_n + eps)
        g = tile.load(gamma, (0, 0), (1, y.shape[1])).astype(f32)
        b = tile.load(beta, (0, 0), (1, y.shape[1])).astype(f32)
        y.store((d * rstd * g + b).astype(dt))

    @tile.kernel
    def layernorm_stats(stats: tile.Tensor[f32, (1, 2)], x: tile.Tensor[dt, (-1, -1)], eps: f32):
        n = x.shape[1]
        inv_n = 1.0 / f32(n)
        row = tile.bid(0)
        tiles = (n + block - 1) // block
        acc = tile.zeros((1, block), f32)
        for j in range(tiles):
            acc += tile.load(x, (row, j), (1, block)).astype(f32)
        mean = tile.sum(acc) * inv_n
        acc = tile.zeros((1, block), f32)
        for j in range(tiles):
            cols = tile.arange(block)[None, :] + j * block
            d = tile.where(cols < n, tile.load(x, (row, j), (1, block)).astype(f32) - mean, 0.0)
            acc += d * d
        rstd = tile.rsqrt(tile.sum(acc) * inv_n + eps)
        stats.store(tile.where(tile.arange(2)[None, :] == 0, mean, rstd))

    @tile.kernel
    def layernorm_apply(y: tile.Tensor[dt, (1, "C")], x: tile.Tensor[dt, (-1, -1)], stats: tile.Tensor[f32, (-1, 2)], gamma: tile.Tensor[dt, (1, -1)], beta: tile.Tensor[dt, (1, -1)]):
        s = tile.load(stats, (tile.bid(0), 0), (1, 2))
        first = tile.arange(2)[None, :] == 0
        mean = tile.sum(tile.where(first, s, 0.0))
        rstd = tile.sum(tile.where(first, 0.0, s))
        j = tile.bid(1)
        t = tile.load_tile_like(x, y).astype(f32)
        g = tile.load(gamma, (0, j), (1, y.shape[1])).astype(f32)
        b = tile.load(beta, (0, j), (1, y.shape[1])).astype(f32)
        y.store(((t - mean) * rstd * g + b).astype(dt))

    return layernorm_row, layernorm_stats, layernorm_apply


layernorm_row_f32, layernorm_stats_f32, layernorm_apply_f32 = make_layernorm(f32)
layernorm_row_bf16, layernorm_stats_bf16, layernorm_apply_bf16 = make_layernorm(bf16)
layernorm_row_f16, layernorm_stats_f16, layernorm_apply_f16 = make_layernorm(f16)
_BY_DTYPE = {
    "float32": (layernorm_row_f32, layernorm_stats_f32, layernorm_apply_f32),
    "bfloat16": (layernorm_row_bf16, layernorm_stats_bf16, layernorm_apply_bf16),
    "float16": (layernorm_row_f16, layernorm_stats_f16, layernorm_apply_f16),
}
for _dt, (_row, _stats, _apply) in zip((f32, bf16, f16), _BY_DTYPE.values()):
    _row.ahead_of_time(tile.spec(_dt, (8192, BLOCK), partition=(1, BLOCK)), tile.spec(_dt, (8192, BLOCK)), tile.spec(_dt, (1, BLOCK)), tile.spec(_dt, (1, BLOCK)), tile.spec(f32))
    _stats.ahead_of_time(tile.spec(f32, (8192, 2), partition=(1, 2)), tile.spec(_dt, (8192, 3 * BLOCK)), tile.spec(f32))
    _apply.ahead_of_time(
        tile.spec(_dt, (8192, 3 * BLOCK), partition=(1, BLOCK)), tile.spec(_dt, (8192, 3 * BLOCK)), tile.spec(f32, (8192, 2)),
        tile.spec(_dt, (1, 3 * BLOCK)), tile.spec(_dt, (1, 3 * BLOCK)),
    )  # fmt: skip


def layer_norm(x: Any, gamma: Any, beta: Any, eps: float = EPS, block: int = BLOCK) -> Any:
    """y = layer_norm(x) over the last axis of the 2-D lazy tensor `x` (rows, n), with `gamma` and
    `beta` of shape (1, n) and x's dtype (f32, bf16 or f16); returns the lazy result (rows, n).
    Rows up to `block` (the module's BLOCK unless kernels for another were made) take one launch,
    longer rows two (statistics, then normalization)."""
    rows, n = x.shape
    kernels = _BY_DTYPE[x.dtype.np.name] if block == BLOCK else make_layernorm(x.dtype, block)
    row, stats, apply = kernels
    if n <= block:
        width = 1 << max(0, (n - 1).bit_length())
        return row(wf.empty((rows, n), x.dtype).partition((1, width)), x, gamma, beta, np.float32(eps)).first().unpartition()
    s = stats(wf.empty((rows, 2), f32).partition((1, 2)), x, np.float32(eps)).first().unpartition()
    return apply(wf.empty((rows, n), x.dtype).partition((1, block)), x, s, gamma, beta).first().unpartition()


def reference(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = EPS) -> np.ndarray:
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps) * gamma.astype(np.float64) + beta.astype(np.float64)


def main() -> None:
    small = wf.simulating()
    device = wf.Device(0)
    stream = device.create_stream()
    rng = np.random.default_rng()
    # (rows, n, column tile): one tile per row; a ragged row in one tile; rows of several tiles
    cases = [(4, 200, 256), (2, 600, 256)] if small else [(4096, 1000, BLOCK), (4096, 4096, BLOCK), (1024, 3 * BLOCK + 123, BLOCK)]
    dtypes = [(f32, 2e-5), (bf16, 2e-2)] if small else [(f32, 2e-5), (bf16, 2e-2), (f16, 4e-3)]
    for rows, n, block in cases:
        for dt, tol in dtypes:
            x = (3 * rng.standard_normal((rows, n)) + 1).astype(dt.np)
            gamma = rng.standard_normal((1, n)).astype(dt.np)
            beta = rng.standard_normal((1, n)).astype(dt.np)
            got = layer_norm(wf.from_host(x), wf.from_host(gamma), wf.from_host(beta), block=block).to_host().sync_on(stream)
            want = reference(x, gamma, beta)
            err = np.abs(got.astype(np.float64) - want)
            bound = tol * (1 + np.abs(want))
            if not np.all(err <= bound):
                raise SystemExit(f"FAILED: layernorm {rows} x {n} {dt.name} (tile {block}): max error {err.max():.3e}")
    print(f"PASSED: layernorm forward matches the float64 reference for {len(cases)} shapes x {[d.name for d, _ in dtypes]}")


if __name__ == "__main__":
    main()
