// RUN: warpforge-opt %s --split-input-file -p hoist-checks | filecheck %s

// A read under the short-circuit guard `row < m and col < k`, at `row * k + col`: bounded by
// (m - 1) * k + (k - 1) = m * k - 1, so the entry checks `m * k - 1 < len(a)` (and m, k in [0, 2^31 - 1],
// which keeps m * k from wrapping). The fast copy's check has condition `true`; the checked copy keeps it.

// CHECK-LABEL: gpu.func @guarded(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<?xf32, 1 : i32> {{.*}}, %[[M:[a-z0-9_]+]]: i64, %[[K:[a-z0-9_]+]]: i64,
// CHECK:         %[[MK:.*]] = arith.muli %[[M]], %[[K]] : i64
// CHECK:         %[[HI:.*]] = arith.addi %{{.*}}, %[[MK]] : i64
// CHECK:         %[[LEN:.*]] = memref.dim %[[A]]
// CHECK:         %[[N:.*]] = arith.index_cast %[[LEN]] : index to i64
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[HI]], %[[N]] : i64
// CHECK:         %[[MAX:.*]] = arith.constant 2147483647 : i64
// CHECK:         %[[AM:.*]] = arith.cmpi ule, %[[M]], %[[MAX]] : i64
// CHECK:         %[[AK:.*]] = arith.cmpi ule, %[[K]], %[[MAX]] : i64
// CHECK:         %[[P1:.*]] = arith.andi %[[IN]], %[[AM]] : i1
// CHECK:         %[[P:.*]] = arith.andi %[[P1]], %[[AK]] : i1
// CHECK:         cf.cond_br %[[P]], ^[[FAST:bb[0-9]+]], ^[[CHECKED:bb[0-9]+]] {branch_weights = array<i32: 1048576, 1>}
// CHECK:       ^[[FAST]]:
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    scf.if %[[TRUE]] -> (f32) {
// CHECK:           func.call @__wf_report_error
// CHECK:       ^[[CHECKED]]:
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[OK]] -> (f32) {
// CHECK:           func.call @__wf_report_error
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @guarded(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %m: i64, %k: i64, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %0 = gpu.block_id x
      %1 = arith.index_cast %0 : index to i64
      %2 = gpu.block_dim x
      %3 = arith.index_cast %2 : index to i64
      %4 = gpu.thread_id x
      %5 = arith.index_cast %4 : index to i64
      %6 = arith.muli %1, %3 : i64
      %row = arith.addi %6, %5 : i64
      %7 = gpu.thread_id x
      %8 = arith.index_cast %7 : index to i64
      %9 = arith.constant 4 : i64
      %col = arith.remsi %8, %9 : i64
      %10 = arith.cmpi slt, %row, %m : i64
      cf.cond_br %10, ^bb1, ^bb2(%10 : i1)
    ^bb1:
      %11 = arith.cmpi slt, %col, %k : i64
      cf.br ^bb2(%11 : i1)
    ^bb2(%12: i1):
      cf.cond_br %12, ^bb3, ^bb4
    ^bb3:
      %13 = arith.muli %row, %k : i64
      %14 = arith.addi %13, %col : i64
      %15 = arith.constant 0 : index
      %16 = memref.dim %a, %15 : memref<?xf32, 1 : i32>
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.cmpi ult, %14, %17 : i64
      %19 = scf.if %18 -> (f32) {
        %20 = arith.index_cast %14 : i64 to index
        %21 = memref.load %a[%20] : memref<?xf32, 1 : i32>
        scf.yield %21 : f32
      } else {
        %22 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %22, %14, %17) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %23 = arith.constant 0.000000e+00 : f32
        scf.yield %23 : f32
      }
      cf.br ^bb5(%19 : f32)
    ^bb4:
      %24 = arith.constant 0.000000e+00 : f32
      cf.br ^bb5(%24 : f32)
    ^bb5(%25: f32):
      %26 = arith.constant 0 : index
      %27 = memref.dim %c, %26 : memref<?xf32, 1 : i32>
      %28 = arith.index_cast %27 : index to i64
      %29 = arith.cmpi ult, %row, %28 : i64
      scf.if %29 {
        %30 = arith.index_cast %row : i64 to index
        memref.store %25, %c[%30] : memref<?xf32, 1 : i32>
      } else {
      }
      gpu.return
    }
  }
}

