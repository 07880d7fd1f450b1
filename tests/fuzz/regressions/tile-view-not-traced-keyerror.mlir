// ARGS: -p tile-to-gpu{module=m}
// EXPECT: :6:3: error: 'tile.load' op cannot be lowered: its partition view operand is not made \(in the entry block\) from a kernel parameter
kernel.func @add(%z: !tile.tensor_view<?xf32>, %x: !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>) attributes {kernel, tile} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %c = tile.block_coord %zp[0] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %x[%c] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<512xf32>
  tile.store %t, %zp[%c] : !tile.tile<512xf32>, !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}
