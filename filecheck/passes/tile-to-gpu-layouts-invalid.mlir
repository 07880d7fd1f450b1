// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m}' --verify-diagnostics

// An encoding for another CTA size, or one tile-to-gpu does not hold in registers, is refused at
// the value's op.
kernel.func @wrong_threads(%z: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.num_warps = 4 : i64} {
  // expected-error @+1 {{'tile.full' op tile-to-gpu: !tile.tile<64xf32, #tile.blocked<vec = 1, owners = 32, replicas = 1>> is laid out for 32 threads, the CTA has 128}}
  %t = tile.full 1.0 : f32 -> !tile.tile<64xf32, #tile.blocked<vec = 1, owners = 32, replicas = 1>>
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  tile.store %t, %zp[%b] : !tile.tile<64xf32, #tile.blocked<vec = 1, owners = 32, replicas = 1>>, !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// Not yet lowered in registers: the tensor-core layouts (tile.dot's lowering reads its own).
kernel.func @mma_not_yet(%z: !tile.tensor_view<?x?xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.full' op tile-to-gpu: tile-to-gpu keeps tiles in registers in #tile.blocked or #tile.slice layouts; !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>> has #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>}}
  %t = tile.full 1.0 : f32 -> !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
  kernel.return
}
