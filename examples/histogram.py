"""A 256-bin histogram of bytes with atomics: per-block counts in shared memory, then one global add per bin.

Every thread counts its bytes into the block's shared histogram with `simt.atomic_add` (a shared
array's atomics default to block scope: `atom.shared.add`), the block synchronizes, and each thread
adds one bin to the global histogram, an `AtomicSlice` (device scope: `atom.global.add`). Contended
shared-memory atomics are cheap; the global ones are 256 per block.

    warpforge run examples/histogram.py
"""

import numpy as np

import warpforge as wf
from warpforge import simt, u8, u32

BINS = 256


@simt.kernel(contract=simt.Contract(domain=1, block=(BINS, 1, 1)))
def histogram(data: simt.Slice[u8], hist: simt.AtomicSlice[u32]):
    idx = simt.index_1d()
    t = simt.thread_idx.x
    counts = simt.shared_array(BINS, u32)
    counts[t] = 0
    simt.sync_threads()
    n = len(data)
    stride = simt.grid_dim.x * BINS
    k = idx.get()
    while k < n:
        simt.atomic_add(counts, data[k], 1)  # block scope (shared memory)
        k += stride
    simt.sync_threads()
    c = counts[t]
    if c > 0:
        simt.atomic_add(hist, t, c)  # device scope


def main() -> None:
    n = 1 << 26
    blocks = 528  # 4 per SM on an H200
    if wf.simulating():
        n, blocks = 1 << 12, 2
    rng = np.random.default_rng()
    # a skewed distribution: many collisions on a few bins, the case atomics are for
    data_host = np.clip(rng.normal(128, 20, n), 0, 255).astype(np.uint8)
    dev = wf.Device(0)
    stream = dev.create_stream()
    data = wf.DeviceBuffer.from_host(stream, data_host)
    hist = wf.DeviceBuffer.zeroed(stream, BINS, u32)
    prepared = histogram.prepare(wf.LaunchConfig(grid=blocks, block=BINS), device=dev)
    histogram.launch(stream, prepared, data, hist)
    got = hist.to_host(stream)
    expected = np.bincount(data_host, minlength=BINS).astype(np.uint32)
    if not np.array_equal(got, expected):
        bad = np.flatnonzero(got != expected)
        raise SystemExit(f"FAILED: {bad.size} bins wrong (bin {bad[0]}: {got[bad[0]]} != {expected[bad[0]]})")
    print(f"PASSED: histogram of {n} bytes, {int(got.sum())} counts in {BINS} bins")


if __name__ == "__main__":
    main()
