"""Vector addition over 1024 floats: the program that opens NVIDIA's CUDA Rust announcement, in Python.

One thread per element. `DisjointSlice` and the `ThreadIndex` from `simt.index_1d()` make the write
race-free by construction; the contract (`domain=1`, 256-thread blocks) is checked by `prepare()`
before anything runs.

    warpforge run examples/vecadd.py        # prints: PASSED: all 1024 elements correct
"""

import numpy as np

import warpforge as wf
from warpforge import f32, simt


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def vecadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()  # ThreadIndex: this thread's own element
    i = idx.get()  # plain i64, for reading
    c[idx] = a[i] + b[i]  # out of range: not written


def main() -> None:
    n = 1024
    dev = wf.Device(0)
    stream = dev.create_stream()
    a_host = np.arange(n, dtype=np.float32)
    b_host = 2 * np.arange(n, dtype=np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    b = wf.DeviceBuffer.from_host(stream, b_host)
    c = wf.DeviceBuffer.zeroed(stream, n, f32)

    prepared = vecadd.prepare(wf.LaunchConfig(grid=(n + 255) // 256, block=256, shmem_size=0), device=dev)
    vecadd.launch(stream, prepared, a, b, c)
    out = c.to_host(stream)  # copies and synchronizes

    expected = a_host + b_host
    wrong = np.flatnonzero(out != expected)
    if wrong.size:
        raise SystemExit(f"FAILED: {wrong.size} of {n} elements wrong (first at {wrong[0]}: {out[wrong[0]]} != {expected[wrong[0]]})")
    print(f"PASSED: all {n} elements correct")


if __name__ == "__main__":
    main()
