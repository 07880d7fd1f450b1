// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// The mbarrier and TMA ops (dialects/nvgpu_hopper.py) round-trip in custom and generic form.

// CHECK-LABEL: func.func @ops(
// CHECK-SAME:    %{{.*}}: !nvgpu.tensormap.descriptor<32x64xf16, "128B">
// CHECK:       nvgpu.mbarrier.init %{{.*}}, %{{.*}} : memref<1xi64, 3 : i32>, i32
// CHECK-NEXT:  nvgpu.mbarrier.arrive %{{.*}} : memref<1xi64, 3 : i32>
// CHECK-NEXT:  nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : memref<1xi64, 3 : i32>, i32
// CHECK-NEXT:  %{{.*}} = nvgpu.mbarrier.try_wait.parity %{{.*}}, %{{.*}} : memref<1xi64, 3 : i32>, i32
// CHECK-NEXT:  nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} to %{{.*}} : !nvgpu.tensormap.descriptor<32x64xf16, "128B">[i32, i32], memref<1xi64, 3 : i32>, memref<32x64xf16, 3 : i32>
// CHECK-NEXT:  nvgpu.tma.async.store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x64xf16, 3 : i32>, !nvgpu.tensormap.descriptor<32x64xf16, "128B">, i32, i32
func.func @ops(%d: !nvgpu.tensormap.descriptor<32x64xf16, "128B">, %b: memref<1xi64, 3 : i32>, %t: memref<32x64xf16, 3 : i32>, %n: i32) -> i1 {
  nvgpu.mbarrier.init %b, %n : memref<1xi64, 3 : i32>, i32
  nvgpu.mbarrier.arrive %b : memref<1xi64, 3 : i32>
  nvgpu.mbarrier.arrive.expect_tx %b, %n : memref<1xi64, 3 : i32>, i32
  %ok = nvgpu.mbarrier.try_wait.parity %b, %n : memref<1xi64, 3 : i32>, i32
  nvgpu.tma.async.load %d[%n, %n], %b to %t : !nvgpu.tensormap.descriptor<32x64xf16, "128B">[i32, i32], memref<1xi64, 3 : i32>, memref<32x64xf16, 3 : i32>
  nvgpu.tma.async.store %t to %d[%n, %n] : memref<32x64xf16, 3 : i32>, !nvgpu.tensormap.descriptor<32x64xf16, "128B">, i32, i32
  func.return %ok : i1
}
