// RUN: warpforge-opt %s --split-input-file -p fuse-checks | filecheck %s

// Two checked reads separated by pure ops: one predicate (andi), one branch to the fast path with both
// loads; the slow path keeps the original checks in order (site 1 before site 2).

// CHECK-LABEL: gpu.func @two_reads(
// CHECK:       %[[OKA:.*]] = arith.cmpi ult, %[[I:.*]], %[[NA:.*]] : i64
// CHECK:       %[[OKB:.*]] = arith.cmpi ult, %[[I]], %[[NB:.*]] : i64
// CHECK:       %[[ALL:.*]] = arith.andi %[[OKA]], %[[OKB]] : i1
// CHECK:       %[[X:.*]], %[[Y:.*]] = scf.if %[[ALL]] -> (f32, f32) {
// CHECK-NOT:     func.call
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<?xf32, 1 : i32>
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<?xf32, 1 : i32>
// CHECK:         scf.yield
// CHECK:       } else {
// CHECK:         scf.if %[[OKA]] -> (f32) {
// CHECK:           func.call @__wf_report_error(%{{.*}}, %[[S1:.*]], %[[I]], %[[NA]])
// CHECK:         scf.if %[[OKB]] -> (f32) {
// CHECK:           func.call @__wf_report_error(%{{.*}}, %[[S2:.*]], %[[I]], %[[NB]])
// CHECK:       }
// CHECK:       arith.addf %[[X]], %[[Y]] : f32
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @two_reads(%a: memref<?xf32, 1 : i32>, %b: memref<?xf32, 1 : i32>, %c: memref<?xf32, 1 : i32>, %err: memref<8xi64, 1 : i32>, %i: i64) kernel {
      %c0 = arith.constant 0 : index
      %da = memref.dim %a, %c0 : memref<?xf32, 1 : i32>
      %na = arith.index_cast %da : index to i64
      %oka = arith.cmpi ult, %i, %na : i64
      %x = scf.if %oka -> (f32) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %a[%ii] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %na) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %db = memref.dim %b, %c0 : memref<?xf32, 1 : i32>
      %nb = arith.index_cast %db : index to i64
      %okb = arith.cmpi ult, %i, %nb : i64
      %y = scf.if %okb -> (f32) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %b[%ii] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s2 = arith.constant 2 : i64
        func.call @__wf_report_error(%err, %s2, %i, %nb) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %s = arith.addf %x, %y : f32
      %ci = arith.index_cast %i : i64 to index
      memref.store %s, %c[%ci] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}

// -----

// An index read through another checked read (`a[b[i]]`) depends on the first read: the checks stay apart.

// CHECK-LABEL: gpu.func @dependent(
// CHECK-NOT:   arith.andi
// CHECK:       %[[J:.*]] = scf.if
// CHECK:       arith.cmpi ult, %[[J]]
// CHECK:       scf.if
// CHECK-NOT:   arith.andi
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @dependent(%a: memref<?xf32, 1 : i32>, %b: memref<?xi64, 1 : i32>, %c: memref<?xf32, 1 : i32>, %err: memref<8xi64, 1 : i32>, %i: i64) kernel {
      %c0 = arith.constant 0 : index
      %db = memref.dim %b, %c0 : memref<?xi64, 1 : i32>
      %nb = arith.index_cast %db : index to i64
      %okb = arith.cmpi ult, %i, %nb : i64
      %j = scf.if %okb -> (i64) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %b[%ii] : memref<?xi64, 1 : i32>
        scf.yield %v : i64
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %nb) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0 : i64
        scf.yield %z : i64
      }
      %da = memref.dim %a, %c0 : memref<?xf32, 1 : i32>
      %na = arith.index_cast %da : index to i64
      %oka = arith.cmpi ult, %j, %na : i64
      %x = scf.if %oka -> (f32) {
        %jj = arith.index_cast %j : i64 to index
        %v = memref.load %a[%jj] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s2 = arith.constant 2 : i64
        func.call @__wf_report_error(%err, %s2, %j, %na) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %ci = arith.index_cast %i : i64 to index
      memref.store %x, %c[%ci] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}

// -----

// A store between two checks is a side effect: the checks are not moved across it.

// CHECK-LABEL: gpu.func @store_between(
// CHECK-NOT:   arith.andi
// CHECK:       scf.if
// CHECK:       memref.store
// CHECK:       scf.if
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @store_between(%a: memref<?xf32, 1 : i32>, %c: memref<?xf32, 1 : i32>, %err: memref<8xi64, 1 : i32>, %i: i64, %k: i64) kernel {
      %c0 = arith.constant 0 : index
      %da = memref.dim %a, %c0 : memref<?xf32, 1 : i32>
      %na = arith.index_cast %da : index to i64
      %oka = arith.cmpi ult, %i, %na : i64
      %x = scf.if %oka -> (f32) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %a[%ii] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %na) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %ci = arith.index_cast %i : i64 to index
      memref.store %x, %c[%ci] : memref<?xf32, 1 : i32>
      %okk = arith.cmpi ult, %k, %na : i64
      %y = scf.if %okk -> (f32) {
        %kk = arith.index_cast %k : i64 to index
        %v = memref.load %a[%kk] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s2 = arith.constant 2 : i64
        func.call @__wf_report_error(%err, %s2, %k, %na) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      memref.store %y, %c[%ci] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}

// -----

// A pure op computed from the first read (`alpha * x[i]`) does not end the run: it moves below the
// fused check, which both reads then share.

// CHECK-LABEL: gpu.func @deferred(
// CHECK:       %[[ALL:.*]] = arith.andi
// CHECK:       %[[X:.*]], %[[Y:.*]] = scf.if %[[ALL]] -> (f32, f32) {
// CHECK:       %[[AX:.*]] = arith.mulf %{{.*}}, %[[X]] : f32
// CHECK:       arith.addf %[[AX]], %[[Y]] : f32
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @deferred(%alpha: f32, %a: memref<?xf32, 1 : i32>, %b: memref<?xf32, 1 : i32>, %c: memref<?xf32, 1 : i32>, %err: memref<8xi64, 1 : i32>, %i: i64) kernel {
      %c0 = arith.constant 0 : index
      %da = memref.dim %a, %c0 : memref<?xf32, 1 : i32>
      %na = arith.index_cast %da : index to i64
      %oka = arith.cmpi ult, %i, %na : i64
      %x = scf.if %oka -> (f32) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %a[%ii] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %na) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %ax = arith.mulf %alpha, %x : f32
      %db = memref.dim %b, %c0 : memref<?xf32, 1 : i32>
      %nb = arith.index_cast %db : index to i64
      %okb = arith.cmpi ult, %i, %nb : i64
      %y = scf.if %okb -> (f32) {
        %ii = arith.index_cast %i : i64 to index
        %v = memref.load %b[%ii] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s2 = arith.constant 2 : i64
        func.call @__wf_report_error(%err, %s2, %i, %nb) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      %s = arith.addf %ax, %y : f32
      %ci = arith.index_cast %i : i64 to index
      memref.store %s, %c[%ci] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}
