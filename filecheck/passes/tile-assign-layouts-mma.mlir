// RUN: warpforge-opt %s --split-input-file -p 'tile-assign-layouts{chip=sm_90}' | filecheck %s
// RUN: warpforge-opt %s --split-input-file -p 'tile-assign-layouts{chip=sm_90a}' | filecheck %s --check-prefix=SM90A

// tile.dot's accumulator gets the MMA layout tile-to-gpu lowers it in (passes/lowerings/tile_dot.py,
// choose_mma_layouts): a K loop's accumulator, the zeros it starts from, the block arguments it is
// carried through and the elementwise epilogue after the loop are #tile.mma (128 threads, a 32x32
// product: 2x2 warps of 16x16). The operands stay blocked. On sm_90a too: these operands are not
// ring slots, so the dot is mma.sync there as well.

// CHECK-LABEL: kernel.func @k_loop(
// CHECK:         %[[Z:.*]] = tile.full 0.000000e+00 : f32 -> !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// CHECK:         cf.br ^{{.*}}(%{{.*}}, %[[Z]] : si64, !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>)
// CHECK:         cf.cond_br
// CHECK:       ^{{.*}}(%{{.*}}: si64, %[[ACC0:[a-z0-9_]+]]: !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>):
// CHECK:         %[[X:.*]] = tile.load {{.*}} -> !tile.tile<32x16xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
// CHECK:         %[[D:.*]] = tile.dot %[[X]], %{{.*}}, %[[ACC0]] : {{.*}} -> !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// CHECK:         kernel.add
// CHECK:       ^{{.*}}(%[[ACC:[a-z0-9_]+]]: !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>):
// CHECK-NEXT:    %[[E:.*]] = tile.mul %[[ACC]], %[[ACC]] : !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// CHECK-NOT:     tile.convert_layout
// CHECK-NEXT:    tile.store %[[E]], {{.*}} : !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// SM90A-LABEL: kernel.func @k_loop(
// SM90A:         tile.dot {{.*}} -> !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// SM90A-NOT:     #tile.wgmma
kernel.func @k_loop(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>
  %zero = tile.full 0.000000e+00 : f32 -> !tile.tile<32x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  cf.br ^bb1(%lo, %zero : si64, !tile.tile<32x32xf32>)
^bb1(%0: si64, %1: !tile.tile<32x32xf32>):
  %2 = kernel.cmp lt, %0, %n : si64
  cf.cond_br %2, ^bb2(%0, %1 : si64, !tile.tile<32x32xf32>), ^bb4(%1 : !tile.tile<32x32xf32>)
^bb2(%k: si64, %acc0: !tile.tile<32x32xf32>):
  %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%k, %j] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>, si64, si64 -> !tile.tile<16x32xf16>
  %d = tile.dot %x, %y, %acc0 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
  cf.br ^bb3(%d : !tile.tile<32x32xf32>)
^bb3(%3: !tile.tile<32x32xf32>):
  %4 = kernel.add %k, %one : si64
  cf.br ^bb1(%4, %3 : si64, !tile.tile<32x32xf32>)
^bb4(%acc: !tile.tile<32x32xf32>):
  %e = tile.mul %acc, %acc : !tile.tile<32x32xf32>
  tile.store %e, %cp[%i, %j] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.000000e+00 : f32>, si64, si64
  kernel.return
}

// -----

// An epilogue that adds a loaded tile (blocked) to the product: the loaded tile is converted to the
// MMA layout right before the add (tile-to-gpu goes through shared memory there, as it converts an
// elementwise operand); the add and the store are #tile.mma.

// CHECK-LABEL: kernel.func @epilogue_meets_load(
// CHECK:         %[[OLD:.*]] = tile.load {{.*}} -> !tile.tile<32x16xf32, #tile.blocked<vec = 4, owners = 32, replicas = 1>>
// CHECK:         %[[D:.*]] = tile.dot {{.*}} -> !tile.tile<32x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
// CHECK-NEXT:    %[[C:.*]] = tile.convert_layout %[[OLD]] : !tile.tile<32x16xf32, #tile.blocked<vec = 4, owners = 32, replicas = 1>> -> !tile.tile<32x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
// CHECK-NEXT:    %[[S:.*]] = tile.add %[[D]], %[[C]] : !tile.tile<32x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
// CHECK-NEXT:    tile.store %[[S]]
// SM90A-LABEL: kernel.func @epilogue_meets_load(
// SM90A:         tile.convert_layout {{.*}} -> !tile.tile<32x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
kernel.func @epilogue_meets_load(%c: !tile.tensor_view<32x16xf32>, %a: !tile.tensor_view<32x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, tile.num_warps = 1 : i32} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<32x16xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<32x16xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %old = tile.load %cp[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<32x16xf32>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %x, %y, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  %s = tile.add %d, %old : !tile.tile<32x16xf32>
  tile.store %s, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// Both operands are tile-pipeline ring slots of a wgmma shape (64x128 over one warpgroup, K = 64):
// on sm_90a the accumulator is #tile.wgmma (m64n128, 4 warps along M; tile_dot_wgmma.py), on sm_90
// #tile.mma (mma.sync, 1x4 warps).

// CHECK-LABEL: kernel.func @wgmma(
// CHECK:         %[[Z:.*]] = tile.full 0.000000e+00 : f32 -> !tile.tile<64x128xf32, #tile.mma<warps_per_cta = [1, 4], instr_shape = [16, 8]>>
// CHECK:         %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[Z]] : {{.*}} -> !tile.tile<64x128xf32, #tile.mma<warps_per_cta = [1, 4], instr_shape = [16, 8]>>
// CHECK-NEXT:    tile.store %[[D]]
// SM90A-LABEL: kernel.func @wgmma(
// SM90A:         %[[X:.*]] = tile.ring_tile {{.*}} -> !tile.tile<64x64xf16, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
// SM90A:         %[[Z:.*]] = tile.full 0.000000e+00 : f32 -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
// SM90A:         %[[D:.*]] = tile.dot %[[X]], %{{.*}}, %[[Z]] : {{.*}} -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
// SM90A-NEXT:    tile.store %[[D]], {{.*}} : !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
kernel.func @wgmma(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 4 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  tile.async_copy %ap[%zero, %zero] into %s {ring = 0, stages = 2} : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64, si64
  tile.async_copy %bp[%zero, %zero] into %s {ring = 1, stages = 2} : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64, si64
  tile.async_commit
  tile.async_wait {pending = 0}
  %x = tile.ring_tile %s {ring = 0, stages = 2} : si64 -> !tile.tile<64x64xf16>
  %y = tile.ring_tile %s {ring = 1, stages = 2} : si64 -> !tile.tile<64x128xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<64x128xf32>
  %d = tile.dot %x, %y, %acc : !tile.tile<64x64xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32> -> !tile.tile<64x128xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<64x128xf32>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
