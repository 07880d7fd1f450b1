// RUN: warpforge-opt %s | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// The kernel dialect's tile-kernel types and ops round-trip.

// CHECK-LABEL: kernel.func @add(
// CHECK-SAME: %[[Z:.*]]: !kernel.partition<[128], !kernel.tensor<?xf32>>, %[[X:.*]]: !kernel.tensor<?xf32>, %[[M:.*]]: !kernel.tensor<?x64xsi32>)
// CHECK-SAME: attributes {kernel, tile, tile.grid = 0 : i64}
kernel.func @add(%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>, %m: !kernel.tensor<?x64xsi32>) attributes {kernel, tile, tile.grid = 0 : i64} {
  // CHECK: %[[T:.*]] = kernel.load_tile_like %[[X]], %[[Z]] : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  %t = kernel.load_tile_like %x, %z : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  // CHECK: kernel.load_tile_like %[[X]], %[[Z]] {padding = 0xff800000 : f32}
  %t2 = kernel.load_tile_like %x, %z {padding = 0xFF800000 : f32} : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  // CHECK: %[[I:.*]] = kernel.tile_id 0 : si64
  %i = kernel.tile_id 0 : si64
  // CHECK: kernel.tile_count 0 : si64
  %n = kernel.tile_count 0 : si64
  // CHECK: kernel.tensor_dim %[[M]][0] : !kernel.tensor<?x64xsi32>
  %d = kernel.tensor_dim %m[0] : !kernel.tensor<?x64xsi32>
  // CHECK: kernel.tensor_load %[[M]][%[[I]], %[[I]]] : !kernel.tensor<?x64xsi32>, si64, si64 -> !tile.tile<4x64xsi32>
  %r = kernel.tensor_load %m[%i, %i] : !kernel.tensor<?x64xsi32>, si64, si64 -> !tile.tile<4x64xsi32>
  // CHECK: kernel.part_load %[[Z]] : !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  %own = kernel.part_load %z : !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  %io = tile.iota : !tile.tile<128xsi64>
  %msk = tile.full true -> !tile.tile<128xi1>
  %pad = kernel.constant 0.0 : f32
  // CHECK: kernel.tensor_gather %[[X]][%{{.*}}], %{{.*}}, %{{.*}} : !kernel.tensor<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
  %g = kernel.tensor_gather %x[%io], %msk, %pad : !kernel.tensor<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
  // CHECK: kernel.tensor_atomic "add" %[[X]][%{{.*}}], %{{.*}}, %{{.*}}
  kernel.tensor_atomic "add" %x[%io], %g, %msk : !kernel.tensor<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>
  %s = tile.add %t, %t2 : !tile.tile<128xf32>
  // CHECK: kernel.part_store %{{.*}}, %[[Z]] : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
  kernel.part_store %s, %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
  kernel.return
}
