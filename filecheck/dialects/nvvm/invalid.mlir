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

// -----

// mma.sync operand types come from the MMA_SHAPES row: f16 inputs are vector<2xf16> registers.
// CHECK: operand 'a0' at position 0 does not verify:
// CHECK-NEXT: Expected attribute vector<2xf16> but got i32
func.func @mma_f16_as_i32(%i: i32, %h: vector<2xf16>, %x: f32) -> f32 {
  %d:4 = "nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32"(%i, %h, %h, %h, %h, %h, %x, %x, %x, %x) : (i32, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0 : f32
}

// -----

// ldmatrix reads shared memory: a global pointer is refused.
// CHECK: operand 'ptr' at position 0 does not verify:
// CHECK-NEXT: Expected attribute !llvm.ptr<3> but got !llvm.ptr<1>
func.func @ldmatrix_global(%p: !llvm.ptr<1>) -> i32 {
  %r = "nvvm.ldmatrix.x1.b16"(%p) : (!llvm.ptr<1>) -> i32
  func.return %r : i32
}
