// RUN: warpforge-opt %s -p finalize-memref-to-llvm --split-input-file --verify-diagnostics

// LLVM's NVPTX backend prints every native atomicrmw as a relaxed .gpu atom: an ordered or
// system-scoped atomic that reaches this pass (convert-gpu-to-nvvm not run) is refused, never weakened.

func.func @acquire(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
  // expected-error @+1 {{'memref.atomic_rmw' op would lose its ordering or scope as llvm.atomicrmw (NVPTX prints a relaxed .gpu atom): }}
  %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {ordering = "acquire"} : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("k.py":3:5)
  func.return %o : i32
}

// -----

func.func @system(%a: memref<?xi64, 1 : i32>, %i: index, %v: i64) -> i64 {
  // expected-error @+1 {{'memref.atomic_rmw' op would lose its ordering or scope as llvm.atomicrmw (NVPTX prints a relaxed .gpu atom): }}
  %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 3 : i64}> {syncscope = "system"} : (i64, memref<?xi64, 1 : i32>, index) -> i64 loc("k.py":4:5)
  func.return %o : i64
}
