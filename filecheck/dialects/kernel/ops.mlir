// RUN: warpforge-opt %s | filecheck %s
// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// Every kernel-dialect op round-trips through its custom syntax and the generic form.

// CHECK-LABEL: kernel.func @everything(
// CHECK-SAME: %[[A:.*]]: !kernel.slice<f32>, %[[C:.*]]: !kernel.disjoint_slice<f32>, %[[N:.*]]: si32, %[[U:.*]]: ui8)
// CHECK-SAME: attributes {kernel, contract_block = array<i32: 256, 1, 1>}
kernel.func @everything(%a: !kernel.slice<f32>, %c: !kernel.disjoint_slice<f32>, %n: si32, %u: ui8) attributes {kernel, contract_block = array<i32: 256, 1, 1>} {
  // CHECK: %[[IDX:.*]] = kernel.index_1d : !kernel.thread_index
  %idx = kernel.index_1d : !kernel.thread_index
  // CHECK: kernel.index_2d %{{.*}} : si32 -> !kernel.thread_index
  %idx2 = kernel.index_2d %n : si32 -> !kernel.thread_index
  // CHECK: %[[I:.*]] = kernel.index_get %[[IDX]] : si64
  %i = kernel.index_get %idx : si64
  // CHECK: kernel.index_row %{{.*}} : si64
  %r = kernel.index_row %idx2 : si64
  // CHECK: kernel.index_col %{{.*}} : si64
  %q = kernel.index_col %idx2 : si64
  // CHECK: kernel.thread_idx x : si64
  %t = kernel.thread_idx x : si64
  // CHECK: kernel.block_idx y : si64
  %b = kernel.block_idx y : si64
  // CHECK: kernel.block_dim z : si64
  %bd = kernel.block_dim z : si64
  // CHECK: kernel.grid_dim x : si64
  %gd = kernel.grid_dim x : si64
  // CHECK: kernel.len %[[A]] : !kernel.slice<f32>
  %len = kernel.len %a : !kernel.slice<f32>
  // CHECK: kernel.load %[[A]][%[[I]]] {text = "a[i]"} : !kernel.slice<f32>, si64 -> f32
  %x = kernel.load %a[%i] {text = "a[i]"} : !kernel.slice<f32>, si64 -> f32
  // CHECK: kernel.load %[[C]][%[[IDX]]] : !kernel.disjoint_slice<f32>, !kernel.thread_index -> f32
  %own = kernel.load %c[%idx] : !kernel.disjoint_slice<f32>, !kernel.thread_index -> f32
  // CHECK: kernel.constant 2.500000e+00 : f32
  %k = kernel.constant 2.5 : f32
  // CHECK: kernel.constant -3 : si32
  %m3 = kernel.constant -3 : si32
  // CHECK: kernel.constant true
  %tr = kernel.constant true
  // CHECK: kernel.add %{{.*}}, %{{.*}} : f32
  %s = kernel.add %x, %k : f32
  // CHECK: kernel.sub
  %s1 = kernel.sub %s, %k : f32
  // CHECK: kernel.mul
  %s2 = kernel.mul %s1, %k : f32
  // CHECK: kernel.truediv
  %s3 = kernel.truediv %s2, %k : f32
  // CHECK: kernel.floordiv %{{.*}}, %{{.*}} : si32
  %d = kernel.floordiv %n, %m3 : si32
  // CHECK: kernel.mod %{{.*}}, %{{.*}} : si32
  %md = kernel.mod %d, %m3 : si32
  // CHECK: kernel.pow
  %pw = kernel.pow %s3, %k : f32
  // CHECK: kernel.and
  %an = kernel.and %md, %n : si32
  // CHECK: kernel.or
  %or = kernel.or %an, %n : si32
  // CHECK: kernel.xor
  %xo = kernel.xor %or, %n : si32
  // CHECK: kernel.lshift
  %sl = kernel.lshift %xo, %n : si32
  // CHECK: kernel.rshift
  %sr = kernel.rshift %sl, %n : si32
  // CHECK: kernel.max %{{.*}}, %{{.*}} : f32
  %mx = kernel.max %pw, %s : f32
  // CHECK: kernel.min
  %mn = kernel.min %mx, %s : f32
  // CHECK: kernel.cmp lt, %{{.*}}, %{{.*}} : si64
  %lt = kernel.cmp lt, %i, %len : si64
  // CHECK: kernel.neg
  %ng = kernel.neg %mn : f32
  // CHECK: kernel.invert %{{.*}} : ui8
  %iv = kernel.invert %u : ui8
  // CHECK: kernel.not %{{.*}} : i1
  %nt = kernel.not %lt : i1
  // CHECK: kernel.abs
  %ab = kernel.abs %sr : si32
  // CHECK: kernel.cast %{{.*}} : ui8 to f32
  %cv = kernel.cast %iv : ui8 to f32
  // CHECK: kernel.select %{{.*}}, %{{.*}}, %{{.*}} : f32
  %sel = kernel.select %nt, %cv, %ng : f32
  // CHECK: kernel.store %{{.*}}, %[[C]][%[[IDX]]] : f32, !kernel.disjoint_slice<f32>
  kernel.store %sel, %c[%idx] : f32, !kernel.disjoint_slice<f32>
  kernel.return
}

// CHECK-LABEL: kernel.func @control_flow(
kernel.func @control_flow(%n: si64) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %f = kernel.constant 0.0 : f64
  %c = kernel.cmp gt, %n, %z : si64
  // CHECK: kernel.if %{{.*}} -> (f64) {
  // CHECK: kernel.yield %{{.*}} : f64
  // CHECK: } else {
  %r = kernel.if %c -> (f64) {
    kernel.yield %f : f64
  } else {
    kernel.yield %f : f64
  }
  // CHECK: kernel.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) : si64 {
  %acc = kernel.for %k = %z to %n step %one iter_args(%a = %r) -> (f64) : si64 {
    %big = kernel.cmp gt, %k, %one : si64
    kernel.if %big {
      // CHECK: kernel.break %{{.*}} : f64
      kernel.break %a : f64
    } else {
      // CHECK: kernel.continue %{{.*}} : f64
      kernel.continue %a : f64
    }
    kernel.yield %a : f64
  }
  // CHECK: kernel.while (%{{.*}} = %{{.*}}) : (si64) {
  // CHECK: kernel.condition %{{.*}}(%{{.*}} : si64)
  // CHECK: } do {
  %w = kernel.while (%v = %n) : (si64) {
    %go = kernel.cmp gt, %v, %z : si64
    kernel.condition %go(%v : si64)
  } do {
  ^bb0(%v2: si64):
    %v3 = kernel.sub %v2, %one : si64
    kernel.yield %v3 : si64
  }
  // CHECK: kernel.return
  kernel.return
}
