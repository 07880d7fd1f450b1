// RUN: warpforge-opt %s --split-input-file --allow-unregistered-dialect -p convert-scf-to-cf | filecheck %s

// An `scf.for` becomes a header block testing the induction variable, a body block and an exit;
// the loop-carried value is a block argument of the header.

// CHECK-LABEL: func.func @loop(
// CHECK-SAME:    %[[N:.*]]: index, %[[X:.*]]: f32
// CHECK:         cf.br ^[[HEAD:.*]](%{{.*}}, %[[X]] : index, f32)
// CHECK:       ^[[HEAD]](%[[I:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:         %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[N]] : index
// CHECK:         cf.cond_br %[[LT]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK:       ^[[BODY]]:
// CHECK:         arith.addf %[[ACC]], %[[ACC]] : f32
// CHECK:       ^[[EXIT]]:
// CHECK:         "test.use"(%[[ACC]]) : (f32) -> ()
// CHECK-NOT:     scf.
func.func @loop(%n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %d = arith.addf %acc, %acc : f32
    scf.yield %d : f32
  }
  "test.use"(%r) : (f32) -> ()
  func.return
}

// -----

// An `scf.if` with a result: a conditional branch to the two arms, which branch to a block taking
// the result as its argument.

// CHECK-LABEL: func.func @select(
// CHECK:         cf.cond_br %{{.*}}, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK:       ^[[THEN]]:
// CHECK:         cf.br ^[[JOIN:.*]](%{{.*}} : i32)
// CHECK:       ^[[ELSE]]:
// CHECK:         cf.br ^[[JOIN]](%{{.*}} : i32)
// CHECK:       ^[[JOIN]](%[[R:.*]]: i32):
// CHECK:         "test.use"(%[[R]]) : (i32) -> ()
func.func @select(%c: i1, %a: i32, %b: i32) {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %b : i32
  }
  "test.use"(%r) : (i32) -> ()
  func.return
}
