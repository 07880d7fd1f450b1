// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Operand and result types come from the catalog row.

// CHECK: operand 'val' at position 1 does not verify:
// CHECK-NEXT: Expected attribute i32 but got i64
func.func @shfl_wrong_value_type(%m: i32, %x: i64, %o: i32, %c: i32) -> i64 {
  %r = "nvvm.shfl.sync.bfly.i32"(%m, %x, %o, %c) : (i32, i64, i32, i32) -> i64
  func.return %r : i64
}

// -----

// CHECK: result 'res' at position 0 does not verify:
// CHECK-NEXT: Expected attribute i32 but got i64
func.func @sreg_wrong_result() -> i64 {
  %r = "nvvm.read.ptx.sreg.tid.x"() : () -> i64
  func.return %r : i64
}

// -----

// CHECK: Expected 2 operands, but got 1
func.func @redux_missing_mask(%x: i32) -> i32 {
  %r = "nvvm.redux.sync.add"(%x) : (i32) -> i32
  func.return %r : i32
}

// -----

// CHECK: Operation nvvm.not_an_op is not registered
func.func @unknown() {
  "nvvm.not_an_op"() : () -> ()
  func.return
}

// -----

// CHECK: #nvvm.target: unknown chip 'gfx90a' (an AMD GPU: warpforge compiles for NVIDIA GPUs only): expected one of sm_20,
gpu.module @amd [#nvvm.target<chip = "gfx90a">] {
}

// -----

// CHECK: #nvvm.target: unknown chip 'sm_999': expected one of
gpu.module @no_such_chip [#nvvm.target<chip = "sm_999">] {
}

// -----

// CHECK: #nvvm.target: malformed features 'ptx80' (a feature starts with '+'): expected a PTX ISA version such as '+ptx80'
gpu.module @bad_features [#nvvm.target<chip = "sm_90", features = "ptx80">] {
}

// -----

// CHECK: #nvvm.target: malformed features '+ptx80,+ptx86': expected a PTX ISA version such as '+ptx80'
gpu.module @two_versions [#nvvm.target<chip = "sm_90", features = "+ptx80,+ptx86">] {
}

// -----

// CHECK: unknown #nvvm.target parameter 'arch' (expected chip, features or O)
gpu.module @bad_key [#nvvm.target<arch = "sm_90">] {
}

// -----

// nvvm.atomicrmw: an operation and type PTX's atom has, a known sem and scope.

// CHECK: PTX has no atom 'fmaximum' on f32
func.func @atomicrmw_no_float_max(%p: !llvm.ptr<1>, %x: f32) -> f32 {
  %r = nvvm.atomicrmw fmaximum %p, %x {sem = "acquire", scope = "gpu"} : !llvm.ptr<1>, f32
  func.return %r : f32
}

// -----

// CHECK: PTX has no atom 'and' on f32
func.func @atomicrmw_float_and(%p: !llvm.ptr<1>, %x: f32) -> f32 {
  %r = nvvm.atomicrmw and %p, %x {sem = "acquire", scope = "gpu"} : !llvm.ptr<1>, f32
  func.return %r : f32
}

// -----

// CHECK: unknown sem 'consume', expected one of relaxed, acquire, release, acq_rel, seq_cst
func.func @atomicrmw_sem(%p: !llvm.ptr<1>, %x: i32) -> i32 {
  %r = nvvm.atomicrmw add %p, %x {sem = "consume", scope = "gpu"} : !llvm.ptr<1>, i32
  func.return %r : i32
}

// -----

// CHECK: unknown scope 'warp', expected one of cta, cluster, gpu, sys
func.func @atomicrmw_scope(%p: !llvm.ptr<1>, %x: i32) -> i32 {
  %r = nvvm.atomicrmw add %p, %x {sem = "relaxed", scope = "warp"} : !llvm.ptr<1>, i32
  func.return %r : i32
}

// -----

// CHECK: atom works on global (1), shared (3) or generic (0) pointers, got !llvm.ptr<5>
func.func @atomicrmw_local(%p: !llvm.ptr<5>, %x: i32) -> i32 {
  %r = nvvm.atomicrmw add %p, %x {sem = "relaxed", scope = "sys"} : !llvm.ptr<5>, i32
  func.return %r : i32
}
