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

// CHECK: Expected `x`, `y`, or `z`.
gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id w
    gpu.return %t : index
  }
}