// -----

// `for k0 in range(0, k, 8): acc += a[k0]`: the loop variable starts at 0 and grows by 8 without
// wrapping (k0 < k <= 2^31 - 1 at the increment), and k0 < k in the body, so one check before the
// kernel, `k - 1 < len(a)`, covers every iteration.

// CHECK-LABEL: gpu.func @loop(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<?xf32, 1 : i32> {{.*}}, %[[K:[a-z0-9_]+]]: i64,
// CHECK:         %[[KM1:.*]] = arith.addi %{{.*}}, %[[K]] : i64
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[KM1]], %{{.*}} : i64
// CHECK:         %[[AK:.*]] = arith.cmpi ule, %[[K]], %{{.*}} : i64
// CHECK:         %[[P:.*]] = arith.andi %[[IN]], %[[AK]] : i1
// CHECK:         cf.cond_br %[[P]], ^[[FAST:bb[0-9]+]], ^[[CHECKED:bb[0-9]+]] {branch_weights = array<i32: 1048576, 1>}
// CHECK:       ^[[FAST]]:
// CHECK:       ^{{.*}}(%[[K1:k0[_0-9]*]]: i64, %{{.*}}: f32):
// CHECK:         arith.cmpi ult, %[[K1]], %{{.*}} : i64
// CHECK-NEXT:    %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    scf.if %[[TRUE]] -> (f32) {
// CHECK:       ^[[CHECKED]]:
// CHECK:       ^{{.*}}(%[[K0:k0[_0-9]*]]: i64, %{{.*}}: f32):
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %[[K0]], %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[OK]] -> (f32) {
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @loop(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %k: i64, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %0 = gpu.block_id x
      %1 = arith.index_cast %0 : index to i64
      %2 = gpu.block_dim x
      %3 = arith.index_cast %2 : index to i64
      %4 = gpu.thread_id x
      %5 = arith.index_cast %4 : index to i64
      %6 = arith.muli %1, %3 : i64
      %7 = arith.addi %6, %5 : i64
      %acc = arith.constant 0.000000e+00 : f32
      %8 = arith.constant 0 : i64
      %9 = arith.constant 8 : i64
      cf.br ^bb1(%8, %acc : i64, f32)
    ^bb1(%10: i64, %11: f32):
      %12 = arith.cmpi slt, %10, %k : i64
      cf.cond_br %12, ^bb2(%10, %11 : i64, f32), ^bb3(%11 : f32)
    ^bb2(%k0: i64, %acc_1: f32):
      %13 = arith.constant 0 : index
      %14 = memref.dim %a, %13 : memref<?xf32, 1 : i32>
      %15 = arith.index_cast %14 : index to i64
      %16 = arith.cmpi ult, %k0, %15 : i64
      %17 = scf.if %16 -> (f32) {
        %18 = arith.index_cast %k0 : i64 to index
        %19 = memref.load %a[%18] : memref<?xf32, 1 : i32>
        scf.yield %19 : f32
      } else {
        %20 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %20, %k0, %15) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %21 = arith.constant 0.000000e+00 : f32
        scf.yield %21 : f32
      }
      %acc_2 = arith.addf %acc_1, %17 : f32
      %22 = arith.addi %k0, %9 : i64
      cf.br ^bb1(%22, %acc_2 : i64, f32)
    ^bb3(%acc_3: f32):
      %23 = arith.constant 0 : index
      %24 = memref.dim %c, %23 : memref<?xf32, 1 : i32>
      %25 = arith.index_cast %24 : index to i64
      %26 = arith.cmpi ult, %7, %25 : i64
      scf.if %26 {
        %27 = arith.index_cast %7 : i64 to index
        memref.store %acc_3, %c[%27] : memref<?xf32, 1 : i32>
      } else {
      }
      gpu.return
    }
  }
}

