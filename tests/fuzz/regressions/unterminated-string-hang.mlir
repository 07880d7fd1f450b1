// ARGS:
// EXPECT: :4:24: error: unterminated string literal
gpu.module @m {
  gpu.func @k() kernel "attributes {} {
    gpu.return
  }
}
