"""Matrix transpose through a padded shared-memory tile (32 x 33 floats: no bank conflicts).

Each 32 x 8 block moves one 32 x 32 tile. Reads are coalesced along the input's rows into the
shared tile; after `simt.sync_threads()` the block writes the tile back column by column, coalesced
along the output's rows. The 33rd column of padding puts the tile's columns in different banks, so
neither the row-wise store nor the column-wise load of shared memory conflicts.

The output is written through a tile view: with `idx = simt.index_2d(...)`, `out.tile(idx, (4, 1), n)`
is the 4 x 1 piece of the output this thread owns (rows `4 * idx.row ... + 3`, column `idx.col`), so
the writes are race-free by construction, and outside the matrix they do nothing.

    warpforge run examples/transpose.py
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt

TILE = 32
ROWS = 8  # threads per block in y: each thread moves TILE // ROWS elements


@simt.kernel(contract=simt.Contract(domain=2, block=(TILE, ROWS, 1)))
def transpose(a: simt.Slice[f32], out: simt.DisjointSlice[f32], rows: wf.i64, cols: wf.i64):
    # `a` is rows x cols; `out` is cols x rows. Block (bx, by) fills the output tile at
    # rows by*32 .. by*32+31, columns bx*32 .. bx*32+31, which is input tile (bx, by) transposed.
    idx = simt.index_2d(rows)
    tx = simt.thread_idx.x
    ty = simt.thread_idx.y
    in_row0 = simt.block_idx.x * TILE
    in_col0 = simt.block_idx.y * TILE
    tile = simt.shared_array((TILE, TILE + 1), f32)
    for j in simt.static_range(TILE // ROWS):
        r = ty * (TILE // ROWS) + j
        row, col = in_row0 + r, in_col0 + tx
        tile[r, tx] = a[row * cols + col] if row < rows and col < cols else wf.f32(0)
    simt.sync_threads()
    mine = out.tile(idx, (TILE // ROWS, 1), rows)  # this thread's 4 x 1 piece of the output
    for j in simt.static_range(TILE // ROWS):
        mine[j, 0] = tile[tx, ty * (TILE // ROWS) + j]


def main(rows: int = 4000, cols: int = 3001) -> None:
    if wf.simulating():
        rows, cols = 70, 45
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    a_host = rng.standard_normal((rows, cols), dtype=np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host.ravel())
    out = wf.DeviceBuffer.from_host(stream, np.full(rows * cols, np.nan, dtype=np.float32))
    grid = ((rows + TILE - 1) // TILE, (cols + TILE - 1) // TILE, 1)
    prepared = transpose.prepare(wf.LaunchConfig(grid=grid, block=(TILE, ROWS, 1)), device=dev)
    transpose.launch(stream, prepared, a, out, rows, cols)
    got = out.to_host(stream).reshape(cols, rows)
    if not np.array_equal(got, a_host.T):
        bad = np.argwhere(got != a_host.T)
        raise SystemExit(f"FAILED: {len(bad)} of {rows * cols} elements wrong (first at {tuple(bad[0])})")
    print(f"PASSED: {rows}x{cols} transposed through a padded 32x33 shared tile")


if __name__ == "__main__":
    main()
