// ARGS: -p tile-to-gpu{module=m}
// EXPECT: :3:1: error: 'kernel.func' op tile.num_warps must be an integer in \[1, 32\]
kernel.func @rowmax(%o: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.num_warps = -1 : i32} {
  %op = tile.make_partition_view %o : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %c = tile.block_coord %op[0] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %op[%c] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<512xf32>
  %m = tile.reduce max %t [0] keepdims : !tile.tile<512xf32> -> !tile.tile<1xf32>
  kernel.return
}
