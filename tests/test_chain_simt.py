"""SIMT launches as steps of the tile model's lazy chain: `simt_kernel[grid, block](chain tensors...)`
is recorded, not run, and runs in order with the tile launches and copies around it on the stream
given to `sync_on` — on the GPU (marked `gpu`) and the simulator, against NumPy on seeded random
inputs with poisoned outputs; misuse is refused at the call, before anything runs."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i64, simt, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1213


@simt.device
def softsign(x: f32) -> f32:
    return x / (1.0 + abs(x))


@simt.kernel
def scale_softsign(x: simt.Slice[f32], out: simt.DisjointSlice[f32], s: f32):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):
        out[idx] = softsign(x[i]) * s


@simt.kernel
def reverse(x, out):  # generic: specialized per argument dtypes at the call
    idx = simt.index_1d()
    i = idx.get()
    if i < len(out):
        out[idx] = x[len(x) - 1 - i]


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


@tile.kernel
def softsign_tile(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(softsign(tile.load_tile_like(x, z)))  # the same device function, elementwise on a tile


def _softsign(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return x / (1.0 + np.abs(x))


def test_tile_then_simt_then_tile_in_one_chain(backend: Backend) -> None:
    rng = np.random.default_rng(SEED)
    n = 1000
    xs, ys = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    s = np.float32(rng.uniform(0.5, 2.0))
    x, y = wf.from_host(xs), wf.from_host(ys)
    z = add(wf.full((n,), np.nan, f32).partition((128,)), x, y).first().unpartition()  # x + y
    w = wf.full((n,), np.nan, f32)
    w = scale_softsign[-(-n // 128), 128](z, w, s)[1]  # softsign(x + y) * s, reading the tile output
    v = add(wf.full((n,), np.nan, f32).partition((128,)), w, x).first().unpartition()  # ... + x
    got = v.to_host().sync_on(backend.device.create_stream())
    want = _softsign(xs + ys) * float(s) + xs
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_generic_simt_kernel_in_the_chain_and_the_device_function_on_both_sides(backend: Backend) -> None:
    rng = np.random.default_rng(SEED + 1)
    n = 777
    xs = rng.standard_normal(n).astype(np.float32)
    x = wf.from_host(xs)
    r = reverse[-(-n // 64), 64](x, wf.full((n,), np.nan, f32))[1]
    t = softsign_tile(wf.full((n,), np.nan, f32).partition((256,)), r).first().unpartition()
    stream = backend.device.create_stream()
    got_t = t.to_host().sync_on(stream)  # runs the SIMT launch first: the tile launch reads its output
    got_r = r.to_host().sync_on(stream)
    np.testing.assert_array_equal(got_r, xs[::-1])
    np.testing.assert_allclose(got_t, _softsign(xs[::-1]), rtol=1e-6, atol=1e-7)


def test_a_simt_write_waits_for_earlier_readers_of_the_tensor(backend: Backend) -> None:
    """Write-after-read: the tile launch reads `w` before the SIMT launch overwrites it."""
    rng = np.random.default_rng(SEED + 2)
    n = 512
    xs, ws = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    x, w = wf.from_host(xs), wf.from_host(ws)
    before = add(wf.full((n,), np.nan, f32).partition((128,)), w, w).first().unpartition()  # 2 w (old w)
    scale_softsign[n // 128, 128](x, w, np.float32(1.0))  # w = softsign(x)
    stream = backend.device.create_stream()
    after = w.to_host().sync_on(stream)  # the write waits for the tile launch that read the old w
    old = before.to_host().sync_on(stream)
    np.testing.assert_array_equal(old, ws + ws)
    np.testing.assert_allclose(after, _softsign(xs), rtol=1e-6, atol=1e-7)


def test_misuse_is_refused_at_the_call() -> None:
    n = 256
    x = wf.from_host(np.arange(n, dtype=np.float32))
    with pytest.raises(wf.LaunchError, match=r"partitioned tensor; SIMT kernels take whole tensors \(call .unpartition\(\) first\)"):
        scale_softsign[2, 128](x, wf.empty((n,), f32).partition((128,)), np.float32(1.0))
    with pytest.raises(wf.AliasError, match="passed to it more than once"):
        scale_softsign[2, 128](x, x, np.float32(1.0))
    with pytest.raises(wf.UsageError, match=r"leave the stream out of the launch"):
        scale_softsign[2, 128, wf.Device.simulator().create_stream()](x, wf.empty((n,), f32), np.float32(1.0))
    with pytest.raises(wf.LaunchError, match=r"argument 0 holds int64 \(shape \(256,\)\); the parameter 'x' is simt.Slice\[wf.f32\] \(float32\)"):
        scale_softsign[2, 128](wf.from_host(np.arange(n, dtype=np.int64)), wf.empty((n,), f32), np.float32(1.0))
    t = wf.empty((n,), f32)
    t.partition((128,))  # consumes t
    with pytest.raises(wf.MovedValueError):
        scale_softsign[2, 128](x, t, np.float32(1.0))


def test_a_recorded_simt_launch_allocates_nothing_and_compiles_for_the_device_it_runs_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The call picks the specialization from the tensors' dtypes and shapes (no probe arrays: a
    4 TiB tensor is recorded as easily as a small one) and generates no code; the chain compiles the
    kernel for the device of the stream it runs on (here a simulated sm_80), not for sm_90."""
    huge = (2**40,)
    reverse[2, 128](wf.empty(huge, f32), wf.empty(huge, f32))  # generic: specialized from the signature alone
    scale_softsign[2, 128](wf.empty(huge, f32), wf.empty(huge, f32), np.float32(1.0))

    chips: list[str] = []
    real_compile = simt.SimtKernel.compile

    def spy(self: simt.SimtKernel, chip: str = "sm_90", features: str = "") -> object:
        chips.append(chip)
        return real_compile(self, chip, features)

    monkeypatch.setattr(simt.SimtKernel, "compile", spy)
    rng = np.random.default_rng(SEED + 3)
    n = 300
    xs = rng.standard_normal(n).astype(np.float32)
    r = reverse[-(-n // 64), 64](wf.from_host(xs), wf.full((n,), np.nan, f32))[1]
    assert chips == []  # nothing compiled at the call
    a100 = wf.Device.simulator(wf.DeviceLimits.for_testing(name="simulated sm_80", compute_capability=(8, 0)))
    np.testing.assert_array_equal(r.to_host().sync_on(a100.create_stream()), xs[::-1])
    assert chips and set(chips) == {"sm_80"}, chips


@simt.kernel
def _unknown_name(x: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    out[idx] = x[idx.get()] + not_defined  # noqa: F821


def test_a_frontend_compile_error_is_raised_at_the_call() -> None:
    n = 128
    with pytest.raises(wf.CompileError, match="not_defined"):
        _unknown_name[1, 128](wf.from_host(np.arange(n, dtype=np.float32)), wf.empty((n,), f32))
