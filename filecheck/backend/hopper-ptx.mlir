// RUN: warpforge-opt %s -p check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts -t ptx > %t.ptx && filecheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90a -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas

// The Hopper instructions from nvvm ops through convert-nvvm-to-llvm, the exporter and NVPTX for
// sm_90a, then ptxas: an mbarrier with a TMA 2-D load announced by expect_tx and waited for by
// parity, a TMA store with its bulk group, proxy fences, elect.sync, named barriers, setmaxnreg and
// an m64n8k16 wgmma (inline PTX) between its fence, commit and wait, then one with A from registers
// (a cvt.rn.bf16x2.f32 of the first's result) accumulating onto it. The TMA descriptor is a 128-byte __grid_constant__ parameter (byval, align 64).

// CHECK:       .target sm_90a
// CHECK-LABEL: .visible .entry k(
// CHECK-NEXT:  .param .align 64 .b8 k_param_0[128],
// CHECK:       mbarrier.init.shared.b64 [bar], %r{{[0-9]+}};
// CHECK:       fence.proxy.async.shared::cta;
// CHECK:       elect.sync %r{{[0-9]+}}|%p{{[0-9]+}}, -1;
// CHECK:       mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [bar], %r{{[0-9]+}};
// CHECK:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd[[TMAP:[0-9]+]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [bar];
// CHECK:       mbarrier.try_wait.parity.shared.b64 %p{{[0-9]+}}, [bar], %r{{[0-9]+}};
// CHECK:       wgmma.fence.sync.aligned;
// CHECK:       wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK:       cvt.rn.bf16x2.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK:       wgmma.fence.sync.aligned;
// CHECK:       wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK:       cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd[[TMAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [buf];
// CHECK:       cp.async.bulk.commit_group;
// CHECK:       cp.async.bulk.wait_group.read 0;
// CHECK:       bar.sync 1, 128;
// CHECK:       bar.arrive 2, 64;
// CHECK:       setmaxnreg.dec.sync.aligned.u32 40;
gpu.module @m [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x i8>
  llvm.func @k(%tmap: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}, %out: !llvm.ptr<1>, %x: i32, %da: i64, %db: i64) attributes {nvvm.kernel} {
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %buf = llvm.mlir.addressof @buf : !llvm.ptr<3>
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %all = llvm.mlir.constant(-1 : i32) : i32
    %bytes = llvm.mlir.constant(1024 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    nvvm.mbarrier.init.shared %bar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.proxy.async.shared.cta
    %lane, %leader = nvvm.elect.sync %all : (i32) -> (i32, i1)
    %tok = nvvm.mbarrier.arrive.expect_tx %bar, %bytes : (!llvm.ptr<3>, i32) -> i64
    nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %buf, %bar, %tmap, %x, %c0 : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
    %done = nvvm.mbarrier.try_wait.parity %bar, %c0 : (!llvm.ptr<3>, i32) -> i1
    %z = llvm.mlir.constant(0.0 : f32) : f32
    %false = llvm.mlir.constant(false) : i1
    nvvm.wgmma.fence.aligned
    %d:4 = nvvm.wgmma.mma_async %da, %db, %false, (%z, %z, %z, %z) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %ready:2 = nvvm.wgmma.wait_accumulators %d#0, %d#3 {n = 0 : i64} : f32, f32 -> f32, f32
    %ai = nvvm.cvt.rn.x2.f32 %ready#0, %ready#1 {type = "bf16"} : f32, f32 -> i32
    nvvm.wgmma.fence.aligned
    %e:4 = nvvm.wgmma.mma_async.reg_a(%ai, %x, %ai, %x), %db, %false, (%d#0, %d#1, %d#2, %d#3) {n = 8 : i32, type = "bf16", layout_b = "row", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %fin:2 = nvvm.wgmma.wait_accumulators %e#0, %e#3 {n = 0 : i64} : f32, f32 -> f32, f32
    %sum = llvm.fadd %fin#0, %fin#1 : f32
    llvm.store %sum, %out : f32, !llvm.ptr<1>
    nvvm.cp.async.bulk.tensor.global.shared.cta.2d %buf, %tmap, %x, %c0 : !llvm.ptr<3>, !llvm.ptr, i32, i32
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group.read 0
    nvvm.barrier %c1, %c128 : i32, i32
    nvvm.barrier.arrive %c2, %c64 : i32, i32
    nvvm.setmaxnreg.dec 40
    %s = llvm.fadd %ready#0, %ready#1 : f32
    %w = llvm.zext %done : i1 to i32
    %l = llvm.zext %leader : i1 to i32
    %wf = llvm.uitofp %w : i32 to f32
    %lf = llvm.uitofp %l : i32 to f32
    %t1 = llvm.fadd %s, %wf : f32
    %t2 = llvm.fadd %t1, %lf : f32
    llvm.store %t2, %out : f32, !llvm.ptr<1>
    %tokp = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i64
    llvm.store %tok, %tokp : i64, !llvm.ptr<1>
    llvm.return
  }
}
