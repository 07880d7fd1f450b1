// RUN: warpforge-opt %s --split-input-file -p kernel-to-gpu | filecheck %s

// The mbarrier and TMA ops of the kernel dialect (dialects/kernel_hopper.py) in kernel-to-gpu
// (passes/lowerings/kernel_to_gpu_hopper.py): the tensor-map parameter becomes an
// !nvgpu.tensormap.descriptor, the ops become nvgpu ops on the barrier's and the box's memrefs,
// mbarrier_init is followed by the proxy fence, the box keeps the alignment the frontend gave it.
// CHECK-LABEL: gpu.module @tma_module
// CHECK:         "memref.global"() <{sym_name = "[[TG:[^"]*]]", type = memref<16x32xf32, 3 : i32>, {{.*}}alignment = 128 : i64}>
// CHECK:       gpu.func @tma(
// CHECK-SAME:    %[[D:[^:]*]]: !nvgpu.tensormap.descriptor<16x32xf32, "none">, %[[R:[^:]*]]: i32, %[[C:[^:]*]]: i32)
// CHECK:         %[[T:.*]] = memref.get_global @[[TG]] : memref<16x32xf32, 3 : i32>
// CHECK:         %[[B:.*]] = memref.get_global @{{.*}} : memref<1xi64, 3 : i32>
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    nvgpu.mbarrier.init %[[B]], %[[ONE]] : memref<1xi64, 3 : i32>, i32
// CHECK-NEXT:    nvvm.fence.proxy.async.shared.cta
// CHECK:         %[[TX:.*]] = arith.constant 2048 : i32
// CHECK-NEXT:    nvgpu.mbarrier.arrive.expect_tx %[[B]], %[[TX]] : memref<1xi64, 3 : i32>, i32
// CHECK-NEXT:    nvgpu.tma.async.load %[[D]][%[[R]], %[[C]]], %[[B]] to %[[T]] : !nvgpu.tensormap.descriptor<16x32xf32, "none">[i32, i32], memref<1xi64, 3 : i32>, memref<16x32xf32, 3 : i32>
// CHECK:         %[[OK:.*]] = nvgpu.mbarrier.try_wait.parity %[[B]], %{{.*}} : memref<1xi64, 3 : i32>, i32
// CHECK:         nvgpu.mbarrier.arrive %[[B]] : memref<1xi64, 3 : i32>
// CHECK-NEXT:    nvgpu.tma.async.store %[[T]] to %[[D]][%[[R]], %[[C]]] : memref<16x32xf32, 3 : i32>, !nvgpu.tensormap.descriptor<16x32xf32, "none">, i32, i32
// CHECK-NEXT:    nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:    nvvm.cp.async.bulk.wait_group 0
kernel.func @tma(%d: !kernel.tensor_map<16x32xf32, "none">, %r: si32, %c: si32) attributes {kernel, checks = false} {
  %t = kernel.shared_array {alignment = 128 : i64} : !kernel.shared<16x32xf32>
  %b = kernel.shared_array : !kernel.shared<1xui64>
  %one = kernel.constant 1 : si32
  kernel.mbarrier_init %b, %one : !kernel.shared<1xui64>, si32
  %tx = kernel.constant 2048 : si32
  kernel.mbarrier_arrive_expect_tx %b, %tx : !kernel.shared<1xui64>, si32
  kernel.tma_load %t, %d[%r, %c], %b : !kernel.shared<16x32xf32>, !kernel.tensor_map<16x32xf32, "none">[si32, si32], !kernel.shared<1xui64>
  %zero = kernel.constant 0 : si32
  %ok = kernel.mbarrier_try_wait_parity %b, %zero : !kernel.shared<1xui64>, si32
  kernel.mbarrier_arrive %b : !kernel.shared<1xui64>
  kernel.tma_store %t, %d[%r, %c] : !kernel.shared<16x32xf32>, !kernel.tensor_map<16x32xf32, "none">, si32, si32
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group 0
  kernel.return
}

// -----

// elect.sync over the full warp: the leader predicate is the second result.
// CHECK-LABEL: gpu.func @elect(
// CHECK:         %[[M:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %{{.*}}, %[[L:.*]] = nvvm.elect.sync %[[M]] : (i32) -> (i32, i1)
// CHECK:         arith.extui %[[L]] : i1 to i32
kernel.func @elect(%x: !kernel.raw_slice<si32>) attributes {kernel, checks = false} {
  %leader = kernel.elect_sync : i1
  %v = kernel.cast %leader : i1 to si32
  %i = kernel.constant 0 : si64
  kernel.store %v, %x[%i] : si32, !kernel.raw_slice<si32>, si64
  kernel.return
}
