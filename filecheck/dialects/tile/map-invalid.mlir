// RUN: warpforge-opt %s --split-input-file --verify-diagnostics
// tile.map's verifier: operand shapes, the body's argument types, the yielded type.

kernel.func @shape_mismatch(%a: !tile.tile<16xf32>) {
  // expected-error @+1 {{every operand has the result's shape !tile.tile<32xf32>, got !tile.tile<16xf32>}}
  %r = tile.map %a : (!tile.tile<16xf32>) -> !tile.tile<32xf32> {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  kernel.return
}

// -----

kernel.func @argument_types(%a: !tile.tile<16xf32>) {
  // expected-error @+1 {{the body takes the operands' element types (f32), got (f16)}}
  %r = tile.map %a : (!tile.tile<16xf32>) -> !tile.tile<16xf32> {
  ^bb0(%x: f16):
    %y = kernel.cast %x : f16 to f32
    tile.yield %y : f32
  }
  kernel.return
}

// -----

kernel.func @yield_type(%a: !tile.tile<16xf32>) {
  // expected-error @+1 {{the body yields f16, the result's element type, got f32}}
  %r = tile.map %a : (!tile.tile<16xf32>) -> !tile.tile<16xf16> {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  kernel.return
}
