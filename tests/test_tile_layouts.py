"""Layouts as IR: the placement the `#tile.blocked` and `#tile.slice` encodings mean (checked element
by element), the kernels `tile-assign-layouts` gives slice layouts to, run against NumPy on the
simulator (always) and the GPU (marked `gpu`), the generated code they save (no shared-memory round
trip for `x - max(x)` on 2-D tiles), and `tile.convert_layout` by shuffles."""

from __future__ import annotations

import math

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i64, tile
from warpforge.passes.tile_to_gpu.conversions import conversion_scratch, shuffle_plan
from warpforge.passes.tile_to_gpu.layouts import Layout, SliceLayout, canonical_layout, default_threads, layout_of, slice_layout

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(2718)


# --------------------------------------------------------------------------- what the layouts mean


def _held(layout: Layout | SliceLayout) -> np.ndarray:
    """[thread, register] → element, from `element` (the scalar definition)."""
    return np.array([[layout.element(t, k) for k in range(layout.slots)] for t in range(layout.threads)], dtype=np.int64).reshape(layout.threads, layout.slots)


SHAPES = [((32, 128), 256), ((64, 64), 256), ((8, 32), 128), ((16, 16), 128), ((2, 64), 32), ((4, 256), 32), ((1, 8192), 256), ((8, 4, 16), 128), ((256, 4), 128)]


@pytest.mark.parametrize("shape,threads", SHAPES, ids=str)
def test_slice_layout_keeps_each_thread_rows(shape: tuple[int, ...], threads: int) -> None:
    parent = canonical_layout(shape, threads)
    for axis in range(len(shape)):
        for keep in (True, False):
            rshape = tuple(1 if (keep and a == axis) else d for a, d in enumerate(shape) if keep or a != axis)
            s = slice_layout(parent, axis, rshape)
            # the result element of each parent element: its index with the axis dropped
            proj = np.indices(shape)
            result_index = np.ravel_multi_index(tuple(np.delete(proj, axis, axis=0)), tuple(np.delete(np.array(shape), axis))) if len(shape) > 1 else np.zeros(shape, dtype=np.int64)
            held_parent = parent.placement
            rows_of_thread = [sorted(set(result_index.reshape(-1)[held_parent[t]].tolist())) for t in range(threads)]
            held = _held(s)
            assert np.array_equal(held, s.placement)
            for t in range(threads):  # one register per row the thread held, no row twice
                assert len(set(held[t].tolist())) == s.slots
                assert sorted(held[t].tolist()) == rows_of_thread[t], (axis, keep, t)
            # broadcasting back: parent register (r, v) copies the slice register of its row
            for t in range(threads):
                for r in range(parent.reps):
                    for v in range(parent.vec):
                        k = s.index_of(r, v)
                        assert held[t, k] == result_index.reshape(-1)[parent.element(t, r * parent.vec + v)]


def test_encodings_read_back_as_the_layouts_they_print() -> None:
    from xdsl.dialects.builtin import f32 as F32

    from warpforge.dialects.tile import TileType
    from warpforge.dialects.tile_layout import SliceEncodingAttr

    for shape, threads in SHAPES:
        parent = canonical_layout(shape, threads)
        blocked = TileType(shape, F32, parent.encoding())
        assert layout_of(blocked, threads) == parent
        assert layout_of(TileType(shape, F32), threads) == parent  # no encoding: the canonical layout
        rshape = tuple(d for a, d in enumerate(shape) if a != len(shape) - 1)
        enc = SliceEncodingAttr(len(shape) - 1, shape[-1], parent.encoding())
        sl = layout_of(TileType(rshape, F32, enc), threads)
        assert isinstance(sl, SliceLayout) and sl.same_placement(slice_layout(parent, len(shape) - 1, rshape))
        with pytest.raises(ValueError, match="laid out for"):
            layout_of(blocked, threads * 2)


