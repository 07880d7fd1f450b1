// ARGS:
// EXPECT: axis -2147483648 is out of range for !tile.tile<16xf32>
kernel.func @k(%t: !tile.tile<16xf32>) attributes {kernel, tile} {
  %s = tile.reduce sum %t [-2147483648] : !tile.tile<16xf32> -> !tile.tile<f32>
  kernel.return
}
