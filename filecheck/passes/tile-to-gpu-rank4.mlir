// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s
// Tensors and tiles of rank 4 (batch, heads, sequence, head dim).

// A rank-4 view is a rank-4 memref (pointer + four extents); the block's tile coordinates are the
// block id delinearized row-major by the tile counts (axis 0 a division, the others a division and a
// remainder); chunks are 4 contiguous elements of the last axis, one 128-bit access each (aligned
// pointer, last extent a multiple of 16), indexed by their four global coordinates.
// CHECK-LABEL: gpu.func @copy4(
// CHECK-SAME: %[[Z:.*]]: memref<?x?x?x?xf32, 1 : i32> {llvm.noalias}, %[[X:.*]]: memref<?x?x?x?xf32, 1 : i32> {llvm.noalias, llvm.readonly}) kernel
// CHECK: %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[BID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[B:.*]] = arith.divui %[[BID]], %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK: vector.load %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?x?x?xf32, 1 : i32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[Z]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?x?x?xf32, 1 : i32>, vector<4xf32>
// CHECK: gpu.return
kernel.func @copy4(%z: !tile.tensor_view<?x?x?x?xf32>, %x: !tile.tensor_view<?x?x?x?xf32>) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 1, 1, 1, 16>}, {align = 16 : i64, divisibility = array<i64: 1, 1, 1, 16>}]} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?x?x?xf32> -> !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %b = tile.block_coord %zp[0] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %h = tile.block_coord %zp[1] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %s = tile.block_coord %zp[2] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %d = tile.block_coord %zp[3] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?x?x?xf32> -> !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %h, %s, %d] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>, si64, si64, si64, si64 -> !tile.tile<1x2x16x32xf32>
  tile.store %t, %zp[%b, %h, %s, %d] : !tile.tile<1x2x16x32xf32>, !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>, si64, si64, si64, si64
  kernel.return
}

// -----

// A reduction over a middle axis of a rank-4 tile goes through shared memory (each output element
// reads its column: an scf.for over the 16 sequence positions).
// CHECK-LABEL: gpu.func @colmax4(
// CHECK: memref.store
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: gpu.return
kernel.func @colmax4(%z: !tile.tensor_view<?x?x?x?xf32>, %x: !tile.tensor_view<?x?x?x?xf32>) attributes {kernel, tile, checks = false} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?x?x?xf32> -> !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %b = tile.block_coord %zp[0] : !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %h = tile.block_coord %zp[1] : !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %s = tile.block_coord %zp[2] : !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %d = tile.block_coord %zp[3] : !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?x?x?xf32> -> !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %h, %s, %d] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>, si64, si64, si64, si64 -> !tile.tile<1x2x16x32xf32>
  %m = tile.reduce max %t [2] keepdims : !tile.tile<1x2x16x32xf32> -> !tile.tile<1x2x1x32xf32>
  tile.store %m, %zp[%b, %h, %s, %d] : !tile.tile<1x2x1x32xf32>, !tile.partition_view<[1, 2, 1, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>, si64, si64, si64, si64
  kernel.return
}

// -----

// A strided view (strides = [?, ?, ?, 1]: torch's q.transpose(1, 2)) is its memory as a 1-D memref,
// then four i64 extents and three i64 strides; an element's offset is the sum of coordinate × stride,
// and the loads stay 128-bit (the strides are known multiples of 16: stride_divisibility).
// CHECK-LABEL: gpu.func @strided(
// CHECK-SAME: %[[Z:.*]]: memref<?x?x?x?xf32, 1 : i32> {llvm.noalias}, %[[X:.*]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %[[D0:.*]]: i64, %[[D1:.*]]: i64, %[[D2:.*]]: i64, %[[D3:.*]]: i64, %[[S0:.*]]: i64, %[[S1:.*]]: i64, %[[S2:.*]]: i64) kernel
// CHECK: arith.muli %{{.*}}, %[[S0]] : i64
// CHECK: arith.muli %{{.*}}, %[[S1]] : i64
// CHECK: arith.muli %{{.*}}, %[[S2]] : i64
// CHECK: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK: gpu.return
kernel.func @strided(%z: !tile.tensor_view<?x?x?x?xf32>, %x: !tile.tensor_view<?x?x?x?xf32, strides = [?, ?, ?, 1]>) attributes {kernel, tile, checks = false, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 1, 1, 1, 16>}, {align = 16 : i64, divisibility = array<i64: 1, 1, 1, 16>, stride_divisibility = array<i64: 16, 16, 16>}]} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?x?x?xf32> -> !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %b = tile.block_coord %zp[0] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %h = tile.block_coord %zp[1] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %s = tile.block_coord %zp[2] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %d = tile.block_coord %zp[3] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?x?x?xf32, strides = [?, ?, ?, 1]> -> !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32, strides = [?, ?, ?, 1]>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %h, %s, %d] : !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32, strides = [?, ?, ?, 1]>, padding = 0.0 : f32>, si64, si64, si64, si64 -> !tile.tile<1x2x16x32xf32>
  tile.store %t, %zp[%b, %h, %s, %d] : !tile.tile<1x2x16x32xf32>, !tile.partition_view<[1, 2, 16, 32], !tile.tensor_view<?x?x?x?xf32>, padding = 0.0 : f32>, si64, si64, si64, si64
  kernel.return
}
