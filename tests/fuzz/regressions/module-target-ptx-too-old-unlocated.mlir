// ARGS: -t ptx
// EXPECT: :3:1: error: 'gpu.module' op cannot emit -t ptx: PTX 7.0 \(features '\+ptx70'\) cannot target sm_100f
gpu.module @m [#nvvm.target<chip = "sm_100f", features = "+ptx70">] {
  llvm.func @k() attributes {nvvm.kernel} {
    llvm.return
  }
}
