// RUN: warpforge-opt %s --split-input-file -p kernel-to-tile | filecheck %s

// Tensor parameters become tensor views of the whole tensor; the grid partition's view and the
// block's tile coordinates are made at entry; load_tile_like reads the input cut like the output
// (with its own padding); the part is stored at the block's coordinates.
// CHECK-LABEL: kernel.func @add(
// CHECK-SAME: %[[Z:.*]]: !tile.tensor_view<?xf32>, %[[X:.*]]: !tile.tensor_view<?xf32>)
// CHECK-NEXT: %[[ZP:.*]] = tile.make_partition_view %[[Z]] : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
// CHECK-NEXT: %[[C:.*]] = tile.block_coord %[[ZP]][0]
// CHECK-NEXT: %[[XP:.*]] = tile.make_partition_view %[[X]] : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0xff800000 : f32>
// CHECK-NEXT: %[[T:.*]] = tile.load %[[XP]][%[[C]]]
// CHECK-NEXT: %[[S:.*]] = tile.add %[[T]], %[[T]] : !tile.tile<128xf32>
// CHECK-NEXT: tile.store %[[S]], %[[ZP]][%[[C]]]
// CHECK-NEXT: kernel.return
kernel.func @add(%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>) attributes {kernel, tile, tile.grid = 0 : i64} {
  %t = kernel.load_tile_like %x, %z {padding = 0xFF800000 : f32} : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
  %s = tile.add %t, %t : !tile.tile<128xf32>
  kernel.part_store %s, %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
  kernel.return
}

// -----

// A 2-D grid: one coordinate per axis; tile_id/tile_count read the grid partition; tensor_load cuts the
// input by the loaded tile's shape; tensor_dim becomes tile.dim; part_load reads the block's own part.
// CHECK-LABEL: kernel.func @grid2d(
// CHECK-SAME: %[[O:.*]]: !tile.tensor_view<?x?xsi32>, %[[M:.*]]: !tile.tensor_view<?x64xsi32>)
// CHECK: %[[OP:.*]] = tile.make_partition_view %[[O]] : !tile.tensor_view<?x?xsi32> -> !tile.partition_view<[4, 64], !tile.tensor_view<?x?xsi32>, padding = 0 : si32>
// CHECK-NEXT: %[[C0:.*]] = tile.block_coord %[[OP]][0]
// CHECK-NEXT: %[[C1:.*]] = tile.block_coord %[[OP]][1]
// CHECK-NEXT: %[[MP:.*]] = tile.make_partition_view %[[M]] : !tile.tensor_view<?x64xsi32> -> !tile.partition_view<[4, 64], !tile.tensor_view<?x64xsi32>, padding = 0 : si32>
// CHECK-NEXT: %[[N:.*]] = tile.num_tiles %[[OP]][1]
// CHECK-NEXT: %[[D:.*]] = tile.dim %[[M]][0]
// CHECK-NEXT: tile.load %[[MP]][%[[C1]], %[[N]]]
// CHECK-NEXT: tile.load %[[OP]][%[[C0]], %[[C1]]]
// CHECK: tile.store %{{.*}}, %[[OP]][%[[C0]], %[[C1]]]
kernel.func @grid2d(%o: !kernel.partition<[4, 64], !kernel.tensor<?x?xsi32>>, %m: !kernel.tensor<?x64xsi32>) attributes {kernel, tile, tile.grid = 0 : i64} {
  %i = kernel.tile_id 1 : si64
  %n = kernel.tile_count 1 : si64
  %d = kernel.tensor_dim %m[0] : !kernel.tensor<?x64xsi32>
  %t = kernel.tensor_load %m[%i, %n] : !kernel.tensor<?x64xsi32>, si64, si64 -> !tile.tile<4x64xsi32>
  %own = kernel.part_load %o : !kernel.partition<[4, 64], !kernel.tensor<?x?xsi32>> -> !tile.tile<4x64xsi32>
  %s = tile.add %t, %own : !tile.tile<4x64xsi32>
  kernel.part_store %s, %o : !tile.tile<4x64xsi32>, !kernel.partition<[4, 64], !kernel.tensor<?x?xsi32>>
  kernel.return
}

// -----

// Gathers and atomics keep their operands; the tensor becomes a view.
// CHECK-LABEL: kernel.func @gather(
// CHECK: %[[G:.*]] = tile.load_masked %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
// CHECK: tile.atomic_rmw add %{{.*}}[%{{.*}}], %[[G]], %{{.*}} : !tile.tensor_view<?xf32>
kernel.func @gather(%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>, %a: !kernel.tensor<?xf32>) attributes {kernel, tile, tile.grid = 0 : i64} {
  %io = tile.iota : !tile.tile<128xsi64>
  %m = tile.full true -> !tile.tile<128xi1>
  %p = kernel.constant 0.0 : f32
  %g = kernel.tensor_gather %x[%io], %m, %p : !kernel.tensor<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
  kernel.tensor_atomic "add" %a[%io], %g, %m : !kernel.tensor<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>
  kernel.part_store %g, %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
  kernel.return
}

// -----

// A strided tensor parameter's strides carry over to its tensor view.
// CHECK-LABEL: kernel.func @strided(
// CHECK-SAME: %{{.*}}: !tile.tensor_view<?x?x?x?xf16, strides = [?, ?, ?, 1]>
kernel.func @strided(%z: !kernel.partition<[1, 1, 16, 64], !kernel.tensor<?x?x?x?xf16>>, %x: !kernel.tensor<?x?x?x?xf16, strides = [?, ?, ?, 1]>) attributes {kernel, tile, tile.grid = 0 : i64} {
  %t = kernel.load_tile_like %x, %z : !kernel.tensor<?x?x?x?xf16, strides = [?, ?, ?, 1]>, !kernel.partition<[1, 1, 16, 64], !kernel.tensor<?x?x?x?xf16>> -> !tile.tile<1x1x16x64xf16>
  kernel.part_store %t, %z : !tile.tile<1x1x16x64xf16>, !kernel.partition<[1, 1, 16, 64], !kernel.tensor<?x?x?x?xf16>>
  kernel.return
}
