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

// CHECK: operation 'nvvm.not_an_op' is not registered
func.func @unknown() {
  "nvvm.not_an_op"() : () -> ()
  func.return
}

// -----

// CHECK: #nvvm.target chip must be an sm_XX name, got 'gfx90a'
gpu.module @amd [#nvvm.target<chip = "gfx90a">] {
}

// -----

// CHECK: #nvvm.target features must name a PTX version like '+ptx80', got 'ptx80'
gpu.module @bad_features [#nvvm.target<chip = "sm_90", features = "ptx80">] {
}

// -----

// CHECK: unknown #nvvm.target parameter 'arch' (expected chip, features or O)
gpu.module @bad_key [#nvvm.target<arch = "sm_90">] {
}
