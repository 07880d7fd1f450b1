// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx > %t.ptx && filecheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas

// The nvgpu tensor-core ops through gpu-to-llvm, the exporter and NVPTX, then ptxas: a cp.async
// with zero-fill (8 of 8 f16 = 16 bytes), its group and wait, ldmatrix x4 (A) and x2.trans (B), and
// an m16n8k16 f16 -> f32 mma.sync.

// CHECK-LABEL: .visible .entry k(
// CHECK:       cp.async.cg.shared.global [%[[DST:.*]]], [%{{.*}}], 16, 16;
// CHECK-NEXT:  cp.async.commit_group;
// CHECK-NEXT:  cp.async.wait_group {{.*}}0;
// CHECK:       bar.sync 0;
// CHECK:       ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{.*}}, %r{{.*}}, %r{{.*}}, %r{{.*}}}, [%[[DST]]];
// CHECK-NEXT:  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r{{.*}}, %r{{.*}}}, [%[[DST]]+16];
// CHECK:       mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    "memref.global"() <{sym_name = "smem", sym_visibility = "private", type = memref<16x24xf16, 3 : i32>, initial_value, alignment = 16 : i64}> : () -> ()
  gpu.func @k(%g: memref<?xf16, 1 : i32>, %out: memref<?xf32, 1 : i32>) kernel {
    %s = memref.get_global @smem : memref<16x24xf16, 3 : i32>
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %lane = gpu.lane_id
    nvgpu.device_async_copy %g[%c0], %s[%lane, %c0], 8, %c8 {bypassL1} : memref<?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
    nvgpu.device_async_create_group
    nvgpu.device_async_wait {numGroups = 0 : i32}
    gpu.barrier
    %a:8 = nvgpu.ldmatrix %s[%lane, %c0] {numTiles = 4 : i32} : memref<16x24xf16, 3 : i32> -> f16, f16, f16, f16, f16, f16, f16, f16
    %b:4 = nvgpu.ldmatrix %s[%lane, %c8] {numTiles = 2 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16, f16, f16
    %z = arith.constant 0.0 : f32
    %d:4 = nvgpu.mma.sync "m16n8k16" "f16" (%a#0, %a#1, %a#2, %a#3, %a#4, %a#5, %a#6, %a#7) (%b#0, %b#1, %b#2, %b#3) (%z, %z, %z, %z) : (f16, f16, f16, f16, f16, f16, f16, f16), (f16, f16, f16, f16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    memref.store %d#0, %out[%c0] : memref<?xf32, 1 : i32>
    memref.store %d#3, %out[%c8] : memref<?xf32, 1 : i32>
    gpu.return
  }
}
