// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-print-ir-before=cse 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-print-ir-after=convert-gpu-to-nvvm 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE-ALL
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER-ALL
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --print-between-passes 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER-ALL
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-print-ir-after-change 2>&1 >/dev/null | filecheck %s --check-prefix=CHANGE
// RUN: not warpforge-opt %S/Inputs/fails-in-check-nvvm-target.mlir -p convert-gpu-to-nvvm,check-nvvm-target --mlir-print-ir-after-failure 2>&1 | filecheck %s --check-prefix=FAILURE
// RUN: not warpforge-opt %s -p cse --mlir-print-ir-after=no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN

// mlir-opt's IR printing flags, to stderr. The IR dumps are headed as mlir-opt heads them.

gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id x
    gpu.return %t : index
  }
}

// BEFORE-NOT: IR Dump Before convert-gpu-to-nvvm
// BEFORE:     // -----// IR Dump Before cse //----- //
// BEFORE:       nvvm.read.ptx.sreg.tid.x
// BEFORE-NOT: IR Dump

// AFTER:     // -----// IR Dump After convert-gpu-to-nvvm //----- //
// AFTER-NEXT: builtin.module {
// AFTER:       %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// AFTER-NEXT:  arith.index_castui %[[T]] : i32 to index
// AFTER-NOT: IR Dump

// BEFORE-ALL:     IR Dump Before convert-gpu-to-nvvm
// BEFORE-ALL:       gpu.thread_id x
// BEFORE-ALL:     IR Dump Before cse
// BEFORE-ALL:       nvvm.read.ptx.sreg.tid.x

// AFTER-ALL:     IR Dump After convert-gpu-to-nvvm
// AFTER-ALL:       nvvm.read.ptx.sreg.tid.x
// AFTER-ALL:     IR Dump After cse

// cse changes nothing here: only the first pass is printed
// CHANGE:     IR Dump After convert-gpu-to-nvvm
// CHANGE-NOT: IR Dump After cse

// FAILURE:      // -----// IR Dump After check-nvvm-target Failed //----- //
// FAILURE:        nvvm.redux.sync.add
// FAILURE:      fails-in-check-nvvm-target.mlir:5:5: error: 'nvvm.redux.sync.add' op needs sm_80 and PTX 7.0, but gpu.module @old targets sm_75 (PTX 6.3) (in pass 'check-nvvm-target')

// UNKNOWN: error: --mlir-print-ir-after: unknown pass 'no-such-pass'
