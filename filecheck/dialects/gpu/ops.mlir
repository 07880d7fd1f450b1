// RUN: warpforge-opt %s --allow-unregistered-dialect | warpforge-opt --allow-unregistered-dialect | filecheck %s
// RUN: warpforge-opt %s --allow-unregistered-dialect --print-op-generic | warpforge-opt --allow-unregistered-dialect | filecheck %s

// warpforge's gpu dialect round-trips in MLIR's syntax, custom and generic.

// CHECK:      builtin.module {
// CHECK-NEXT:   gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
// CHECK-NEXT:     gpu.func @vecadd(%{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias}, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32} {
// CHECK-NEXT:       %{{.*}} = gpu.thread_id x
// CHECK-NEXT:       %{{.*}} = gpu.thread_id y
// CHECK-NEXT:       %{{.*}} = gpu.thread_id z
// CHECK-NEXT:       %{{.*}} = gpu.block_id x
// CHECK-NEXT:       %{{.*}} = gpu.block_dim y
// CHECK-NEXT:       %{{.*}} = gpu.grid_dim z
// CHECK-NEXT:       %{{.*}} = gpu.global_id x
// CHECK-NEXT:       %{{.*}} = gpu.lane_id
// CHECK-NEXT:       gpu.barrier
// CHECK-NEXT:       "test.use"
// CHECK-NEXT:       gpu.return
// CHECK-NEXT:     }
// CHECK-NEXT:     gpu.func @collectives(%{{.*}}: f32, %{{.*}}: i64, %{{.*}}: i1, %{{.*}}: i32) {
// CHECK-NEXT:       %{{.*}}, %{{.*}} = gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:       %{{.*}}, %{{.*}} = gpu.shuffle up %{{.*}}, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:       %{{.*}}, %{{.*}} = gpu.shuffle down %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:       %{{.*}}, %{{.*}} = gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:       %{{.*}} = gpu.subgroup_reduce add %{{.*}} : (f32) -> f32
// CHECK-NEXT:       %{{.*}} = gpu.subgroup_reduce maxsi %{{.*}} uniform cluster(size = 8) : (i64) -> i64
// CHECK-NEXT:       %{{.*}} = gpu.barrier_reduce popc %{{.*}} : i32
// CHECK-NEXT:       %{{.*}} = gpu.barrier_reduce and %{{.*}} : i1
// CHECK-NEXT:       %{{.*}} = gpu.barrier_reduce or %{{.*}} : i1
// CHECK-NEXT:       gpu.thread_fence block
// CHECK-NEXT:       gpu.thread_fence device
// CHECK-NEXT:       gpu.thread_fence system
// CHECK-NEXT:       gpu.warp_sync %{{.*}}
// CHECK-NEXT:       %{{.*}} = gpu.vote any %{{.*}}
// CHECK-NEXT:       %{{.*}} = gpu.vote all %{{.*}}
// CHECK-NEXT:       %{{.*}} = gpu.ballot %{{.*}} : i32
// CHECK-NEXT:       %{{.*}} = gpu.active_mask : i32
// CHECK-NEXT:       %{{.*}} = gpu.match_any %{{.*}} : i64
// CHECK-NEXT:       %{{.*}} = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
// CHECK-NEXT:       "test.use"
// CHECK-NEXT:       gpu.return
// CHECK-NEXT:     }
// CHECK-NEXT:     gpu.func @helper(%{{.*}}: f32, %{{.*}}: index) -> (f32, index) {
// CHECK-NEXT:       gpu.return %{{.*}}, %{{.*}} : f32, index
// CHECK-NEXT:     }
// CHECK-NEXT:     gpu.func @single(%{{.*}}: f32) -> f32 {
// CHECK-NEXT:       gpu.return %{{.*}} : f32
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   gpu.module @no_target {
// CHECK-NEXT:   }
// CHECK-NEXT:   gpu.module @sm80 [#nvvm.target<chip = "sm_80", O = 2>] attributes {wf.note = "kept"} {
// CHECK-NEXT:   }
// CHECK-NEXT: }
builtin.module {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @vecadd(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %n: i32)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32} {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %tz = gpu.thread_id z
      %bx = gpu.block_id x
      %dy = gpu.block_dim y
      %gz = gpu.grid_dim z
      %gx = gpu.global_id x
      %l = gpu.lane_id
      gpu.barrier
      "test.use"(%tx, %ty, %tz, %bx, %dy, %gz, %gx, %l) : (index, index, index, index, index, index, index, index) -> ()
      gpu.return
    }
    gpu.func @collectives(%x: f32, %y: i64, %p: i1, %w: i32) {
      %0, %1 = gpu.shuffle xor %x, %w, %w : f32
      %2, %3 = gpu.shuffle up %y, %w, %w : i64
      %4, %5 = gpu.shuffle down %w, %w, %w : i32
      %6, %7 = gpu.shuffle idx %x, %w, %w : f32
      %8 = gpu.subgroup_reduce add %x : (f32) -> f32
      %9 = gpu.subgroup_reduce maxsi %y uniform cluster(size = 8) : (i64) -> i64
      %10 = gpu.barrier_reduce popc %p : i32
      %11 = gpu.barrier_reduce and %p : i1
      %12 = gpu.barrier_reduce or %p : i1
      gpu.thread_fence block
      gpu.thread_fence device
      gpu.thread_fence system
      gpu.warp_sync %w
      %13 = gpu.vote any %p
      %14 = gpu.vote all %p
      %15 = gpu.ballot %p : i32
      %16 = gpu.active_mask : i32
      %17 = gpu.match_any %y : i64
      %18 = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
      "test.use"(%0, %1, %2, %4, %6, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18) : (f32, i1, i64, i32, f32, f32, i64, i32, i1, i1, i1, i1, i32, i32, i32, memref<?xi8, 3 : i32>) -> ()
      gpu.return
    }
    gpu.func @helper(%x: f32, %i: index) -> (f32, index) {
      gpu.return %x, %i : f32, index
    }
    gpu.func @single(%x: f32) -> f32 {
      gpu.return %x : f32
    }
  }
  gpu.module @no_target {
  }
  gpu.module @sm80 [#nvvm.target<chip = "sm_80", O = 2>] attributes {wf.note = "kept"} {
  }
}
