// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

// The verifiers of the mbarrier and TMA ops (dialects/nvgpu_hopper.py).

func.func @global_barrier(%b: memref<1xi64, 1 : i32>, %n: i32) {
  // expected-error @+1 {{'nvgpu.mbarrier.init' op needs an mbarrier, a memref<1xi64, 3 : i32>; got memref<1xi64, 1 : i32>}}
  nvgpu.mbarrier.init %b, %n : memref<1xi64, 1 : i32>, i32
  func.return
}

// -----

func.func @wrong_box(%d: !nvgpu.tensormap.descriptor<32x64xf16, "none">, %b: memref<1xi64, 3 : i32>, %t: memref<32x32xf16, 3 : i32>, %n: i32) {
  // expected-error @+1 {{'nvgpu.tma.async.load' op the shared memref must have the descriptor's box and element type (!nvgpu.tensormap.descriptor<32x64xf16, "none">), got memref<32x32xf16, 3 : i32>}}
  nvgpu.tma.async.load %d[%n, %n], %b to %t : !nvgpu.tensormap.descriptor<32x64xf16, "none">[i32, i32], memref<1xi64, 3 : i32>, memref<32x32xf16, 3 : i32>
  func.return
}

// -----

func.func @wrong_rank(%d: !nvgpu.tensormap.descriptor<32x64xf16, "none">, %t: memref<32x64xf16, 3 : i32>, %n: i32) {
  // expected-error @+1 {{'nvgpu.tma.async.store' op a rank-2 descriptor takes 2 coordinates, got 1}}
  nvgpu.tma.async.store %t to %d[%n] : memref<32x64xf16, 3 : i32>, !nvgpu.tensormap.descriptor<32x64xf16, "none">, i32
  func.return
}

// -----

// expected-error @+1 {{tensor map box extents must be in [1, 256], got [512]}}
func.func @big_box(%d: !nvgpu.tensormap.descriptor<512xf16, "none">) {
  func.return
}
