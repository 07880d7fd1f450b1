"""Prefix sum (inclusive scan) of 2^22 integers: a block scan with warp shuffles, scanned block totals,
and a pass adding each block's offset.

`block_scan`: each warp scans its 32 values with `simt.shfl_up` (5 steps; a lane below the offset
keeps its own value, so it adds nothing), lane 31 leaves the warp's total in shared memory, the first
warp scans those 8 totals the same way, and every thread adds the totals of the warps before it.
The block's total goes to `sums[bidx]` through `simt.block_index_1d()` (the first thread writes it).
The block totals are scanned by the same kernel (recursively, until one block holds them all), and
`add_offsets` adds to each element the scanned total of the blocks before its own.

    warpforge run examples/scan.py
"""

import numpy as np

import warpforge as wf
from warpforge import i32, simt

BLOCK = 256
WARPS = BLOCK // simt.WARP_SIZE


@simt.device
def warp_inclusive_scan(v: i32, lane):
    """Inclusive scan over the warp's lanes (all 32 must call it)."""
    for s in simt.static_range(5):
        d = 1 << s
        other = simt.shfl_up(v, d)
        if lane >= d:
            v += other
    return v


@simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)))
def block_scan(x: simt.Slice[i32], y: simt.DisjointSlice[i32], sums: simt.DisjointSlice[i32]):
    idx = simt.index_1d()
    i = idx.get()
    lane = simt.lane_id()
    warp = simt.thread_idx.x // simt.WARP_SIZE
    v = x[i] if i < len(x) else wf.i32(0)
    v = warp_inclusive_scan(v, lane)
    totals = simt.shared_array(WARPS, i32)
    if lane == simt.WARP_SIZE - 1:
        totals[warp] = v
    simt.sync_threads()
    if warp == 0:
        t = totals[lane] if lane < WARPS else wf.i32(0)
        t = warp_inclusive_scan(t, lane)
        if lane < WARPS:
            totals[lane] = t
    simt.sync_threads()
    if warp > 0:
        v += totals[warp - 1]
    y[idx] = v
    sums[simt.block_index_1d()] = totals[WARPS - 1]  # the block's total, written once


@simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)))
def add_offsets(y: simt.DisjointSlice[i32], scanned_sums: simt.Slice[i32]):
    idx = simt.index_1d()
    b = simt.block_idx.x
    if b > 0:
        y[idx] = y[idx] + scanned_sums[b - 1]


def scan(stream, dev, x, n: int):
    """Inclusive scan of the device buffer `x` (n elements): a new device buffer."""
    blocks = (n + BLOCK - 1) // BLOCK
    y = wf.DeviceBuffer.from_host(stream, np.zeros(n, dtype=np.int32))
    sums = wf.DeviceBuffer.from_host(stream, np.zeros(blocks, dtype=np.int32))
    cfg = wf.LaunchConfig(grid=blocks, block=BLOCK)
    block_scan.launch(stream, block_scan.prepare(cfg, device=dev), x, y, sums)
    if blocks > 1:
        scanned = scan(stream, dev, sums, blocks)
        add_offsets.launch(stream, add_offsets.prepare(cfg, device=dev), y, scanned)
    return y


def main() -> None:
    n = 1 << 22
    if wf.simulating():
        n = 1 << 10
    rng = np.random.default_rng()
    x_host = rng.integers(-100, 100, n, dtype=np.int32)
    dev = wf.Device(0)
    stream = dev.create_stream()
    x = wf.DeviceBuffer.from_host(stream, x_host)
    got = scan(stream, dev, x, n).to_host(stream)
    expected = np.cumsum(x_host, dtype=np.int64).astype(np.int32)
    if not np.array_equal(got, expected):
        bad = np.flatnonzero(got != expected)
        raise SystemExit(f"FAILED: {bad.size} of {n} prefix sums wrong (first at {bad[0]}: {got[bad[0]]} != {expected[bad[0]]})")
    print(f"PASSED: inclusive scan of {n} integers ({(n + BLOCK - 1) // BLOCK} blocks, block totals scanned recursively)")


if __name__ == "__main__":
    main()
