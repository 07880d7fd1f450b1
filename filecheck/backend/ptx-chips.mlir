// RUN: warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_100}' > %t.sm100.ptx && filecheck %s --check-prefix=SM100 --input-file %t.sm100.ptx
// RUN: %ptxas -arch=sm_100 -o %t.sm100.cubin %t.sm100.ptx
// RUN: warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_120a}' > %t.sm120a.ptx && filecheck %s --check-prefix=SM120A --input-file %t.sm120a.ptx
// RUN: %ptxas -arch=sm_120a -o %t.sm120a.cubin %t.sm120a.ptx
// RUN: warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_90a features="+ptx86"}' > %t.sm90a.ptx && filecheck %s --check-prefix=SM90A --input-file %t.sm90a.ptx
// RUN: %ptxas -arch=sm_90a -o %t.sm90a.cubin %t.sm90a.ptx
// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx | filecheck %s --check-prefix=MODULE
// RUN: not warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_100 features="+ptx80"}' 2>&1 | filecheck %s --check-prefix=OLDPTX
// RUN: not warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_999}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not warpforge-opt %s -p gpu-to-llvm -t 'ptx{chip=sm_90 features="ptx80"}' 2>&1 | filecheck %s --check-prefix=MALFORMED
// REQUIRES: ptxas

// The `ptx` target and the chip table (`warpforge.backend.chips`): an explicit chip without features
// gets that chip's default PTX version, not the module's `+ptx80`; `sm_90a` stays its own target;
// unknown chips, malformed features and PTX versions too old for the chip are refused before LLVM
// runs (LLVM 22 would end the process: "PTX version 8.0 does not support target 'sm_100'").

// SM100: .version 8.6
// SM100: .target sm_100
// SM100-LABEL: .visible .entry scale(
// SM120A: .version 8.7
// SM120A: .target sm_120a
// SM90A: .version 8.6
// SM90A: .target sm_90a
// MODULE: .version 8.0
// MODULE: .target sm_90
// MODULE-LABEL: .visible .entry scale(
// OLDPTX: PTX 8.0 (features '+ptx80') cannot target sm_100: it needs PTX 8.6 or newer
// OLDPTX-NOT: LLVM ERROR
// UNKNOWN: unknown chip 'sm_999': expected one of
// MALFORMED: malformed features 'ptx80' (a feature starts with '+')

builtin.module {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @scale(%x: memref<?xf32, 1 : i32>, %n: i64) kernel {
      %tid = gpu.thread_id x
      %i = arith.index_cast %tid : index to i64
      %ok = arith.cmpi ult, %i, %n : i64
      scf.if %ok {
        %j = arith.index_cast %i : i64 to index
        %v = memref.load %x[%j] : memref<?xf32, 1 : i32>
        %two = arith.constant 2.0 : f32
        %w = arith.mulf %v, %two : f32
        memref.store %w, %x[%j] : memref<?xf32, 1 : i32>
      }
      gpu.return
    }
  }
}
