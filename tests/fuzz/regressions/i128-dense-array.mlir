// ARGS:
// EXPECT: :4:3: error: malformed operation: Format not implemented for i128
gpu.module @m {
  gpu.func @k() kernel attributes {known_block_size = array<i128: 32, 1>} {
    gpu.return
  }
}
