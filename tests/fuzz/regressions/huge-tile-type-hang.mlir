// ARGS: -p tile-to-llvm
// EXPECT: a tile has at most 65536
kernel.func @k(%t: !tile.tile<1099511627776xf32>) attributes {kernel, tile} {
  kernel.return
}
