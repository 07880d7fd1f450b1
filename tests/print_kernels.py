"""Kernels that `print()`, their inputs and the lines they must print — shared by tests/test_print.py
and the script it runs in a subprocess on the GPU (CUDA's printf writes the process's stdout at the
next synchronization). The expected text is computed from the inputs with Python's printf-style
formatting (`%f`, `%.3f`, `%+.2e`: the C rules warpforge's `print` follows)."""

from __future__ import annotations

import sys
from decimal import ROUND_FLOOR, Decimal
from typing import Any

import ml_dtypes
import numpy as np

import warpforge as wf
from warpforge import bf16, f16, f32, f64, i8, i32, i64, simt, tile, u16, u64  # noqa: F401

N = 48
"""Threads that print in the SIMT kernel (2 blocks of 32, the last 16 threads idle)."""


@simt.kernel
def print_scalars(
    a8: simt.Slice[i8], a16: simt.Slice[u16], a64: simt.Slice[i64], b64: simt.Slice[u64],
    h: simt.Slice[f16], b: simt.Slice[bf16], x: simt.Slice[f32], d: simt.Slice[f64], n: i32,
):  # fmt: skip
    i = simt.index_1d().get()
    if i < n:
        print("row", i, a8[i], a16[i], a64[i], b64[i], h[i], b[i], x[i], d[i], a8[i] < 0, 7, 0.5, sep=",")
        print(f"i={i:>3} x={x[i]:.3f} d={d[i]:+.2e} u={a16[i]:04x} {{ok}} 100% k={a8[i]:<5}|", end="!\n")


@tile.kernel
def print_tiles(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    print("block", tile.bid(0), "sum", t.sum())
    print("t", t)
    z.store(t)


@tile.kernel
def print_2d(z: tile.Tensor[f32, (4, 8)], x: tile.Tensor[f32, (-1, -1)]):
    t = tile.load_tile_like(x, z)
    print(f"{t:.1f}", end=";\n")
    z.store(t)


def tile2d_inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-50, 50, (8, 8)).astype(np.float32)


def tile2d_lines(x: np.ndarray) -> list[str]:
    """Every element of each (4, 8) tile with its index in the tile (two tile blocks), sorted: the
    order within a block is unspecified."""
    return sorted(f"[{r % 4}, {c}] {x[r, c]:.1f};" for r in range(8) for c in range(8))


def run_2d(device: Any, x: np.ndarray) -> np.ndarray:
    stream = device.create_stream()
    z = wf.zeros((8, 8), f32).partition((4, 8))
    return print_2d(z, wf.from_host(x)).first().unpartition().to_host().sync_on(stream)


MANY = 1 << 17
"""Lines the `many` kernel prints: several MiB in CUDA's printf buffer, more than its default 1 MiB."""


@simt.kernel
def print_many(a: simt.Slice[i32]):
    i = simt.index_1d().get()
    if i < len(a):
        print(i, a[i])


def many_inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-(2**31), 2**31 - 1, MANY, dtype=np.int32)


def many_lines(a: np.ndarray) -> list[str]:
    return sorted(f"{i} {int(v)}" for i, v in enumerate(a))


