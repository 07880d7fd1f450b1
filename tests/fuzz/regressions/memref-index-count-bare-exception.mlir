// ARGS: -p finalize-memref-to-llvm
// EXPECT: :5:3: error: 'memref.store' op [Ee]xpected an index for each dimension
func.func @f(%m: memref<4x4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<4x4xf32>
  func.return
}
