// ARGS:
// EXPECT: :4:66: error: Integer value 9223372036854775807 is out of range for type i32
gpu.module @m {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 9223372036854775807, 1, 1>} {
    gpu.return
  }
}
