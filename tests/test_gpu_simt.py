"""The SIMT breadth features on the GPU, against NumPy / Python on fresh random inputs: shared and local
memory, barriers, warp collectives, atomics, block-index and raw writes, owned views, 3-D indices,
f16/bf16 conversions, math, fast math, device functions and specialization — and the trouble spots
of issue 4 (early exits before barriers, 64-bit shuffles, shuffles at the segment edge, bools in
memory, 64 KiB of dynamic shared memory, grid y/z limits, f32/f64 atomic adds).

GPU only for now (`pytest -m gpu`): the CPU simulator learns these gpu-level ops next; then these
tests can take kernel_runner's `backend` fixture like tests/test_gpu_semantics.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt

from kernel_runner import poisoned, run_gpu

pytestmark = pytest.mark.gpu
rng = np.random.default_rng(1680)


def launch(kernel, grid, block, *args, shmem: int = 0):
    """Like `run_gpu`, with dynamic shared memory."""
    dev = wf.Device(0)
    stream = dev.create_stream()
    dev_args = [wf.DeviceBuffer.from_host(stream, a) if isinstance(a, np.ndarray) else a for a in args]
    prepared = kernel.prepare(wf.LaunchConfig(grid=grid, block=block, shmem_size=shmem), device=dev)
    kernel.launch(stream, prepared, *dev_args)
    return [d.to_host(stream) for d in dev_args if isinstance(d, wf.DeviceBuffer)]


# --------------------------------------------------------------------------- trouble spots: barriers


@simt.kernel
def early_return_never_taken(x: simt.Slice[wf.f32], flag: wf.i32, out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    tile = simt.shared_array(256, wf.f32)
    t = simt.thread_idx.x
    tile[t] = x[idx.get()]
    if flag == 12345:  # never true here; a thread leaving would deadlock the barrier below
        return
    simt.sync_threads()
    out[idx] = tile[255 - t]


def test_early_return_in_a_never_taken_branch_before_a_barrier() -> None:
    n = 256 * 64
    x = rng.standard_normal(n, dtype=np.float32)
    (out,) = run_gpu(early_return_never_taken, n // 256, 256, x, 7, poisoned(n, np.float32))[1:]
    np.testing.assert_array_equal(out, x.reshape(-1, 256)[:, ::-1].ravel())


@simt.kernel
def barrier_in_loop_with_continue(x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    t = simt.thread_idx.x
    buf = simt.shared_array(128, wf.i32)
    acc = wf.i32(0)
    for step in range(8):
        buf[t] = x[idx.get()] + wf.i32(step)
        simt.sync_threads()
        v = buf[(t + 1) % 128]
        simt.sync_threads()
        if step % 3 == 1:  # uniform: every thread skips the same steps, after both barriers
            continue
        acc += v
    out[idx] = acc


def test_barrier_in_a_loop_with_continue() -> None:
    n = 128 * 32
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    (out,) = run_gpu(barrier_in_loop_with_continue, n // 128, 128, x, poisoned(n, np.int32))[1:]
    neighbour = np.roll(x.reshape(-1, 128), -1, axis=1).ravel().astype(np.int64)
    steps = [s for s in range(8) if s % 3 != 1]
    np.testing.assert_array_equal(out, (len(steps) * neighbour + sum(steps)).astype(np.int32))


@simt.kernel
def checked_error_before_barrier(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    tile = simt.shared_array(64, wf.f32)
    t = simt.thread_idx.x
    tile[t] = x[idx.get() + 1]  # the last thread reads out of range: a checked error, it goes on with 0
    simt.sync_threads()
    out[idx] = tile[63 - t]


def test_checked_error_does_not_leave_the_kernel_before_a_barrier() -> None:
    x = rng.standard_normal(64, dtype=np.float32)
    with pytest.raises(wf.KernelError, match="read out of range"):
        run_gpu(checked_error_before_barrier, 1, 64, x, poisoned(64, np.float32))


@simt.kernel
def barrier_reductions(x: simt.Slice[wf.i32], count: simt.DisjointSlice[wf.i32], every: simt.DisjointSlice[wf.bool_], some: simt.DisjointSlice[wf.bool_]):
    idx = simt.index_1d()
    v = x[idx.get()]
    count[idx] = simt.sync_threads_count(v > 0)
    every[idx] = simt.sync_threads_and(v > -50)
    some[idx] = simt.sync_threads_or(v > 95)


def test_sync_threads_count_and_or() -> None:
    n, block = 256 * 16, 256
    x = rng.integers(-100, 100, n, dtype=np.int32)
    count, every, some = run_gpu(barrier_reductions, n // block, block, x, poisoned(n, np.int32), np.zeros(n, bool), np.zeros(n, bool))[1:]
    blocks = x.reshape(-1, block)
    np.testing.assert_array_equal(count, np.repeat((blocks > 0).sum(1), block))
    np.testing.assert_array_equal(every, np.repeat((blocks > -50).all(1), block))
    np.testing.assert_array_equal(some, np.repeat((blocks > 95).any(1), block))


# --------------------------------------------------------------------------- trouble spots: shuffles


@simt.kernel
def shuffles64(a: simt.Slice[wf.i64], d: simt.Slice[wf.f64], out_i: simt.DisjointSlice[wf.i64], out_d: simt.DisjointSlice[wf.f64], out_x: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    out_i[idx] = simt.shfl_down(a[i], 3)
    out_d[idx] = simt.shfl_idx(d[i], 5, 16)
    out_x[idx] = simt.shfl_xor(d[i], 9)


def _lanes(n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n)
    return i, i % 32


def test_64_bit_shuffles_move_both_halves() -> None:
    n = 1024
    a = rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    d = rng.standard_normal(n) * 1e300
    out_i, out_d, out_x = run_gpu(shuffles64, 4, 256, a, d, poisoned(n, np.int64), poisoned(n, np.float64), poisoned(n, np.float64))[2:]
    i, lane = _lanes(n)
    down = np.where(lane + 3 < 32, i + 3, i)  # past the warp's end: the lane keeps its own value
    np.testing.assert_array_equal(out_i, a[down])
    np.testing.assert_array_equal(out_d, d[(i // 16) * 16 + 5])
    np.testing.assert_array_equal(out_x, d[(i // 32) * 32 + (lane ^ 9)])


@simt.kernel
def shuffle_edges(x: simt.Slice[wf.f32], up: simt.DisjointSlice[wf.f32], down: simt.DisjointSlice[wf.f32], up8: simt.DisjointSlice[wf.f32], down8: simt.DisjointSlice[wf.f32], h: simt.DisjointSlice[wf.f16]):
    idx = simt.index_1d()
    v = x[idx.get()]
    up[idx] = simt.shfl_up(v, 5)
    down[idx] = simt.shfl_down(v, 7)
    up8[idx] = simt.shfl_up(v, 3, width=8)
    down8[idx] = simt.shfl_down(v, 2, width=8)
    h[idx] = simt.shfl_down(wf.f16(v), 1, 4)


def test_shuffle_up_and_down_at_the_segment_edge_keep_the_own_value() -> None:
    n = 512
    x = rng.standard_normal(n, dtype=np.float32)
    up, down, up8, down8, h = run_gpu(
        shuffle_edges, 2, 256, x, poisoned(n, np.float32), poisoned(n, np.float32), poisoned(n, np.float32), poisoned(n, np.float32), poisoned(n, np.float16)
    )[1:]
    i, lane = _lanes(n)
    np.testing.assert_array_equal(up, x[np.where(lane >= 5, i - 5, i)])
    np.testing.assert_array_equal(down, x[np.where(lane + 7 < 32, i + 7, i)])
    np.testing.assert_array_equal(up8, x[np.where(i % 8 >= 3, i - 3, i)])
    np.testing.assert_array_equal(down8, x[np.where(i % 8 + 2 < 8, i + 2, i)])
    np.testing.assert_array_equal(h, x.astype(np.float16)[np.where(i % 4 + 1 < 4, i + 1, i)])


@simt.kernel
def warp_ops(x: simt.Slice[wf.i32], f: simt.Slice[wf.f32], s: simt.DisjointSlice[wf.i32], mn: simt.DisjointSlice[wf.i32],
             mx: simt.DisjointSlice[wf.f32], fs: simt.DisjointSlice[wf.f32], anyv: simt.DisjointSlice[wf.bool_],
             allv: simt.DisjointSlice[wf.bool_], ballot: simt.DisjointSlice[wf.u32], match: simt.DisjointSlice[wf.u32],
             lane: simt.DisjointSlice[wf.i64], u: simt.DisjointSlice[wf.u64], orr: simt.DisjointSlice[wf.i32]):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    v = x[i]
    s[idx] = simt.warp_sum(v)  # redux.sync on sm_80+
    mn[idx] = simt.warp_min(v)
    mx[idx] = simt.warp_max(f[i])  # floats: a shuffle butterfly, NaN propagates
    fs[idx] = simt.warp_sum(f[i])
    anyv[idx] = simt.vote_any(v > 90)
    allv[idx] = simt.vote_all(v > -100)
    ballot[idx] = simt.ballot(v > 0)
    match[idx] = simt.match_any(v % 4)
    lane[idx] = simt.lane_id()
    u[idx] = simt.warp_max(wf.u64(v) + wf.u64(2**63))  # unsigned 64-bit: shuffles, compared unsigned
    orr[idx] = simt.warp_or(v & 0xFF)


def test_warp_reductions_votes_ballot_match() -> None:
    n = 1024
    x = rng.integers(-100, 100, n, dtype=np.int32)
    f = rng.standard_normal(n, dtype=np.float32)
    f[37] = np.nan
    outs = run_gpu(
        warp_ops, 4, 256, x, f, poisoned(n, np.int32), poisoned(n, np.int32), poisoned(n, np.float32), poisoned(n, np.float32),
        np.zeros(n, bool), np.zeros(n, bool), poisoned(n, np.uint32), poisoned(n, np.uint32), poisoned(n, np.int64),
        poisoned(n, np.uint64), poisoned(n, np.int32),
    )[2:]  # fmt: skip
    s, mn, mx, fs, anyv, allv, ballot, match, lane, u, orr = outs
    w = x.reshape(-1, 32)
    fw = f.reshape(-1, 32)
    rep = lambda a: np.repeat(a, 32)  # noqa: E731
    np.testing.assert_array_equal(s, rep(w.sum(1)))
    np.testing.assert_array_equal(mn, rep(w.min(1)))
    np.testing.assert_array_equal(mx, rep(np.maximum.reduce(fw, axis=1)))
    np.testing.assert_allclose(fs, rep(fw.astype(np.float64).sum(1)), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(anyv, rep((w > 90).any(1)))
    np.testing.assert_array_equal(allv, rep((w > -100).all(1)))
    bits = (w > 0).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    np.testing.assert_array_equal(ballot, rep(bits.sum(1).astype(np.uint32)))
    key = np.mod(x, 4).reshape(-1, 32)  # Python's %: the kernel's too
    expected_match = [sum(1 << j for j in range(32) if key[g, j] == key[g, l]) for g in range(len(key)) for l in range(32)]
    np.testing.assert_array_equal(match, np.array(expected_match, dtype=np.uint32))
    np.testing.assert_array_equal(lane, np.arange(n) % 32)
    uw = (x.astype(np.int64).astype(np.uint64) + np.uint64(2**63)).reshape(-1, 32)
    np.testing.assert_array_equal(u, rep(uw.max(1)))
    np.testing.assert_array_equal(orr, rep(np.bitwise_or.reduce(w & 0xFF, axis=1)))


@simt.kernel
def needs_full_warps(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = simt.warp_sum(x[idx.get()])


def test_warp_collectives_need_whole_warps() -> None:
    with pytest.raises(wf.LaunchError, match="multiple of 32"):
        needs_full_warps.prepare(wf.LaunchConfig(grid=1, block=48), device=wf.Device(0))


# --------------------------------------------------------------------------- trouble spots: memory


@simt.kernel
def bools_from_memory(flags: simt.Slice[wf.bool_], x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32], neg: simt.DisjointSlice[wf.bool_]):
    idx = simt.index_1d()
    i = idx.get()
    f = flags[i]
    out[idx] = x[i] if f else -x[i]
    neg[idx] = not f


def test_a_bool_loaded_from_memory() -> None:
    n = 1024
    flags = rng.random(n) < 0.5
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    out, neg = run_gpu(bools_from_memory, 4, 256, flags, x, poisoned(n, np.int32), np.zeros(n, bool))[2:]
    np.testing.assert_array_equal(out, np.where(flags, x, -x))
    np.testing.assert_array_equal(neg, ~flags)


@simt.kernel
def dynamic_shared_reverse(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], size: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    buf = simt.dynamic_shared(wf.f32)  # 64 KiB: 16384 floats, 64 per thread
    t = simt.thread_idx.x
    per = len(buf) // 256
    for j in range(per):
        buf[t * per + j] = x[idx.get() * per + j] if idx.get() * per + j < len(x) else wf.f32(0)
    simt.sync_threads()
    acc = wf.f32(0)
    for j in range(per):
        acc += buf[len(buf) - 1 - (t * per + j)]  # another thread's values, from the far end
    out[idx] = acc
    size[idx] = len(buf)


def test_64_kib_of_dynamic_shared_memory() -> None:
    block, shmem = 256, 64 * 1024
    per = shmem // 4 // block
    n = 4 * block * per
    x = rng.standard_normal(n, dtype=np.float32)
    out, size = launch(dynamic_shared_reverse, 4, block, x, poisoned(4 * block, np.float32), poisoned(4 * block, np.int64), shmem=shmem)[1:]
    assert (size == shmem // 4).all()
    rev = x.reshape(4, block * per)[:, ::-1].reshape(4, block, per).sum(2, dtype=np.float64).ravel()
    np.testing.assert_allclose(out, rev, rtol=1e-5, atol=1e-4)


def test_dynamic_shared_memory_beyond_the_device_limit_is_refused() -> None:
    with pytest.raises(wf.LaunchError, match="shared memory"):
        dynamic_shared_reverse.prepare(wf.LaunchConfig(grid=1, block=256, shmem_size=300 * 1024), device=wf.Device(0))


@simt.kernel
def grid_yz(out: simt.DisjointSlice[wf.i64]):
    idx = simt.index_3d(1, 1)
    out[idx] = idx.z


def test_a_grid_with_y_or_z_above_65535_is_refused_clearly() -> None:
    for grid in ((1, 70000, 1), (1, 1, 65536)):
        with pytest.raises(wf.LaunchError, match="exceeds the device limit 65535"):
            grid_yz.prepare(wf.LaunchConfig(grid=grid, block=(32, 1, 1)), device=wf.Device(0))


@simt.kernel
def shared_2d_and_local(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], k: wf.i64):
    idx = simt.index_1d()
    t = simt.thread_idx.x
    tile = simt.shared_array((8, 33), wf.f32)
    tile[t // 32, t % 32] = x[idx.get()]
    simt.sync_threads()
    scratch = simt.local_array(16, wf.f32)  # indexed at run time: lives in local memory
    for j in range(16):
        scratch[(j * k) % 16] = tile[(t // 32 + j) % 8, t % 32] * wf.f32(j)
    acc = wf.f32(0)
    for j in range(16):
        acc += scratch[j]
    out[idx] = acc


def test_shared_2d_array_and_a_dynamically_indexed_local_array() -> None:
    n = 256 * 8
    x = rng.standard_normal(n, dtype=np.float32)
    (out,) = run_gpu(shared_2d_and_local, 8, 256, x, poisoned(n, np.float32), 3)[1:]
    blocks = x.reshape(-1, 8, 32)
    expected = np.zeros((n // 256, 8, 32), np.float64)
    for j in range(16):  # k = 3 is coprime with 16: every slot written once
        expected += np.roll(blocks, -j, axis=1) * j
    np.testing.assert_allclose(out, expected.ravel(), rtol=1e-5, atol=1e-4)


# --------------------------------------------------------------------------- trouble spots: atomics


@simt.kernel
def atomic_float_adds(x: simt.Slice[wf.f32], y: simt.Slice[wf.f64], s32: simt.AtomicSlice[wf.f32], s64: simt.AtomicSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    if i < len(x):
        simt.atomic_add(s32, i % 7, x[i])
        simt.atomic_add(s64, i % 5, y[i], scope="system")


def test_f32_and_f64_atomic_add() -> None:
    n = 100_000
    x = rng.integers(-8, 8, n).astype(np.float32)  # small integers: the sums are exact in any order
    y = rng.integers(-8, 8, n).astype(np.float64) * 0.5
    s32, s64 = run_gpu(atomic_float_adds, (n + 255) // 256, 256, x, y, np.zeros(7, np.float32), np.zeros(5, np.float64))[2:]
    i = np.arange(n)
    np.testing.assert_array_equal(s32, np.bincount(i % 7, weights=x, minlength=7).astype(np.float32))
    np.testing.assert_array_equal(s64, np.bincount(i % 5, weights=y, minlength=5))


@simt.kernel
def atomic_ops(x: simt.Slice[wf.i32], f: simt.Slice[wf.f32], a: simt.AtomicSlice[wf.i32], u: simt.AtomicSlice[wf.u64],
               fm: simt.AtomicSlice[wf.f32], old: simt.DisjointSlice[wf.i32]):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    v = x[i]
    simt.atomic_sub(a, 0, v)
    simt.atomic_min(a, 1, v)
    simt.atomic_max(a, 2, v, order="acq_rel")
    simt.atomic_and(a, 3, v | 0x100)
    simt.atomic_or(a, 4, v & 0xF0)
    simt.atomic_xor(a, 5, v)
    simt.atomic_add(u, 0, wf.u64(1) << wf.u64(40))
    simt.atomic_max(u, 1, wf.u64(v) * wf.u64(3))  # unsigned: negatives are huge
    simt.atomic_max(fm, 0, f[i])
    simt.atomic_min(fm, 1, f[i])
    old[idx] = simt.atomic_exch(a, 6, v)


def test_integer_and_float_atomics_return_old_values() -> None:
    n = 4096
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    f = rng.standard_normal(n, dtype=np.float32)
    a0 = np.array([0, 2**30, -(2**30), -1, 0, 0, 12345], dtype=np.int32)
    a, u, fm, old = run_gpu(atomic_ops, n // 256, 256, x, f, a0.copy(), np.zeros(2, np.uint64), np.array([-np.inf, np.inf], np.float32), poisoned(n, np.int32))[2:]
    assert a[0] == np.int32(-x.astype(np.int64).sum())
    assert a[1] == x.min() and a[2] == x.max()
    assert a[3] == np.bitwise_and.reduce(x | 0x100) & -1
    assert a[4] == np.bitwise_or.reduce(x & 0xF0)
    assert a[5] == np.bitwise_xor.reduce(x)
    assert u[0] == n << 40
    assert u[1] == (x.astype(np.int64).astype(np.uint64) * np.uint64(3)).max()
    assert fm[0] == f.max() and fm[1] == f.min()
    # exchange: every old value is one thread's value or the initial one, each exactly once
    assert sorted(np.append(old, a[6]).tolist()) == sorted(np.append(x, 12345).tolist())


@simt.kernel
def float_max_with_nan(f: simt.Slice[wf.f32], m: simt.AtomicSlice[wf.f32]):
    idx = simt.index_1d()
    simt.atomic_max(m, 0, f[idx.get()])


def test_float_atomic_max_propagates_nan() -> None:
    f = rng.standard_normal(256, dtype=np.float32)
    f[100] = np.nan
    (m,) = run_gpu(float_max_with_nan, 1, 256, f, np.zeros(1, np.float32))[1:]
    assert np.isnan(m[0])


@simt.kernel
def cas_counter(claims: simt.AtomicSlice[wf.i64], owner: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    slot = idx.get() % 64
    got = simt.atomic_cas(claims, slot, -1, idx.get())  # the first thread to get here claims the slot
    owner[idx] = got


def test_compare_and_swap_claims_each_slot_once() -> None:
    n = 4096
    claims, owner = run_gpu(cas_counter, n // 256, 256, np.full(64, -1, np.int64), poisoned(n, np.int64))
    for slot in range(64):
        winners = [t for t in range(slot, n, 64) if owner[t] == -1]
        assert winners == [claims[slot]]
        assert all(owner[t] == claims[slot] for t in range(slot, n, 64) if t != claims[slot])


@simt.kernel
def shared_atomic_histogram(x: simt.Slice[wf.u8], out: simt.DisjointSlice[wf.u32]):
    idx = simt.index_1d()
    t = simt.thread_idx.x
    h = simt.shared_array(256, wf.u32)
    h[t] = 0
    simt.sync_threads()
    simt.atomic_add(h, x[idx.get()], 1)
    simt.sync_threads()
    out[idx] = h[t]


def test_shared_memory_atomics() -> None:
    n = 256 * 8
    x = rng.integers(0, 20, n, dtype=np.uint8)
    (out,) = run_gpu(shared_atomic_histogram, 8, 256, x, poisoned(n, np.uint32))[1:]
    expected = np.concatenate([np.bincount(b, minlength=256) for b in x.reshape(-1, 256)]).astype(np.uint32)
    np.testing.assert_array_equal(out, expected)


@simt.kernel
def pair_adds(h: simt.AtomicSlice[wf.f16], b: simt.AtomicSlice[wf.bf16], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    o0, o1 = simt.atomic_add_pair(h, 2 * (idx.get() % 4), 1.0, 0.5)
    simt.atomic_add_pair(b, 0, 2.0, 0.25)
    out[idx] = float(o0) + float(o1)


def test_f16x2_and_bf16x2_atomic_add() -> None:
    n = 256
    import ml_dtypes

    h, b, out = run_gpu(pair_adds, 1, n, np.zeros(8, np.float16), np.zeros(2, ml_dtypes.bfloat16), poisoned(n, np.float32))
    np.testing.assert_array_equal(h, np.tile(np.array([64.0, 32.0], np.float16), 4))
    np.testing.assert_array_equal(b.astype(np.float32), [512.0, 64.0])
    assert np.isfinite(out).all()


@simt.kernel
def atomic_out_of_range(a: simt.AtomicSlice[wf.i32]):
    idx = simt.index_1d()
    simt.atomic_add(a, idx.get() + 1, 1)


def test_out_of_range_atomic_is_a_kernel_error_and_updates_nothing() -> None:
    dev = wf.Device(0)
    stream = dev.create_stream()
    a = wf.DeviceBuffer.from_host(stream, np.zeros(32, np.int32))
    atomic_out_of_range.launch(stream, atomic_out_of_range.prepare(wf.LaunchConfig(grid=1, block=32), device=dev), a)
    with pytest.raises(wf.KernelError, match="out-of-range atomic"):
        stream.sync()
    got = a.to_host(stream)
    np.testing.assert_array_equal(got, np.r_[0, np.ones(31, np.int32)])


# --------------------------------------------------------------------------- block index, raw slices, views


@simt.kernel
def per_block_max(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], first: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    m = simt.warp_max(x[idx.get()])
    w = simt.shared_array(4, wf.f32)
    if simt.lane_id() == 0:
        w[simt.thread_idx.x // 32] = m
    simt.sync_threads()
    b = simt.block_index_1d()
    out[b] = max(max(w[0], w[1]), max(w[2], w[3]))
    first[b] = simt.thread_idx.x + 1000 * b.get()  # made by thread 0 only


def test_block_index_write_is_made_by_the_first_thread_only() -> None:
    n = 128 * 40
    x = rng.standard_normal(n, dtype=np.float32)
    out, first = run_gpu(per_block_max, 40, 128, x, poisoned(40, np.float32), poisoned(40, np.int64))[1:]
    np.testing.assert_array_equal(out, x.reshape(40, 128).max(1))
    np.testing.assert_array_equal(first, 1000 * np.arange(40))


@simt.kernel
def scatter_raw(x: simt.Slice[wf.f32], perm: simt.Slice[wf.i64], out: simt.unsafe.RawSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    out[perm[i]] = x[i] * 2.0


def test_raw_slice_scatter_and_out_of_range_write() -> None:
    n = 2048
    x = rng.standard_normal(n, dtype=np.float32)
    perm = rng.permutation(n).astype(np.int64)
    (out,) = run_gpu(scatter_raw, n // 256, 256, x, perm, poisoned(n, np.float32))[2:]
    expected = np.empty(n, np.float32)
    expected[perm] = x * 2
    np.testing.assert_array_equal(out, expected)
    perm[7] = n + 3
    with pytest.raises(wf.KernelError, match="out-of-range write"):
        run_gpu(scatter_raw, n // 256, 256, x, perm, poisoned(n, np.float32))


@simt.kernel
def owned_views(x: simt.Slice[wf.f32], rows: simt.DisjointSlice[wf.f32], cols: simt.DisjointSlice[wf.f32], tiles: simt.DisjointSlice[wf.f32], ncols: wf.i64):
    idx = simt.index_1d()
    r = rows.row(idx, ncols)  # thread i owns row i
    c = cols.column(idx, ncols)  # thread i owns column i
    for j in range(ncols + 2):  # j == ncols, ncols + 1: outside the view, not written
        r[j] = x[j % ncols] + wf.f32(idx.get())
    for j in range(len(cols) // ncols):
        c[j] = wf.f32(j * 100) + wf.f32(idx.get())
    idx2 = simt.index_2d(4)
    t = tiles.tile(idx2, (2, 3), ncols)
    for a in simt.static_range(2):
        for b in simt.static_range(4):  # b == 3: outside the tile
            t[a, b] = wf.f32(idx2.row * 1000 + idx2.col * 10 + a * 3 + b)


def test_row_column_and_tile_views_write_what_the_thread_owns() -> None:
    ncols, nthreads = 12, 12
    x = rng.standard_normal(ncols, dtype=np.float32)
    rows, cols, tiles = run_gpu(owned_views, 1, nthreads, x, poisoned(nthreads * ncols, np.float32), poisoned(5 * ncols, np.float32), poisoned(2 * ncols, np.float32), ncols)[1:]
    np.testing.assert_array_equal(rows.reshape(nthreads, ncols), x[None, :] + np.arange(nthreads, dtype=np.float32)[:, None])
    np.testing.assert_array_equal(cols.reshape(5, ncols), np.arange(5)[:, None] * 100.0 + np.arange(ncols)[None, :])
    # 1-D launch of 12 threads: idx2.row = 0, idx2.col = 0..11; thread col c owns columns 3c..3c+2 of rows 0..1
    t = tiles.reshape(2, ncols)
    for c in range(4):
        for a in range(2):
            for b in range(3):
                assert t[a, 3 * c + b] == c * 10 + a * 3 + b


@simt.kernel
def index3d(out: simt.DisjointSlice[wf.i64], ny: wf.i64, nx: wf.i64):
    idx = simt.index_3d(ny, nx)
    out[idx] = idx.z * 1_000_000 + idx.y * 1000 + idx.x


def test_3d_grids_blocks_and_index_3d() -> None:
    nz, ny, nx = 5, 37, 45
    (out,) = run_gpu(index3d, ((nx + 7) // 8, (ny + 3) // 4, (nz + 1) // 2), (8, 4, 2), poisoned(nz * ny * nx, np.int64), ny, nx)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    np.testing.assert_array_equal(out, (z * 1_000_000 + y * 1000 + x).ravel())


# --------------------------------------------------------------------------- dtypes and conversions

DTYPES = ("bool_", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64")


def _convert_all(src: str):
    """A kernel converting a Slice of `src` to every dtype (one DisjointSlice each)."""
    s = getattr(wf, src)
    outs = {d: simt.DisjointSlice[getattr(wf, d)] for d in DTYPES}

    def body(x, o_bool_, o_i8, o_i16, o_i32, o_i64, o_u8, o_u16, o_u32, o_u64, o_f16, o_bf16, o_f32, o_f64):
        idx = simt.index_1d()
        v = x[idx.get() % len(x)]  # the grid overhangs x: wrap (the overhang writes nothing)
        o_bool_[idx] = wf.bool_(v)
        o_i8[idx] = wf.i8(v)
        o_i16[idx] = wf.i16(v)
        o_i32[idx] = wf.i32(v)
        o_i64[idx] = wf.i64(v)
        o_u8[idx] = wf.u8(v)
        o_u16[idx] = wf.u16(v)
        o_u32[idx] = wf.u32(v)
        o_u64[idx] = wf.u64(v)
        o_f16[idx] = wf.f16(v)
        o_bf16[idx] = wf.bf16(v)
        o_f32[idx] = wf.f32(v)
        o_f64[idx] = wf.f64(v)

    body.__annotations__ = {"x": simt.Slice[s], **{f"o_{d}": outs[d] for d in DTYPES}}
    body.__qualname__ = body.__name__ = f"convert_{src}"
    return simt.kernel(body)


def _sample(dtype) -> np.ndarray:
    dt = dtype.np
    if dt.kind == "b":
        return rng.random(4096) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edge = np.array([info.min, info.max, 0, 1, info.max - 1, 2**24 + 1, 2**31 + 2**23 + 1, 65504, 65520], dtype=object)
        edge = np.array([int(e) for e in edge if info.min <= int(e) <= info.max], dtype=dt)
        return np.concatenate([edge, rng.integers(info.min, info.max, 4096, dtype=dt, endpoint=True)])
    vals = rng.standard_normal(4096) * rng.choice([1e-3, 1, 100, 3e4, 1e6], 4096)
    special = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 65504.0, 1e-8, np.nan, np.inf, -np.inf, 3.0e38, 1 + 2**-8 + 2**-30])
    return np.concatenate([special, vals]).astype(dt)


def _in_range(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """Which float values convert to integer `target` in range (NumPy is platform-defined outside it)."""
    info = np.iinfo(target)
    xf = x.astype(np.float64)
    return np.isfinite(xf) & (np.trunc(xf) >= info.min) & (np.trunc(xf) <= info.max)


@pytest.mark.parametrize("src", DTYPES)
def test_every_conversion_matches_numpy(src: str) -> None:
    import warnings

    sdt = getattr(wf, src)
    x = _sample(sdt)
    n = len(x)
    kernel = _convert_all(src)
    outs = [poisoned(n, getattr(wf, d).np) for d in DTYPES]
    got = run_gpu(kernel, (n + 255) // 256, 256, x, *outs)[1:]
    for d, g in zip(DTYPES, got):
        ddt = getattr(wf, d).np
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = x.astype(ddt)
        keep = np.ones(n, bool)
        if sdt.is_float and ddt.kind in "iu":
            keep = _in_range(x, ddt)  # out of range: we saturate, NumPy is platform-defined
        if d in ("f16", "bf16", "f32", "f64"):  # compared as float64: NaN equals NaN, bf16 has no NumPy ==
            np.testing.assert_array_equal(g[keep].astype(np.float64), expected[keep].astype(np.float64), err_msg=f"{src} -> {d}")
        else:
            np.testing.assert_array_equal(g[keep], expected[keep], err_msg=f"{src} -> {d}")


@simt.kernel
def f16_bf16_math(h: simt.Slice[wf.f16], b: simt.Slice[wf.bf16], hb: simt.DisjointSlice[wf.bf16], bh: simt.DisjointSlice[wf.f16],
                  hs: simt.DisjointSlice[wf.f16], bs: simt.DisjointSlice[wf.bf16], ib: simt.DisjointSlice[wf.bf16]):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    hb[idx] = wf.bf16(h[i])
    bh[idx] = wf.f16(b[i])
    hs[idx] = h[i] * h[i] + h[i]
    bs[idx] = b[i] * b[i] + b[i]
    ib[idx] = wf.bf16(i * 7919 - 3_000_000)


def test_f16_bf16_and_int_to_bf16() -> None:
    import ml_dtypes

    n = 1024
    h = (rng.standard_normal(n) * 10).astype(np.float16)
    b = (rng.standard_normal(n) * 10).astype(ml_dtypes.bfloat16)
    hb, bh, hs, bs, ib = run_gpu(f16_bf16_math, 4, 256, h, b, poisoned(n, ml_dtypes.bfloat16), poisoned(n, np.float16), poisoned(n, np.float16), poisoned(n, ml_dtypes.bfloat16), poisoned(n, ml_dtypes.bfloat16))[2:]
    np.testing.assert_array_equal(hb.astype(np.float32), h.astype(ml_dtypes.bfloat16).astype(np.float32))
    np.testing.assert_array_equal(bh, b.astype(np.float16))
    np.testing.assert_array_equal(hs, h * h + h)
    np.testing.assert_array_equal(bs.astype(np.float32), (b * b + b).astype(np.float32))
    i = np.arange(n, dtype=np.int64)
    np.testing.assert_array_equal(ib.astype(np.float32), (i * 7919 - 3_000_000).astype(ml_dtypes.bfloat16).astype(np.float32))


# --------------------------------------------------------------------------- math, fast math


UNARY = ("sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
         "sinh", "cosh", "tanh", "erf", "fabs")  # fmt: skip


def _math_kernel(name: str, dtype):
    fn = getattr(math, name)

    def body(x, out):
        idx = simt.index_1d()
        out[idx] = fn(x[idx.get()])

    body.__annotations__ = {"x": simt.Slice[dtype], "out": simt.DisjointSlice[dtype]}
    body.__qualname__ = body.__name__ = f"math_{name}_{dtype.name}"
    return simt.kernel(body)


def _domain(name: str, n: int) -> np.ndarray:
    if name in ("asin", "acos", "erf", "tanh"):
        return rng.uniform(-1, 1, n)
    if name in ("log", "log2", "log10", "sqrt"):
        return rng.uniform(1e-3, 100, n)
    if name == "log1p":
        return rng.uniform(-0.9, 100, n)
    if name in ("exp", "exp2", "expm1", "sinh", "cosh"):
        return rng.uniform(-20, 20, n)
    return rng.uniform(-10, 10, n)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_math_functions_match_python(name: str, dtype: str) -> None:
    dt = getattr(wf, dtype)
    n = 1024
    x = _domain(name, n).astype(dt.np)
    (out,) = run_gpu(_math_kernel(name, dt), 4, 256, x, poisoned(n, dt.np))[1:]
    expected = np.array([getattr(math, name)(float(v)) for v in x])
    rtol = 2e-6 if dtype == "f32" else 1e-14
    np.testing.assert_allclose(out, expected.astype(dt.np), rtol=rtol, atol=rtol * 10)


@simt.kernel
def binary_math(x: simt.Slice[wf.f64], y: simt.Slice[wf.f64], out: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    a, b = x[i], y[i]
    k = i % 8
    r = 0.0
    if k == 0:
        r = math.atan2(a, b)
    elif k == 1:
        r = math.pow(abs(a), b)
    elif k == 2:
        r = math.copysign(a, b)
    elif k == 3:
        r = math.fmod(a, b)
    elif k == 4:
        r = simt.fma(a, b, a)
    elif k == 5:
        r = simt.rsqrt(abs(a) + 1.0)
    elif k == 6:
        r = float(math.floor(a) + math.ceil(b) + math.trunc(a * b))
    else:
        r = float(math.isnan(a / b) or math.isinf(b / a) or not math.isfinite(a))
    out[idx] = r


def test_binary_and_other_math_matches_python() -> None:
    n = 2048
    x = rng.uniform(-5, 5, n)
    y = rng.uniform(-5, 5, n)
    x[7::8 * 13] = 0.0  # zeros only where k == 7 (pow(0, negative) raises in Python)
    (out,) = run_gpu(binary_math, n // 256, 256, x, y, poisoned(n, np.float64))[2:]
    exp = []
    for i, (a, b) in enumerate(zip(x, y)):
        k = i % 8
        if k == 0:
            exp.append(math.atan2(a, b))
        elif k == 1:
            exp.append(math.pow(abs(a), b))
        elif k == 2:
            exp.append(math.copysign(a, b))
        elif k == 3:
            exp.append(math.fmod(a, b))
        elif k == 4:
            exp.append(a * b + a)
        elif k == 5:
            exp.append(1 / math.sqrt(abs(a) + 1))
        elif k == 6:
            exp.append(float(math.floor(a) + math.ceil(b) + math.trunc(a * b)))
        else:
            with np.errstate(all="ignore"):
                q1 = np.float64(a) / np.float64(b)
                q2 = np.float64(b) / np.float64(a)
            exp.append(float(bool(np.isnan(q1) or np.isinf(q2) or not np.isfinite(a))))
    np.testing.assert_allclose(out, np.array(exp), rtol=1e-13, atol=1e-13)


@simt.kernel(fastmath=True)
def fast_exp_div(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    out[idx] = math.exp(v) / (1.0 + v * v) + math.sin(v)


def test_fastmath_is_close_and_keeps_nan() -> None:
    n = 1024
    x = rng.uniform(-4, 4, n).astype(np.float32)
    x[5] = np.nan
    (out,) = run_gpu(fast_exp_div, 4, 256, x, poisoned(n, np.float32))[1:]
    expected = np.exp(x) / (np.float32(1) + x * x) + np.sin(x)
    assert np.isnan(out[5])
    np.testing.assert_allclose(np.delete(out, 5), np.delete(expected, 5), rtol=1e-4, atol=1e-5)


# --------------------------------------------------------------------------- device functions, specialization


@simt.device
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@simt.device
def smooth(x: simt.Slice[wf.f32], i) -> wf.f32:
    left = x[i - 1] if i > 0 else x[i]
    right = x[i + 1] if i + 1 < len(x) else x[i]
    return clamp((left + x[i] + right) / 3.0, -1.0, 1.0)


@simt.kernel
def use_device_functions(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], k: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = smooth(x, i)
    k[idx] = clamp(i, 10, 20)


def test_device_functions() -> None:
    n = 512
    x = rng.standard_normal(n, dtype=np.float32)
    out, k = run_gpu(use_device_functions, 2, 256, x, poisoned(n, np.float32), poisoned(n, np.int64))[1:]
    padded = np.concatenate([x[:1], x, x[-1:]])
    mean = (padded[:-2] + padded[1:-1] + padded[2:]) / np.float32(3)
    np.testing.assert_allclose(out, np.clip(mean, -1, 1), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(k, np.clip(np.arange(n), 10, 20))


@simt.kernel
def axpy_generic(alpha, x, y, out, reps: wf.Constant[int]):
    idx = simt.index_1d()
    i = idx.get()
    acc = y[i]
    for _ in simt.static_range(reps):
        acc = alpha * x[i] + acc
    out[idx] = acc


def test_generic_kernel_specializes_per_dtype_and_constant() -> None:
    n = 512
    for dt, alpha in ((np.float32, np.float32(1.5)), (np.float64, 2.25), (np.int32, np.int32(3))):
        x = (rng.standard_normal(n) * 10).astype(dt)
        y = (rng.standard_normal(n) * 10).astype(dt)
        for reps in (1, 3):
            out = poisoned(n, dt)
            (got,) = run_gpu(axpy_generic, 2, 256, alpha, x, y, out, reps)[2:]
            expected = y.copy()
            for _ in range(reps):
                expected = (dt(alpha) * x + expected).astype(dt)
            np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert len(axpy_generic._specializations) == 6
