// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s

// tile.dot in tile-to-gpu (passes/lowerings/tile_dot.py): A, B and the accumulator go to their own shared
// arrays (A and B rows padded by 16 bytes; A and B, tile.loads of aligned f16 views used only here,
// by cp.async: 64 and 32 chunks of 16 bytes over 32 threads), the warps take the 16x8 output tiles
// (a 32x16 product: 4 tiles over 1 warp here), ldmatrix x4 / x2.trans feed nvgpu.mma.sync, the
// result comes back from the accumulator's array in the canonical layout.
// CHECK-DAG:   "memref.global"() <{sym_name = "[[GA:.*]]", type = memref<32x24xf16, 3 : i32>
// CHECK-DAG:   "memref.global"() <{sym_name = "{{.*}}", type = memref<16x24xf16, 3 : i32>
// CHECK-DAG:   "memref.global"() <{sym_name = "{{.*}}", type = memref<32x16xf32, 3 : i32>
// CHECK-LABEL: gpu.func @dot(
// CHECK-SAME:    tile.shared_bytes = 4352 : i64
// CHECK:       %[[SA:.*]] = memref.get_global @[[GA]] : memref<32x24xf16, 3 : i32>
// CHECK:       gpu.barrier
// CHECK:       nvgpu.device_async_copy %[[AG:.*]][%{{.*}}, %{{.*}}], %[[SA]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?xf16, 1 : i32> to memref<32x24xf16, 3 : i32>
// CHECK:       nvgpu.device_async_copy %[[AG]]
// CHECK:       nvgpu.device_async_copy %{{.*}} : memref<?x?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
// CHECK:       memref.store %{{.*}} : memref<32x16xf32, 3 : i32>
// CHECK:       nvgpu.device_async_create_group
// CHECK-NEXT:  nvgpu.device_async_wait {numGroups = 0 : i32}
// CHECK-NEXT:  gpu.barrier
// CHECK:       %[[A0:[^,]*]], {{.*}} = nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<32x24xf16, 3 : i32> -> f16, f16, f16, f16, f16, f16, f16, f16
// CHECK:       %[[B0:[^,]*]], {{.*}} = nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16, f16, f16
// CHECK-NEXT:  %{{.*}} = nvgpu.mma.sync "m16n8k16" "f16"(%[[A0]], {{.*}}) (%[[B0]], {{.*}}) ({{.*}}) : {{.*}} -> (f32, f32, f32, f32)
// CHECK-COUNT-3: nvgpu.mma.sync
// CHECK:       gpu.barrier
// CHECK:       memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x16xf32, 3 : i32>
kernel.func @dot(%c: !tile.tensor_view<32x16xf32>, %a: !tile.tensor_view<32x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<32x16xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<32x16xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %x, %y, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
