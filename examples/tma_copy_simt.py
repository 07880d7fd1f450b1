"""TMA copies in a SIMT kernel (Hopper, sm_90): load 2-D tiles into shared memory, synchronized by
an mbarrier, compute on them, store them back with TMA.

Each block walks down one column of 32 x 32 tiles of a `rows x cols` f32 matrix. Per tile, thread 0
announces the tile's bytes on the block's mbarrier (`simt.mbarrier_arrive_expect_tx`) and starts a
TMA load of the box at (row0, col0) (`simt.tma_load`); every thread waits for the barrier's phase
(`simt.mbarrier_wait`: parity 0 for the first tile, 1 for the second, ... — the phase flips each
time the barrier completes), computes `y = 2 x + 1` in place, orders its shared-memory writes before
the TMA unit reads them (`simt.fence_proxy_async` + `simt.sync_threads`), and thread 0 stores the
tile back through the output's descriptor (`simt.tma_store`, then commit and wait before the tile is
reused). The matrix is not a multiple of the box: the TMA load zero-fills the part of a box outside
the matrix and the store writes only the part inside, so the kernel has no bounds checks of its own.

The descriptors are made on the host from the device buffers (`wf.tensor_map(buffer, box)`, CUDA's
`cuTensorMapEncodeTiled`) and passed as `simt.TensorMap[f32, (32, 32)]` parameters
(`__grid_constant__`). On the CPU simulator the copies complete when issued.

    warpforge run examples/tma_copy_simt.py
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt

BR, BC = 32, 32  # rows, columns of one TMA box (32 f32 = 128 bytes per box row)
BOX = (BR, BC)
THREADS = 128


@simt.kernel(launch_bounds=THREADS)
def scale_tiles(x: simt.TensorMap[f32, BOX], y: simt.TensorMap[f32, BOX], row_tiles: wf.i32):
    tile = simt.shared_array((BR, BC), f32)
    bar = simt.mbarrier()
    tid = simt.thread_idx.x
    col0 = wf.i32(simt.block_idx.x * BC)
    if tid == 0:
        simt.mbarrier_init(bar, 1)  # one arrival (thread 0's) + the box's bytes per phase
    simt.sync_threads()
    for t in range(row_tiles):
        row0 = wf.i32(t * BR)
        if tid == 0:
            simt.mbarrier_arrive_expect_tx(bar, x.box_bytes)
            simt.tma_load(tile, x, (row0, col0), bar)
        simt.mbarrier_wait(bar, t & 1)  # phase t of the barrier has parity t % 2
        for i in range(tid, BR * BC, THREADS):
            r, c = i // BC, i % BC
            tile[r, c] = tile[r, c] * 2.0 + 1.0
        simt.fence_proxy_async()  # this thread's shared writes, before the TMA store reads them
        simt.sync_threads()
        if tid == 0:
            simt.tma_store(tile, y, (row0, col0))
            simt.tma_store_commit()
            simt.tma_store_wait()  # the tile is read (and written out) before the next load refills it


def main(rows: int = 1000, cols: int = 3000) -> None:  # neither a multiple of 32
    if wf.simulating():
        rows, cols = 70, 100
    rng = np.random.default_rng(2026)
    dev = wf.Device(0)
    stream = dev.create_stream()
    x_host = rng.standard_normal((rows, cols), dtype=np.float32)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    y = wf.DeviceBuffer.from_host(stream, np.full((rows, cols), np.nan, dtype=np.float32))
    # rows of 4-byte elements: TMA needs row strides that are multiples of 16 bytes (cols % 4 == 0)
    tx, ty = wf.tensor_map(x, BOX), wf.tensor_map(y, BOX)
    row_tiles = -(-rows // BR)
    grid = -(-cols // BC)
    prepared = scale_tiles.prepare(wf.LaunchConfig(grid=grid, block=THREADS), device=dev)
    scale_tiles.launch(stream, prepared, tx, ty, row_tiles)
    got = y.to_host(stream)
    want = x_host * np.float32(2) + np.float32(1)
    if not np.array_equal(got, want):
        bad = np.argwhere(got != want)
        raise SystemExit(f"FAILED: {len(bad)} of {rows * cols} elements wrong (first at {tuple(bad[0])})")
    print(f"PASSED: {rows}x{cols} f32 through {row_tiles}x{grid} TMA boxes of {BR}x{BC} (mbarrier phases 0..{row_tiles - 1})")


if __name__ == "__main__":
    main()
