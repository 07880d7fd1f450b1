// RUN: warpforge-opt %s --pass-pipeline='builtin.module(convert-gpu-to-nvvm,check-nvvm-target)' | filecheck %s
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm -p check-nvvm-target | filecheck %s
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm -p cse --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: warpforge-opt %s -p gpu-to-llvm --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=EXPAND
// RUN: warpforge-opt %s -p 'kernel-to-gpu{chip=sm_80}' --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=OPTIONS

// MLIR's --pass-pipeline='builtin.module(...)' spelling and -p give the same result; repeated -p run
// in order (none is dropped); pipeline names expand into their passes; options are filled in.

// CHECK-LABEL: gpu.module @m
// CHECK:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         arith.index_castui %[[TID]] : i32 to index
gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id x
    gpu.return %t : index
  }
}

// DUMP: Pass Manager with 2 passes:
// DUMP-NEXT: builtin.module(convert-gpu-to-nvvm,cse)

// EXPAND: Pass Manager with {{[0-9]+}} passes:
// EXPAND-NEXT: builtin.module(convert-nvgpu-to-nvvm,convert-gpu-to-nvvm,check-nvvm-target,convert-scf-to-cf,{{.*}},reconcile-unrealized-casts,canonicalize)

// OPTIONS: builtin.module(kernel-to-gpu{chip="sm_80"{{.*}}})
