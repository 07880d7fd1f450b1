// RUN: warpforge-opt %s -p gpu-to-llvm --split-input-file --verify-diagnostics

// What the gpu → llvm passes refuse: each case is a diagnostic naming the op and its location,
// never a silently skipped op. (--verify-diagnostics prints each case's error and goes on.)

gpu.module @m {
  // expected-error @+1 {{'gpu.func' op has known_block_size but is not a kernel (launch bounds apply to kernels only)}}
  gpu.func @f() attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  } loc("k.py":2:1)
}

// -----

gpu.module @m {
  func.func @f(%a: memref<4x4xf32, strided<[1, 4]>>, %i: index) -> f32 {
    // expected-error @+1 {{'memref.load' op uses memref<4x4xf32, strided<[1, 4]>>: only row-major contiguous memrefs (identity layout) are supported}}
    %x = memref.load %a[%i, %i] : memref<4x4xf32, strided<[1, 4]>> loc("k.py":3:5)
    func.return %x : f32
  }
}

// -----

gpu.module @m {
  func.func @f(%a: memref<?x?xf32, 1 : i32>, %d: index) -> index {
    // expected-error @+1 {{'memref.dim' op needs a constant dimension index}}
    %n = memref.dim %a, %d : memref<?x?xf32, 1 : i32> loc("k.py":4:5)
    func.return %n : index
  }
}

// -----

gpu.module @m {
  func.func @f(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
    // expected-error @+1 {{'memref.atomic_rmw' op kind 'muli' has no atomic instruction (use a compare-and-swap loop)}}
    %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 13 : i64}> : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("k.py":5:5)
    func.return %o : i32
  }
}

// -----

gpu.module @m {
  func.func @f(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
    // expected-error @+1 {{'memref.atomic_rmw' op has syncscope 'warp'; expected one of block, cluster, device, system}}
    %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {syncscope = "warp"} : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("k.py":6:5)
    func.return %o : i32
  }
}

// -----

gpu.module @m {
  func.func @f() -> memref<4xf32> {
    // expected-error @+1 {{'memref.alloc' op has no lowering to the llvm dialect (supported: load, store, dim, atomic_rmw, alloca, global, get_global, view, extract_aligned_pointer_as_index)}}
    %m = memref.alloc() : memref<4xf32> loc("k.py":7:5)
    func.return %m : memref<4xf32>
  }
}

// -----

gpu.module @m {
  func.func @f(%n: index) {
    // expected-error @+1 {{'memref.alloca' op needs a static shape on the GPU (a local array has a fixed size)}}
    %m = memref.alloca(%n) : memref<?xf32> loc("k.py":8:5)
    func.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'memref.global' op initializes shared memory, which cannot hold an initial value}}
  "memref.global"() <{sym_name = "s", sym_visibility = "private", type = memref<2xf32, 3 : i32>, initial_value = dense<1.0> : tensor<2xf32>}> : () -> () loc("k.py":9:1)
}

// -----

gpu.module @m {
  func.func @f(%a: i32, %b: i32) -> i32 {
    // expected-error @+1 {{'math.ipowi' op has no lowering to the llvm dialect}}
    %r = math.ipowi %a, %b : i32 loc("k.py":10:5)
    func.return %r : i32
  }
}

// -----

gpu.module @m {
  func.func @f(%v: vector<4xf32>) -> vector<4xf32> {
    // expected-error @+1 {{'math.exp' op on vector<4xf32> has no libdevice lowering (scalar f16, bf16, f32 or f64 only)}}
    %r = math.exp %v : vector<4xf32> loc("k.py":11:5)
    func.return %r : vector<4xf32>
  }
}

// -----

gpu.module @m {
  func.func @f(%c: i1) {
    // expected-error @+1 {{'cf.assert' op has no lowering to the llvm dialect}}
    cf.assert %c, "boom" loc("k.py":12:5)
    func.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{'func.func' op returns a memref (memref<4xf32, 3 : i32>); functions returning memrefs are not supported}}
  func.func @f(%m: memref<4xf32, 3 : i32>) -> memref<4xf32, 3 : i32> {
    func.return %m : memref<4xf32, 3 : i32>
  } loc("k.py":13:1)
}

// -----

gpu.module @m {
  // expected-error @+1 {{'func.func' op passes a memref (memref<?xf32, 1 : i32>) as a block argument, which is not supported}}
  func.func @f(%m: memref<?xf32, 1 : i32>) {
    cf.br ^next(%m : memref<?xf32, 1 : i32>)
  ^next(%n: memref<?xf32, 1 : i32>):
    func.return
  } loc("k.py":14:1)
}

// -----

gpu.module @m {
  func.func @f(%a: memref<4xf32, "global">, %i: index) -> f32 {
    // expected-error @+1 {{'memref.load' op uses memory space "global"; only integer address spaces are supported (1 global, 3 shared, 0 generic)}}
    %x = memref.load %a[%i] : memref<4xf32, "global"> loc("k.py":15:5)
    func.return %x : f32
  }
}
