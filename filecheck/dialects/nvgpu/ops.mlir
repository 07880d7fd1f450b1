// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// Every nvgpu op round-trips in custom and generic form.

// CHECK-LABEL: func.func @ops(
// CHECK:       %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvgpu.mma.sync "m16n8k16" "f16"(%{{.*}}) (%{{.*}}) (%{{.*}}) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] {numTiles = 1 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16
// CHECK-NEXT:  nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
// CHECK-NEXT:  nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 2 : memref<?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
// CHECK-NEXT:  nvgpu.device_async_create_group
// CHECK-NEXT:  nvgpu.device_async_wait {numGroups = 3 : i32}
func.func @ops(%h: f16, %c: f32, %s: memref<16x24xf16, 3 : i32>, %g: memref<?xf16, 1 : i32>, %i: index) -> (f32, f16) {
  %d:4 = nvgpu.mma.sync "m16n8k16" "f16" (%h, %h, %h, %h, %h, %h, %h, %h) (%h, %h, %h, %h) (%c, %c, %c, %c) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %v:2 = nvgpu.ldmatrix %s[%i, %i] {numTiles = 1 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16
  nvgpu.device_async_copy %g[%i], %s[%i, %i], 8, %i {bypassL1} : memref<?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
  nvgpu.device_async_copy %g[%i], %s[%i, %i], 2 : memref<?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
  nvgpu.device_async_create_group
  nvgpu.device_async_wait {numGroups = 3 : i32}
  func.return %d#0, %v#1 : f32, f16
}
