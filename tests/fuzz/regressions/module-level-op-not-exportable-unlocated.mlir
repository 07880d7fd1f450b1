// ARGS: -t llvm
// EXPECT: :3:1: error: 'func.func' op cannot emit -t llvm: 'func.func' cannot be exported to LLVM IR: only llvm.func and llvm.mlir.global
func.func @f() {
  func.return
}
