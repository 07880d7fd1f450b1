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

// expected-error @+1 {{unknown chip 'gfx90a' (an AMD GPU: warpforge compiles for NVIDIA GPUs only)}}
gpu.module @amd [#nvvm.target<chip = "gfx90a">] {
}

// -----

// expected-error @+1 {{unknown chip 'sm_999'}}
gpu.module @no_such_chip [#nvvm.target<chip = "sm_999">] {
}

// -----

// expected-error @+1 {{malformed features 'ptx80' (a feature starts with '+')}}
gpu.module @bad_features [#nvvm.target<chip = "sm_90", features = "ptx80">] {
}

// -----

// expected-error @+1 {{malformed features '+ptx80,+ptx86'}}
gpu.module @two_versions [#nvvm.target<chip = "sm_90", features = "+ptx80,+ptx86">] {
}

// -----

// expected-error @+1 {{unknown #nvvm.target parameter 'arch' (expected chip, features or O)}}
gpu.module @bad_key [#nvvm.target<arch = "sm_90">] {
}

// -----

// nvvm.atomicrmw: an operation and type PTX's atom has, a known sem and scope.

func.func @atomicrmw_no_float_max(%p: !llvm.ptr<1>, %x: f32) -> f32 {
  // expected-error @+1 {{'nvvm.atomicrmw' op PTX has no atom 'fmaximum' on f32 (have: add i32, add i64, and i32, and i64, fadd bf16, fa}}
  %r = nvvm.atomicrmw fmaximum %p, %x {sem = "acquire", scope = "gpu"} : !llvm.ptr<1>, f32
  func.return %r : f32
}

// -----

func.func @atomicrmw_float_and(%p: !llvm.ptr<1>, %x: f32) -> f32 {
  // expected-error @+1 {{'nvvm.atomicrmw' op PTX has no atom 'and' on f32 (have: add i32, add i64, and i32, and i64, fadd bf16, fadd f1}}
  %r = nvvm.atomicrmw and %p, %x {sem = "acquire", scope = "gpu"} : !llvm.ptr<1>, f32
  func.return %r : f32
}

// -----

func.func @atomicrmw_sem(%p: !llvm.ptr<1>, %x: i32) -> i32 {
  // expected-error @+1 {{'nvvm.atomicrmw' op unknown sem 'consume', expected one of relaxed, acquire, release, acq_rel, seq_cst}}
  %r = nvvm.atomicrmw add %p, %x {sem = "consume", scope = "gpu"} : !llvm.ptr<1>, i32
  func.return %r : i32
}

// -----

func.func @atomicrmw_scope(%p: !llvm.ptr<1>, %x: i32) -> i32 {
  // expected-error @+1 {{'nvvm.atomicrmw' op unknown scope 'warp', expected one of cta, cluster, gpu, sys}}
  %r = nvvm.atomicrmw add %p, %x {sem = "relaxed", scope = "warp"} : !llvm.ptr<1>, i32
  func.return %r : i32
}

// -----

func.func @atomicrmw_local(%p: !llvm.ptr<5>, %x: i32) -> i32 {
  // expected-error @+1 {{'nvvm.atomicrmw' op atom works on global (1), shared (3) or generic (0) pointers, got !llvm.ptr<5>}}
  %r = nvvm.atomicrmw add %p, %x {sem = "relaxed", scope = "sys"} : !llvm.ptr<5>, i32
  func.return %r : i32
}

// -----

// mma.sync operand types come from the MMA_SHAPES row: f16 inputs are vector<2xf16> registers.
// CHECK-NEXT: Expected attribute vector<2xf16> but got i32
func.func @mma_f16_as_i32(%i: i32, %h: vector<2xf16>, %x: f32) -> f32 {
  // expected-error @+1 {{'nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32' op operand 'a0' at position 0 does not verify:}}
  %d:4 = "nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32"(%i, %h, %h, %h, %h, %h, %x, %x, %x, %x) : (i32, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0 : f32
}

// -----

// ldmatrix reads shared memory: a global pointer is refused.
// CHECK-NEXT: Expected attribute !llvm.ptr<3> but got !llvm.ptr<1>
func.func @ldmatrix_global(%p: !llvm.ptr<1>) -> i32 {
  // expected-error @+1 {{'nvvm.ldmatrix.x1.b16' op operand 'ptr' at position 0 does not verify:}}
  %r = "nvvm.ldmatrix.x1.b16"(%p) : (!llvm.ptr<1>) -> i32
  func.return %r : i32
}
