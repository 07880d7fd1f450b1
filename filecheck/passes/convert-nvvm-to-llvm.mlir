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
