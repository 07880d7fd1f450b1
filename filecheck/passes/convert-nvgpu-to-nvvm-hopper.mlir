// RUN: warpforge-opt %s --split-input-file -p convert-nvgpu-to-nvvm | filecheck %s

// mbarriers and TMA copies (dialects/nvgpu_hopper.py, passes/lowerings/nvgpu_to_nvvm_hopper.py): the
// descriptor parameter becomes a __grid_constant__ byval pointer, the barrier and the box their
// shared-memory pointers, the coordinates are reversed (PTX takes the innermost first).
// CHECK-LABEL: gpu.func @tma(
// CHECK-SAME:    %[[D:[^:]*]]: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}, %[[R:[^:]*]]: i32, %[[C:[^:]*]]: i32)
// CHECK:         %[[BD:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<1xi64, 3 : i32> to !llvm.struct<(!llvm.ptr<3>)>
// CHECK-NEXT:    %[[BP:.*]] = llvm.extractvalue %[[BD]][0] : !llvm.struct<(!llvm.ptr<3>)>
// CHECK-NEXT:    nvvm.mbarrier.init.shared %[[BP]], %{{.*}} : !llvm.ptr<3>, i32
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : (!llvm.ptr<3>, i32) -> i64
// CHECK:         %[[TD:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<16x32xf32, 3 : i32> to !llvm.struct<(!llvm.ptr<3>)>
// CHECK-NEXT:    %[[TP:.*]] = llvm.extractvalue %[[TD]][0] : !llvm.struct<(!llvm.ptr<3>)>
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %[[TP]], %{{.*}}, %[[D]], %[[C]], %[[R]] : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
// CHECK:         %{{.*}} = nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}} : (!llvm.ptr<3>, i32) -> i1
// CHECK:         nvvm.mbarrier.arrive.shared %{{.*}} : (!llvm.ptr<3>) -> i64
// CHECK:         nvvm.cp.async.bulk.tensor.global.shared.cta.2d %{{.*}}, %[[D]], %[[C]], %[[R]] : !llvm.ptr<3>, !llvm.ptr, i32, i32
gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  "memref.global"() <{sym_name = "tile", type = memref<16x32xf32, 3 : i32>, initial_value, sym_visibility = "private", alignment = 128 : i64}> : () -> ()
  "memref.global"() <{sym_name = "bar", type = memref<1xi64, 3 : i32>, initial_value, sym_visibility = "private", alignment = 16 : i64}> : () -> ()
  gpu.func @tma(%d: !nvgpu.tensormap.descriptor<16x32xf32, "none">, %r: i32, %c: i32) kernel {
    %t = memref.get_global @tile : memref<16x32xf32, 3 : i32>
    %b = memref.get_global @bar : memref<1xi64, 3 : i32>
    %one = arith.constant 1 : i32
    nvgpu.mbarrier.init %b, %one : memref<1xi64, 3 : i32>, i32
    %tx = arith.constant 2048 : i32
    nvgpu.mbarrier.arrive.expect_tx %b, %tx : memref<1xi64, 3 : i32>, i32
    nvgpu.tma.async.load %d[%r, %c], %b to %t : !nvgpu.tensormap.descriptor<16x32xf32, "none">[i32, i32], memref<1xi64, 3 : i32>, memref<16x32xf32, 3 : i32>
    %zero = arith.constant 0 : i32
    %ok = nvgpu.mbarrier.try_wait.parity %b, %zero : memref<1xi64, 3 : i32>, i32
    %okw = arith.extui %ok : i1 to i32
    nvgpu.mbarrier.arrive %b : memref<1xi64, 3 : i32>
    nvgpu.tma.async.store %t to %d[%r, %c] : memref<16x32xf32, 3 : i32>, !nvgpu.tensormap.descriptor<16x32xf32, "none">, i32, i32
    gpu.return
  }
}
