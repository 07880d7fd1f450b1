// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// The Hopper rows of the nvvm catalog (mbarrier, TMA, bulk groups, proxy fences, wgmma fence/
// commit/wait, elect.sync, setmaxnreg, named barriers) and nvvm.wgmma.mma_async, round-tripped in
// custom and generic form.

// CHECK-LABEL: func.func @mbarrier(
// CHECK-SAME:    %[[BAR:.*]]: !llvm.ptr<3>, %[[N:.*]]: i32)
// CHECK-NEXT:  nvvm.mbarrier.init.shared %[[BAR]], %[[N]] : !llvm.ptr<3>, i32
// CHECK-NEXT:  %[[T0:.*]] = nvvm.mbarrier.arrive.shared %[[BAR]] : (!llvm.ptr<3>) -> i64
// CHECK-NEXT:  %[[T1:.*]] = nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[N]] : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT:  %[[W:.*]] = nvvm.mbarrier.try_wait.parity %[[BAR]], %[[N]] : (!llvm.ptr<3>, i32) -> i1
// CHECK-NEXT:  func.return %[[T0]], %[[T1]], %[[W]] : i64, i64, i1
func.func @mbarrier(%bar: !llvm.ptr<3>, %n: i32) -> (i64, i64, i1) {
  nvvm.mbarrier.init.shared %bar, %n : !llvm.ptr<3>, i32
  %t0 = nvvm.mbarrier.arrive.shared %bar : (!llvm.ptr<3>) -> i64
  %t1 = nvvm.mbarrier.arrive.expect_tx %bar, %n : (!llvm.ptr<3>, i32) -> i64
  %w = nvvm.mbarrier.try_wait.parity %bar, %n : (!llvm.ptr<3>, i32) -> i1
  func.return %t0, %t1, %w : i64, i64, i1
}

