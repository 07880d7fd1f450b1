// A TMA round trip used by tests/test_hopper_tma.py (GPU): block (bx, by) loads the 32x64 f16 box at
// rows 32*by, columns 64*bx of the tensor of descriptor %src into shared memory (mbarrier: one
// arrival + 4096 transaction bytes, waited for by parity 0), every thread copies the box to %out
// with plain stores, then thread 0 stores the box back through the descriptor %dst (TMA store).
// The descriptors use the 128-byte swizzle, so the shared copy is swizzled (16-byte chunk j of box
// row r sits at chunk j ^ (r % 8); the box is 1024-byte aligned so the pattern starts at row 0):
// %out receives that swizzled image, the TMA store undoes it.
gpu.module @tma [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.mlir.global internal @box() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x f16>
  llvm.func @tma_roundtrip(%src: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
                           %dst: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant},
                           %out: !llvm.ptr<1>, %ncols: i32) attributes {nvvm.kernel} {
    %bar = llvm.mlir.addressof @bar : !llvm.ptr<3>
    %box = llvm.mlir.addressof @box : !llvm.ptr<3>
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c32 = llvm.mlir.constant(32 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %c128 = llvm.mlir.constant(128 : i32) : i32
    %c2048 = llvm.mlir.constant(2048 : i32) : i32
    %bytes = llvm.mlir.constant(4096 : i32) : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %bx = nvvm.read.ptx.sreg.ctaid.x : i32
    %by = nvvm.read.ptx.sreg.ctaid.y : i32
    %x = llvm.mul %bx, %c64 : i32
    %y = llvm.mul %by, %c32 : i32
    %leader = llvm.icmp "eq" %tid, %c0 : i32
    llvm.cond_br %leader, ^init, ^synced
  ^init:
    nvvm.mbarrier.init.shared %bar, %c1 : !llvm.ptr<3>, i32
    nvvm.fence.proxy.async.shared.cta
    llvm.br ^synced
  ^synced:
    nvvm.barrier0
    llvm.cond_br %leader, ^issue, ^wait
  ^issue:
    %tok = nvvm.mbarrier.arrive.expect_tx %bar, %bytes : (!llvm.ptr<3>, i32) -> i64
    nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %box, %bar, %src, %x, %y : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
    llvm.br ^wait
  ^wait:
    %done = nvvm.mbarrier.try_wait.parity %bar, %c0 : (!llvm.ptr<3>, i32) -> i1
    llvm.cond_br %done, ^copy(%tid : i32), ^wait
  ^copy(%i: i32):
    %more = llvm.icmp "slt" %i, %c2048 : i32
    llvm.cond_br %more, ^body, ^store
  ^body:
    %r = llvm.sdiv %i, %c64 : i32
    %c = llvm.srem %i, %c64 : i32
    %row = llvm.add %y, %r : i32
    %col = llvm.add %x, %c : i32
    %rowoff = llvm.mul %row, %ncols : i32
    %g = llvm.add %rowoff, %col : i32
    %g64 = llvm.sext %g : i32 to i64
    %i64 = llvm.sext %i : i32 to i64
    %sp = llvm.getelementptr %box[%i64] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
    %v = llvm.load %sp : !llvm.ptr<3> -> f16
    %gp = llvm.getelementptr %out[%g64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
    llvm.store %v, %gp : f16, !llvm.ptr<1>
    %next = llvm.add %i, %c128 : i32
    llvm.br ^copy(%next : i32)
  ^store:
    llvm.cond_br %leader, ^tma_store, ^exit
  ^tma_store:
    nvvm.cp.async.bulk.tensor.global.shared.cta.2d %box, %dst, %x, %y : !llvm.ptr<3>, !llvm.ptr, i32, i32
    nvvm.cp.async.bulk.commit.group
    nvvm.cp.async.bulk.wait_group 0
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
