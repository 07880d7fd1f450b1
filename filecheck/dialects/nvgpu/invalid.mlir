// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

// mma.sync shapes and types come from the catalog's MMA_SHAPES.

func.func @f64_acc(%h: f16, %c: f64) -> f64 {
  // expected-error @+1 {{'nvgpu.mma.sync' op no mma.sync m16n8k16 with f16 inputs and a f64 accumulator (PTX has: m16n8k16 f16->f32, m1}}
  %d:4 = nvgpu.mma.sync "m16n8k16" "f16" (%h, %h, %h, %h, %h, %h, %h, %h) (%h, %h, %h, %h) (%c, %c, %c, %c) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f64, f64, f64, f64) -> (f64, f64, f64, f64)
  func.return %d#0 : f64
}

// -----

func.func @short_b(%h: f16, %c: f32) -> f32 {
  // expected-error @+1 {{'nvgpu.mma.sync' op m16n8k16 f16: each lane holds 4 elements of B, got 2}}
  %d:4 = nvgpu.mma.sync "m16n8k16" "f16" (%h, %h, %h, %h, %h, %h, %h, %h) (%h, %h) (%c, %c, %c, %c) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0 : f32
}

// -----

func.func @mixed(%h: f16, %c: f32) -> f32 {
  // expected-error @+1 {{'nvgpu.mma.sync' op m16n8k16 bf16: the elements of A are bf16, got f16}}
  %d:4 = nvgpu.mma.sync "m16n8k16" "bf16" (%h, %h, %h, %h, %h, %h, %h, %h) (%h, %h, %h, %h) (%c, %c, %c, %c) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0 : f32
}

// -----

func.func @ldmatrix_global(%g: memref<16x16xf16, 1 : i32>, %i: index) -> f16 {
  // expected-error @+1 {{'nvgpu.ldmatrix' op ldmatrix reads shared memory (address space 3), got memref<16x16xf16, 1 : i32>}}
  %v:2 = nvgpu.ldmatrix %g[%i, %i] {numTiles = 1 : i32} : memref<16x16xf16, 1 : i32> -> f16, f16
  func.return %v#0 : f16
}

// -----

func.func @ldmatrix_f32(%s: memref<16x16xf32, 3 : i32>, %i: index) -> f32 {
  // expected-error @+1 {{'nvgpu.ldmatrix' op ldmatrix loads 16-bit elements (f16, bf16, i16), got f32}}
  %v:2 = nvgpu.ldmatrix %s[%i, %i] {numTiles = 1 : i32} : memref<16x16xf32, 3 : i32> -> f32, f32
  func.return %v#0 : f32
}

// -----

func.func @copy_12_bytes(%g: memref<?xf32, 1 : i32>, %s: memref<64xf32, 3 : i32>, %i: index) {
  // expected-error @+1 {{'nvgpu.device_async_copy' op cp.async copies 4, 8 or 16 bytes, got 3 x f32 = 12 bytes}}
  nvgpu.device_async_copy %g[%i], %s[%i], 3 : memref<?xf32, 1 : i32> to memref<64xf32, 3 : i32>
  func.return
}

// -----

func.func @cg_8_bytes(%g: memref<?xf32, 1 : i32>, %s: memref<64xf32, 3 : i32>, %i: index) {
  // expected-error @+1 {{'nvgpu.device_async_copy' op cp.async.cg (bypassL1) copies 16 bytes only, got 8}}
  nvgpu.device_async_copy %g[%i], %s[%i], 2 {bypassL1} : memref<?xf32, 1 : i32> to memref<64xf32, 3 : i32>
  func.return
}

// -----

func.func @copy_to_global(%g: memref<?xf32, 1 : i32>, %t: memref<64xf32, 1 : i32>, %i: index) {
  // expected-error @+1 {{'nvgpu.device_async_copy' op cp.async copies to shared memory (address space 3), got memref<64xf32, 1 : i32>}}
  nvgpu.device_async_copy %g[%i], %t[%i], 4 : memref<?xf32, 1 : i32> to memref<64xf32, 1 : i32>
  func.return
}
