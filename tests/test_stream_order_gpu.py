"""Stream order on a GPU (warpforge.runtime.stream_order): work on one stream sees what a slow kernel
on another stream wrote, with no synchronization written by the user — the issue's scenario (a
slow kernel writes `a` on a user stream `s`, then the shorthand `scale[g, 256](a, c)`, then
`c.to_host(s)`), `to_host` / `copy_from_host` on another stream, tile chains over `wf.tensor(buf)`,
`__cuda_array_interface__` arrays that name a stream, and torch tensors on torch streams.

Every check repeats over several trials with fresh random inputs, poisons its outputs with NaN
first and compares with NumPy exactly. `slow_shift` is what makes a missing wait visible: each
thread spins through a long dependent integer recurrence (tens of milliseconds for the grid) before
it reads its input and writes its output, so work wrongly started on another stream runs while
the slow kernel has not written anything yet (or has not yet read what that work overwrites).
The kernels' PTX goes through ptxas in `test_kernels_assemble` (CPU).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i64, simt, tile
from warpforge.runtime import Device, DeviceBuffer

N = 1 << 22
BLOCK = 256
SPINS = 20_000
TRIALS = 5
LCG_MOD = 1 << 31


def _slow_shift(x: simt.Slice[f32], out: simt.DisjointSlice[f32], spins: i64, seed: i64):
    # out[i] = x[(i + b) % n] + b, b the low bit of `spins` steps of an LCG from `seed`: x is read
    # only after the spinning (the index depends on it), so the kernel reads late and writes late
    idx = simt.index_1d()
    i = idx.get()
    j = seed
    for _ in range(spins):
        j = (j * 1103515245 + 12345) % 2147483648
    b = j % 2
    n = len(x)
    if i < n:
        out[idx] = x[(i + b) % n] + f32(b)


slow_shift = simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)))(_slow_shift)
slow_shift_unchecked = simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)), checks=False)(_slow_shift)
"""slow_shift without the error record, so no pending launch keeps its arguments alive."""


def slow_shift_expected(x: np.ndarray, spins: int, seed: int) -> np.ndarray:
    j = seed
    for _ in range(spins):
        j = (j * 1103515245 + 12345) % LCG_MOD
    b = j % 2
    return (np.roll(x, -b) + np.float32(b)).astype(np.float32)


@simt.kernel(contract=simt.Contract(domain=1, block=(BLOCK, 1, 1)))
def scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(a):
        c[idx] = 2.0 * a[i]


@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


def test_kernels_assemble():
    """CPU: the PTX of every kernel here is accepted by ptxas."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = [k.compile("sm_90").ptx for k in (slow_shift, slow_shift_unchecked, scale)]
    ptx.append(add.ir("ptx", wf.zeros((N,), f32).partition((1024,)), wf.zeros((N,), f32), wf.zeros((N,), f32)))
    if find_ptxas() is None:
        pytest.skip("ptxas not installed")
    for text in ptx:
        run_ptxas(text, "sm_90", verbose=False)


def poisoned(stream) -> DeviceBuffer:
    return DeviceBuffer.from_host(stream, np.full(N, np.nan, np.float32))


