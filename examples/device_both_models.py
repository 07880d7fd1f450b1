"""One `@simt.device` function, both models, one chain: a GELU written once and called from a SIMT
kernel (on scalars) and from a tile kernel (elementwise on a tile), with the SIMT launch recorded as a
step of the tile model's lazy chain between two tile launches, all on one stream.

    warpforge run examples/device_both_models.py   # prints: PASSED: ...

`gelu(t)` with a tile `t` compiles `gelu` once for f32 elements (the same body the SIMT kernel calls)
and maps it over the tile (`tile.map` in the IR); `bias_gelu[grid, block](h, b, out)` with chain tensors
records the launch instead of running it, after the tile launch that writes `h`, before the one that
reads `out`; `sync_on(stream)` runs the three launches in that order and copies the result back.
"""

import math

import numpy as np

import warpforge as wf
from warpforge import f32, simt, tile

SQRT_2_OVER_PI = 0.7978845608028654


@simt.device
def gelu(x: f32) -> f32:
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


@tile.kernel
def scale_add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)], s: f32):
    z.store(tile.load_tile_like(x, z) * s + tile.load_tile_like(y, z))


@simt.kernel
def bias_gelu(h: simt.Slice[f32], bias: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):
        out[idx] = gelu(h[i] + bias[i % len(bias)])  # the device function on one element


@tile.kernel
def gelu_tile(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(gelu(tile.load_tile_like(x, z)))  # the same device function, elementwise on the tile


scale_add.ahead_of_time(tile.spec(f32, (4096,), partition=(256,)), tile.spec(f32, (4096,)), tile.spec(f32, (4096,)), tile.spec(f32))
gelu_tile.ahead_of_time(tile.spec(f32, (4096,), partition=(256,)), tile.spec(f32, (4096,)))


def gelu64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x**3)))


def main(n: int = 1 << 20) -> None:
    if wf.simulating():
        n = 3000
    rng = np.random.default_rng()
    stream = wf.Device(0).create_stream()
    xs, ys = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    bs = rng.standard_normal(97).astype(np.float32)
    s = np.float32(rng.uniform(0.5, 2.0))

    x, y, bias = wf.from_host(xs), wf.from_host(ys), wf.from_host(bs)
    h = scale_add(wf.full((n,), np.nan, f32).partition((256,)), x, y, s).first().unpartition()  # tile: h = x*s + y
    g = bias_gelu[-(-n // 256), 256](h, bias, wf.full((n,), np.nan, f32))[2]  # SIMT: g = gelu(h + bias)
    out = gelu_tile(wf.full((n,), np.nan, f32).partition((256,)), g).first().unpartition()  # tile: gelu(g)
    got = out.to_host().sync_on(stream)

    h64 = (xs * s + ys).astype(np.float32)  # the tile kernel's f32 arithmetic
    g64 = gelu64((h64 + bs[np.arange(n) % bs.size]).astype(np.float32))
    want = gelu64(g64.astype(np.float32))
    err = np.abs(got - want)
    if not np.all(err <= 1e-5 + 1e-5 * np.abs(want)):
        i = int(np.argmax(err))
        raise SystemExit(f"FAILED: out[{i}] = {got[i]}, expected {want[i]}")
    print(f"PASSED: {n} elements through tile -> SIMT -> tile, one device function in both models")


if __name__ == "__main__":
    main()
