// RUN: warpforge-opt %s --split-input-file -p tile-assign-layouts | filecheck %s

// Every tile value gets the canonical blocked layout of its shape (128 threads: 4 warps for a
// 512-element tile; chunks of 4 contiguous f32).

// CHECK-LABEL: kernel.func @blocked_by_default(
kernel.func @blocked_by_default(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // CHECK: %[[T:.*]] = tile.load {{.*}} -> !tile.tile<512xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %t = tile.load %xp[%b] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<512xf32>
  // CHECK: %[[ONE:.*]] = tile.full 1.000000e+00 : f32 -> !tile.tile<512xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %one = tile.full 1.0 : f32 -> !tile.tile<512xf32>
  // CHECK: %[[S:.*]] = tile.add %[[T]], %[[ONE]] : !tile.tile<512xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %s = tile.add %t, %one : !tile.tile<512xf32>
  // CHECK-NOT: tile.convert_layout
  // CHECK: tile.store %[[S]]
  tile.store %s, %zp[%b] : !tile.tile<512xf32>, !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// A row maximum broadcast back along its row keeps the slice layout: each thread has the maxima of
// the rows it holds (256 threads, 32 x 128 f32: a row is 32 lanes of one warp).

// CHECK-LABEL: kernel.func @slice_back_along_the_row(
kernel.func @slice_back_along_the_row(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %c0 = kernel.constant 0 : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  // CHECK: %[[T:.*]] = tile.load {{.*}} -> !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>
  %t = tile.load %xp[%b, %c0] : !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<32x128xf32>
  // CHECK: %[[M:.*]] = tile.reduce max %[[T]] [1] keepdims : !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>> -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %m = tile.reduce max %t [1] keepdims : !tile.tile<32x128xf32> -> !tile.tile<32x1xf32>
  // CHECK: %[[H:.*]] = tile.full 5.000000e-01 : f32 -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %half = tile.full 0.5 : f32 -> !tile.tile<32x1xf32>
  // CHECK: %[[MH:.*]] = tile.mul %[[M]], %[[H]] : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %mh = tile.mul %m, %half : !tile.tile<32x1xf32>
  // CHECK-NOT: tile.convert_layout
  // CHECK: tile.broadcast %[[MH]] : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>> -> !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>
  %mb = tile.broadcast %mh : !tile.tile<32x1xf32> -> !tile.tile<32x128xf32>
  %d = tile.sub %t, %mb : !tile.tile<32x128xf32>
  tile.store %d, %zp[%b, %c0] : !tile.tile<32x128xf32>, !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// Where a slice is stored it is converted to the blocked layout of its shape, once, at the store.

// CHECK-LABEL: kernel.func @slice_stored(
kernel.func @slice_stored(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %c0 = kernel.constant 0 : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %c0] : !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<32x128xf32>
  // CHECK: %[[S:.*]] = tile.reduce sum {{.*}} -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %s = tile.reduce sum %t [1] keepdims : !tile.tile<32x128xf32> -> !tile.tile<32x1xf32>
  // CHECK: %[[M:.*]] = tile.reduce max {{.*}} -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %m = tile.reduce max %t [1] keepdims : !tile.tile<32x128xf32> -> !tile.tile<32x1xf32>
  // CHECK: %[[A:.*]] = tile.add %[[S]], %[[M]] : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %a = tile.add %s, %m : !tile.tile<32x1xf32>
  // CHECK: %[[C:.*]] = tile.convert_layout %[[A]] : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>> -> !tile.tile<32x1xf32, #tile.blocked<vec = 1, owners = 32, replicas = 8>>
  // CHECK: tile.store %[[C]]
  tile.store %a, %zp[%b, %c0] : !tile.tile<32x1xf32>, !tile.partition_view<[32, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// A loop-carried running maximum: the block arguments and every value the branches pass take the
// reduction's slice layout, so it never leaves registers (128 threads for 2048-element tiles).

// CHECK-LABEL: kernel.func @loop_carried_slice(
kernel.func @loop_carried_slice(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>, %steps: si64) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  // CHECK: %[[M0:.*]] = tile.full 0xff800000 : f32 -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 64, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>
  %m = tile.full 0xff800000 : f32 -> !tile.tile<32x1xf32>
  %c0 = kernel.constant 0 : si64
  %c1 = kernel.constant 1 : si64
  cf.br ^head(%c0, %m : si64, !tile.tile<32x1xf32>)
// CHECK: ^{{.*}}(%{{.*}}: si64, %[[MI:.*]]: !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 64, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>):
^head(%i: si64, %mi: !tile.tile<32x1xf32>):
  %more = kernel.cmp lt, %i, %steps : si64
  cf.cond_br %more, ^body, ^exit
^body:
  %t = tile.load %xp[%b, %i] : !tile.partition_view<[32, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<32x64xf32>
  %r = tile.reduce max %t [1] keepdims : !tile.tile<32x64xf32> -> !tile.tile<32x1xf32>
  // CHECK: tile.maximum %[[MI]], %{{.*}} : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 64, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>
  %mn = tile.maximum %mi, %r : !tile.tile<32x1xf32>
  %next = kernel.add %i, %c1 : si64
  cf.br ^head(%next, %mn : si64, !tile.tile<32x1xf32>)
^exit:
  // CHECK-NOT: tile.convert_layout
  // CHECK: tile.broadcast %[[MI]]
  %mb = tile.broadcast %mi : !tile.tile<32x1xf32> -> !tile.tile<32x64xf32>
  tile.store %mb, %zp[%b, %c0] : !tile.tile<32x64xf32>, !tile.partition_view<[32, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// An encoding already in the input is kept; where it meets the blocked layout of its class's other
// producers, a conversion follows it. Conversions back to back fold into one, and a conversion to the
// layout a value has is removed (FoldConvertLayout).

// CHECK-LABEL: kernel.func @kept_and_folded(
kernel.func @kept_and_folded(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // CHECK: %[[T:.*]] = tile.load {{.*}} -> !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 128, replicas = 1>>
  %t = tile.load %xp[%b] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<128xf32>
  // CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[T]] : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 128, replicas = 1>> -> !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  %u = tile.convert_layout %t : !tile.tile<128xf32> -> !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  %v = tile.convert_layout %u : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>> -> !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 32, replicas = 4>>
  %w = tile.convert_layout %v : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 32, replicas = 4>> -> !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  // CHECK-NEXT: %[[S:.*]] = tile.add %[[C]], %[[C]] : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  %s = tile.add %w, %w : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  // CHECK-NEXT: tile.store %[[S]]
  tile.store %s, %zp[%b] : !tile.tile<128xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}
