// RUN: warpforge-opt %s --allow-unregistered-dialect | warpforge-opt --allow-unregistered-dialect | filecheck %s
// RUN: warpforge-opt %s --allow-unregistered-dialect --print-op-generic | warpforge-opt --allow-unregistered-dialect | filecheck %s

// warpforge's gpu dialect round-trips in MLIR's syntax, custom and generic.

// CHECK:      builtin.module {
// CHECK-NEXT:   gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
// CHECK-NEXT:     gpu.func @vecadd(%{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias}, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxntid = array<i32: 256, 1, 1>} {
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
        kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxntid = array<i32: 256, 1, 1>} {
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
