// ARGS: -t ptx
// EXPECT: :4:3: error: 'llvm.func' op nvvm.reqntid must be 1 to 3 positive extents, got \[-4, 1, 1\]
builtin.module {
  llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: -4, 1, 1>} {
    llvm.return
  }
}
