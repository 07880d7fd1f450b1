// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

// Operand and result types come from the catalog row.

func.func @shfl_wrong_value_type(%m: i32, %x: i64, %o: i32, %c: i32) -> i64 {
  // expected-error @+1 {{operand 'val' at position 1 does not verify:}}
  %r = "nvvm.shfl.sync.bfly.i32"(%m, %x, %o, %c) : (i32, i64, i32, i32) -> i64
  func.return %r : i64
}

// -----

func.func @sreg_wrong_result() -> i64 {
  // expected-error @+1 {{result 'res' at position 0 does not verify:}}
  %r = "nvvm.read.ptx.sreg.tid.x"() : () -> i64
  func.return %r : i64
}

// -----

func.func @redux_missing_mask(%x: i32) -> i32 {
  // expected-error @+1 {{Expected 2 operands, but got 1}}
  %r = "nvvm.redux.sync.add"(%x) : (i32) -> i32
  func.return %r : i32
}

// -----

func.func @unknown() {
  // expected-error @+1 {{operation 'nvvm.not_an_op' is not registered}}
  "nvvm.not_an_op"() : () -> ()
  func.return
}

// -----

// expected-error @+1 {{#nvvm.target chip must be an sm_XX name, got 'gfx90a'}}
gpu.module @amd [#nvvm.target<chip = "gfx90a">] {
}

// -----

// expected-error @+1 {{#nvvm.target features must name a PTX version like '+ptx80', got 'ptx80'}}
gpu.module @bad_features [#nvvm.target<chip = "sm_90", features = "ptx80">] {
}

// -----

// expected-error @+1 {{unknown #nvvm.target parameter 'arch' (expected chip, features or O)}}
gpu.module @bad_key [#nvvm.target<arch = "sm_90">] {
}
