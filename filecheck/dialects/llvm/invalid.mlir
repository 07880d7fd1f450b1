// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

llvm.func @bad_rmw_op(%p: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{Expected one of 'add', 'and', 'fadd', 'fmax', 'fmaximum', 'fmin', 'fminimum', 'fsub', 'max', 'min', 'nand', 'or', 'sub', 'udec_wrap', 'uinc_wrap', 'umax', 'umin', 'xchg', 'xor' (an atomicrmw operation)}}
  %0 = llvm.atomicrmw mul %p, %x monotonic : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @bad_ordering(%p: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{Expected one of 'acq_rel', 'acquire', 'monotonic', 'release', 'seq_cst' (an atomic ordering)}}
  %0 = llvm.atomicrmw add %p, %x relaxed : !llvm.ptr<1>, i32
  llvm.return
}

// -----

llvm.func @rmw_result(%p: !llvm.ptr<1>, %x: i32) {
  // expected-error @+1 {{result type must match the value operand's type}}
  %0 = "llvm.atomicrmw"(%p, %x) <{bin_op = "add", ordering = "monotonic"}> : (!llvm.ptr<1>, i32) -> i64
  llvm.return
}

// -----

llvm.func @monotonic_fence() {
  // expected-error @+1 {{a fence cannot be monotonic}}
  llvm.fence monotonic
  llvm.return
}

// -----

llvm.func @float_cmpxchg(%p: !llvm.ptr<1>, %x: f32) {
  // expected-error @+1 {{cmpxchg needs an integer or pointer value, got f32}}
  %0 = llvm.cmpxchg %p, %x, %x acq_rel monotonic : !llvm.ptr<1>, f32
  llvm.return
}

// -----

llvm.func @switch_cases(%i: i32) {
  // expected-error @+1 {{switch needs one destination per case value}}
  "llvm.switch"(%i) [^a, ^a] <{case_values = array<i32: 1, 2>}> : (i32) -> ()
^a:
  llvm.return
}

// -----

llvm.func @maximum_on_ints(%i: i32) {
  // expected-error @+1 {{operand 'lhs' at position 0 does not verify}}
  %0 = "llvm.intr.maximum"(%i, %i) : (i32, i32) -> i32
  llvm.return
}

// -----

llvm.func @smax_on_floats(%x: f32) {
  // expected-error @+1 {{operand 'lhs' at position 0 does not verify}}
  %0 = "llvm.intr.smax"(%x, %x) : (f32, f32) -> f32
  llvm.return
}
