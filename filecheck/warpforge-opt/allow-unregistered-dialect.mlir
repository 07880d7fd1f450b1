// RUN: warpforge-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: not warpforge-opt %s 2>&1 | filecheck %s --check-prefix=REFUSED

// Unknown ops parse and print back with --allow-unregistered-dialect; without it they are refused at
// the op's name.

// CHECK-LABEL: func.func @f
// CHECK:         "mydialect.op"(%{{.*}}) : (i32) -> ()
func.func @f(%x: i32) {
  "mydialect.op"(%x) : (i32) -> ()
  func.return
}

// REFUSED: allow-unregistered-dialect.mlir:10:3: error: operation 'mydialect.op' is not registered; pass --allow-unregistered-dialect to accept unknown ops
