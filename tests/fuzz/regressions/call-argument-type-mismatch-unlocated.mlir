// ARGS: -t llvm
// EXPECT: :6:5: error: 'llvm.call' op cannot emit -t llvm: cannot translate 'llvm.call' to LLVM IR: TypeError
builtin.module {
  llvm.func @__nv_expf(f32) -> f32
  llvm.func @k(%x: i64) attributes {nvvm.kernel} {
    %y = llvm.call @__nv_expf(%x) : (i64) -> f32
    llvm.return
  }
}
