// RUN: warpforge-opt %s --split-input-file | filecheck %s
// RUN: not warpforge-opt %s --split-input-file -p convert-gpu-to-nvvm,check-nvvm-target 2>&1 >/dev/null | filecheck %s --check-prefix=ERR

// Each chunk is parsed and run on its own; outputs are separated by `// -----`; an error in one chunk
// is reported at its line in this file and the other chunks still run.

// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-LABEL: gpu.module @second
// CHECK:       // -----
// CHECK-LABEL: func.func @third
func.func @first() {
  func.return
}

// -----

gpu.module @second [#nvvm.target<chip = "sm_75", features = "+ptx63">] {
  gpu.func @f(%x: i32) -> i32 {
    %m = arith.constant -1 : i32
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32
    gpu.return %r : i32
  }
}

// -----

func.func @third() {
  func.return
}

// ERR:     split-input-file.mlir:21:5: error: 'nvvm.redux.sync.add' op needs sm_80
// ERR-NOT: error:
