// ARGS: -t ptx
// EXPECT: syncscope\("sm_100f"\) is not one NVPTX has
builtin.module {
  llvm.func @k(%p: !llvm.ptr<1>, %v: i32) attributes {nvvm.kernel} {
    %o = llvm.atomicrmw add %p, %v syncscope("sm_100f") monotonic : !llvm.ptr<1>, i32
    llvm.return
  }
}
