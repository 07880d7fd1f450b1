// RUN: warpforge-opt %s --split-input-file -p kernel-to-gpu | filecheck %s

// The tensor-core and async-copy ops of the kernel dialect (dialects/kernel_mma.py) in kernel-to-gpu
// (passes/lowerings/kernel_to_gpu_mma.py). Unchecked: straight to nvgpu ops; cp_async's source count is
// clamp(len - i, 0, n), the source index 0 when nothing is read.
// CHECK-LABEL: gpu.func @unchecked(
// CHECK-SAME:    %[[X:[^:]*]]: memref<?xf16, 1 : i32> {{.*}}, %[[R:[^:]*]]: i64, %[[I:[^:]*]]: i64)
// CHECK:         %[[S:.*]] = memref.get_global @{{.*}} : memref<16x16xf16, 3 : i32>
// CHECK:         %[[LEN:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[LEN]] : i64
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[LEN]], %[[I]] : i64
// CHECK-NEXT:    %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    %[[MIN:.*]] = arith.minsi %[[LEFT]], %[[EIGHT]] : i64
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[IN]], %[[MIN]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SI:.*]] = arith.select %[[IN]], %[[I]], %[[ZERO]] : i64
// CHECK:         nvgpu.device_async_copy %[[X]][%{{.*}}], %[[S]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?xf16, 1 : i32> to memref<16x16xf16, 3 : i32>
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait {numGroups = 1 : i32}
// CHECK:         %[[A0:[^,]*]], {{.*}} = nvgpu.ldmatrix %[[S]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<16x16xf16, 3 : i32> -> f16, f16, f16, f16, f16, f16, f16, f16
// CHECK:         %[[B0:[^,]*]], {{.*}} = nvgpu.ldmatrix %[[S]][%{{.*}}, %{{.*}}] {numTiles = 2 : i32, transpose} : memref<16x16xf16, 3 : i32> -> f16, f16, f16, f16
// CHECK:         nvgpu.mma.sync "m16n8k16" "f16"(%[[A0]], {{.*}}) (%[[B0]], {{.*}}) ({{.*}}) : {{.*}} -> (f32, f32, f32, f32)
kernel.func @unchecked(%x: !kernel.slice<f16>, %r: si64, %i: si64) attributes {kernel, checks = false} {
  %s = kernel.shared_array : !kernel.shared<16x16xf16>
  %c0 = kernel.constant 0 : si64
  kernel.cp_async %s[%r, %c0], %x[%i], 8 {bypassL1} : !kernel.shared<16x16xf16>[si64, si64], !kernel.slice<f16>[si64]
  kernel.cp_async_commit
  kernel.cp_async_wait {numGroups = 1 : i32}
  %a:8 = kernel.ldmatrix %s[%r, %c0] {numTiles = 4 : i32} : !kernel.shared<16x16xf16>, si64, si64 -> f16, f16, f16, f16, f16, f16, f16, f16
  %b:4 = kernel.ldmatrix %s[%r, %c0] {numTiles = 2 : i32, transpose} : !kernel.shared<16x16xf16>, si64, si64 -> f16, f16, f16, f16
  %z = kernel.constant 0.0 : f32
  %d:4 = kernel.mma_sync "m16n8k16" "f16"(%a#0, %a#1, %a#2, %a#3, %a#4, %a#5, %a#6, %a#7) (%b#0, %b#1, %b#2, %b#3) (%z, %z, %z, %z) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  kernel.return
}

// -----

// Checked: a bad ldmatrix row is reported and the lane reads row 0 (every lane still executes the
// warp-wide instruction); a bad cp_async is reported and copies nothing (the copy is under scf.if).
// CHECK-LABEL: gpu.func @checked(
// CHECK:         scf.if %{{.*}} {
// CHECK:           func.call @__wf_report_error
// CHECK:         %{{.*}} = arith.select %[[OK:.*]], %{{.*}}, %{{.*}} : i64
// CHECK:         nvgpu.ldmatrix
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      arith.index_cast
// CHECK:           nvgpu.device_async_copy
// CHECK:         } else {
// CHECK:           func.call @__wf_report_error
kernel.func @checked(%x: !kernel.slice<f16>, %r: si64, %i: si64) attributes {kernel} {
  %s = kernel.shared_array : !kernel.shared<16x16xf16>
  %c0 = kernel.constant 0 : si64
  %a:8 = kernel.ldmatrix %s[%r, %c0] {numTiles = 4 : i32} : !kernel.shared<16x16xf16>, si64, si64 -> f16, f16, f16, f16, f16, f16, f16, f16
  kernel.cp_async %s[%r, %c0], %x[%i], 8 : !kernel.shared<16x16xf16>[si64, si64], !kernel.slice<f16>[si64]
  kernel.return
}
