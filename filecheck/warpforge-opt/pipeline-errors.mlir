// RUN: not warpforge-opt %s -p 'kernel-to-gpu{' 2>&1 | filecheck %s --check-prefix=OPEN
// RUN: not warpforge-opt %s -p 'gpu-to-llvm{' 2>&1 | filecheck %s --check-prefix=OPEN-PIPELINE
// RUN: not warpforge-opt %s -p 'kernel-to-gpu{chip=}' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not warpforge-opt %s -p 'simt-to-llvm{chip=sm_80}' 2>&1 | filecheck %s --check-prefix=PIPELINE-OPTION
// RUN: not warpforge-opt %s -p 'kernel-to-gpu{chp=sm_80}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not warpforge-opt %s -p 'cse,kernel-to-gpx' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not warpforge-opt %s -p 'cse,,cse' 2>&1 | filecheck %s --check-prefix=EMPTY-ENTRY
// RUN: not warpforge-opt %s --pass-pipeline='gpu.module(cse)' 2>&1 | filecheck %s --check-prefix=ANCHOR
// RUN: not warpforge-opt %s -t 'ptx{' 2>&1 | filecheck %s --check-prefix=TARGET-OPEN
// RUN: not warpforge-opt %s -t 'ptx{opt=9}' 2>&1 | filecheck %s --check-prefix=TARGET-OPT
// RUN: not warpforge-opt %s -t 'ptx{chp=sm_90}' 2>&1 | filecheck %s --check-prefix=TARGET-OPTION
// RUN: not warpforge-opt %s -t ptz 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not warpforge-opt %s -t ptx 2>&1 | filecheck %s --check-prefix=NOT-LOWERED

// Pipeline and target specs are checked before anything runs; each mistake is a diagnostic located
// in the spec (the spec and a caret under the column), with "did you mean" for misspelled names.

func.func @f() {
  func.return
}

// OPEN:      pass-pipeline:1:14: error: '{' is never closed (expected '}')
// OPEN-NEXT: kernel-to-gpu{
// OPEN-NEXT: {{^             \^$}}
// OPEN-PIPELINE: pass-pipeline:1:12: error: '{' is never closed
// EMPTY:     pass-pipeline:1:20: error: expected a value after '='
// PIPELINE-OPTION: pass-pipeline:1:1: error: 'simt-to-llvm' is a pipeline ({{.*}}) and takes no options
// OPTION:    pass-pipeline:1:1: error: pass 'kernel-to-gpu' has no option 'chp' (did you mean 'chip'?); its options: chip, features, module
// PASS:      pass-pipeline:1:5: error: unknown pass or pipeline 'kernel-to-gpx' (did you mean 'kernel-to-gpu'?)
// PASS-NEXT: cse,kernel-to-gpx
// PASS-NEXT: {{^    \^$}}
// EMPTY-ENTRY: pass-pipeline:1:5: error: expected a pass name (empty entry between commas)
// ANCHOR:    pass-pipeline:1:1: error: passes anchored on 'gpu.module' are not supported
// TARGET-OPEN: target:1:4: error: '{' is never closed
// TARGET-OPT: target:1:1: error: target 'ptx': opt must be 0, 1, 2 or 3 (LLVM's -O levels), got 9
// TARGET-OPTION: target:1:1: error: target 'ptx' has no option 'chp' (did you mean 'chip'?)
// TARGET:    target:1:1: error: unknown target 'ptz' (did you mean 'ptx'?)
// NOT-LOWERED: pipeline-errors.mlir:18:1: error: 'func.func' op cannot emit -t ptx: {{.*}}run the lowering pipeline first