// CHECK-LABEL: func.func @tma(
// CHECK-SAME:    %[[DST:.*]]: !llvm.ptr<3>, %[[BAR:.*]]: !llvm.ptr<3>, %[[TMAP:.*]]: !llvm.ptr, %[[X:.*]]: i32)
// CHECK-NEXT:  nvvm.prefetch.tensormap %[[TMAP]] : !llvm.ptr
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.shared.cluster.global.1d %[[DST]], %[[BAR]], %[[TMAP]], %[[X]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %[[DST]], %[[BAR]], %[[TMAP]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.shared.cluster.global.3d %[[DST]], %[[BAR]], %[[TMAP]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.shared.cluster.global.4d %[[DST]], %[[BAR]], %[[TMAP]], %[[X]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.shared.cluster.global.5d %[[DST]], %[[BAR]], %[[TMAP]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32, i32
// CHECK-NEXT:  nvvm.fence.proxy.async.shared.cta
// CHECK-NEXT:  nvvm.fence.proxy.async
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.global.shared.cta.1d %[[DST]], %[[TMAP]], %[[X]] : !llvm.ptr<3>, !llvm.ptr, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.global.shared.cta.2d %[[DST]], %[[TMAP]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.global.shared.cta.3d %[[DST]], %[[TMAP]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.global.shared.cta.4d %[[DST]], %[[TMAP]], %[[X]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.tensor.global.shared.cta.5d %[[DST]], %[[TMAP]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:  nvvm.cp.async.bulk.wait_group 1
// CHECK-NEXT:  nvvm.cp.async.bulk.wait_group.read 0
func.func @tma(%dst: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %tmap: !llvm.ptr, %x: i32) {
  nvvm.prefetch.tensormap %tmap : !llvm.ptr
  nvvm.cp.async.bulk.tensor.shared.cluster.global.1d %dst, %bar, %tmap, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %dst, %bar, %tmap, %x, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global.3d %dst, %bar, %tmap, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global.4d %dst, %bar, %tmap, %x, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32
  nvvm.cp.async.bulk.tensor.shared.cluster.global.5d %dst, %bar, %tmap, %x, %x, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32, i32
  nvvm.fence.proxy.async.shared.cta
  nvvm.fence.proxy.async
  nvvm.cp.async.bulk.tensor.global.shared.cta.1d %dst, %tmap, %x : !llvm.ptr<3>, !llvm.ptr, i32
  nvvm.cp.async.bulk.tensor.global.shared.cta.2d %dst, %tmap, %x, %x : !llvm.ptr<3>, !llvm.ptr, i32, i32
  nvvm.cp.async.bulk.tensor.global.shared.cta.3d %dst, %tmap, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32
  nvvm.cp.async.bulk.tensor.global.shared.cta.4d %dst, %tmap, %x, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32
  nvvm.cp.async.bulk.tensor.global.shared.cta.5d %dst, %tmap, %x, %x, %x, %x, %x : !llvm.ptr<3>, !llvm.ptr, i32, i32, i32, i32, i32
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group 1
  nvvm.cp.async.bulk.wait_group.read 0
  func.return
}

// CHECK-LABEL: func.func @warpgroup(
// CHECK-SAME:    %[[DA:.*]]: i64, %[[DB:.*]]: i64, %[[P:.*]]: i1, %[[C:.*]]: f32, %[[M:.*]]: i32)
// CHECK-NEXT:  %[[L:.*]], %[[E:.*]] = nvvm.elect.sync %[[M]] : (i32) -> (i32, i1)
// CHECK-NEXT:  nvvm.setmaxnreg.inc 232
// CHECK-NEXT:  nvvm.setmaxnreg.dec 40
// CHECK-NEXT:  nvvm.barrier %[[M]], %[[M]] : i32, i32
// CHECK-NEXT:  nvvm.barrier.arrive %[[M]], %[[M]] : i32, i32
// CHECK-NEXT:  nvvm.wgmma.fence.aligned
// CHECK-NEXT:  %[[D:.*]], %{{.*}}, %{{.*}}, %{{.*}} = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[P]], (%[[C]], %[[C]], %[[C]], %[[C]]) {n = 8 : i32, type = "bf16", layout_a = "row", layout_b = "row", scale_a = 1 : i32, scale_b = -1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT:  nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:  %[[R:.*]] = nvvm.wgmma.wait_accumulators %[[D]] {n = 0 : i64} : f32 -> f32
// CHECK-NEXT:  func.return %[[R]], %[[L]], %[[E]] : f32, i32, i1
func.func @warpgroup(%da: i64, %db: i64, %p: i1, %c: f32, %m: i32) -> (f32, i32, i1) {
  %lane, %leader = nvvm.elect.sync %m : (i32) -> (i32, i1)
  nvvm.setmaxnreg.inc 232
  nvvm.setmaxnreg.dec 40
  nvvm.barrier %m, %m : i32, i32
  nvvm.barrier.arrive %m, %m : i32, i32
  nvvm.wgmma.fence.aligned
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "bf16", layout_a = "row", layout_b = "row", scale_a = 1 : i32, scale_b = -1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %r = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
  func.return %r, %lane, %leader : f32, i32, i1
}

// The accumulator rule accepts a loop that chains wgmmas through iter_args, waits with depth 1
// inside the loop, and reads the loop results only through a wait_accumulators {n = 0}; one with
// n = 1 passes the values on still in flight (the final wait reads them).
// CHECK-LABEL: func.func @pipelined(
// CHECK:         scf.for
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:         %[[H0:.*]], %[[H1:.*]] = nvvm.wgmma.wait_accumulators %{{.*}}, %{{.*}} {n = 1 : i64} : f32, f32 -> f32, f32
// CHECK-NEXT:    %[[W0:.*]], %[[W1:.*]] = nvvm.wgmma.wait_accumulators %[[H0]], %[[H1]] {n = 0 : i64} : f32, f32 -> f32, f32
// CHECK-NEXT:    %{{.*}} = arith.addf %[[W0]], %[[W1]]
func.func @pipelined(%da: i64, %db: i64, %p: i1, %c: f32, %lb: index, %ub: index, %st: index) -> f32 {
  %r:4 = scf.for %i = %lb to %ub step %st iter_args(%a0 = %c, %a1 = %c, %a2 = %c, %a3 = %c) -> (f32, f32, f32, f32) {
    nvvm.wgmma.fence.aligned
    %e:4 = nvvm.wgmma.mma_async %da, %db, %p, (%a0, %a1, %a2, %a3) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 1
    scf.yield %e#0, %e#1, %e#2, %e#3 : f32, f32, f32, f32
  }
  %h:2 = nvvm.wgmma.wait_accumulators %r#0, %r#3 {n = 1 : i64} : f32, f32 -> f32, f32
  %w:2 = nvvm.wgmma.wait_accumulators %h#0, %h#1 {n = 0 : i64} : f32, f32 -> f32, f32
  %s = arith.addf %w#0, %w#1 : f32
  func.return %s : f32
}

// wgmma with A from registers: four i32 (f16x2) per thread, B by descriptor.
// CHECK-LABEL: func.func @wgmma_reg_a(
// CHECK-SAME:    %[[A:.*]]: i32, %[[DB:.*]]: i64, %[[P:.*]]: i1, %[[C:.*]]: f32)
// CHECK-NEXT:  %[[D:.*]], %{{.*}}, %{{.*}}, %{{.*}} = nvvm.wgmma.mma_async.reg_a(%[[A]], %[[A]], %[[A]], %[[A]]), %[[DB]], %[[P]], (%[[C]], %[[C]], %[[C]], %[[C]]) {n = 8 : i32, type = "f16", layout_b = "row", scale_a = 1 : i32, scale_b = -1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
// CHECK-NEXT:  nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:  %[[R:.*]] = nvvm.wgmma.wait_accumulators %[[D]] {n = 0 : i64} : f32 -> f32
// CHECK-NEXT:  func.return %[[R]] : f32
func.func @wgmma_reg_a(%a: i32, %db: i64, %p: i1, %c: f32) -> f32 {
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "row", scale_a = 1 : i32, scale_b = -1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %r = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
  func.return %r : f32
}

// Two f32 rounded into one f16x2 / bf16x2 register (hi, lo: PTX's operand order).
// CHECK-LABEL: func.func @cvt_x2(
// CHECK-SAME:    %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NEXT:  %[[H:.*]] = nvvm.cvt.rn.x2.f32 %[[A]], %[[B]] {type = "f16"} : f32, f32 -> i32
// CHECK-NEXT:  %[[G:.*]] = nvvm.cvt.rn.x2.f32 %[[B]], %[[A]] {type = "bf16"} : f32, f32 -> i32
// CHECK-NEXT:  func.return %[[H]], %[[G]] : i32, i32
func.func @cvt_x2(%a: f32, %b: f32) -> (i32, i32) {
  %h = nvvm.cvt.rn.x2.f32 %a, %b {type = "f16"} : f32, f32 -> i32
  %g = nvvm.cvt.rn.x2.f32 %b, %a {type = "bf16"} : f32, f32 -> i32
  func.return %h, %g : i32, i32
}

// The accumulator rule follows llvm.br / llvm.cond_br like their cf forms (hand-written LLVM-dialect
// kernels use them): carried into a block, read through wait_accumulators there.
// CHECK-LABEL: func.func @through_llvm_branches(
// CHECK:         llvm.cond_br %{{.*}}, ^{{.*}}(%{{.*}} : f32), ^{{.*}}(%{{.*}} : f32)
// CHECK:         nvvm.wgmma.wait_accumulators
func.func @through_llvm_branches(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  llvm.cond_br %p, ^a(%d#0 : f32), ^b(%d#1 : f32)
^a(%x: f32):
  llvm.br ^b(%x : f32)
^b(%y: f32):
  %r = nvvm.wgmma.wait_accumulators %y {n = 0 : i64} : f32 -> f32
  func.return %r : f32
}
