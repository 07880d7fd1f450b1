"""Collatz step counts, negative starting values included: `while` with `break`, `//` and `%`.

Python's `//` and `%` round toward −∞, C's toward zero: for n = -5, Python says n % 2 == 1 (odd) and
n // 2 == -3, C says -1 and -2. warpforge follows Python in both models, so the GPU agrees with the
pure-Python reference below. Negative starts fall into cycles (-1 → -2 → -1, -5 → -14 → … → -5, …),
so the count stops at `limit` and reports -1.
"""

import numpy as np

import warpforge as wf
from warpforge import i64, simt


@simt.kernel
def collatz_steps(start: simt.Slice[i64], steps: simt.DisjointSlice[i64], limit: i64):
    idx = simt.index_1d()
    n = start[idx.get()]
    count = 0
    while True:
        if n == 1:
            break
        if count == limit:
            count = -1
            break
        if n % 2 == 1:  # Python semantics: true for odd negatives too
            n = 3 * n + 1
        else:
            n = n // 2
        count += 1
    steps[idx] = count


def reference(n: int, limit: int) -> int:
    count = 0
    while n != 1:
        if count == limit:
            return -1
        n = 3 * n + 1 if n % 2 == 1 else n // 2
        count += 1
    return count


def main(size: int = 1 << 16, limit: int = 1000) -> None:
    if wf.simulating():
        size = 1 << 9
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    start_host = rng.integers(-(10**6), 10**6, size=size, dtype=np.int64)
    start_host[start_host == 0] = 7  # 0 never reaches 1 either; keep the inputs meaningful
    start = wf.DeviceBuffer.from_host(stream, start_host)
    steps = wf.DeviceBuffer.from_host(stream, np.full(size, -12345, dtype=np.int64))

    prepared = collatz_steps.prepare(wf.LaunchConfig(grid=(size + 255) // 256, block=256), device=dev)
    collatz_steps.launch(stream, prepared, start, steps, limit)
    got = steps.to_host(stream)

    expected = np.array([reference(int(n), limit) for n in start_host], dtype=np.int64)
    wrong = np.flatnonzero(got != expected)
    if wrong.size:
        k = wrong[0]
        raise SystemExit(f"FAILED: {wrong.size} of {size} wrong (start {start_host[k]}: got {got[k]}, expected {expected[k]})")
    negatives = int((start_host < 0).sum())
    print(f"PASSED: all {size} step counts correct ({negatives} negative starts)")


if __name__ == "__main__":
    main()
