// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// The mbarrier, TMA and elect ops of the kernel dialect (dialects/kernel_hopper.py) round-trip.

// CHECK-LABEL: kernel.func @ops(
// CHECK-SAME:    %{{.*}}: !kernel.tensor_map<32x64xf16, "128B">, %{{.*}}: si32)
// CHECK:       %[[T:.*]] = kernel.shared_array {alignment = 1024 : i64} : !kernel.shared<32x64xf16>
// CHECK-NEXT:  %[[B:.*]] = kernel.shared_array : !kernel.shared<1xui64>
// CHECK-NEXT:  kernel.mbarrier_init %[[B]], %{{.*}} : !kernel.shared<1xui64>, si32
// CHECK-NEXT:  kernel.mbarrier_arrive %[[B]] : !kernel.shared<1xui64>
// CHECK-NEXT:  kernel.mbarrier_arrive_expect_tx %[[B]], %{{.*}} : !kernel.shared<1xui64>, si32
// CHECK-NEXT:  %{{.*}} = kernel.mbarrier_try_wait_parity %[[B]], %{{.*}} : !kernel.shared<1xui64>, si32
// CHECK-NEXT:  kernel.tma_load %[[T]], %{{.*}}[%{{.*}}, %{{.*}}], %[[B]] : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "128B">[si32, si32], !kernel.shared<1xui64>
// CHECK-NEXT:  kernel.tma_store %[[T]], %{{.*}}[%{{.*}}, %{{.*}}] : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "128B">, si32, si32
// CHECK-NEXT:  %{{.*}} = kernel.elect_sync : i1
kernel.func @ops(%d: !kernel.tensor_map<32x64xf16, "128B">, %n: si32) attributes {kernel} {
  %t = kernel.shared_array {alignment = 1024 : i64} : !kernel.shared<32x64xf16>
  %b = kernel.shared_array : !kernel.shared<1xui64>
  kernel.mbarrier_init %b, %n : !kernel.shared<1xui64>, si32
  kernel.mbarrier_arrive %b : !kernel.shared<1xui64>
  kernel.mbarrier_arrive_expect_tx %b, %n : !kernel.shared<1xui64>, si32
  %ok = kernel.mbarrier_try_wait_parity %b, %n : !kernel.shared<1xui64>, si32
  kernel.tma_load %t, %d[%n, %n], %b : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "128B">[si32, si32], !kernel.shared<1xui64>
  kernel.tma_store %t, %d[%n, %n] : !kernel.shared<32x64xf16>, !kernel.tensor_map<32x64xf16, "128B">, si32, si32
  %e = kernel.elect_sync : i1
  kernel.return
}