// -----

// `a[ids[i]]`: the index is loaded, nothing bounds it, so the check stays and the kernel is not
// versioned (no branch on entry values, no second copy).

// CHECK-LABEL: gpu.func @gather(
// CHECK-NOT:     branch_weights
// CHECK:         %[[ID:.*]] = memref.load
// CHECK:         %[[OK:.*]] = arith.cmpi ult, %[[ID]], %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[OK]] -> (f32) {
// CHECK-NOT:     arith.constant true
// CHECK:         gpu.return
// CHECK-NOT:     gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @gather(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %ids: memref<?xi64, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %0 = gpu.block_id x
      %1 = arith.index_cast %0 : index to i64
      %2 = gpu.block_dim x
      %3 = arith.index_cast %2 : index to i64
      %4 = gpu.thread_id x
      %5 = arith.index_cast %4 : index to i64
      %6 = arith.muli %1, %3 : i64
      %i = arith.addi %6, %5 : i64
      %7 = arith.constant 0 : index
      %8 = memref.dim %ids, %7 : memref<?xi64, 1 : i32>
      %9 = arith.index_cast %8 : index to i64
      %10 = arith.cmpi slt, %i, %9 : i64
      cf.cond_br %10, ^bb1, ^bb2
    ^bb1:
      %11 = arith.index_cast %i : i64 to index
      %12 = memref.load %ids[%11] : memref<?xi64, 1 : i32>
      %13 = arith.constant 0 : index
      %14 = memref.dim %a, %13 : memref<?xf32, 1 : i32>
      %15 = arith.index_cast %14 : index to i64
      %16 = arith.cmpi ult, %12, %15 : i64
      %17 = scf.if %16 -> (f32) {
        %18 = arith.index_cast %12 : i64 to index
        %19 = memref.load %a[%18] : memref<?xf32, 1 : i32>
        scf.yield %19 : f32
      } else {
        %20 = arith.constant 2 : i64
        func.call @__wf_report_error(%err, %20, %12, %15) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %21 = arith.constant 0.000000e+00 : f32
        scf.yield %21 : f32
      }
      %22 = arith.constant 0 : index
      %23 = memref.dim %c, %22 : memref<?xf32, 1 : i32>
      %24 = arith.index_cast %23 : index to i64
      %25 = arith.cmpi ult, %i, %24 : i64
      scf.if %25 {
        %26 = arith.index_cast %i : i64 to index
        memref.store %17, %c[%26] : memref<?xf32, 1 : i32>
      } else {
      }
      cf.br ^bb2
    ^bb2:
      gpu.return
    }
  }
}

// -----

// The same kernel: its entry condition is the same for every thread (arguments and a length only), so
// the pass records it for the host (hoist_checks.launch_condition); compiled for launches where the
// host found it true (kernel.checks_hold_at_launch), the entry branch's condition is `true`.

