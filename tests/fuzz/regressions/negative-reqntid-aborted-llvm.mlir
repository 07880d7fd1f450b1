// ARGS: -t ptx
// EXPECT: in @k: 'llvm.func' nvvm.reqntid must be 1 to 3 positive extents, got \[-4, 1, 1\]
builtin.module {
  llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: -4, 1, 1>} {
    llvm.return
  }
}
