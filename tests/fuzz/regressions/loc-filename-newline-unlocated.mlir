// ARGS: -p check-nvvm-target
// EXPECT: :5:5: error: 'nvvm.wgmma.fence.aligned' op needs sm_90a
gpu.module @plain_sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  llvm.func @k() attributes {nvvm.kernel} {
    nvvm.wgmma.fence.aligned loc("\n":3:5)
    llvm.return
  }
}