// CHECK-LABEL: gpu.func @guarded_at_launch(
// CHECK-SAME:    hoist_checks.launch_condition = "[\22and\22, [\22and\22, [\22cmp\22, \22slt\22, [\22add\22, [\22const\22, -1], [\22mul\22, [\22arg\22, 2], [\22arg\22, 3]]], [\22len\22, 0]]
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         cf.cond_br %[[TRUE]], ^[[FAST:bb[0-9]+]], ^{{bb[0-9]+}} {branch_weights = array<i32: 1048576, 1>}
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @guarded_at_launch(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %m: i64, %k: i64, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, kernel.checks_hold_at_launch} {
      %0 = gpu.block_id x
      %1 = arith.index_cast %0 : index to i64
      %2 = gpu.block_dim x
      %3 = arith.index_cast %2 : index to i64
      %4 = gpu.thread_id x
      %5 = arith.index_cast %4 : index to i64
      %6 = arith.muli %1, %3 : i64
      %row = arith.addi %6, %5 : i64
      %7 = gpu.thread_id x
      %8 = arith.index_cast %7 : index to i64
      %9 = arith.constant 4 : i64
      %col = arith.remsi %8, %9 : i64
      %10 = arith.cmpi slt, %row, %m : i64
      cf.cond_br %10, ^bb1, ^bb2(%10 : i1)
    ^bb1:
      %11 = arith.cmpi slt, %col, %k : i64
      cf.br ^bb2(%11 : i1)
    ^bb2(%12: i1):
      cf.cond_br %12, ^bb3, ^bb4
    ^bb3:
      %13 = arith.muli %row, %k : i64
      %14 = arith.addi %13, %col : i64
      %15 = arith.constant 0 : index
      %16 = memref.dim %a, %15 : memref<?xf32, 1 : i32>
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.cmpi ult, %14, %17 : i64
      %19 = scf.if %18 -> (f32) {
        %20 = arith.index_cast %14 : i64 to index
        %21 = memref.load %a[%20] : memref<?xf32, 1 : i32>
        scf.yield %21 : f32
      } else {
        %22 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %22, %14, %17) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %23 = arith.constant 0.000000e+00 : f32
        scf.yield %23 : f32
      }
      cf.br ^bb5(%19 : f32)
    ^bb4:
      %24 = arith.constant 0.000000e+00 : f32
      cf.br ^bb5(%24 : f32)
    ^bb5(%25: f32):
      %26 = arith.constant 0 : index
      %27 = memref.dim %c, %26 : memref<?xf32, 1 : i32>
      %28 = arith.index_cast %27 : index to i64
      %29 = arith.cmpi ult, %row, %28 : i64
      scf.if %29 {
        %30 = arith.index_cast %row : i64 to index
        memref.store %25, %c[%30] : memref<?xf32, 1 : i32>
      } else {
      }
      gpu.return
    }
  }
}

// -----

// An unguarded read at the global thread index i = blockIdx.x * blockDim.x + threadIdx.x (vecadd's
// `a[i]`): blockIdx.x <= gridDim.x - 1 and threadIdx.x <= 255 (the known block size) bound i by
// (gridDim.x - 1) * blockDim.x + 255, the same for every thread, so the entry condition is recorded for
// the host with the launch's extents (`["grid", 0]`, `["block", 0]`).

