// ARGS: -p gpu-to-llvm -t ptx
// EXPECT: 'gpu.func' op has both known_block_size .* and nvvm.maxntid
gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1, 1>, nvvm.maxntid = array<i32: 64, 1, 1>} {
    gpu.return
  }
}