def test_shuffle_plan_moves_every_element_to_the_lane_that_needs_it() -> None:
    # 64 elements over a warp: thread t holds t and t + 32; then pairs of threads hold each element
    src = Layout((64,), 1, 32, 1, 2)
    dst = Layout((64,), 1, 16, 2, 4)
    plan = shuffle_plan(src, dst)
    assert plan == [0, 0, 1, 1] and conversion_scratch(src, dst) == 0
    # the same elements, but each lane would read another register (vec 4 → vec 1): not one shuffle
    assert shuffle_plan(Layout((8, 16), 4, 32, 1, 1), Layout((8, 16), 1, 32, 1, 4)) is None
    regs = src.placement  # [lane, register] → element each lane holds
    for lane in range(32):
        for k, j in enumerate(plan):
            need = dst.element(lane, k)
            owner = (need // src.vec) % src.owners * src.replicas
            assert regs[owner, j] == need
    # across warps: no shuffle plan, shared memory
    wide_src, wide_dst = Layout((256,), 1, 128, 1, 2), Layout((256,), 2, 128, 1, 1)
    assert shuffle_plan(wide_src, wide_dst) is None and conversion_scratch(wide_src, wide_dst) == 256


# --------------------------------------------------------------------------- kernels


def _softmax_kernel(num_warps: int | None):
    @tile.kernel(num_warps=num_warps)
    def softmax_block(out: tile.Tensor[f32, ("R", "C")], x: tile.Tensor[f32, (-1, -1)]):
        t = tile.load_tile_like(x, out, padding=-math.inf)
        e = tile.exp(t - tile.max(t, axis=1, keepdims=True))
        out.store(e * (1.0 / tile.sum(e, axis=1, keepdims=True)))

    return softmax_block


@tile.kernel
def row_stats(norm: tile.Tensor[f32, (16, 64)], stats: tile.Tensor[f32, (16, 1)], x: tile.Tensor[f32, (-1, -1)]):
    t = tile.load_tile_like(x, norm)
    mean = tile.sum(t, axis=1, keepdims=True) * (1.0 / 64)
    spread = tile.max(t, axis=1, keepdims=True) - tile.min(t, axis=1, keepdims=True) + 1.0
    norm.store((t - mean) / spread)  # slices through elementwise ops, broadcast back for free
    stats.store(mean + spread)  # a slice stored: converted to the blocked layout once


@tile.kernel
def online_max(out: tile.Tensor[f32, (32, 64)], x: tile.Tensor[f32, (-1, -1)], steps: i64):
    m = tile.full((32, 1), -math.inf, f32)
    acc = tile.zeros((32, 64), f32)
    for i in range(steps):
        t = tile.load(x, (tile.bid(0), i), (32, 64))
        m_new = tile.maximum(m, tile.max(t, axis=1, keepdims=True))  # a loop-carried slice
        acc = acc * tile.exp(m - m_new) + tile.exp(t - m_new)
        m = m_new
    out.store(acc)


def _softmax_reference(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# --------------------------------------------------------------------------- semantics, on both backends


@pytest.mark.parametrize("rows,cols,num_warps", [(32, 128, None), (64, 64, None), (8, 32, 4), (16, 16, 1), (4, 256, 1), (2, 1024, 2)], ids=str)
def test_block_softmax(backend: Backend, rows: int, cols: int, num_warps: int | None) -> None:
    kernel = _softmax_kernel(num_warps)
    n_rows, n_cols = 3 * rows, cols - 3  # ragged columns: padding -inf, exp gives 0
    x = (3 * rng.standard_normal((n_rows, n_cols))).astype(np.float32)
    out = wf.full((n_rows, n_cols), np.nan, f32).partition((rows, cols))
    got = kernel(out, wf.from_host(x)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_allclose(got, _softmax_reference(x), rtol=2e-5, atol=1e-8)


def test_row_stats_through_elementwise_slices(backend: Backend) -> None:
    x = rng.standard_normal((32, 64)).astype(np.float32)
    norm = wf.full((32, 64), np.nan, f32).partition((16, 64))
    stats = wf.full((32, 1), np.nan, f32).partition((16, 1))
    res = row_stats(norm, stats, wf.from_host(x))
    stream = backend.device.create_stream()
    pending_norm = res[0].unpartition().to_host()
    got_stats = res[1].unpartition().to_host().sync_on(stream)
    got_norm = pending_norm.sync_on(stream)
    x64 = x.astype(np.float64)
    mean = x64.sum(axis=1, keepdims=True) / 64
    spread = x64.max(axis=1, keepdims=True) - x64.min(axis=1, keepdims=True) + 1.0
    np.testing.assert_allclose(got_norm, (x64 - mean) / spread, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_stats, mean + spread, rtol=1e-5, atol=1e-6)


def test_loop_carried_slice(backend: Backend) -> None:
    steps = 3
    x = (2 * rng.standard_normal((64, 64 * steps))).astype(np.float32)
    out = wf.full((64, 64), np.nan, f32).partition((32, 64))
    got = online_max(out, wf.from_host(x), steps).first().unpartition().to_host().sync_on(backend.device.create_stream())
    m = np.full((64, 1), -np.inf)
    acc = np.zeros((64, 64))
    for i in range(steps):
        t = x[:, 64 * i : 64 * (i + 1)].astype(np.float64)
        m_new = np.maximum(m, t.max(axis=1, keepdims=True))
        acc = acc * np.exp(m - m_new) + np.exp(t - m_new)
        m = m_new
    np.testing.assert_allclose(got, acc, rtol=2e-5, atol=1e-6)


# --------------------------------------------------------------------------- the IR and the code


def test_assigned_ir_shows_slices_and_conversions() -> None:
    ir = online_max.ir("gpu", tile.spec(f32, (64, 64), partition=(32, 64)), tile.spec(f32, (64, 192)), tile.spec(i64))
    assert "bar.sync" not in ir and "gpu.barrier" not in ir  # the running maximum never leaves registers
    stats_ir = row_stats.ir("gpu", tile.spec(f32, (32, 64), partition=(16, 64)), tile.spec(f32, (32, 1), partition=(16, 1)), tile.spec(f32, (32, 64)))
    # only the store of the statistics goes through shared memory: write (the buffer's first use, in
    # the entry block: no barrier before it); barrier; read
    assert stats_ir.count("gpu.barrier") == 1


def test_block_softmax_needs_no_barrier_and_ptxas_accepts_it() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    kernel = _softmax_kernel(None)
    ptx = kernel.ir("ptx", tile.spec(f32, (4096, 128), partition=(32, 128)), tile.spec(f32, (4096, 128)))
    assert "bar.sync" not in ptx and "st.shared" not in ptx
    assert ptx.count("shfl.sync.bfly") >= 10  # both row reductions are warp shuffles
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
    assert default_threads(4096, None) == 256


@tile.kernel
def row_softmax(out: tile.Tensor[f32, (1, "C")], x: tile.Tensor[f32, (-1, -1)]):
    row = tile.load_tile_like(x, out, padding=-math.inf)
    e = tile.exp(row - tile.max(row, axis=1, keepdims=True))
    out.store(e * (1.0 / tile.sum(e, axis=1, keepdims=True)))


@tile.kernel
def running_sums(out: tile.Tensor[f32, (1, 1)], x: tile.Tensor[f32, (-1, -1)], steps: i64):
    acc = tile.zeros((1, 1), f32)
    for i in range(steps):
        acc = acc + tile.sum(tile.load(x, (tile.bid(0), i), (1, 1024)), axis=1, keepdims=True)
    out.store(acc)


def test_entry_block_reductions_need_no_write_after_read_barrier() -> None:
    # examples/softmax.py's shape: two row reductions over 8 warps, one shared-memory round each; in
    # the entry block each writes a fresh region of the scratch buffer, so only the barrier between
    # the warps' writes and the reads remains (4 before layouts were IR)
    ptx = row_softmax.ir("ptx", tile.spec(f32, (64, 8192), partition=(1, 8192)), tile.spec(f32, (64, 8192)))
    assert ptx.count("bar.sync") == 2
    # inside a loop the buffer is reused: the barrier before the write stays
    gpu_ir = running_sums.ir("gpu", tile.spec(f32, (4, 1), partition=(1, 1)), tile.spec(f32, (4, 3072)), tile.spec(i64))
    assert gpu_ir.count("gpu.barrier") == 2


def test_reductions_in_a_loop_and_in_the_entry_block(backend: Backend) -> None:
    steps = 3
    x = rng.standard_normal((4, 1024 * steps)).astype(np.float32)
    out = wf.full((4, 1), np.nan, f32).partition((1, 1))
    got = running_sums(out, wf.from_host(x), steps).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_allclose(got, x.astype(np.float64).reshape(4, steps, 1024).sum(axis=2).sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-4)
    y = (3 * rng.standard_normal((3, 2000))).astype(np.float32)
    soft = row_softmax(wf.full((3, 2000), np.nan, f32).partition((1, 2048)), wf.from_host(y)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    np.testing.assert_allclose(soft, _softmax_reference(y), rtol=2e-5, atol=1e-8)
