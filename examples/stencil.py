"""A 5-point 2-D stencil (one Jacobi step of the Laplace equation) on a rows x cols grid.

Interior points become the mean of their four neighbours; boundary points are copied. One thread
per point (`simt.index_2d(cols)`), 2-D blocks of 32 x 8; the neighbours' reads are bounds-checked
and the boundary test keeps every one of them inside the grid.

    warpforge run examples/stencil.py
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt


@simt.kernel(contract=simt.Contract(domain=2, block=(32, 8, 1)))
def jacobi_step(u: simt.Slice[f32], out: simt.DisjointSlice[f32], rows: wf.i64, cols: wf.i64):
    idx = simt.index_2d(cols)
    r = idx.row
    c = idx.col
    if r < rows and c < cols:
        i = idx.get()
        if 0 < r < rows - 1 and 0 < c < cols - 1:
            out[idx] = 0.25 * (u[i - 1] + u[i + 1] + u[i - cols] + u[i + cols])
        else:
            out[idx] = u[i]


def main(rows: int = 2048, cols: int = 3000, steps: int = 10) -> None:
    if wf.simulating():
        rows, cols, steps = 20, 33, 2
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    u_host = rng.random((rows, cols), dtype=np.float32)
    bufs = [wf.DeviceBuffer.from_host(stream, u_host.ravel()), wf.DeviceBuffer.from_host(stream, np.full(rows * cols, np.nan, dtype=np.float32))]
    grid = ((cols + 31) // 32, (rows + 7) // 8, 1)
    prepared = jacobi_step.prepare(wf.LaunchConfig(grid=grid, block=(32, 8, 1)), device=dev)
    for s in range(steps):
        jacobi_step.launch(stream, prepared, bufs[s % 2], bufs[(s + 1) % 2], rows, cols)
    got = bufs[steps % 2].to_host(stream).reshape(rows, cols)

    expected = u_host.copy()
    for _ in range(steps):
        nxt = expected.copy()
        nxt[1:-1, 1:-1] = np.float32(0.25) * (expected[1:-1, :-2] + expected[1:-1, 2:] + expected[:-2, 1:-1] + expected[2:, 1:-1])
        expected = nxt
    if not np.allclose(got, expected, rtol=1e-5, atol=1e-6):
        bad = np.argwhere(~np.isclose(got, expected, rtol=1e-5, atol=1e-6))
        raise SystemExit(f"FAILED: {len(bad)} of {rows * cols} points wrong (first at {tuple(bad[0])})")
    print(f"PASSED: {steps} steps of a 5-point stencil on {rows}x{cols}")


if __name__ == "__main__":
    main()
