// Used by ../print-ir.mlir: redux.sync needs sm_80, the module targets sm_75.
gpu.module @old [#nvvm.target<chip = "sm_75", features = "+ptx63">] {
  gpu.func @f(%x: i32) -> i32 {
    %m = arith.constant -1 : i32
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32
    gpu.return %r : i32
  }
}
