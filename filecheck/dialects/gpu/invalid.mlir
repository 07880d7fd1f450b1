// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

gpu.module @m {
  // expected-error @+1 {{a kernel gpu.func must return nothing}}
  gpu.func @k(%x: f32) -> f32 kernel {
    gpu.return %x : f32
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{known_block_size must be 3 positive integers, got [32, 1]}}
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 1>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{known_block_size must be 3 positive integers, got [32, 0, 1]}}
  gpu.func @k() kernel attributes {known_block_size = array<i32: 32, 0, 1>} {
    gpu.return
  }
}

// -----

"gpu.module"() <{sym_name = "m"}> ({
  // expected-error @+1 {{entry block argument types must match the function's input types: expected i32}}
  "gpu.func"() <{sym_name = "f", function_type = (i32) -> ()}> ({
  ^bb0(%x: f32):
    "gpu.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----

func.func @f() {
  // expected-error @+1 {{'gpu.return' expects parent op 'gpu.func'}}
  "gpu.return"() : () -> ()
}

// -----

// expected-error @+1 {{'gpu.func' expects parent op 'gpu.module'}}
"gpu.func"() <{sym_name = "f", function_type = () -> ()}> ({
  "gpu.return"() : () -> ()
}) : () -> ()

// -----

gpu.module @m {
  gpu.func @f() -> index {
    // expected-error @+1 {{Expected `x`, `y`, or `z`}}
    %t = gpu.thread_id w
    gpu.return %t : index
  }
}

// -----

gpu.module @m {
  gpu.func @k(%x: f32, %o: i32) {
    %w = arith.constant 24 : i32
    // expected-error @+1 {{the shuffle width must be a power of two from 1 to 32, got 24}}
    %r, %v = gpu.shuffle xor %x, %o, %w : f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%x: f16, %o: i32) {
    // expected-error @+1 {{'gpu.shuffle' op moves i32, i64, f32 or f64, got f16}}
    %r, %v = gpu.shuffle xor %x, %o, %o : f16
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%x: f32) {
    // expected-error @+1 {{'gpu.subgroup_reduce' op maxsi is not defined on floats (f32)}}
    %r = gpu.subgroup_reduce maxsi %x : (f32) -> f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%x: i32) {
    // expected-error @+1 {{the cluster size must be a power of two from 1 to 32, got 12}}
    %r = gpu.subgroup_reduce add %x cluster(size = 12) : (i32) -> i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%p: i1) {
    // expected-error @+1 {{'gpu.barrier_reduce' op and gives i1, got i32}}
    %r = gpu.barrier_reduce and %p : i32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%x: i16) {
    // expected-error @+1 {{'gpu.match_any' op compares i32 or i64 values, got i16}}
    %r = gpu.match_any %x : i16
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() {
    // expected-error @+1 {{'gpu.dynamic_shared_memory' op gives memref<?xi8, 3 : i32>, got memref<?xf32, 3 : i32>}}
    %r = gpu.dynamic_shared_memory : memref<?xf32, 3 : i32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%i: i64) {
    // expected-error @+1 {{'gpu.printf' op argument 0: '%d' prints an i32, got i64 (promote it first)}}
    gpu.printf "%d\n", %i : i64
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() {
    // expected-error @+1 {{'gpu.printf' op the format has 1 conversion(s) but the op has 0 argument(s)}}
    gpu.printf "%f\n"
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%i: i64) {
    // expected-error @+1 {{'gpu.printf' op unsupported printf conversion '%p' (supported: %d %i %u %x %X %o %c, %f %F %e %E %g %G, %s for}}
    gpu.printf "%p\n", %i : i64
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%i: i32) {
    // expected-error @+1 {{'gpu.printf' op 33 arguments; CUDA's printf takes at most 32 (it ignores the rest)}}
    gpu.printf "%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d", %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i, %i : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
    gpu.return
  }
}

// -----

// xDSL's memref.load verifier raises a bare Exception for a user error: a plain verifier error, not
// "a bug in the verifier".
gpu.module @m {
  gpu.func @k(%o: memref<?xf32, 1>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'memref.load' op expected an index for each dimension}}
    %v = memref.load %o[%c0, %c0] : memref<?xf32, 1>
    gpu.return
  }
}
