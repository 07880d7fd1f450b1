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

// A #tile.mma accumulator layout (tile.dot's, passes/lowerings/tile_dot.py) over more warps than the CTA has.
kernel.func @mma_too_many_warps(%z: !tile.tensor_view<?x?xf32>) attributes {kernel, tile, tile.num_warps = 4 : i64} {
  // expected-error @+1 {{'tile.full' op tile-to-gpu: !tile.tile<32x64xf32, #tile.mma<warps_per_cta = [2, 4], instr_shape = [16, 8]>> spreads over 8 warps, which do not divide the CTA's 4}}
  %t = tile.full 1.0 : f32 -> !tile.tile<32x64xf32, #tile.mma<warps_per_cta = [2, 4], instr_shape = [16, 8]>>
  kernel.return
}

// -----

// The rows of a wgmma accumulator over 4 warps (one warpgroup) in a CTA of 8 warps.
kernel.func @rows_too_few_warps(%z: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.num_warps = 8 : i64} {
  // expected-error @+1 {{'tile.full' op tile-to-gpu: !tile.tile<64xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>> holds the rows of an accumulator over 4 warps along M, the CTA has 8 warps}}
  %t = tile.full 1.0 : f32 -> !tile.tile<64xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>>
  kernel.return
}
