"""`@simt.device` functions called from tile kernels: elementwise on tiles (`tile.map`), with scalars and
constants broadcast, control flow and several returns inside the function, a device function calling
another, per-element conversion by the annotation, one compiled body per element signature shared with
SIMT callers — on the GPU (marked `gpu`) and the simulator, against NumPy on seeded random inputs with
poisoned outputs; misuse is a `CompileError` at the call; the PTX passes ptxas."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import f16, f32, i32, simt, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1207
SQRT_2_OVER_PI = 0.7978845608028654


@simt.device
def gelu(x: f32) -> f32:
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


@simt.device
def leaky(x, slope):
    if x < 0.0:
        return x * slope
    return x


@simt.device
def gelu_then_leaky(x: f32, slope: f32) -> f32:
    return leaky(gelu(x), slope)


@tile.kernel
def activations(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)], slope: f32):
    tx = tile.load_tile_like(x, z)
    ty = tile.load_tile_like(y, z)
    z.store(gelu(tx) + leaky(ty, slope) + gelu_then_leaky(tx * ty, 0.5))


@simt.device
def collatz_steps(n: i32) -> i32:
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@tile.kernel
def steps_2d(z: tile.Tensor[i32, (8, 16)], x: tile.Tensor[i32, (-1, -1)], row: tile.Tensor[i32, (1, -1)]):
    t = tile.load(x, (tile.bid(0), tile.bid(1)), (8, 16))
    r = tile.load(row, (0, tile.bid(1)), (1, 16))  # broadcast along the rows
    z.store(collatz_steps(t) + r)


@tile.kernel
def f16_through_f32(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f16, (-1,)]):
    z.store(gelu(tile.load_tile_like(x, z)))  # each f16 element converts to the f32 parameter


@simt.kernel
def simt_gelu(x: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):
        out[idx] = gelu(x[i])


def _gelu64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x**3)))


def _leaky64(x: np.ndarray, slope: float) -> np.ndarray:
    x = x.astype(np.float64)
    return np.where(x < 0.0, x * slope, x)


def test_device_functions_elementwise_on_tiles(backend: Backend) -> None:
    rng = np.random.default_rng(SEED)
    n = 1000  # not a multiple of the tile: a masked tail
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    slope = np.float32(rng.uniform(0.05, 0.3))
    z = wf.full((n,), np.nan, f32).partition((128,))
    got = activations(z, wf.from_host(x), wf.from_host(y), slope).first().unpartition().to_host().sync_on(backend.device.create_stream())
    xy = x * y  # f32 product, as the kernel computes it
    want = _gelu64(x) + _leaky64(y, float(slope)) + _leaky64(_gelu64(xy).astype(np.float32), 0.5)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_device_function_with_a_loop_on_a_2d_tile_and_a_broadcast_row(backend: Backend) -> None:
    rng = np.random.default_rng(SEED + 1)
    m, n = 20, 40  # tails on both axes
    x = rng.integers(1, 200, (m, n)).astype(np.int32)
    row = rng.integers(-50, 50, (1, n)).astype(np.int32)
    z = wf.full((m, n), -7, i32).partition((8, 16))
    got = steps_2d(z, wf.from_host(x), wf.from_host(row)).first().unpartition().to_host().sync_on(backend.device.create_stream())

    def steps(v: int) -> int:
        s = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return s

    want = np.vectorize(steps)(x) + row
    np.testing.assert_array_equal(got, want)


def test_an_f16_tile_converts_per_element_to_the_annotated_f32(backend: Backend) -> None:
    rng = np.random.default_rng(SEED + 2)
    n = 300
    x = rng.standard_normal(n).astype(np.float16)
    z = wf.full((n,), np.nan, f32).partition((64,))
    got = f16_through_f32(z, wf.from_host(x)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_allclose(got, _gelu64(x.astype(np.float32)), rtol=2e-5, atol=2e-6)


def test_the_simt_kernel_and_the_tile_kernel_call_one_device_function(backend: Backend) -> None:
    rng = np.random.default_rng(SEED + 3)
    n = 777
    x = rng.standard_normal(n).astype(np.float32)
    (_, simt_out) = backend.run(simt_gelu, -(-n // 128), 128, x, np.full(n, np.nan, np.float32))
    z = wf.full((n,), np.nan, f32).partition((128,))
    tile_out = f16_through_f32(z, wf.from_host(x.astype(np.float16))).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_allclose(simt_out, _gelu64(x), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(tile_out, _gelu64(x.astype(np.float16).astype(np.float32)), rtol=2e-5, atol=2e-6)


SPECS = (tile.spec(f32, (1024,), partition=(128,)), tile.spec(f32, (1024,)), tile.spec(f32, (1024,)), tile.spec(f32))


def test_kernel_ir_has_one_device_function_per_signature_and_a_tile_map() -> None:
    ir = activations.ir("kernel", *SPECS)
    assert ir.count("tile.map") == 3
    # gelu(f32) is compiled once, though it is called on a tile directly and through gelu_then_leaky
    assert len(set(re.findall(r"kernel.func @(gelu__\w+)", ir))) == 1
    assert "kernel.call @gelu__" in ir


def test_ptx_passes_ptxas() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = activations.ir("ptx", *SPECS)
    assert "ex2.approx" in ptx  # tanh's body (libdevice, through exp) is in the kernel: inlined, no call
    assert "call" not in ptx and ".func " not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- misuse


@simt.device
def returns_nothing(x: f32):
    y = x + 1.0  # noqa: F841


@tile.kernel
def calls_returns_nothing(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    returns_nothing(tile.load_tile_like(x, z))
    z.store(tile.load_tile_like(x, z))


@simt.device
def takes_slice(s: simt.Slice[f32], v: f32) -> f32:
    return s[0] + v


@tile.kernel
def passes_tile_for_a_slice(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    z.store(takes_slice(t, t))


@tile.kernel
def shapes_do_not_broadcast(z: tile.Tensor[f32, (8, 16)], x: tile.Tensor[f32, (-1, -1)]):
    a = tile.load(x, (0, 0), (8, 16))
    b = tile.load(x, (0, 0), (8, 8))
    z.store(leaky(a, b))


@tile.kernel
def keyword_on_tiles(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(leaky(tile.load_tile_like(x, z), slope=0.5))


SPECS_1D = (tile.spec(f32, (256,), partition=(128,)), tile.spec(f32, (256,)))


@pytest.mark.parametrize(
    ("kernel", "specs", "message"),
    [
        (calls_returns_nothing, SPECS_1D, "returns_nothing() on tiles must return a number for each element"),
        (passes_tile_for_a_slice, SPECS_1D, "takes_slice"),
        (shapes_do_not_broadcast, (tile.spec(f32, (8, 16), partition=(8, 16)), tile.spec(f32, (8, 16))), "do not broadcast together"),
        (keyword_on_tiles, SPECS_1D, "leaky() on tiles takes its arguments by position"),
    ],
)
def test_misuse_is_a_compile_error_at_the_call(kernel, specs, message: str) -> None:
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        kernel.ir("gpu", *specs)
    assert "test_tile_device.py:" in str(info.value)