def run_many(device: Any, a: np.ndarray) -> None:
    device.set_printf_buffer_bytes(64 << 20)  # before the first launch that prints
    stream = device.create_stream()
    buf = wf.DeviceBuffer.from_host(stream, a)
    print_many.launch(stream, print_many.prepare(wf.LaunchConfig(grid=MANY // 256, block=256, shmem_size=0), device=device), buf)
    stream.sync()


def _tie(v: float, digits: int) -> bool:
    """Whether `%.{digits}f` of `v` is an exact rounding tie (e.g. f16's 1.0078125 at 6 digits): printf
    implementations agree on those less reliably, so the inputs avoid them."""
    d = Decimal(v).scaleb(digits)
    return d - d.to_integral_value(ROUND_FLOOR) == Decimal("0.5")


def _floats(rng: np.random.Generator, dtype: Any, n: int, digits: tuple[int, ...] = (6, 3)) -> np.ndarray:
    out = []
    while len(out) < n:
        v = np.asarray(rng.normal(0, 60), dtype=dtype)
        if not any(_tie(float(v), p) for p in digits):
            out.append(v)
    return np.array(out, dtype=dtype)


def scalar_inputs(seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [
        rng.integers(-128, 128, N, dtype=np.int8),
        rng.integers(0, 2**16, N, dtype=np.uint16),
        rng.integers(-(2**63), 2**63 - 1, N, dtype=np.int64),
        rng.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True),
        _floats(rng, np.float16, N),
        _floats(rng, ml_dtypes.bfloat16, N),
        _floats(rng, np.float32, N),
        rng.normal(0, 1e3, N),
    ]


def scalar_lines(inputs: list[Any]) -> list[str]:
    """Each thread's two lines (thread order, as the simulator prints them: per print statement,
    threads of a block in order)."""
    a8, a16, a64, b64, h, b, x, d = inputs
    first = [
        ",".join(["row", str(i), str(int(a8[i])), str(int(a16[i])), str(int(a64[i])), str(int(b64[i])), "%f" % float(h[i]),
                  "%f" % float(b[i]), "%f" % float(x[i]), "%f" % float(d[i]), str(bool(a8[i] < 0)), "7", "0.500000"])
        for i in range(N)
    ]  # fmt: skip
    second = [
        "i=%3d x=%.3f d=%+.2e u=%04x {ok} 100%% k=%-5d|!" % (i, float(x[i]), float(d[i]), int(a16[i]), int(a8[i])) for i in range(N)
    ]
    lines: list[str] = []
    for block in range(0, N, 32):
        ids = range(block, min(block + 32, N))
        lines += [first[i] for i in ids] + [second[i] for i in ids]
    return lines


def run_scalars(device: Any, inputs: list[Any]) -> None:
    stream = device.create_stream()
    bufs = [wf.DeviceBuffer.from_host(stream, a) for a in inputs]
    prepared = print_scalars.prepare(wf.LaunchConfig(grid=2, block=32, shmem_size=0), device=device)
    print_scalars.launch(stream, prepared, *bufs, np.int32(N))
    stream.sync()


TILE = 8
BLOCKS = 3


def tile_inputs(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-1000, 1000, TILE * BLOCKS).astype(np.float32)  # integers: every sum is exact


def tile_lines(x: np.ndarray) -> list[str]:
    """Per tile block: the summary line, then the elements in index order (the simulator's order
    for this layout: one element per thread)."""
    lines: list[str] = []
    for blk in range(BLOCKS):
        part = x[blk * TILE : (blk + 1) * TILE]
        lines.append("block %d sum %f" % (blk, float(part.sum())))
        lines += ["t [%d] %f" % (j, float(v)) for j, v in enumerate(part)]
    return lines


def run_tiles(device: Any, x: np.ndarray) -> np.ndarray:
    stream = device.create_stream()
    z = wf.zeros((TILE * BLOCKS,), f32).partition((TILE,))
    return print_tiles(z, wf.from_host(x)).first().unpartition().to_host().sync_on(stream)


if __name__ == "__main__":  # the GPU test's subprocess: python print_kernels.py scalars|tiles|tiles2d|many SEED
    what, seed = sys.argv[1], int(sys.argv[2])
    dev = wf.Device(0)
    if what == "scalars":
        run_scalars(dev, scalar_inputs(seed))
    elif what == "many":
        run_many(dev, many_inputs(seed))
        assert dev.printf_buffer_bytes >= 64 << 20
    elif what == "tiles":
        out = run_tiles(dev, tile_inputs(seed))
        assert np.array_equal(out, tile_inputs(seed)), "the tile kernel's output is wrong"
    else:
        out = run_2d(dev, tile2d_inputs(seed))
        assert np.array_equal(out, tile2d_inputs(seed)), "the tile kernel's output is wrong"
