"""SAXPY, `out = alpha * x + y`, over 2^24 floats: a scalar parameter next to slices.

`alpha` is an f32 parameter passed by value; the runtime checks that the Python value fits f32's
range before the launch. Block size is free (no contract): any shape with y = z = 1 is accepted
because the kernel uses `index_1d()`.
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt


@simt.kernel
def saxpy(alpha: f32, x: simt.Slice[f32], y: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):  # the last block may overhang the arrays
        out[idx] = alpha * x[i] + y[i]  # f32 * f32 + f32: stays f32 (NEP 50)


def main(n: int = 1 << 24) -> None:
    if wf.simulating():
        n = 1 << 12
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    alpha = np.float32(rng.uniform(-4, 4))
    x_host = rng.standard_normal(n, dtype=np.float32)
    y_host = rng.standard_normal(n, dtype=np.float32)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    y = wf.DeviceBuffer.from_host(stream, y_host)
    out = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))  # poisoned

    block = 512
    prepared = saxpy.prepare(wf.LaunchConfig(grid=(n + block - 1) // block, block=block), device=dev)
    saxpy.launch(stream, prepared, alpha, x, y, out)
    got = out.to_host(stream)

    expected = alpha * x_host + y_host
    if not np.allclose(got, expected, rtol=1e-6, atol=1e-6):
        bad = np.flatnonzero(~np.isclose(got, expected, rtol=1e-6, atol=1e-6))
        raise SystemExit(f"FAILED: {bad.size} of {n} elements wrong (first at {bad[0]}: {got[bad[0]]} != {expected[bad[0]]})")
    print(f"PASSED: all {n} elements correct (alpha = {alpha:.4f})")


if __name__ == "__main__":
    main()
