// RUN: warpforge-opt %s -p convert-cf-to-llvm --split-input-file | filecheck %s

// Branches keep their successors and block arguments.

// CHECK-LABEL: func.func @branches(
// CHECK-SAME:    %[[C:[^:]*]]: i1, %[[X:[^:]*]]: i32, %[[Y:[^:]*]]: f32)
// CHECK-NEXT:    llvm.br ^[[HEAD:.*]](%[[X]], %[[Y]] : i32, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.*]]: i32, %[[F:.*]]: f32):
// CHECK-NEXT:    llvm.cond_br %[[C]], ^[[HEAD]](%[[I]], %[[F]] : i32, f32), ^[[EXIT:.*]](%[[F]] : f32)
// CHECK-NEXT:  ^[[EXIT]](%[[R:.*]]: f32):
// CHECK-NEXT:    func.return %[[R]] : f32
func.func @branches(%c: i1, %x: i32, %y: f32) -> f32 {
  cf.br ^head(%x, %y : i32, f32)
^head(%i: i32, %f: f32):
  cf.cond_br %c, ^head(%i, %f : i32, f32), ^exit(%f : f32)
^exit(%r: f32):
  func.return %r : f32
}

// -----

// llvm.switch passes no block arguments: a destination taking values gets a forwarding block.

// CHECK-LABEL: func.func @switch(
// CHECK-SAME:    %[[S:[^:]*]]: i32, %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32)
// CHECK-NEXT:    llvm.switch %[[S]] : i32, ^[[DEF:.*]] [1: ^[[ONE:.*]], 5: ^[[END:.*]]]
// CHECK-NEXT:  ^[[ONE]]:
// CHECK-NEXT:    llvm.br ^[[JOIN:.*]](%[[B]] : f32)
// CHECK-NEXT:  ^[[DEF]]:
// CHECK-NEXT:    llvm.br ^[[JOIN]](%[[A]] : f32)
// CHECK-NEXT:  ^[[JOIN]](%[[V:.*]]: f32):
// CHECK-NEXT:    func.return %[[V]] : f32
// CHECK-NEXT:  ^[[END]]:
// CHECK-NEXT:    func.return %[[A]] : f32
func.func @switch(%s: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %s : i32, [
    default: ^join(%a : f32),
    1: ^join(%b : f32),
    5: ^end
  ]
^join(%v: f32):
  func.return %v : f32
^end:
  func.return %a : f32
}

// -----

// A loop's back edge keeps its loop metadata attribute (`llvm.loop_unroll_full`, exported as
// `!llvm.loop` with `llvm.loop.unroll.full`).

// CHECK-LABEL: func.func @latch(
// CHECK:         llvm.br ^[[HEAD:.*]](%{{.*}} : i64) {llvm.loop_unroll_full}
func.func @latch(%n: i64) {
  %c1 = arith.constant 1 : i64
  cf.br ^head(%n : i64)
^head(%i: i64):
  %next = arith.addi %i, %c1 : i64
  cf.br ^head(%next : i64) {llvm.loop_unroll_full}
}
