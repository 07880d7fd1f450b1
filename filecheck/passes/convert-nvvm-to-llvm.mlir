// RUN: warpforge-opt %s -p convert-nvvm-to-llvm --split-input-file | filecheck %s

// Each nvvm op becomes llvm.call_intrinsic of its catalog row's intrinsic: the row's immediates
// first (as llvm.mlir.constant), then the operands; result types unchanged.

// CHECK-LABEL: func.func @registers_and_barrier() -> (i32, i64) {
// CHECK-NEXT:    %[[TID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.y"() : () -> i32
// CHECK-NEXT:    %[[CLK:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clock64"() : () -> i64
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%[[ZERO]]) : (i32) -> ()
// CHECK-NEXT:    func.return %[[TID]], %[[CLK]] : i32, i64
func.func @registers_and_barrier() -> (i32, i64) {
  %t = nvvm.read.ptx.sreg.tid.y : i32
  %c = nvvm.read.ptx.sreg.clock64 : i64
  nvvm.barrier0
  func.return %t, %c : i32, i64
}

// -----

// CHECK-LABEL: func.func @warp(
// CHECK-SAME:    %[[MASK:[^:]*]]: i32, %[[X:[^:]*]]: f32, %[[OFF:[^:]*]]: i32, %[[P:[^:]*]]: i1)
// CHECK-NEXT:    %[[CLAMP:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT:    %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.f32"(%[[MASK]], %[[X]], %[[OFF]], %[[CLAMP]]) : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:    %[[B:.*]] = llvm.call_intrinsic "llvm.nvvm.vote.ballot.sync"(%[[MASK]], %[[P]]) : (i32, i1) -> i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.bar.warp.sync"(%[[MASK]]) : (i32) -> ()
// CHECK-NEXT:    %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.redux.sync.umax"(%[[B]], %[[MASK]]) : (i32, i32) -> i32
// CHECK-NEXT:    func.return %[[S]], %[[R]] : f32, i32
func.func @warp(%mask: i32, %x: f32, %off: i32, %p: i1) -> (f32, i32) {
  %clamp = llvm.mlir.constant(31 : i32) : i32
  %s = nvvm.shfl.sync.bfly.f32 %mask, %x, %off, %clamp : (i32, f32, i32, i32) -> f32
  %b = nvvm.vote.ballot.sync %mask, %p : (i32, i1) -> i32
  nvvm.bar.warp.sync %mask : i32
  %r = nvvm.redux.sync.umax %b, %mask : (i32, i32) -> i32
  func.return %s, %r : f32, i32
}

// -----

// nvvm.atomicrmw becomes inline PTX `atom{.sem}{.scope}{.space}.op.type` with a memory clobber;
// seq_cst is fence.sc then atom.acquire; relaxed omits .sem (PTX's default); floats travel as
// integers of their width.
// CHECK-LABEL: func.func @atomics(
// CHECK-SAME:    %[[G:[^:]*]]: !llvm.ptr<1>, %[[S:[^:]*]]: !llvm.ptr<3>, %[[A:[^:]*]]: i32, %[[L:[^:]*]]: i64, %[[F:[^:]*]]: f32, %[[H:[^:]*]]: f16)
// CHECK-NEXT:    %{{.*}} = llvm.inline_asm has_side_effects "atom.acq_rel.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[G]], %[[A]] : (!llvm.ptr<1>, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.inline_asm has_side_effects "fence.sc.cta; atom.acquire.cta.shared.max.s64 $0, [$1], $2;", "=l,l,l,~{memory}" %[[S]], %[[L]] : (!llvm.ptr<3>, i64) -> i64
// CHECK-NEXT:    %[[FI:.*]] = llvm.bitcast %[[F]] : f32 to i32
// CHECK-NEXT:    %[[FO:.*]] = llvm.inline_asm has_side_effects "atom.sys.global.exch.b32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[G]], %[[FI]] : (!llvm.ptr<1>, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.bitcast %[[FO]] : i32 to f32
// CHECK-NEXT:    %[[HI:.*]] = llvm.bitcast %[[H]] : f16 to i16
// CHECK-NEXT:    %[[HO:.*]] = llvm.inline_asm has_side_effects "atom.release.gpu.global.add.noftz.f16 $0, [$1], $2;", "=h,l,h,~{memory}" %[[G]], %[[HI]] : (!llvm.ptr<1>, i16) -> i16
// CHECK-NEXT:    %{{.*}} = llvm.bitcast %[[HO]] : i16 to f16
func.func @atomics(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %a: i32, %l: i64, %f: f32, %h: f16) -> (i32, i64, f32, f16) {
  %0 = nvvm.atomicrmw add %g, %a {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32
  %1 = nvvm.atomicrmw max %s, %l {sem = "seq_cst", scope = "cta"} : !llvm.ptr<3>, i64
  %2 = nvvm.atomicrmw xchg %g, %f {sem = "relaxed", scope = "sys"} : !llvm.ptr<1>, f32
  %3 = nvvm.atomicrmw fadd %g, %h {sem = "release", scope = "gpu"} : !llvm.ptr<1>, f16
  func.return %0, %1, %2, %3 : i32, i64, f32, f16
}

// -----

// Tensor-core rows: the mma.sync intrinsic is named by the catalog's MMA_SHAPES row (f16 inputs:
// by the D and C types); several results come back as a literal struct.

// CHECK-LABEL: func.func @mma_bf16(
// CHECK-SAME:    %[[A:[^:]*]]: i32, %[[C:[^:]*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"(%[[A]], %[[A]], %[[A]], %[[A]], %[[A]], %[[A]], %[[C]], %[[C]], %[[C]], %[[C]]) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:    %[[D0:.*]] = llvm.extractvalue %[[S]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:    %[[D3:.*]] = llvm.extractvalue %[[S]][3] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:    func.return %[[D0]], %[[D3]] : f32, f32
func.func @mma_bf16(%a: i32, %c: f32) -> (f32, f32) {
  %d:4 = nvvm.mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 %a, %a, %a, %a, %a, %a, %c, %c, %c, %c : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0, %d#3 : f32, f32
}

// -----

// ldmatrix, cp.async with zero-fill, and wait_group's count (an op property) as the immediate.

// CHECK-LABEL: func.func @async_copy(
// CHECK-SAME:    %[[S:[^:]*]]: !llvm.ptr<3>, %[[G:[^:]*]]: !llvm.ptr<1>, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16"(%[[S]]) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK-NEXT:    %[[L0:.*]] = llvm.extractvalue %[[L]][0]
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.cp.async.cg.shared.global.16.s"(%[[S]], %[[G]], %[[N]]) : (!llvm.ptr<3>, !llvm.ptr<1>, i32) -> ()
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.cp.async.commit.group"() : () -> ()
// CHECK-NEXT:    %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call_intrinsic "llvm.nvvm.cp.async.wait.group"(%[[TWO]]) : (i32) -> ()
// CHECK-NEXT:    func.return %[[L0]] : i32
func.func @async_copy(%s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %n: i32) -> i32 {
  %r:2 = nvvm.ldmatrix.x2.trans.b16 %s : (!llvm.ptr<3>) -> (i32, i32)
  nvvm.cp.async.cg.shared.global.16.s %s, %g, %n : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.commit.group
  nvvm.cp.async.wait.group 2
  func.return %r#0 : i32
}
