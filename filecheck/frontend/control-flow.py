# RUN: warpforge compile %s --emit kernel | filecheck %s
# Structured control flow: if/elif/else yield the variables they assign, loops carry theirs,
# break/continue pass the carried values, `and`/`or`/`a if c else b` short-circuit in regions.
import warpforge as wf
from warpforge import simt


# CHECK-LABEL: kernel.func @guard(
@simt.kernel
def guard(x: simt.Slice[wf.f32], n: wf.i64, out: simt.DisjointSlice[wf.bool_]):
    idx = simt.index_1d()
    i = idx.get()
    # the read x[i] happens only inside the region taken when i < n
    # CHECK: %[[LT:.*]] = kernel.cmp lt, %{{.*}}, %{{.*}} : si64
    # CHECK: kernel.if %[[LT]] -> (i1) {
    # CHECK-NEXT: kernel.load
    # CHECK: } else {
    # CHECK-NEXT: kernel.yield %[[LT]] : i1
    out[idx] = i < n and x[i] > 0


# CHECK-LABEL: kernel.func @branches(
@simt.kernel
def branches(x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    # CHECK: %[[R:.*]] = kernel.if %{{.*}} -> (si32) {
    # CHECK: kernel.if %{{.*}} -> (si32) {
    if v > 10:
        r = v - 10
    elif v < -10:
        r = v + 10
    else:
        r = 0
    # CHECK: kernel.store %[[R]]
    out[idx] = r


# CHECK-LABEL: kernel.func @loops(
@simt.kernel
def loops(x: simt.Slice[wf.f64], out: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    acc = 0.0
    # a negative step
    # CHECK: %[[ACC:.*]] = kernel.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f64) : si64 {
    for k in range(len(x) - 1, -1, -2):
        if x[k] < 0:
            # CHECK: kernel.continue %[[A]] : f64
            continue
        if x[k] > 100:
            # CHECK: kernel.break %[[A]] : f64
            break
        acc += x[k]
    # CHECK: kernel.while
    # CHECK: kernel.condition
    while acc > 1.0:
        acc = acc / 2
    # CHECK: kernel.store
    out[idx] = acc


# CHECK-LABEL: kernel.func @early_return(
@simt.kernel
def early_return(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    if idx.get() >= len(x):
        # CHECK: kernel.return
        return
    out[idx] = x[idx.get()]
