// RUN: warpforge-opt %s -p gpu-to-llvm --split-input-file --verify-diagnostics | filecheck %s

// What the gpu → llvm passes refuse: each case is a diagnostic naming the op and its location,
// never a silently skipped op. (--verify-diagnostics prints each case's error and goes on.)

// CHECK: k.py:2:1: error: 'gpu.func' op has known_block_size but is not a kernel (launch bounds apply to kernels only)
gpu.module @m {
  gpu.func @f() attributes {known_block_size = array<i32: 32, 1, 1>} {
    gpu.return
  } loc("k.py":2:1)
}

// -----

// CHECK: k.py:3:5: error: 'memref.load' op uses memref<4x4xf32, strided<[1, 4]>>: only row-major contiguous memrefs (identity layout) are supported
gpu.module @m {
  func.func @f(%a: memref<4x4xf32, strided<[1, 4]>>, %i: index) -> f32 {
    %x = memref.load %a[%i, %i] : memref<4x4xf32, strided<[1, 4]>> loc("k.py":3:5)
    func.return %x : f32
  }
}

// -----

// CHECK: k.py:4:5: error: 'memref.dim' op needs a constant dimension index
gpu.module @m {
  func.func @f(%a: memref<?x?xf32, 1 : i32>, %d: index) -> index {
    %n = memref.dim %a, %d : memref<?x?xf32, 1 : i32> loc("k.py":4:5)
    func.return %n : index
  }
}

// -----

// CHECK: k.py:5:5: error: 'memref.atomic_rmw' op kind 'muli' has no atomic instruction (use a compare-and-swap loop)
gpu.module @m {
  func.func @f(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
    %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 13 : i64}> : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("k.py":5:5)
    func.return %o : i32
  }
}

// -----

// CHECK: k.py:6:5: error: 'memref.atomic_rmw' op has syncscope 'warp'; expected one of block, cluster, device, system
gpu.module @m {
  func.func @f(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
    %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {syncscope = "warp"} : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("k.py":6:5)
    func.return %o : i32
  }
}

// -----

// CHECK: k.py:7:5: error: 'memref.alloc' op has no lowering to the llvm dialect (supported: load, store, dim, atomic_rmw, alloca, global, get_global, view)
gpu.module @m {
  func.func @f() -> memref<4xf32> {
    %m = memref.alloc() : memref<4xf32> loc("k.py":7:5)
    func.return %m : memref<4xf32>
  }
}

// -----

// CHECK: k.py:8:5: error: 'memref.alloca' op needs a static shape on the GPU (a local array has a fixed size)
gpu.module @m {
  func.func @f(%n: index) {
    %m = memref.alloca(%n) : memref<?xf32> loc("k.py":8:5)
    func.return
  }
}

// -----

// CHECK: k.py:9:1: error: 'memref.global' op initializes shared memory, which cannot hold an initial value
gpu.module @m {
  "memref.global"() <{sym_name = "s", sym_visibility = "private", type = memref<2xf32, 3 : i32>, initial_value = dense<1.0> : tensor<2xf32>}> : () -> () loc("k.py":9:1)
}

// -----

// CHECK: k.py:10:5: error: 'math.ipowi' op has no lowering to the llvm dialect
gpu.module @m {
  func.func @f(%a: i32, %b: i32) -> i32 {
    %r = math.ipowi %a, %b : i32 loc("k.py":10:5)
    func.return %r : i32
  }
}

// -----

// CHECK: k.py:11:5: error: 'math.exp' op on vector<4xf32> has no libdevice lowering (scalar f16, bf16, f32 or f64 only)
gpu.module @m {
  func.func @f(%v: vector<4xf32>) -> vector<4xf32> {
    %r = math.exp %v : vector<4xf32> loc("k.py":11:5)
    func.return %r : vector<4xf32>
  }
}

// -----

// CHECK: k.py:12:5: error: 'cf.assert' op has no lowering to the llvm dialect
gpu.module @m {
  func.func @f(%c: i1) {
    cf.assert %c, "boom" loc("k.py":12:5)
    func.return
  }
}

// -----

// CHECK: k.py:13:1: error: 'func.func' op returns a memref (memref<4xf32, 3 : i32>); functions returning memrefs are not supported
gpu.module @m {
  func.func @f(%m: memref<4xf32, 3 : i32>) -> memref<4xf32, 3 : i32> {
    func.return %m : memref<4xf32, 3 : i32>
  } loc("k.py":13:1)
}

// -----

// CHECK: k.py:14:1: error: 'func.func' op passes a memref (memref<?xf32, 1 : i32>) as a block argument, which is not supported
gpu.module @m {
  func.func @f(%m: memref<?xf32, 1 : i32>) {
    cf.br ^next(%m : memref<?xf32, 1 : i32>)
  ^next(%n: memref<?xf32, 1 : i32>):
    func.return
  } loc("k.py":14:1)
}

// -----

// CHECK: k.py:15:5: error: 'memref.load' op uses memory space "global"; only integer address spaces are supported (1 global, 3 shared, 0 generic)
gpu.module @m {
  func.func @f(%a: memref<4xf32, "global">, %i: index) -> f32 {
    %x = memref.load %a[%i] : memref<4xf32, "global"> loc("k.py":15:5)
    func.return %x : f32
  }
}
