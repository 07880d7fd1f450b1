"""The tile GEMM kernel of the wgmma and TMA-ring tests (tests/test_tile_dot_wgmma.py, tests/test_tile_dot_tma.py).

No `from __future__ import annotations` here: the kernel's annotations use the factory's arguments,
which a string annotation could not see (they are not in the kernel's closure).
"""

from typing import Any

import warpforge as wf
from warpforge import f16, f32, tile


def tile_gemm(bm: int, bn: int, bk: int, warps: int, stages: int = 3, dtype: Any = f16, min_blocks: int | None = None, out: Any = f32) -> Any:
    """A `tile.kernel` C (`out`, BM x BN per tile block) = A @ B over `k_tiles` K steps of `bk` (the
    wgmma / TMA-ring GEMM of tests/test_tile_dot_wgmma.py and tests/test_tile_dot_tma.py); with `out`
    other than f32 the f32 accumulator is rounded to it in the epilogue (`acc.astype(out)`)."""
    opts = {} if min_blocks is None else {"min_blocks_per_sm": min_blocks}

    if out is f32:

        @tile.kernel(num_warps=warps, num_stages=stages, **opts)
        def gemm(c: tile.Tensor[f32, (bm, bn)], a: tile.Tensor[dtype, (-1, -1)], b: tile.Tensor[dtype, (-1, -1)], k_tiles: wf.i64):
            acc = tile.zeros((bm, bn), f32)
            for kt in range(k_tiles):
                acc = tile.dot(tile.load(a, (tile.bid(0), kt), (bm, bk)), tile.load(b, (kt, tile.bid(1)), (bk, bn)), acc)
            c.store(acc)

        return gemm

    @tile.kernel(num_warps=warps, num_stages=stages, **opts)
    def gemm_rounded(c: tile.Tensor[out, (bm, bn)], a: tile.Tensor[dtype, (-1, -1)], b: tile.Tensor[dtype, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((bm, bn), f32)
        for kt in range(k_tiles):
            acc = tile.dot(tile.load(a, (tile.bid(0), kt), (bm, bk)), tile.load(b, (kt, tile.bid(1)), (bk, bn)), acc)
        c.store(acc.astype(out))

    return gemm_rounded
