"""Row softmax over an 8192 × 8192 f32 matrix, one tile block per row.

Each tile block loads its whole row as one (1, 8192) tile — kept in registers: one read and one
write of the matrix — subtracts the row's maximum (a reduction: per-thread, warp shuffles, one
shared-memory round), exponentiates (`tile.exp` on f32 is `ex2.approx(x·log2 e)`, about 2 ulp),
and scales by the reciprocal of the row's sum. Elements past a row's end (when the row length is
not the tile's) load as -inf, which the maximum ignores and exp turns into 0.

    warpforge run examples/softmax.py       # PASSED: … rows match NumPy (float64 reference)
"""

import math

import numpy as np

import warpforge as wf
from warpforge import f32, tile


@tile.kernel
def softmax(out: tile.Tensor[f32, (1, "C")], x: tile.Tensor[f32, (-1, -1)]):
    row = tile.load_tile_like(x, out, padding=-math.inf)  # this block's row of x, as a (1, C) tile
    e = tile.exp(row - tile.max(row, axis=1, keepdims=True))
    out.store(e * (1.0 / tile.sum(e, axis=1, keepdims=True)))


COLS = 8192
softmax.ahead_of_time(tile.spec(f32, (COLS, COLS), partition=(1, COLS)), tile.spec(f32, (COLS, COLS)))


def reference(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main() -> None:
    rows = 16 if wf.simulating() else COLS  # the CPU simulator runs a few rows in seconds
    device = wf.Device(0)
    stream = device.create_stream()
    rng = np.random.default_rng()
    x_host = (4 * rng.standard_normal((rows, COLS))).astype(np.float32)

    x = wf.from_host(x_host)
    out = wf.empty((rows, COLS), f32).partition((1, COLS))  # one tile block per row
    got = softmax(out, x).first().unpartition().to_host().sync_on(stream)

    expected = reference(x_host)
    bad = ~np.isclose(got, expected, rtol=1e-4, atol=1e-9)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise SystemExit(f"FAILED: {int(bad.sum())} elements differ (first at [{r}, {c}]: {got[r, c]!r} vs {expected[r, c]!r})")
    sums = got.astype(np.float64).sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=1e-4):
        raise SystemExit(f"FAILED: row sums deviate from 1 by up to {np.abs(sums - 1).max():.2e}")
    print(f"PASSED: all {rows} rows of {rows}x{COLS} match NumPy (rtol 1e-4)")


if __name__ == "__main__":
    main()
