// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

// The verifiers of the mbarrier and TMA ops of the kernel dialect (dialects/kernel_hopper.py).

kernel.func @not_a_barrier(%n: si32) attributes {kernel} {
  %s = kernel.shared_array : !kernel.shared<4xf32>
  // expected-error @+1 {{'kernel.mbarrier_arrive' op needs an mbarrier (a !kernel.shared<1xui64>), got !kernel.shared<4xf32>}}
  kernel.mbarrier_arrive %s : !kernel.shared<4xf32>
  kernel.return
}

// -----

kernel.func @float_count(%x: f32) attributes {kernel} {
  %b = kernel.shared_array : !kernel.shared<1xui64>
  // expected-error @+1 {{'kernel.mbarrier_init' op the count must be an integer, got f32}}
  kernel.mbarrier_init %b, %x : !kernel.shared<1xui64>, f32
  kernel.return
}

// -----

kernel.func @wrong_box(%d: !kernel.tensor_map<32x64xf16, "none">, %n: si32) attributes {kernel} {
  %t = kernel.shared_array : !kernel.shared<64x32xf16>
  // expected-error @+1 {{'kernel.tma_store' op the shared array !kernel.shared<64x32xf16> must have the descriptor's box and element type (!kernel.tensor_map<32x64xf16, "none">)}}
  kernel.tma_store %t, %d[%n, %n] : !kernel.shared<64x32xf16>, !kernel.tensor_map<32x64xf16, "none">, si32, si32
  kernel.return
}

// -----

kernel.func @wrong_rank(%d: !kernel.tensor_map<32x64xf16, "none">, %n: si32) attributes {kernel} {
  %t = kernel.shared_array : !kernel.shared<32x64xf16>
  %b = kernel.shared_array : !kernel.shared<1xui64>
  // expected-error @+1 {{'kernel.tma_load' op a rank-2 descriptor takes 2 coordinates, got 3}}
  kernel.tma_load %t, %d[%n, %n, %n], %b : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "none">[si32, si32, si32], !kernel.shared<1xui64>
  kernel.return
}

// -----

// expected-error @+1 {{unknown tensor map swizzle '16B' (one of none, 32B, 64B, 128B)}}
kernel.func @bad_swizzle(%d: !kernel.tensor_map<32x64xf16, "16B">) attributes {kernel} {
  kernel.return
}
