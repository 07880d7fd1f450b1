// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx > %t.ptx && filecheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas

// The gpu-level ops of shared memory, synchronization and warp collectives, through gpu-to-llvm, the
// exporter and NVPTX, then ptxas: the PTX instruction each one becomes.

// CHECK: .extern .shared .align 16 .b8 __wf_dynamic_shared[];
// CHECK-LABEL: .visible .entry collectives(
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: shfl.sync.up.b32 {{.*}}|%p
// CHECK-DAG: shfl.sync.down.b32
// CHECK-DAG: redux.sync.add.s32
// CHECK-DAG: bar.red.popc.u32
// CHECK-DAG: bar.red.and.pred
// CHECK-DAG: vote.sync.any.pred
// CHECK-DAG: vote.sync.ballot.b32
// CHECK-DAG: activemask.b32
// CHECK-DAG: match.any.sync.b64
// CHECK-DAG: membar.gl
// CHECK-DAG: membar.cta
// CHECK-DAG: bar.warp.sync
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: atom.relaxed.gpu.global.cas.b32
builtin.module {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @collectives(%f: memref<?xf32, 1 : i32>, %d: memref<?xf64, 1 : i32>, %i: memref<?xi32, 1 : i32>, %l: memref<?xi64, 1 : i32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %one = arith.constant 1 : i32
      %w32 = arith.constant 32 : i32
      %x = memref.load %f[%c0] : memref<?xf32, 1 : i32>
      %y = memref.load %d[%c0] : memref<?xf64, 1 : i32>
      %n = memref.load %i[%c0] : memref<?xi32, 1 : i32>
      %v = memref.load %l[%c0] : memref<?xi64, 1 : i32>
      %r1, %p1 = gpu.shuffle xor %x, %one, %w32 : f32
      %r2, %p2 = gpu.shuffle up %n, %one, %w32 : i32
      %r3, %p3 = gpu.shuffle down %y, %one, %w32 : f64
      %s = gpu.subgroup_reduce add %n : (i32) -> i32
      %p = arith.cmpi sgt, %n, %one : i32
      %count = gpu.barrier_reduce popc %p : i32
      %all = gpu.barrier_reduce and %p2 : i1
      %any = gpu.vote any %all
      %ballot = gpu.ballot %any : i32
      %mask = gpu.active_mask : i32
      %match = gpu.match_any %v : i64
      gpu.thread_fence device
      gpu.thread_fence block
      gpu.warp_sync %mask
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
      %words = arith.constant 8 : index
      %sh = memref.view %bytes[%c0][%words] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
      %z = memref.load %sh[%c1] : memref<?xf32, 3 : i32>
      %m = "memref.atomic_rmw"(%z, %f, %c2) <{kind = 4 : i64}> : (f32, memref<?xf32, 1 : i32>, index) -> f32
      %sum = arith.addf %r1, %m : f32
      memref.store %sum, %f[%c1] : memref<?xf32, 1 : i32>
      memref.store %r3, %d[%c1] : memref<?xf64, 1 : i32>
      %t1 = arith.addi %r2, %s : i32
      %t2 = arith.addi %t1, %count : i32
      %t3 = arith.addi %t2, %ballot : i32
      %t4 = arith.addi %t3, %match : i32
      memref.store %t4, %i[%c1] : memref<?xi32, 1 : i32>
      gpu.return
    }
  }
}
