// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s
// tile.cumsum and tile.argmax/argmin (passes/tile_to_gpu/scan.py).

// A scan along the rows of a 2x256 tile over 128 threads: each thread holds one chunk of 4, a row is
// 64 chunks (two warps). The in-thread prefix (3 adds), a Hillis–Steele scan of the chunk totals by
// shuffle up 1, 2, 4, 8, 16 lanes within the warp, one more shuffle up for the exclusive prefix, then
// the warp totals through shared memory between two barriers.
// CHECK: memref.global{{.*}}sym_name = "__tile_smem_scan_f32"
// CHECK-LABEL: gpu.func @scan(
// CHECK-COUNT-3: arith.addf
// CHECK: gpu.shuffle up %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.return
kernel.func @scan(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile, checks = false} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %c0 = tile.block_coord %zp[0] : !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %c1 = tile.block_coord %zp[1] : !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%c0, %c1] : !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<2x256xf32>
  %s = tile.cumsum %t [1] : !tile.tile<2x256xf32> -> !tile.tile<2x256xf32>
  tile.store %s, %zp[%c0, %c1] : !tile.tile<2x256xf32>, !tile.partition_view<[2, 256], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// tile.argmax: the tile goes to shared memory once; each output element walks its row (scf.for from
// 1, carrying the best value and its index), replacing the best only when strictly greater or when a
// NaN meets a number (cmpf ogt, uno, ord).
// CHECK-LABEL: gpu.func @amax(
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[BEST:.*]] = %{{.*}}, %[[IDX:.*]] = %{{.*}}) -> (f32, i64)
// CHECK-DAG: arith.cmpf ogt, %{{.*}}, %[[BEST]] : f32
// CHECK-DAG: arith.cmpf uno
// CHECK-DAG: arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[IDX]] : i64
// CHECK: gpu.return
kernel.func @amax(%z: !tile.tensor_view<?x?xsi64>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile, checks = false} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xsi64> -> !tile.partition_view<[4, 1], !tile.tensor_view<?x?xsi64>, padding = 0 : si64>
  %c0 = tile.block_coord %zp[0] : !tile.partition_view<[4, 1], !tile.tensor_view<?x?xsi64>, padding = 0 : si64>
  %c1 = tile.block_coord %zp[1] : !tile.partition_view<[4, 1], !tile.tensor_view<?x?xsi64>, padding = 0 : si64>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[4, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%c0, %c1] : !tile.partition_view<[4, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<4x64xf32>
  %i = tile.argmax %t [1] keepdims : !tile.tile<4x64xf32> -> !tile.tile<4x1xsi64>
  tile.store %i, %zp[%c0, %c1] : !tile.tile<4x1xsi64>, !tile.partition_view<[4, 1], !tile.tensor_view<?x?xsi64>, padding = 0 : si64>, si64, si64
  kernel.return
}
