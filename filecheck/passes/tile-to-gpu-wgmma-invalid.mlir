// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m chip=sm_90}' --verify-diagnostics

// A #tile.wgmma accumulator (tile-assign-layouts{chip=sm_90a}'s choice) lowered for sm_90, which
// has no wgmma.mma_async: refused at the tile.dot, not lowered as mma.sync behind the IR's back.
kernel.func @wgmma(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 4 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>
  %zero = kernel.constant 0 : si64
  tile.async_copy %ap[%zero, %zero] into %s {ring = 0 : i64, stages = 2 : i64} : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>, si64, si64, si64
  tile.async_copy %bp[%zero, %zero] into %s {ring = 1 : i64, stages = 2 : i64} : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>, si64, si64, si64
  tile.async_commit
  tile.async_wait {pending = 0 : i64}
  %x = tile.ring_tile %s {ring = 0 : i64, stages = 2 : i64} : si64 -> !tile.tile<64x64xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %y = tile.ring_tile %s {ring = 1 : i64, stages = 2 : i64} : si64 -> !tile.tile<64x128xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %acc = tile.full 0.000000e+00 : f32 -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
  // expected-error @+1 {{tile-to-gpu: a #tile.wgmma accumulator needs wgmma.mma_async: chip sm_90a (the target is sm_90)}}
  %d = tile.dot %x, %y, %acc : !tile.tile<64x64xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>, !tile.tile<64x128xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>, !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>> -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>, si64, si64
  kernel.return
}
