"""Sum of 2^24 floats with a block reduction: warp shuffles, shared memory, one `BlockIndex` write per block.

Each thread adds up its share of the input (a grid-stride loop), each warp sums its 32 partial sums
with `simt.warp_sum` (a butterfly of `shfl.sync.bfly`), the 8 warp sums meet in a shared array, the
first warp sums those, and the block's total is written through `simt.block_index_1d()`: a write the
compiler performs from the block's first thread only, so `partial` stays race-free with no `if`.
A second launch with one block reduces the partial sums to the answer.

    warpforge run examples/block_reduce.py
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt

BLOCK = 256
WARPS = BLOCK // simt.WARP_SIZE


@simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)))
def block_sum(x: simt.Slice[f32], partial: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    n = len(x)
    stride = simt.grid_dim.x * BLOCK
    acc = wf.f32(0)
    k = idx.get()
    while k < n:  # grid-stride: any n, any grid
        acc += x[k]
        k += stride
    acc = simt.warp_sum(acc)  # every lane of the warp holds the warp's sum
    warp_sums = simt.shared_array(WARPS, f32)
    lane = simt.lane_id()
    warp = simt.thread_idx.x // simt.WARP_SIZE
    if lane == 0:
        warp_sums[warp] = acc
    simt.sync_threads()
    if warp == 0:
        s = warp_sums[lane] if lane < WARPS else wf.f32(0)
        total = simt.warp_sum(s)
        partial[simt.block_index_1d()] = total  # made by the block's first thread only


def main() -> None:
    n = 1 << 24
    blocks = 1024
    if wf.simulating():
        n, blocks = 1 << 12, 4
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    x_host = rng.random(n, dtype=np.float32)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    partial = wf.DeviceBuffer.from_host(stream, np.full(blocks, np.nan, dtype=np.float32))
    total = wf.DeviceBuffer.from_host(stream, np.full(1, np.nan, dtype=np.float32))

    block_sum.launch(stream, block_sum.prepare(wf.LaunchConfig(grid=blocks, block=BLOCK), device=dev), x, partial)
    block_sum.launch(stream, block_sum.prepare(wf.LaunchConfig(grid=1, block=BLOCK), device=dev), partial, total)
    partial_host = partial.to_host(stream)
    got = float(total.to_host(stream)[0])

    expected = float(np.sum(x_host, dtype=np.float64))
    if np.isnan(partial_host).any():
        raise SystemExit(f"FAILED: {int(np.isnan(partial_host).sum())} blocks wrote no partial sum")
    if not np.isclose(float(partial_host.astype(np.float64).sum()), expected, rtol=1e-5):
        raise SystemExit(f"FAILED: the partial sums add up to {partial_host.sum()}, expected {expected}")
    if not np.isclose(got, expected, rtol=1e-5):
        raise SystemExit(f"FAILED: sum {got} != {expected} (NumPy, float64)")
    print(f"PASSED: sum of {n} floats = {got:.6g} (NumPy: {expected:.6g}), {blocks} blocks, one BlockIndex write each")


if __name__ == "__main__":
    main()
