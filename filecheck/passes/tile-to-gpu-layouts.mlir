// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s

// tile-to-gpu reads the layout encodings tile-assign-layouts gives: a reduction into its #tile.slice
// layout stays in registers (per-thread tree, then shuffles within each row's 32 lanes), and its
// broadcast back along the row copies registers: no shared memory, no barrier.
// CHECK-LABEL: gpu.func @row_max_back(
// CHECK-NOT: gpu.barrier
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK-NOT: memref.get_global
// CHECK: gpu.return
kernel.func @row_max_back(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %c0 = kernel.constant 0 : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %c0] : !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>
  %m = tile.reduce max %t [1] keepdims : !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>> -> !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>>
  %mb = tile.broadcast %m : !tile.tile<32x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 256, replicas = 1>>> -> !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>
  %d = tile.sub %t, %mb : !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>
  tile.store %d, %zp[%b, %c0] : !tile.tile<32x128xf32, #tile.blocked<vec = 4, owners = 256, replicas = 1>>, !tile.partition_view<[32, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// tile.convert_layout where every lane reads the same register of another lane of its warp: one
// gpu.shuffle idx per register of the result (32 elements over one warp, thread t holds t; then each
// pair of threads holds one element of each half). Storing needs the canonical layout back, through
// shared memory: that is where the barriers are.
// CHECK-LABEL: gpu.func @by_shuffles(
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-2: gpu.shuffle idx
// CHECK: gpu.barrier
// CHECK: gpu.return
kernel.func @by_shuffles(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.num_warps = 1 : i64} {
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[32], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[32], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b] : !tile.partition_view<[32], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<32xf32, #tile.blocked<vec = 1, owners = 32, replicas = 1>>
  %u = tile.convert_layout %t : !tile.tile<32xf32, #tile.blocked<vec = 1, owners = 32, replicas = 1>> -> !tile.tile<32xf32, #tile.blocked<vec = 1, owners = 16, replicas = 2>>
  %s = tile.mul %u, %u : !tile.tile<32xf32, #tile.blocked<vec = 1, owners = 16, replicas = 2>>
  tile.store %s, %zp[%b] : !tile.tile<32xf32, #tile.blocked<vec = 1, owners = 16, replicas = 2>>, !tile.partition_view<[32], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// Across warps: through shared memory (the first replica of each owner writes; barrier; every
// thread reads its registers of the result). The barrier before the write that protects earlier
// readers is left out here: this is the buffer's first use, in the entry block.
// CHECK-LABEL: gpu.func @by_shared_memory(
// CHECK: %[[BUF:.*]] = memref.get_global @__tile_smem_by_shared_memory_f32 : memref<256xf32, 3 : i32>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[BUF]]
kernel.func @by_shared_memory(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b] : !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<256xf32, #tile.blocked<vec = 2, owners = 128, replicas = 1>>
  %u = tile.convert_layout %t : !tile.tile<256xf32, #tile.blocked<vec = 2, owners = 128, replicas = 1>> -> !tile.tile<256xf32, #tile.blocked<vec = 1, owners = 128, replicas = 1>>
  %s = tile.add %u, %u : !tile.tile<256xf32, #tile.blocked<vec = 1, owners = 128, replicas = 1>>
  tile.store %s, %zp[%b] : !tile.tile<256xf32, #tile.blocked<vec = 1, owners = 128, replicas = 1>>, !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// A one-element slice is uniform (every thread holds it): converting it is free.
// CHECK-LABEL: gpu.func @uniform_slice(
// CHECK-COUNT-1: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
kernel.func @uniform_slice(%z: !tile.tensor_view<?x?xf32>, %x: !tile.tensor_view<?x?xf32>) attributes {kernel, tile} {
  %b = tile.block_id : si64
  %c0 = kernel.constant 0 : si64
  %zp = tile.make_partition_view %z : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[1, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[1, 1024], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%b, %c0] : !tile.partition_view<[1, 1024], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64 -> !tile.tile<1x1024xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
  %s = tile.reduce sum %t [1] keepdims : !tile.tile<1x1024xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>> -> !tile.tile<1x1xf32, #tile.slice<dim = 1, extent = 1024, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>
  %c = tile.convert_layout %s : !tile.tile<1x1xf32, #tile.slice<dim = 1, extent = 1024, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>> -> !tile.tile<1x1xf32, #tile.blocked<vec = 1, owners = 1, replicas = 128>>
  tile.store %c, %zp[%b, %c0] : !tile.tile<1x1xf32, #tile.blocked<vec = 1, owners = 1, replicas = 128>>, !tile.partition_view<[1, 1], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

