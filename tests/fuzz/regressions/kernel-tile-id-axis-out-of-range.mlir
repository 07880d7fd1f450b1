// ARGS: -p kernel-to-tile
// EXPECT: :5:5: error: 'kernel.tile_id' op axis 2147483647 is not an axis of the grid, which has 1
builtin.module {
  kernel.func @k(%out: !kernel.partition<[1], !kernel.tensor<?xf32>>) attributes {kernel, tile, tile.grid = 0 : i64} {
    %0 = kernel.tile_id 2147483647 : si64
    kernel.return
  }
}
