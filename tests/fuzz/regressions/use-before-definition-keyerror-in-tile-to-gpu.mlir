// ARGS: -p tile-to-gpu{module=m},canonicalize,cse
// EXPECT: :6:3: error: 'tile.block_coord' op operand #0 \(%zp\) does not dominate this use
// (the full fuzz run's one internal error: a KeyError in tile-to-gpu; now the dominance check after parsing)

kernel.func @add(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}]} {
  %c = tile.block_coord %zp[0] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%c] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<512xf32>
  %s = tile.add %t, %t : !tile.tile<512xf32>
  tile.store %s, %zp[%c] : !tile.tile<512xf32>, !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