// CHECK-LABEL: gpu.func @global_index(
// CHECK-SAME:    %[[A:[a-z0-9_]+]]: memref<?xf32, 1 : i32>
// CHECK-SAME:    hoist_checks.launch_condition = "[\22cmp\22, \22slt\22, [\22add\22, [\22add\22, [\22const\22, 255], [\22mul\22, [\22grid\22, 0], [\22block\22, 0]]], [\22mul\22, [\22const\22, -1], [\22block\22, 0]]], [\22len\22, 0]]"
// CHECK:         %[[G:.*]] = gpu.grid_dim x
// CHECK:         %[[GI:.*]] = arith.index_cast %[[G]] : index to i64
// CHECK:         %[[B:.*]] = gpu.block_dim x
// CHECK:         %[[BI:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK:         %[[GB:.*]] = arith.muli %[[GI]], %[[BI]] : i64
// CHECK:         %[[P:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK:         cf.cond_br %[[P]], ^[[FAST:.*]], ^[[CHECKED:[a-z0-9]+]]
// CHECK:       ^[[FAST]]:
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK:         scf.if %[[T]] -> (f32) {
// CHECK:         memref.load %[[A]]
// CHECK:       ^[[CHECKED]]:
// CHECK:         %[[C:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK:         scf.if %[[C]] -> (f32) {
// CHECK:         func.call @__wf_report_error

builtin.module {
  gpu.module @global_index_module [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64) attributes {llvm.noinline, llvm.cold} {
      func.return
    }
    gpu.func @global_index(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = gpu.block_id x
      %1 = arith.index_cast %0 : index to i64
      %2 = gpu.block_dim x
      %3 = arith.index_cast %2 : index to i64
      %4 = gpu.thread_id x
      %5 = arith.index_cast %4 : index to i64
      %6 = arith.muli %1, %3 : i64
      %i = arith.addi %6, %5 : i64
      %7 = arith.constant 0 : index
      %8 = memref.dim %a, %7 : memref<?xf32, 1 : i32>
      %9 = arith.index_cast %8 : index to i64
      %10 = arith.cmpi ult, %i, %9 : i64
      %11 = scf.if %10 -> (f32) {
        %12 = arith.index_cast %i : i64 to index
        %13 = memref.load %a[%12] : memref<?xf32, 1 : i32>
        scf.yield %13 : f32
      } else {
        %14 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %14, %i, %9) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %15 = arith.constant 0.000000e+00 : f32
        scf.yield %15 : f32
      }
      %16 = memref.dim %c, %7 : memref<?xf32, 1 : i32>
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.cmpi ult, %i, %17 : i64
      scf.if %18 {
        %19 = arith.index_cast %i : i64 to index
        memref.store %11, %c[%19] : memref<?xf32, 1 : i32>
      } else {
      }
      gpu.return
    }
  }
}

// -----

// A checked atomic (the histogram's `atomic_add(hist, t, c)`) is hoisted like a read: only its
// condition becomes `true` in the fast copy, the atomic stays where it is. threadIdx.x <= 255, so the
// entry condition is `255 < len(hist)`, the same for every thread.

// CHECK-LABEL: gpu.func @checked_atomic(
// CHECK-SAME:    %[[H:[a-z0-9_]+]]: memref<?xi32, 1 : i32>
// CHECK-SAME:    hoist_checks.launch_condition = "[\22cmp\22, \22slt\22, [\22const\22, 255], [\22len\22, 0]]"
// CHECK:         %[[LEN:.*]] = memref.dim %[[H]]
// CHECK:         %[[N:.*]] = arith.index_cast %[[LEN]] : index to i64
// CHECK:         %[[P:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i64
// CHECK:         cf.cond_br %[[P]], ^[[FAST:.*]], ^[[CHECKED:[a-z0-9]+]]
// CHECK:       ^[[FAST]]:
// CHECK:         %[[T:.*]] = arith.constant true
// CHECK:         scf.if %[[T]] -> (i32) {
// CHECK:           "memref.atomic_rmw"
// CHECK:       ^[[CHECKED]]:
// CHECK:         %[[C:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK:         scf.if %[[C]] -> (i32) {
// CHECK:           "memref.atomic_rmw"
// CHECK:         } else {
// CHECK:           func.call @__wf_report_error

builtin.module {
  gpu.module @checked_atomic_module [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64) attributes {llvm.noinline, llvm.cold} {
      func.return
    }
    gpu.func @checked_atomic(%hist: memref<?xi32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %0 = gpu.thread_id x
      %t = arith.index_cast %0 : index to i64
      %c1 = arith.constant 1 : i32
      %c0 = arith.constant 0 : index
      %1 = memref.dim %hist, %c0 : memref<?xi32, 1 : i32>
      %2 = arith.index_cast %1 : index to i64
      %ok = arith.cmpi ult, %t, %2 : i64
      %3 = scf.if %ok -> (i32) {
        %4 = arith.index_cast %t : i64 to index
        %5 = "memref.atomic_rmw"(%c1, %hist, %4) <{kind = 1 : i64}> {syncscope = "device", ordering = "relaxed"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
        scf.yield %5 : i32
      } else {
        %6 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %6, %t, %2) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %7 = arith.constant 0 : i32
        scf.yield %7 : i32
      }
      gpu.return
    }
  }
}
