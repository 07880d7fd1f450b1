"""The sum of 2^28 f32 values, by a chain of two launches of one tile kernel and one synchronization.

Launch 1: tile block b sums `tiles` consecutive tiles of BLOCK elements of x into a BLOCK-element
accumulator tile (in registers: each iteration is one 128-bit load per four elements), then reduces
it to one value (per thread, warp shuffles, one shared-memory round) and stores it in its own
element of `partials`. Launch 2 runs the same kernel on `partials`. Both launches, and the copy of
the result, are recorded lazily and run in order on one stream by the final `sync_on`.

    warpforge run examples/tile_sum.py      # PASSED: … matches the float64 sum (rtol 1e-4)
"""

import numpy as np

import warpforge as wf
from warpforge import f32, i64, tile

BLOCK = 8192
"""Elements per tile (16 warps × 32 threads × 16 elements)."""


@tile.kernel
def tile_sum(out: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)], tiles: i64):
    acc = tile.zeros((BLOCK,), f32)
    first = tile.bid(0) * tiles
    for i in range(tiles):
        acc += tile.load(x, (first + i,), (BLOCK,))  # past the end of x: zeros
    out.store(tile.sum(acc))


tile_sum.ahead_of_time(tile.spec(f32, (8192,), partition=(1,)), tile.spec(f32, (1 << 28,)), tile.spec(i64))


def blocks_for(n: int, tiles: int) -> int:
    return max(1, -(-n // (BLOCK * tiles)))


def main() -> None:
    n = (1 << 18) + 123 if wf.simulating() else 1 << 28  # the CPU simulator: a smaller vector, with a tail
    tiles = 4
    device = wf.Device(0)
    stream = device.create_stream()
    rng = np.random.default_rng()
    x_host = rng.random(n, dtype=np.float32)

    x = wf.from_host(x_host)
    p = blocks_for(n, tiles)
    partials = tile_sum(wf.empty((p,), f32).partition((1,)), x, tiles).first().unpartition()
    total = tile_sum(wf.empty((1,), f32).partition((1,)), partials, -(-p // BLOCK)).first().unpartition()
    got = float(total.to_host().sync_on(stream)[0])  # both launches and the copy run here

    expected = float(x_host.astype(np.float64).sum())
    if not np.isclose(got, expected, rtol=1e-4):
        raise SystemExit(f"FAILED: {got!r} vs the float64 sum {expected!r} (relative error {abs(got - expected) / expected:.2e})")
    print(f"PASSED: the sum of {n} f32 values matches the float64 sum (relative error {abs(got - expected) / expected:.1e}, rtol 1e-4)")


if __name__ == "__main__":
    main()
