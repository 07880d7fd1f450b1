// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// CHECK: a kernel gpu.func must return nothing
gpu.module @m {
  gpu.func @k(%x: f32) -> f32 kernel {
    gpu.return %x : f32
  }
}

// -----

// CHECK: known_block_size must be 3 positive integers, got [32, 1]
gpu.module @m {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1>} {
    gpu.return
  }
}

// -----

// CHECK: known_block_size must be 3 positive integers, got [32, 0, 1]
gpu.module @m {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 0, 1>} {
    gpu.return
  }
}

// -----

// CHECK: entry block argument types must match the function's input types: expected i32
"gpu.module"() <{sym_name = "m"}> ({
  "gpu.func"() <{sym_name = "f", function_type = (i32) -> ()}> ({
  ^bb0(%x: f32):
    "gpu.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

// CHECK: 'gpu.return' expects parent op 'gpu.func'
func.func @f() {
  "gpu.return"() : () -> ()
}

// -----

// CHECK: 'gpu.func' expects parent op 'gpu.module'
"gpu.func"() <{sym_name = "f", function_type = () -> ()}> ({
  "gpu.return"() : () -> ()
}) : () -> ()

// -----

// CHECK: Expected `x`, `y`, or `z`
gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id w
    gpu.return %t : index
  }
}

// -----

// CHECK: the shuffle width must be a power of two from 1 to 32, got 24
gpu.module @m {
  gpu.func @k(%x: f32, %o: i32) {
    %w = arith.constant 24 : i32
    %r, %v = gpu.shuffle xor %x, %o, %w : f32
    gpu.return
  }
}

// -----

// CHECK: gpu.shuffle moves i32, i64, f32 or f64, got f16
gpu.module @m {
  gpu.func @k(%x: f16, %o: i32) {
    %r, %v = gpu.shuffle xor %x, %o, %o : f16
    gpu.return
  }
}

// -----

// CHECK: gpu.subgroup_reduce maxsi is not defined on floats (f32)
gpu.module @m {
  gpu.func @k(%x: f32) {
    %r = gpu.subgroup_reduce maxsi %x : (f32) -> f32
    gpu.return
  }
}

// -----

// CHECK: the cluster size must be a power of two from 1 to 32, got 12
gpu.module @m {
  gpu.func @k(%x: i32) {
    %r = gpu.subgroup_reduce add %x cluster(size = 12) : (i32) -> i32
    gpu.return
  }
}

// -----

// CHECK: gpu.barrier_reduce and gives i1, got i32
gpu.module @m {
  gpu.func @k(%p: i1) {
    %r = gpu.barrier_reduce and %p : i32
    gpu.return
  }
}

// -----

// CHECK: gpu.match_any compares i32 or i64 values, got i16
gpu.module @m {
  gpu.func @k(%x: i16) {
    %r = gpu.match_any %x : i16
    gpu.return
  }
}

// -----

// CHECK: gpu.dynamic_shared_memory gives memref<?xi8, 3 : i32>, got memref<?xf32, 3 : i32>
gpu.module @m {
  gpu.func @k() {
    %r = gpu.dynamic_shared_memory : memref<?xf32, 3 : i32>
    gpu.return
  }
}
