// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse | filecheck %s
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --verify-each=0 | filecheck %s
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --verify-each=false | filecheck %s
// RUN: not warpforge-opt %s --verify-each=sometimes 2>&1 | filecheck %s --check-prefix=BAD

// --verify-each is on by default (as in mlir-opt); --verify-each=0 verifies once, after the last pass.

// CHECK: nvvm.read.ptx.sreg.tid.x
gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id x
    gpu.return %t : index
  }
}

// BAD: argument --verify-each: expected true/false (or 1/0), got 'sometimes'
