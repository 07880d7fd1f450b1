"""Matrix addition with a 2-D launch and `simt.index_2d(ncols)`.

`index_2d(ncols)` gives row = global y, col = global x and the linear index `row * ncols + col`.
A write through it needs `col < ncols` as well as the linear index in range — otherwise thread
(row, ncols + k) would alias (row + 1, k) — and the compiler adds both guards to the write. Reads are
checked too: the sizes here are not multiples of the 16×16 block, so the threads outside the matrix
must not read `a[i]` (a checked read out of range is a `KernelError`), hence the explicit `if`.
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt


@simt.kernel(contract=simt.Contract(domain=2, block=(16, 16, 1)))
def matadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32], ncols: wf.i64):
    idx = simt.index_2d(ncols)
    i = idx.get()
    if idx.col < ncols and i < len(c):  # the grid overhangs the matrix: threads outside read nothing
        c[idx] = a[i] + b[i]


def main(rows: int = 1000, cols: int = 777) -> None:
    if wf.simulating():
        rows, cols = 37, 45
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    a_host = rng.standard_normal((rows, cols), dtype=np.float32)
    b_host = rng.standard_normal((rows, cols), dtype=np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host.ravel())
    b = wf.DeviceBuffer.from_host(stream, b_host.ravel())
    c = wf.DeviceBuffer.from_host(stream, np.full(rows * cols, np.nan, dtype=np.float32))

    grid = ((cols + 15) // 16, (rows + 15) // 16, 1)
    prepared = matadd.prepare(wf.LaunchConfig(grid=grid, block=(16, 16, 1)), device=dev)
    matadd.launch(stream, prepared, a, b, c, cols)
    got = c.to_host(stream).reshape(rows, cols)

    expected = a_host + b_host
    if not np.array_equal(got, expected):
        bad = np.argwhere(got != expected)
        raise SystemExit(f"FAILED: {len(bad)} of {rows * cols} elements wrong (first at {tuple(bad[0])})")
    print(f"PASSED: all {rows}x{cols} elements correct")


if __name__ == "__main__":
    main()
