// RUN: warpforge-opt --list-passes | filecheck %s --check-prefix=PASSES
// RUN: warpforge-opt --show-dialects | filecheck %s --check-prefix=DIALECTS
// RUN: warpforge-opt --help | filecheck %s --check-prefix=HELP
// RUN: warpforge-opt --list-passes --upstream | filecheck %s --check-prefix=UPSTREAM

// The information flags show warpforge's passes (options, one-line summaries), pipelines, targets and
// dialects; xDSL's other ~130 passes and ~70 dialects only with --upstream.

// PASSES:      Passes:
// PASSES:        kernel-to-gpu {{ +}}Lower kernel-dialect kernels
// PASSES-NEXT:       chip=str (default 'sm_90')
// PASSES-NEXT:       features=str (default '')
// PASSES:        cse {{ +}}Eliminate common subexpressions
// PASSES:      Pipelines (expand into their passes):
// PASSES:        simt-to-llvm
// PASSES-NEXT:   = lower-kernel-control-flow,inline-device-functions,kernel-to-gpu,
// PASSES:      Targets (-t):
// PASSES:        ptx {{ +}}PTX text
// PASSES-NOT:  riscv
// PASSES:      other xDSL upstream passes are available: --list-passes --upstream lists them

// DIALECTS:     warpforge's: kernel, tile, gpu, nvvm, llvm
// DIALECTS-NOT: riscv

// HELP: usage: warpforge-opt
// HELP: --mlir-print-ir-after-failure
// HELP: --mlir-pass-pipeline-crash-reproducer
// HELP: warpforge's: kernel, tile, gpu, nvvm, llvm
// HELP: Pipelines (expand into their passes):
// HELP-NOT: riscv

// UPSTREAM: Other xDSL upstream passes
// UPSTREAM: riscv
