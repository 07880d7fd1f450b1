// RUN: warpforge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// tile.dot round-trips; its verifier names the shapes and types it refuses.

// CHECK-LABEL: func.func @ok(
// CHECK:       %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<32x16xf16>, !tile.tile<16x64xf16>, !tile.tile<32x64xf32> -> !tile.tile<32x64xf32>
// CHECK:       %{{.*}} = tile.dot %{{.*}}, %{{.*}}, %{{.*}} {allow_tf32} : !tile.tile<16x16xf32>, !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
func.func @ok(%a: !tile.tile<32x16xf16>, %b: !tile.tile<16x64xf16>, %c: !tile.tile<32x64xf32>, %x: !tile.tile<16x16xf32>) -> (!tile.tile<32x64xf32>, !tile.tile<16x16xf32>) {
  %d = tile.dot %a, %b, %c : !tile.tile<32x16xf16>, !tile.tile<16x64xf16>, !tile.tile<32x64xf32> -> !tile.tile<32x64xf32>
  %e = tile.dot %x, %x, %x {allow_tf32} : !tile.tile<16x16xf32>, !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
  func.return %d, %e : !tile.tile<32x64xf32>, !tile.tile<16x16xf32>
}

// -----

func.func @k_mismatch(%a: !tile.tile<32x16xf16>, %b: !tile.tile<32x64xf16>, %c: !tile.tile<32x64xf32>) -> !tile.tile<32x64xf32> {
  // expected-error @+1 {{'tile.dot' op of !tile.tile<32x16xf16> and !tile.tile<32x64xf16>: the inner dimensions differ (16 and 32)}}
  %d = tile.dot %a, %b, %c : !tile.tile<32x16xf16>, !tile.tile<32x64xf16>, !tile.tile<32x64xf32> -> !tile.tile<32x64xf32>
  func.return %d : !tile.tile<32x64xf32>
}

// -----

func.func @tf32_not_asked(%x: !tile.tile<16x16xf32>) -> !tile.tile<16x16xf32> {
  // expected-error @+1 {{'tile.dot' op of !tile.tile<16x16xf32> and !tile.tile<16x16xf32>: f32 inputs multiply as tf32; the op needs th}}
  %e = tile.dot %x, %x, %x : !tile.tile<16x16xf32>, !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
  func.return %e : !tile.tile<16x16xf32>
}

// -----

func.func @f64(%x: !tile.tile<16x16xf64>) -> !tile.tile<16x16xf64> {
  // expected-error @+1 {{'tile.dot' op of !tile.tile<16x16xf64> and !tile.tile<16x16xf64>: no mma.sync for f64 (f16, bf16, f32 as tf32,}}
  %e = tile.dot %x, %x, %x : !tile.tile<16x16xf64>, !tile.tile<16x16xf64>, !tile.tile<16x16xf64> -> !tile.tile<16x16xf64>
  func.return %e : !tile.tile<16x16xf64>
}

// -----

func.func @int8_f32_acc(%x: !tile.tile<16x32xsi8>, %y: !tile.tile<32x16xsi8>, %c: !tile.tile<16x16xf32>) -> !tile.tile<16x16xf32> {
  // expected-error @+1 {{'tile.dot' op of !tile.tile<16x32xsi8> and !tile.tile<32x16xsi8>: the accumulator is si32 for s8 inputs, got f}}
  %e = tile.dot %x, %y, %c : !tile.tile<16x32xsi8>, !tile.tile<32x16xsi8>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
  func.return %e : !tile.tile<16x16xf32>
}

// -----

func.func @small(%x: !tile.tile<8x16xf16>, %y: !tile.tile<16x16xf16>, %c: !tile.tile<8x16xf32>) -> !tile.tile<8x16xf32> {
  // expected-error @+1 {{'tile.dot' op of !tile.tile<8x16xf16> and !tile.tile<16x16xf16>: M and N must be at least 16 and K at least 16}}
  %e = tile.dot %x, %y, %c : !tile.tile<8x16xf16>, !tile.tile<16x16xf16>, !tile.tile<8x16xf32> -> !tile.tile<8x16xf32>
  func.return %e : !tile.tile<8x16xf32>
}
