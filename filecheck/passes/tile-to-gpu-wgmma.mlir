// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m chip=sm_90a},canonicalize,cse' | filecheck %s
// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m chip=sm_90},canonicalize,cse' | filecheck %s --check-prefix=SM90

// tile.dot on wgmma (passes/lowerings/tile_dot_wgmma.py), chosen for sm_90a: a 64x128 f32 accumulator
// over one warpgroup (4 warps) from two tile-pipeline rings. The rings start at the first 1024-byte
// aligned address of the dynamic shared memory (pad = -base & 1023; 1024 bytes reserved past the rings:
// B starts right after A's 16384 bytes, and pad + its end 49152 <= 50176 for any pad); A's slots are
// 64x64 (128-byte rows, 128-byte swizzle), B's 64x128 slots are two 64x64 column panels (a 256x64
// array for 2 stages). The ring's wait orders the cp.async writes for the async proxy
// (fence.proxy.async) before the barrier. Descriptors: A = (addr >> 4) | LBO 1 | SBO 1024 B | 128-byte
// swizzle; B = (addr >> 4) | LBO 8192 B (the panel stride) | SBO 1024 B | 128-byte swizzle. One
// wgmma.fence, four m64n128k16 (K = 64) chained on the accumulator, B N-major (layout_b = "row"),
// commit, wait 0; the zero accumulator is scale-d = false with undefined inputs for the first (no
// register writes between the fence and the wgmma), true for the rest. On sm_90 the same dot is mma.sync.
// CHECK-LABEL: gpu.func @wgmma(
// CHECK-SAME:    tile.dynamic_shared_bytes = 50176 : i64
// CHECK:       %[[RAW:.*]] = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
// CHECK:       %[[BASE:.*]] = "memref.extract_aligned_pointer_as_index"(%[[RAW]])
// CHECK:       %[[BASE64:.*]] = arith.index_cast %[[BASE]] : index to i64
// CHECK:       %[[NEG:.*]] = arith.subi %{{.*}}, %[[BASE64]] : i64
// CHECK:       %[[PAD:.*]] = arith.andi %[[NEG]], %{{.*}} : i64
// CHECK:       %[[SHIFT:.*]] = arith.index_cast %[[PAD]] : i64 to index
// CHECK:       %[[RA:.*]] = memref.view %[[RAW]][%[[SHIFT]]][] : memref<?xi8, 3 : i32> to memref<128x64xf16, 3 : i32>
// CHECK:       %[[BOFF:.*]] = arith.constant 16384 : i64
// CHECK-NEXT:  %[[BSHIFT:.*]] = arith.addi %[[PAD]], %[[BOFF]] : i64
// CHECK:       %[[RB:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<?xi8, 3 : i32> to memref<256x64xf16, 3 : i32>
// CHECK:       "memref.extract_aligned_pointer_as_index"(%[[RA]])
// CHECK:       "memref.extract_aligned_pointer_as_index"(%[[RB]])
// CHECK:       nvgpu.device_async_copy %a[%{{.*}}, %{{.*}}], %[[RA]][%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK:       nvgpu.device_async_copy %b[%{{.*}}, %{{.*}}], %[[RB]][%{{.*}}, %{{.*}}], 8 {bypassL1}
// CHECK:       nvgpu.device_async_wait {numGroups = 0 : i32}
// CHECK-NEXT:  nvvm.fence.proxy.async.shared.cta
// CHECK-NEXT:  gpu.barrier
// CHECK:       %[[AF:.*]] = arith.constant 4611686293305360384 : i64
// CHECK:       %[[DA:.*]] = arith.ori %{{.*}}, %[[AF]] : i64
// CHECK:       %[[BF:.*]] = arith.constant 4611686293338849280 : i64
// CHECK:       %[[DB:.*]] = arith.ori %{{.*}}, %[[BF]] : i64
// CHECK:       %[[ZERO:.*]] = arith.constant false
// CHECK-NEXT:  %[[U:.*]] = llvm.mlir.undef : f32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant true
// CHECK-NEXT:  nvvm.wgmma.fence.aligned
// CHECK-NEXT:  nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[ZERO]], (%[[U]], %[[U]], {{.*}}) {n = 128 : i32, type = "f16", layout_a = "row", layout_b = "row", scale_a = 1 : i32, scale_b = 1 : i32}
// CHECK:       nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ONE]], ({{.*}}) {n = 128
// CHECK:       nvvm.wgmma.mma_async
// CHECK:       nvvm.wgmma.mma_async
// CHECK-NEXT:  nvvm.wgmma.commit.group.sync.aligned
// The wait hands the accumulators to their readers (so LLVM cannot hoist a read above it).
// CHECK-NEXT:  nvvm.wgmma.wait_accumulators {{.*}} {n = 0 : i64} : f32, {{.*}} -> f32,
// CHECK-NOT:   nvvm.wgmma.wait.group.sync.aligned
// CHECK-NOT:   nvgpu.mma.sync
// CHECK:       gpu.return
// SM90-LABEL:  gpu.func @wgmma(
// SM90-NOT:    nvvm.wgmma
// SM90-NOT:    fence.proxy
// SM90:        nvgpu.ldmatrix
// SM90:        nvgpu.mma.sync "m16n8k16" "f16"
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

// -----

// Two warps are no warpgroup: mma.sync on sm_90a too, and the rings keep their row-major slots.
// CHECK-LABEL: gpu.func @two_warps(
// CHECK-NOT:   nvvm.wgmma
// CHECK:       memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, 3 : i32> to memref<128x128xf16, 3 : i32>
// CHECK:       nvgpu.mma.sync "m16n8k16" "f16"
// SM90-LABEL:  gpu.func @two_warps(
// SM90:        nvgpu.mma.sync "m16n8k16" "f16"
kernel.func @two_warps(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 2 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
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
