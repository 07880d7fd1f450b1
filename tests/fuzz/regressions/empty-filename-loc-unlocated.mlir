// ARGS: -p finalize-memref-to-llvm
// EXPECT: :4:3: error: 'memref.atomic_rmw' op would lose its ordering or scope
func.func @acquire(%a: memref<?xi32, 1 : i32>, %i: index, %v: i32) -> i32 {
  %o = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {ordering = "acquire"} : (i32, memref<?xi32, 1 : i32>, index) -> i32 loc("":3:5)
  func.return %o : i32
}
