// RUN: warpforge-opt %S/Inputs/reproducer.mlir --run-reproducer | filecheck %s
// RUN: not warpforge-opt %s --run-reproducer 2>&1 | filecheck %s --check-prefix=NOT-ONE
// RUN: not warpforge-opt %S/Inputs/reproducer.mlir --run-reproducer -p cse 2>&1 | filecheck %s --check-prefix=TWO

// --run-reproducer replays the pipeline recorded in a reproducer file (a pass crash writes one:
// --mlir-pass-pipeline-crash-reproducer=FILE, else a temporary file; tests/test_cli.py crashes a pass).

// CHECK: nvvm.read.ptx.sreg.tid.x

// NOT-ONE: error: {{.*}}run-reproducer.mlir is not a warpforge-opt reproducer
// TWO: error: --run-reproducer takes the pipeline from the reproducer; drop -p/--pass-pipeline
