"""The tile vector add of NVIDIA's CUDA Rust announcement (cutile-rs), in Python.

The kernel body runs once per tile block, as one logical thread over its own part of `z`: it loads
the tiles of `x` and `y` lining up with that part and stores their sum; warpforge decides how many
GPU threads carry each tile (and uses 128-bit loads when it can). On the host, everything is lazy:
`ones`, `zeros`, the partition (which gives the grid, 1024 / 128 = 8 tile blocks, and supplies B),
the launch and the copy back are recorded, and only `sync_on(stream)` runs them — one chain, one
synchronization.

    warpforge run examples/tile_vecadd.py   # prints: PASSED: all 1024 elements correct
"""

import numpy as np

import warpforge as wf
from warpforge import f32, tile


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    # B is the tile width, a static dimension supplied by the partition; -1 is read at launch
    tx = tile.load_tile_like(x, z)  # the tile of x lining up with this tile block's part of z
    ty = tile.load_tile_like(y, z)
    z.store(tx + ty)  # elementwise across the whole tile


# the shapes `warpforge run` / `warpforge compile` compile for on a machine without a GPU
add.ahead_of_time(tile.spec(f32, (1024,), partition=(128,)), tile.spec(f32, (1024,)), tile.spec(f32, (1024,)))


def main() -> None:
    device = wf.Device(0)
    stream = device.create_stream()

    # lazy: nothing has touched the GPU yet
    x = wf.ones((1024,), f32)
    y = wf.ones((1024,), f32)
    # partitioning gives each tile block exclusive ownership of a 128-element part, fixes the grid
    # at 1024 / 128 = 8 tile blocks, and supplies B
    z = wf.zeros((1024,), f32).partition((128,))

    c = (
        add(z, x, y)  # takes the partition, borrows x and y, and returns all three
        .first()  # the output, back
        .unpartition()  # the whole tensor again; no data moves
        .to_host()  # record the copy back
        .sync_on(stream)  # and only now does any of it run
    )
    errors = int(np.count_nonzero(np.abs(c - 2.0) > 1e-5))
    if errors:
        raise SystemExit(f"FAILED: {errors} errors")

    # the same kernel on fresh random data whose length is not a multiple of the tile (a masked tail)
    n = 1000
    rng = np.random.default_rng()
    xs, ys = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = add(wf.empty((n,), f32).partition((128,)), wf.from_host(xs), wf.from_host(ys)).first().unpartition().to_host().sync_on(stream)
    if not np.array_equal(out, xs + ys):
        raise SystemExit(f"FAILED: random inputs: {int(np.count_nonzero(out != xs + ys))} of {n} elements wrong")

    print(f"PASSED: all {len(c)} elements correct")


if __name__ == "__main__":
    main()
