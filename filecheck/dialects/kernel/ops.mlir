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
  // CHECK: kernel.ceildiv %{{.*}}, %{{.*}} {text = "simt.cdiv(a, n)"} : si32
  %cd = kernel.ceildiv %ab, %n {text = "simt.cdiv(a, n)"} : si32
  // CHECK: kernel.popc %{{.*}} : ui8
  %pc = kernel.popc %u : ui8
  // CHECK: kernel.clz %{{.*}} : si32
  %cz = kernel.clz %cd : si32
  // CHECK: kernel.cast %{{.*}} : ui8 to f32
  %cv = kernel.cast %iv : ui8 to f32
  // CHECK: kernel.select %{{.*}}, %{{.*}}, %{{.*}} : f32
  %sel = kernel.select %nt, %cv, %ng : f32
  // CHECK: kernel.store %{{.*}}, %[[C]][%[[IDX]]] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
  kernel.store %sel, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
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

// Shared, dynamic and local arrays; barriers and fences; warp collectives; atomics; block indices;
// raw slices; owned views; 3-D indices; device-function calls.
// CHECK-LABEL: kernel.func @breadth(
kernel.func @breadth(%x: f32, %i: si64, %p: i1, %m: ui32, %a: !kernel.atomic_slice<f32>, %h: !kernel.atomic_slice<f16>,
                     %r: !kernel.raw_slice<si32>, %c: !kernel.disjoint_slice<f32>, %n: si32) attributes {kernel} {
  // CHECK: kernel.shared_array : !kernel.shared<32x33xf32>
  %s = kernel.shared_array : !kernel.shared<32x33xf32>
  // CHECK: kernel.dynamic_shared : !kernel.shared<?xf32>
  %d = kernel.dynamic_shared : !kernel.shared<?xf32>
  // CHECK: kernel.local_array : !kernel.local<8xf32>
  %l = kernel.local_array : !kernel.local<8xf32>
  // CHECK: kernel.array_load %{{.*}}[%{{.*}}, %{{.*}}] : !kernel.shared<32x33xf32>, si64, si64 -> f32
  %v = kernel.array_load %s[%i, %i] : !kernel.shared<32x33xf32>, si64, si64 -> f32
  // CHECK: kernel.array_store %{{.*}}, %{{.*}}[%{{.*}}] : f32, !kernel.local<8xf32>, si64
  kernel.array_store %v, %l[%i] : f32, !kernel.local<8xf32>, si64
  // CHECK: kernel.barrier
  kernel.barrier
  // CHECK: kernel.barrier_reduce popc %{{.*}} : si32
  %cnt = kernel.barrier_reduce popc %p : si32
  // CHECK: kernel.barrier_reduce or %{{.*}} : i1
  %any = kernel.barrier_reduce or %p : i1
  // CHECK: kernel.thread_fence system
  kernel.thread_fence system
  // CHECK: kernel.warp_sync %{{.*}} : ui32
  kernel.warp_sync %m : ui32
  // CHECK: kernel.shuffle up %{{.*}}, %{{.*}} {width = 16} : f32, si64
  %sh, %shv = kernel.shuffle up %x, %i {width = 16} : f32, si64
  // CHECK: kernel.warp_reduce min %{{.*}} : si32
  %wr = kernel.warp_reduce min %n : si32
  // CHECK: kernel.vote all %{{.*}}
  %vo = kernel.vote all %p
  // CHECK: kernel.ballot %{{.*}} : ui32
  %b = kernel.ballot %p : ui32
  // CHECK: kernel.active_mask : ui32
  %am = kernel.active_mask : ui32
  // CHECK: kernel.match_any %{{.*}} : f32
  %ma = kernel.match_any %x : f32
  // CHECK: kernel.lane_id : si64
  %ln = kernel.lane_id : si64
  // CHECK: kernel.atomic sub %{{.*}}[%{{.*}}], %{{.*}} {scope = "system", ordering = "seq_cst"} : !kernel.atomic_slice<f32>, si64, f32
  %o1 = kernel.atomic sub %a[%i], %x {scope = "system", ordering = "seq_cst"} : !kernel.atomic_slice<f32>, si64, f32
  // CHECK: kernel.atomic max %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {scope = "block", ordering = "relaxed"} : !kernel.shared<32x33xf32>, si64, si64, f32
  %o2 = kernel.atomic max %s[%i, %i], %x {scope = "block", ordering = "relaxed"} : !kernel.shared<32x33xf32>, si64, si64, f32
  // CHECK: kernel.atomic_cas %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} {scope = "device", ordering = "acquire"} : !kernel.raw_slice<si32>, si64, si32
  %o3 = kernel.atomic_cas %r[%i], %n, %n {scope = "device", ordering = "acquire"} : !kernel.raw_slice<si32>, si64, si32
  %hx = kernel.cast %x : f32 to f16
  // CHECK: kernel.atomic_add_pair %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f16>, (si64), f16
  %p0, %p1 = kernel.atomic_add_pair %h[%i], %hx, %hx {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f16>, (si64), f16
  // CHECK: kernel.block_index_1d : !kernel.block_index
  %bi = kernel.block_index_1d : !kernel.block_index
  // CHECK: kernel.block_index_get %{{.*}} : si64
  %bg = kernel.block_index_get %bi : si64
  // CHECK: kernel.store %{{.*}}, %{{.*}}[%{{.*}}] : f32, !kernel.disjoint_slice<f32>, !kernel.block_index
  kernel.store %x, %c[%bi] : f32, !kernel.disjoint_slice<f32>, !kernel.block_index
  // CHECK: kernel.store %{{.*}}, %{{.*}}[%{{.*}}] : si32, !kernel.raw_slice<si32>, si64
  kernel.store %n, %r[%i] : si32, !kernel.raw_slice<si32>, si64
  // CHECK: kernel.index_3d %{{.*}}, %{{.*}} : si64, si64 -> !kernel.thread_index
  %t3 = kernel.index_3d %i, %i : si64, si64 -> !kernel.thread_index
  // CHECK: kernel.index_plane %{{.*}} : si64
  %z = kernel.index_plane %t3 : si64
  // CHECK: kernel.view_store %{{.*}}, %{{.*}}[%{{.*}}] at(%{{.*}}, %{{.*}}) sizes(%{{.*}}, %{{.*}}, %{{.*}}) {view = "tile"}
  kernel.view_store %x, %c[%t3] at(%i, %i) sizes(%i, %i, %i) {view = "tile"} : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64, si64), (si64, si64, si64)
  // CHECK: kernel.view_load %{{.*}}[%{{.*}}] at(%{{.*}}) sizes(%{{.*}}) {view = "row"}
  %vl = kernel.view_load %c[%t3] at(%i) sizes(%i) {view = "row"} : !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64), (si64) -> f32
  // CHECK: kernel.fmod %{{.*}}, %{{.*}} : f32
  %fm = kernel.fmod %x, %x : f32
  // CHECK: kernel.call @helper(%{{.*}}, %{{.*}}) : (f32, !kernel.atomic_slice<f32>) -> f32
  %call = kernel.call @helper(%x, %a) : (f32, !kernel.atomic_slice<f32>) -> f32
  kernel.return
}
// CHECK-LABEL: kernel.func @helper(
// CHECK-SAME:    -> f32 {
kernel.func @helper(%x: f32, %a: !kernel.atomic_slice<f32>) -> f32 {
  kernel.return %x : f32
}

// kernel.print: a Python format string (anonymous fields, Python specs), one operand per field.
// CHECK-LABEL: kernel.func @prints(
// CHECK:         kernel.print "i = {} x = {:.3f} {{.*}} ok {}\0A", %{{.*}}, %{{.*}}, %{{.*}} : si64, f32, i1
// CHECK:         kernel.print "no fields\0A"
kernel.func @prints(%i: si64, %x: f32, %b: i1) attributes {kernel} {
  kernel.print "i = {} x = {:.3f} {{}} ok {}\n", %i, %x, %b : si64, f32, i1
  kernel.print "no fields\n"
  kernel.return
}
