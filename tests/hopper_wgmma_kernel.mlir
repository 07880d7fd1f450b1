// One m64n8k16 f16 -> f32 wgmma by one warpgroup, used by tests/test_hopper_wgmma.py (GPU).
// A (64x16, row-major in %a) and B^T (8x16, i.e. B column-major, in %bt) are copied into shared
// memory in the no-swizzle K-major core-matrix layout (PTX ISA §9.7.15.5.1: 8 rows x 16 bytes per
// core matrix; LBO = 128 bytes between the two core matrices along K, SBO = 256 bytes between
// 8-row groups); D (64x8 f32) is stored row-major to %d from the accumulator fragment
// (thread t: warp w = t/32, lane l = t%32; register i holds row 16w + l/4 + 8(i/2), column 2(l%4) + i%2).
gpu.module @wgmma [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.mlir.global internal @sa() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<1024 x f16>
  llvm.mlir.global internal @sb() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<128 x f16>
  llvm.func @wgmma_m64n8k16(%a: !llvm.ptr<1>, %bt: !llvm.ptr<1>, %d: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %sa = llvm.mlir.addressof @sa : !llvm.ptr<3>
    %sb = llvm.mlir.addressof @sb : !llvm.ptr<3>
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c4 = llvm.mlir.constant(4 : i32) : i32
    %c8 = llvm.mlir.constant(8 : i32) : i32
    %c16 = llvm.mlir.constant(16 : i32) : i32
    %c32 = llvm.mlir.constant(32 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c1024 = llvm.mlir.constant(1024 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    llvm.br ^a_loop(%tid : i32)
  ^a_loop(%e: i32):
    %more = llvm.icmp "slt" %e, %c1024 : i32
    llvm.cond_br %more, ^a_body, ^b_copy
  ^a_body:
    %m = llvm.sdiv %e, %c16 : i32
    %k = llvm.srem %e, %c16 : i32
    %mg = llvm.sdiv %m, %c8 : i32
    %mr = llvm.srem %m, %c8 : i32
    %kg = llvm.sdiv %k, %c8 : i32
    %kc = llvm.srem %k, %c8 : i32
    %t0 = llvm.mul %mg, %c2 : i32
    %t1 = llvm.add %t0, %kg : i32
    %t2 = llvm.mul %t1, %c8 : i32
    %t3 = llvm.add %t2, %mr : i32
    %t4 = llvm.mul %t3, %c8 : i32
    %si = llvm.add %t4, %kc : i32
    %e64 = llvm.sext %e : i32 to i64
    %si64 = llvm.sext %si : i32 to i64
    %ga = llvm.getelementptr %a[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
    %va = llvm.load %ga : !llvm.ptr<1> -> f16
    %pa = llvm.getelementptr %sa[%si64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
    llvm.store %va, %pa : f16, !llvm.ptr<3>
    %en = llvm.add %e, %c128 : i32
    llvm.br ^a_loop(%en : i32)
  ^b_copy:
    %n = llvm.sdiv %tid, %c16 : i32
    %bk = llvm.srem %tid, %c16 : i32
    %bkg = llvm.sdiv %bk, %c8 : i32
    %bkc = llvm.srem %bk, %c8 : i32
    %u0 = llvm.mul %bkg, %c8 : i32
    %u1 = llvm.add %u0, %n : i32
    %u2 = llvm.mul %u1, %c8 : i32
    %bi = llvm.add %u2, %bkc : i32
    %tid64 = llvm.sext %tid : i32 to i64
    %bi64 = llvm.sext %bi : i32 to i64
    %gb = llvm.getelementptr %bt[%tid64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
    %vb = llvm.load %gb : !llvm.ptr<1> -> f16
    %pb = llvm.getelementptr %sb[%bi64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
    llvm.store %vb, %pb : f16, !llvm.ptr<3>
    // generic-proxy writes, then async-proxy (wgmma) reads: proxy fence, then the block barrier
    nvvm.fence.proxy.async.shared.cta
    nvvm.barrier0
    %mask = llvm.mlir.constant(262143 : i64) : i64
    %c4_64 = llvm.mlir.constant(4 : i64) : i64
    %lbo = llvm.mlir.constant(524288 : i64) : i64
    %sbo = llvm.mlir.constant(68719476736 : i64) : i64
    %sa_i = llvm.ptrtoint %sa : !llvm.ptr<3> to i64
    %sa_m = llvm.and %sa_i, %mask : i64
    %sa_s = llvm.lshr %sa_m, %c4_64 : i64
    %da0 = llvm.or %sa_s, %lbo : i64
    %da = llvm.or %da0, %sbo : i64
    %sb_i = llvm.ptrtoint %sb : !llvm.ptr<3> to i64
    %sb_m = llvm.and %sb_i, %mask : i64
    %sb_s = llvm.lshr %sb_m, %c4_64 : i64
    %db0 = llvm.or %sb_s, %lbo : i64
    %db = llvm.or %db0, %sbo : i64
    %z = llvm.mlir.constant(0.0 : f32) : f32
    %false = llvm.mlir.constant(false) : i1
    nvvm.wgmma.fence.aligned
    %acc:4 = nvvm.wgmma.mma_async %da, %db, %false, (%z, %z, %z, %z) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %ready:4 = nvvm.wgmma.wait_accumulators %acc#0, %acc#1, %acc#2, %acc#3 {n = 0 : i64} : f32, f32, f32, f32 -> f32, f32, f32, f32
    %w = llvm.sdiv %tid, %c32 : i32
    %l = llvm.srem %tid, %c32 : i32
    %w16 = llvm.mul %w, %c16 : i32
    %g = llvm.sdiv %l, %c4 : i32
    %q = llvm.srem %l, %c4 : i32
    %row0 = llvm.add %w16, %g : i32
    %row1 = llvm.add %row0, %c8 : i32
    %col0 = llvm.mul %q, %c2 : i32
    %o00 = llvm.mul %row0, %c8 : i32
    %i00 = llvm.add %o00, %col0 : i32
    %o10 = llvm.mul %row1, %c8 : i32
    %i10 = llvm.add %o10, %col0 : i32
    %i00_64 = llvm.sext %i00 : i32 to i64
    %i10_64 = llvm.sext %i10 : i32 to i64
    %p0 = llvm.getelementptr %d[%i00_64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %d[%i10_64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p2[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %ready#0, %p0 : f32, !llvm.ptr<1>
    llvm.store %ready#1, %p1 : f32, !llvm.ptr<1>
    llvm.store %ready#2, %p2 : f32, !llvm.ptr<1>
    llvm.store %ready#3, %p3 : f32, !llvm.ptr<1>
    llvm.return
  }
}
