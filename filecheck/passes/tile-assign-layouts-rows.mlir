// RUN: warpforge-opt %s --split-input-file -p 'tile-assign-layouts{chip=sm_90}' | filecheck %s
// RUN: warpforge-opt %s --split-input-file -p 'tile-assign-layouts{chip=sm_90a}' | filecheck %s --check-prefix=SM90A

// The rows layout (passes/lowerings/tile_dot_rows.py, choose_row_layouts): a row reduction of an MMA
// accumulator whose warps split M only is #tile.slice<dim = 1, extent = N, parent = <the
// accumulator's #tile.mma>>, and so are the values that keep its registers (the reshape to Mx1);
// the broadcast back over the accumulator stays #tile.mma (a register copy), the stores read the
// rows from the registers. 128x16 over 4 warps: the warp grid is 4x1 by shape.

// CHECK-LABEL: kernel.func @rows_tall(
// CHECK:         %[[S:.*]] = tile.dot {{.*}} -> !tile.tile<128x16xf32, #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>
// CHECK-NEXT:    %[[M:.*]] = tile.reduce max %[[S]] [1] keepdims : !tile.tile<128x16xf32, #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>> -> !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK-NEXT:    %[[B:.*]] = tile.broadcast %[[M]] : !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>> -> !tile.tile<128x16xf32, #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>
// CHECK-NEXT:    tile.sub %[[S]], %[[B]] : !tile.tile<128x16xf32, #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>
// CHECK:         %[[L:.*]] = tile.reduce sum %[[S]] [1] : {{.*}} -> !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK-NEXT:    %[[R:.*]] = tile.reshape %[[L]] : {{.*}} -> !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK-NEXT:    tile.store %[[R]], {{.*}} : !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK-NOT:     tile.convert_layout
// SM90A-LABEL: kernel.func @rows_tall(
// SM90A:         tile.reduce max {{.*}} -> !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
kernel.func @rows_tall(%c: !tile.tensor_view<?x?xf32>, %sums: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>) attributes {kernel, tile, tile.num_warps = 4 : i32} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %sp = tile.make_partition_view %sums : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[128, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<128x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<128x16xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<128x16xf16>, !tile.tile<16x16xf16>, !tile.tile<128x16xf32> -> !tile.tile<128x16xf32>
  %m = tile.reduce max %s [1] keepdims : !tile.tile<128x16xf32> -> !tile.tile<128x1xf32>
  %mb = tile.broadcast %m : !tile.tile<128x1xf32> -> !tile.tile<128x16xf32>
  %d = tile.sub %s, %mb : !tile.tile<128x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<128x16xf32>, !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  %l = tile.reduce sum %s [1] : !tile.tile<128x16xf32> -> !tile.tile<128xf32>
  %l1 = tile.reshape %l : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  tile.store %l1, %sp[%zero, %zero] : !tile.tile<128x1xf32>, !tile.partition_view<[128, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// A running row maximum carried through a loop (attention's online softmax): the -inf it starts
// from, the block arguments that carry it, tile.maximum of it and the reduction are all the rows
// slice; no conversion anywhere.

// CHECK-LABEL: kernel.func @running_max(
// CHECK:         %[[INIT:.*]] = tile.full 0xff800000 : f32 -> !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK:         cf.br ^{{.*}}(%{{.*}}, %[[INIT]] : si64, !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>)
// CHECK:       ^{{.*}}(%{{.*}}: si64, %[[M0:[a-z0-9_]+]]: !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>):
// CHECK:         %[[R:.*]] = tile.reduce max %{{.*}} [1] : !tile.tile<128x16xf32, #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>> -> !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK-NEXT:    %[[M1:.*]] = tile.maximum %[[M0]], %[[R]] : !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK:         cf.br ^{{.*}}(%{{.*}}, %[[M1]] : si64, !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>)
// CHECK:       ^{{.*}}(%[[OUT:[a-z0-9_]+]]: !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>):
// CHECK-NEXT:    tile.reshape %[[OUT]]
// CHECK-NOT:     tile.convert_layout
kernel.func @running_max(%out: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.num_warps = 4 : i32} {
  %op = tile.make_partition_view %out : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[128, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %init = tile.full 0xff800000 : f32 -> !tile.tile<128xf32>
  cf.br ^bb1(%zero, %init : si64, !tile.tile<128xf32>)
^bb1(%k: si64, %m0: !tile.tile<128xf32>):
  %go = kernel.cmp lt, %k, %n : si64
  cf.cond_br %go, ^bb2, ^bb3(%m0 : !tile.tile<128xf32>)
^bb2:
  %x = tile.load %ap[%zero, %k] : !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<128x16xf16>
  %y = tile.load %bp[%k, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<128x16xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<128x16xf16>, !tile.tile<16x16xf16>, !tile.tile<128x16xf32> -> !tile.tile<128x16xf32>
  %r = tile.reduce max %s [1] : !tile.tile<128x16xf32> -> !tile.tile<128xf32>
  %m1 = tile.maximum %m0, %r : !tile.tile<128xf32>
  %k1 = kernel.add %k, %one : si64
  cf.br ^bb1(%k1, %m1 : si64, !tile.tile<128xf32>)
^bb3(%m: !tile.tile<128xf32>):
  %m2 = tile.reshape %m : !tile.tile<128xf32> -> !tile.tile<128x1xf32>
  tile.store %m2, %op[%zero, %zero] : !tile.tile<128x1xf32>, !tile.partition_view<[128, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// A row sum added to a loaded tile (blocked): the add keeps the blocked layout, and the rows are
// converted back to it right before the add (tile-to-gpu goes through shared memory there).

// CHECK-LABEL: kernel.func @rows_meet_load(
// CHECK:         %[[L:.*]] = tile.reduce sum %{{.*}} [1] : {{.*}} -> !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>
// CHECK:         %[[B:.*]] = tile.load {{.*}} -> !tile.tile<128xf32, #[[BLOCKED:tile.blocked<.*>]]>
// CHECK-NEXT:    %[[C:.*]] = tile.convert_layout %[[L]] : !tile.tile<128xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>> -> !tile.tile<128xf32, #[[BLOCKED]]>
// CHECK-NEXT:    tile.add %[[C]], %[[B]] : !tile.tile<128xf32, #[[BLOCKED]]>
kernel.func @rows_meet_load(%out: !tile.tensor_view<?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>) attributes {kernel, tile, tile.num_warps = 4 : i32} {
  %op = tile.make_partition_view %out : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[128, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<128x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<128x16xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<128x16xf16>, !tile.tile<16x16xf16>, !tile.tile<128x16xf32> -> !tile.tile<128x16xf32>
  %l = tile.reduce sum %s [1] : !tile.tile<128x16xf32> -> !tile.tile<128xf32>
  %old = tile.load %op[%zero] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<128xf32>
  %sum = tile.add %l, %old : !tile.tile<128xf32>
  tile.store %sum, %op[%zero] : !tile.tile<128xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// A 32x32 product over 4 warps splits N too (2x2 warps): no warp owns whole rows, so the row maxima
// keep the blocked slice of the canonical layout (tile-to-gpu reduces through shared memory).

// CHECK-LABEL: kernel.func @warps_split_n(
// CHECK:         tile.dot {{.*}} -> !tile.tile<32x32xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
// CHECK-NOT:     parent = #tile.mma
// CHECK:         kernel.return
kernel.func @warps_split_n(%out: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>) attributes {kernel, tile, tile.num_warps = 4 : i32} {
  %op = tile.make_partition_view %out : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
  %m = tile.reduce max %s [1] keepdims : !tile.tile<32x32xf32> -> !tile.tile<32x1xf32>
  tile.store %m, %op[%zero, %zero] : !tile.tile<32x1xf32>, !tile.partition_view<[32, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// The rows of a wgmma accumulator (sm_90a: both operands ring slots of m64n128k64 over one
// warpgroup): the slice's parent is the #tile.wgmma; on sm_90 the mma.sync grid is 1x4 (warps split
// N) and the reduction keeps the blocked slice.

// CHECK-LABEL: kernel.func @wgmma_rows(
// CHECK-NOT:     parent = #tile.mma
// CHECK:         kernel.return
// SM90A-LABEL: kernel.func @wgmma_rows(
// SM90A:         %[[D:.*]] = tile.dot {{.*}} -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
// SM90A-NEXT:    %[[M:.*]] = tile.reduce max %[[D]] [1] keepdims : {{.*}} -> !tile.tile<64x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>>
// SM90A-NEXT:    %[[B:.*]] = tile.broadcast %[[M]] : {{.*}} -> !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
// SM90A-NEXT:    tile.sub %[[D]], %[[B]] : !tile.tile<64x128xf32, #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>
kernel.func @wgmma_rows(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 4 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
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
  %m = tile.reduce max %d [1] keepdims : !tile.tile<64x128xf32> -> !tile.tile<64x1xf32>
  %mb = tile.broadcast %m : !tile.tile<64x1xf32> -> !tile.tile<64x128xf32>
  %o = tile.sub %d, %mb : !tile.tile<64x128xf32>
  tile.store %o, %cp[%zero, %zero] : !tile.tile<64x128xf32>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
