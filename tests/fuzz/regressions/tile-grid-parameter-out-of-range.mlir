// ARGS: -p tile-to-llvm
// EXPECT: :4:3: error: 'kernel.func' op tile.grid names parameter 3, but the function has 3
builtin.module {
  kernel.func @add(%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>, %y: !kernel.tensor<?xf32>) attributes {kernel, tile, tile.grid = 3 : i64} {
    %tx = kernel.load_tile_like %x, %z : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
    kernel.part_store %tx, %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
    kernel.return
  }
}
