# RUN: warpforge compile %s --emit kernel | filecheck %s
# RUN: warpforge compile %s --kernel precise --emit ptx | filecheck %s --check-prefix=PRECISE
# RUN: warpforge compile %s --kernel fast --emit ptx | filecheck %s --check-prefix=FAST
# The SIMT breadth constructs as the frontend spells them in the kernel dialect, and what
# `fastmath=True` changes in the PTX.
import math

import warpforge as wf
from warpforge import simt


# CHECK-LABEL: kernel.func @shared_and_warps(
@simt.kernel
def shared_and_warps(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    # CHECK: %[[TILE:.*]] = kernel.shared_array : !kernel.shared<8x33xf32>
    tile = simt.shared_array((8, 33), wf.f32)
    t = simt.thread_idx.x
    # CHECK: kernel.array_store %{{.*}}, %[[TILE]][%{{.*}}, %{{.*}}] {text = "tile[t // 32, t % 32]"}
    tile[t // 32, t % 32] = x[idx.get()]
    # CHECK: kernel.barrier
    simt.sync_threads()
    # CHECK: kernel.array_load %[[TILE]][%{{.*}}, %{{.*}}]
    v = tile[(t // 32 + 1) % 8, t % 32]
    # CHECK: kernel.shuffle down %{{.*}}, %{{.*}} {width = 16} : f32, si32
    v = simt.shfl_down(v, 1, width=16)
    # CHECK: kernel.warp_reduce add %{{.*}} : f32
    s = simt.warp_sum(v)
    # CHECK: kernel.barrier_reduce popc %{{.*}} : si32
    n = simt.sync_threads_count(v > 0)
    out[idx] = s + n


# CHECK-LABEL: kernel.func @registers(
# CHECK: %[[ACC:.*]] = kernel.local_array : !kernel.local<4xf32>
# CHECK: kernel.for
# CHECK: kernel.for %[[J:.*]] = {{.*}} : si64 {
# CHECK: kernel.array_load %[[ACC]][%{{.*}}]
# CHECK: kernel.array_store %{{.*}}, %[[ACC]][%{{.*}}]
# CHECK: } attributes {llvm.loop_unroll_full}
@simt.kernel
def registers(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    # a local array indexed by a simt.static_range variable: the loop stays a loop marked for LLVM to
    # unroll (llvm.loop.unroll.full), and LLVM's SROA keeps the array in registers afterwards
    idx = simt.index_1d()
    acc = simt.local_array(4, wf.f32)
    for k in range(len(x)):
        for j in simt.static_range(4):
            acc[j] += x[k] * wf.f32(j)
    out[idx] = acc[0] + acc[3]


# CHECK-LABEL: kernel.func @atomics_and_views(
@simt.kernel
def atomics_and_views(h: simt.AtomicSlice[wf.u32], f: simt.AtomicSlice[wf.f32], out: simt.DisjointSlice[wf.f32], per_block: simt.DisjointSlice[wf.f32], n: wf.i64):
    idx = simt.index_2d(n)
    # CHECK: kernel.atomic add %{{.*}}[%{{.*}}], %{{.*}} {scope = "device", ordering = "relaxed"
    simt.atomic_add(h, idx.col, 1)
    # CHECK: kernel.atomic max %{{.*}}[%{{.*}}], %{{.*}} {scope = "block", ordering = "acq_rel"
    old = simt.atomic_max(f, 0, 1.5, scope="block", order="acq_rel")
    # CHECK: kernel.view_store %{{.*}}, %{{.*}}[%{{.*}}] at(%{{.*}}, %{{.*}}) sizes(%{{.*}}, %{{.*}}, %{{.*}}) {view = "tile"
    t = out.tile(idx, (2, 4), n)
    t[1, 3] = old
    # CHECK: %[[B:.*]] = kernel.block_index_1d : !kernel.block_index
    # CHECK: kernel.store %{{.*}}, %{{.*}}[%[[B]]] {{.*}}!kernel.block_index
    per_block[simt.block_index_1d()] = 0.0  # another slice: one ownership map per DisjointSlice


@simt.device
def clamp(v, lo, hi):
    return max(lo, min(v, hi))


# CHECK-LABEL: kernel.func @calls(
# CHECK: kernel.call @clamp__f32_f32_f32(
# CHECK-LABEL: kernel.func @clamp__f32_f32_f32(
# CHECK-SAME: -> f32
@simt.kernel
def calls(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    out[idx] = clamp(x[idx.get()], wf.f32(0), wf.f32(1))


# PRECISE-LABEL: .visible .entry precise(
# PRECISE-NOT: {{(sqrt|div|sin)}}.approx
# PRECISE: sqrt.rn.f32
# PRECISE: div.rn.f32
@simt.kernel
def precise(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    out[idx] = math.exp(v) / math.sqrt(v) + math.sin(v)


# FAST-LABEL: .visible .entry fast(
# FAST-DAG: sin.approx.ftz.f32
# FAST-DAG: ex2.approx.ftz.f32
# FAST-DAG: sqrt.approx.ftz.f32
# FAST-DAG: div.approx.ftz.f32
@simt.kernel(fastmath=True)
def fast(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    out[idx] = math.exp(v) / math.sqrt(v) + math.sin(v)