@pytest.fixture(scope="module")
def dev():
    d = Device(0)
    # load both kernels (and prepare the shorthand's configs) before any timing-sensitive trial
    s = d.create_stream()
    x, y = DeviceBuffer.from_host(s, np.ones(N, np.float32)), poisoned(s)
    slow_shift[N // BLOCK, BLOCK, s](x, y, 1, 1)
    slow_shift_unchecked[N // BLOCK, BLOCK, s](x, y, 1, 1)
    scale[N // BLOCK, BLOCK](x, y)
    scale[N // BLOCK, BLOCK, s](x, y)
    d.synchronize()
    return d


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.name.encode()))


@pytest.mark.gpu
def test_shorthand_after_a_user_stream(dev, rng):
    """The issue's scenario. Before stream order, `scale[g, 256](a, c)` ran on the device's default
    stream (a separate non-blocking stream) at once, reading `a` while `slow_shift` on `s` had not
    written it (NaN), and `c.to_host(s)` waited for `s` only, not for the default stream: stale or
    NaN output in most trials (the issue saw 4 of 5 trials wrong on an H200)."""
    s = dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        seed = int(rng.integers(1, LCG_MOD))
        x, a, c = DeviceBuffer.from_host(s, x_h), poisoned(s), poisoned(s)
        slow_shift[N // BLOCK, BLOCK, s](x, a, SPINS, seed)
        scale[N // BLOCK, BLOCK](a, c)
        out = c.to_host(s)
        np.testing.assert_array_equal(out, np.float32(2) * slow_shift_expected(x_h, SPINS, seed), err_msg=f"trial {trial}")


@pytest.mark.gpu
def test_copies_on_another_stream(dev, rng):
    """`a.to_host(s2)` after a slow write on `s1` used to copy at once (NaN); `x.copy_from_host(new,
    s2)` while a slow kernel on `s1` has yet to read `x` used to overwrite it first (the kernel then
    read the new values)."""
    s1, s2 = dev.create_stream(), dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        seed = int(rng.integers(1, LCG_MOD))
        x, a = DeviceBuffer.from_host(s1, x_h), poisoned(s1)
        slow_shift[N // BLOCK, BLOCK, s1](x, a, SPINS, seed)
        expected = slow_shift_expected(x_h, SPINS, seed)
        np.testing.assert_array_equal(a.to_host(s2), expected, err_msg=f"to_host, trial {trial}")
        # write after read: the copy must wait for the kernel still to read x
        b = poisoned(s1)
        slow_shift[N // BLOCK, BLOCK, s1](x, b, SPINS, seed)
        x.copy_from_host(rng.standard_normal(N).astype(np.float32), s2)
        np.testing.assert_array_equal(b.to_host(s1), expected, err_msg=f"copy_from_host, trial {trial}")


@pytest.mark.gpu
def test_tile_chain_over_wrapped_buffers(dev, rng):
    """A tile chain on `s2` over `wf.tensor(a)`, `a` written by a slow kernel on `s1`: before, the
    chain neither waited when it wrapped `a` nor when it launched on it, and read NaN."""
    s1, s2 = dev.create_stream(), dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        seed = int(rng.integers(1, LCG_MOD))
        x, a = DeviceBuffer.from_host(s1, x_h), poisoned(s1)
        slow_shift[N // BLOCK, BLOCK, s1](x, a, SPINS, seed)
        ta = wf.tensor(a)
        out = add(wf.empty((N,), f32).partition((1024,)), ta, ta).first().unpartition().to_host().sync_on(s2)
        expected = slow_shift_expected(x_h, SPINS, seed)
        np.testing.assert_array_equal(out, expected + expected, err_msg=f"trial {trial}")
        # a copy alone, on a tensor wrapped before a second slow write
        slow_shift[N // BLOCK, BLOCK, s1](a, x, SPINS, seed)
        np.testing.assert_array_equal(wf.tensor(x).to_host().sync_on(s2), slow_shift_expected(expected, SPINS, seed), err_msg=f"trial {trial}")


@pytest.mark.gpu
def test_a_dropped_buffer_is_freed_after_its_last_use(dev, rng):
    """`x` is made on `s1`, read late by a slow kernel on `s2`, then dropped while that kernel runs,
    and a new buffer of the same size is filled on `s1`. Before, `x` was freed on `s1` (the stream
    that made it), where nothing was pending: the pool could hand its memory straight to the new
    buffer, whose copy then overwrote what the kernel had yet to read. Now it is freed on `s2`, its
    last stream, after the kernel."""
    import gc

    s1, s2 = dev.create_stream(), dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        seed = int(rng.integers(1, LCG_MOD))
        x, out = DeviceBuffer.from_host(s1, x_h), poisoned(s2)
        s1.sync()  # x is complete: only its deallocation is left to order
        slow_shift_unchecked[N // BLOCK, BLOCK, s2](x, out, SPINS, seed)
        del x
        gc.collect()
        other = DeviceBuffer.from_host(s1, rng.standard_normal(N).astype(np.float32))
        np.testing.assert_array_equal(out.to_host(s2), slow_shift_expected(x_h, SPINS, seed), err_msg=f"trial {trial}")
        del other


class CaiArray:
    """A numba/cupy-style device array: only `__cuda_array_interface__` (v3), naming `stream`."""

    def __init__(self, buf: DeviceBuffer, stream):
        self.buf = buf
        self.__cuda_array_interface__ = dict(buf.__cuda_array_interface__, stream=stream.handle)


@pytest.mark.gpu
def test_cuda_array_interface_stream_waits_for_the_launch(dev, rng):
    """Arrays whose `__cuda_array_interface__` names stream `s`: the shorthand on the default stream
    was already ordered after `s` (cuda.core's view does it), but `s` was not ordered after the
    launch, so reading the output on `s` copied it before the slow kernel wrote it (NaN)."""
    s = dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        seed = int(rng.integers(1, LCG_MOD))
        x, c = DeviceBuffer.from_host(s, x_h), poisoned(s)
        slow_shift[N // BLOCK, BLOCK](CaiArray(x, s), CaiArray(c, s), SPINS, seed)
        np.testing.assert_array_equal(c.to_host(s), slow_shift_expected(x_h, SPINS, seed), err_msg=f"trial {trial}")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


@pytest.mark.gpu
@pytest.mark.parametrize("where", ["torch stream", "torch default stream"])
def test_torch_tensors_follow_torch_current_stream(dev, rng, where):
    """torch tensors, torch's current stream a side stream (`with torch.cuda.stream(ts)`) or its
    default stream: the slow kernel runs on warpforge's default stream (the shorthand), then torch
    reads the output on its current stream. The launch was ordered after torch's stream before
    (cuda.core's torch bridge), but torch's stream was not ordered after the launch, so `.cpu()`
    copied the output before the kernel wrote it (NaN)."""
    torch = _torch()
    ts = torch.cuda.Stream() if where == "torch stream" else torch.cuda.default_stream()
    with torch.cuda.stream(ts):
        for trial in range(TRIALS):
            x_h = rng.standard_normal(N).astype(np.float32)
            seed = int(rng.integers(1, LCG_MOD))
            x = torch.from_numpy(x_h).cuda()
            out = torch.full((N,), float("nan"), device="cuda")
            slow_shift[N // BLOCK, BLOCK](x, out, SPINS, seed)
            np.testing.assert_array_equal(out.cpu().numpy(), slow_shift_expected(x_h, SPINS, seed), err_msg=f"trial {trial}")


@pytest.mark.gpu
@pytest.mark.parametrize("chain", ["outside the with block", "inside the with block"])
def test_torch_tensors_in_a_tile_chain(dev, rng, chain):
    """`wf.tensor(t)` of a torch tensor written on a torch side stream `ts` after a long
    `torch.cuda._sleep`, wrapped inside `with torch.cuda.stream(ts)`, used by a chain on a warpforge
    stream. Outside the `with` block torch's current stream is its default stream, so before, the
    chain waited for that one only (cuda.core's torch bridge orders the view after torch's stream
    at the time of the view) and read NaN; now it also waits for the stream that was current when
    the tensor was wrapped. Inside the block this guards the rule (it passed before too)."""
    torch = _torch()
    ts = torch.cuda.Stream()
    s = dev.create_stream()
    for trial in range(TRIALS):
        x_h = rng.standard_normal(N).astype(np.float32)
        with torch.cuda.stream(ts):
            src = torch.from_numpy(x_h).cuda()  # a copy from pageable memory: torch waits for it
            t = torch.full((N,), float("nan"), device="cuda")
            torch.cuda._sleep(50_000_000)  # about 25 ms at 2 GHz, then the device-to-device copy
            t.copy_(src)
            tt = wf.tensor(t)
            if chain == "inside the with block":
                out = add(wf.empty((N,), f32).partition((1024,)), tt, tt).first().unpartition().to_host().sync_on(s)
        if chain == "outside the with block":
            out = add(wf.empty((N,), f32).partition((1024,)), tt, tt).first().unpartition().to_host().sync_on(s)
        np.testing.assert_array_equal(out, x_h + x_h, err_msg=f"trial {trial}")
        ts.synchronize()
