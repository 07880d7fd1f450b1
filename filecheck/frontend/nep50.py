# RUN: warpforge compile %s --emit kernel | filecheck %s
# NumPy 2 (NEP 50) typing: Python literals are weak, mixed signedness widens, `/` on integers is f64,
# raw ids, len() and range variables are i64.
import math

import warpforge as wf
from warpforge import simt


# CHECK-LABEL: kernel.func @weak_literals(
@simt.kernel
def weak_literals(x: simt.Slice[wf.f32], n: wf.i32, out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    # f32 * 2.0 stays f32: the literal is weak
    # CHECK: %[[TWO:.*]] = kernel.constant 2.000000e+00 : f32
    # CHECK: kernel.mul %{{.*}}, %[[TWO]] : f32
    y = x[idx.get()] * 2.0
    # i32 + 1 stays i32
    # CHECK: %[[ONE:.*]] = kernel.constant 1 : si32
    # CHECK: kernel.add %{{.*}}, %[[ONE]] : si32
    m = n + 1
    # i32 * 1.5 is f64 (int with a float literal)
    # CHECK: kernel.cast %{{.*}} : si32 to f64
    # CHECK: kernel.mul %{{.*}}, %{{.*}} : f64
    z = m * 1.5
    # CHECK: kernel.cast %{{.*}} : f64 to f32
    out[idx] = y + z


# CHECK-LABEL: kernel.func @mixed_signedness(
@simt.kernel
def mixed_signedness(a: wf.u32, b: wf.i32, out: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    # u32 + i32 widens to i64
    # CHECK-DAG: kernel.cast %{{.*}} : ui32 to si64
    # CHECK-DAG: kernel.cast %{{.*}} : si32 to si64
    # CHECK: kernel.add %{{.*}}, %{{.*}} : si64
    out[idx] = a + b


# CHECK-LABEL: kernel.func @true_division(
@simt.kernel
def true_division(a: wf.i32, b: wf.i32, out: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    # CHECK: kernel.cast %{{.*}} : si32 to f64
    # CHECK: kernel.cast %{{.*}} : si32 to f64
    # CHECK: kernel.truediv %{{.*}}, %{{.*}} : f64
    out[idx] = a / b


# CHECK-LABEL: kernel.func @ids_and_len(
@simt.kernel
def ids_and_len(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    # CHECK: kernel.thread_idx x : si64
    # CHECK: kernel.block_dim y : si64
    # CHECK: kernel.len %{{.*}} : !kernel.slice<f32>
    out[idx] = simt.thread_idx.x + simt.block_dim.y + len(x)


# CHECK-LABEL: kernel.func @constant_folding(
@simt.kernel
def constant_folding(out: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    # Python arithmetic on literals is folded with Python's semantics (-7 // 2 == -4)
    # CHECK: kernel.constant -4.000000e+00 : f64
    out[idx] = -7 // 2
    # CHECK: kernel.constant 6.2831853071795862 : f64
    out[idx] = 2 * math.pi


# CHECK-LABEL: kernel.func @casts(
@simt.kernel
def casts(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    v = x[idx.get()]
    # int() is i64, then the store converts i64 -> i32 (same kind)
    # CHECK: kernel.cast %{{.*}} : f32 to si64
    # CHECK: kernel.cast %{{.*}} : si64 to si32
    out[idx] = int(v)
    # CHECK: kernel.cast %{{.*}} : f32 to si32
    out[idx] = wf.i32(v)
    # bool(x) is x != 0 (NaN is true)
    # CHECK: kernel.cast %{{.*}} : f32 to i1
    # CHECK: kernel.cast %{{.*}} : i1 to si32
    out[idx] = bool(v)
