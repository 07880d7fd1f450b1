// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=TIMING
// RUN: warpforge-opt %s -p convert-gpu-to-nvvm,cse --mlir-pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// --mlir-timing (alias --time-passes): a wall-time table per pass; --mlir-pass-statistics: the ops each
// pass created and erased (convert-gpu-to-nvvm replaces gpu.func, gpu.thread_id and gpu.return by
// func.func, nvvm.read.ptx.sreg.tid.x + arith.index_castui and func.return).

gpu.module @m {
  gpu.func @f() -> index {
    %t = gpu.thread_id x
    gpu.return %t : index
  }
}

// TIMING:      ... Execution time report ...
// TIMING:      Total Execution Time: {{[0-9.]+}} seconds
// TIMING:      ----Wall Time----  ----Name----
// TIMING-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Parser
// TIMING-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  convert-gpu-to-nvvm
// TIMING-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  cse
// TIMING-NEXT: {{[0-9.]+}} ({{ *[0-9.]+}}%)  Output
// TIMING-NEXT: {{[0-9.]+}} (100.0%)  Total

// STATS:      ... Pass statistics report ...
// STATS:      'convert-gpu-to-nvvm'
// STATS-NEXT:   (S) 4 ops-created
// STATS-NEXT:   (S) 3 ops-erased
// STATS-NEXT: 'cse'
// STATS-NEXT:   (S) 0 ops-created
// STATS-NEXT:   (S) 0 ops-erased
