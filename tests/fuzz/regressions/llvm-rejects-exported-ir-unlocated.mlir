// ARGS: -t ptx
// EXPECT: :7:5: error: 'llvm.addrspacecast' op cannot emit -t ptx: LLVM rejected the generated IR
builtin.module {
  llvm.mlir.global internal @buf() {addr_space = 7 : i32, alignment = 16 : i64} : !llvm.array<4 x i8>
  llvm.func @k() attributes {nvvm.kernel} {
    %b = llvm.mlir.addressof @buf : !llvm.ptr<7>
    %c = llvm.addrspacecast %b : !llvm.ptr<7> to !llvm.ptr<7>
    llvm.return
  }
}
