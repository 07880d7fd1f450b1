// RUN: warpforge-opt %s --split-input-file --allow-unregistered-dialect -p canonicalize | filecheck %s

// Folding: `2 + 3` becomes one constant; `x + 0` is `x` (a canonicalization pattern of arith.addi);
// the constants left unused are erased.

// CHECK-LABEL: func.func @fold(
// CHECK-SAME:    %[[X:.*]]: i32
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : i32
// CHECK-NEXT:    "test.use"(%[[C5]], %[[X]]) : (i32, i32) -> ()
// CHECK-NEXT:    func.return
func.func @fold(%x: i32) {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %s = arith.addi %c2, %c3 : i32
  %y = arith.addi %x, %c0 : i32
  "test.use"(%s, %y) : (i32, i32) -> ()
  func.return
}

// -----

// Dead code: a pure op whose result is unused goes, and with it the ops only it used (region DCE);
// a store stays. An `scf.if` on a constant condition keeps only the branch taken.

// CHECK-LABEL: func.func @dead(
// CHECK-SAME:    %[[M:.*]]: memref<4xf32>, %[[V:.*]]: f32, %[[I:.*]]: index
// CHECK-NOT:     arith.mulf
// CHECK:         memref.store %[[V]], %[[M]][%[[I]]] : memref<4xf32>
// CHECK-NOT:     scf.if
// CHECK:         "test.taken"() : () -> ()
// CHECK-NOT:     "test.not_taken"
// CHECK:         func.return
func.func @dead(%m: memref<4xf32>, %v: f32, %i: index) {
  %a = arith.mulf %v, %v : f32
  %b = arith.mulf %a, %a : f32
  memref.store %v, %m[%i] : memref<4xf32>
  %true = arith.constant true
  scf.if %true {
    "test.taken"() : () -> ()
    scf.yield
  } else {
    "test.not_taken"() : () -> ()
    scf.yield
  }
  func.return
}
