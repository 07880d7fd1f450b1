// RUN: warpforge-opt %s -p convert-index-to-llvm --split-input-file | filecheck %s

// index → i64 in signatures, block arguments, results and constants; index casts become
// sext/zext/trunc or disappear.

// CHECK-LABEL: func.func @types(
// CHECK-SAME:    %[[N:[^:]*]]: i64, %[[W:[^:]*]]: i32, %[[U:[^:]*]]: i32) -> (i64, i16) {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[WS:.*]] = llvm.sext %[[W]] : i32 to i64
// CHECK-NEXT:    %[[UZ:.*]] = llvm.zext %[[U]] : i32 to i64
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[WS]], %[[UZ]] : i64
// CHECK-NEXT:    cf.br ^[[LOOP:.*]](%[[C0]] : i64)
// CHECK-NEXT:  ^[[LOOP]](%[[I:.*]]: i64):
// CHECK-NEXT:    %[[MORE:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i64
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[I]], %[[C1]] : i64
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^[[LOOP]](%[[NEXT]] : i64), ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    %[[T:.*]] = llvm.trunc %[[S]] : i64 to i16
// CHECK-NEXT:    func.return %[[I]], %[[T]] : i64, i16
func.func @types(%n: index, %w: i32, %u: i32) -> (index, i16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ws = arith.index_cast %w : i32 to index
  %uz = arith.index_castui %u : i32 to index
  %s = arith.addi %ws, %uz : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  %next = arith.addi %i, %c1 : index
  cf.cond_br %more, ^loop(%next : index), ^exit
^exit:
  %t = arith.index_castui %s : index to i16
  func.return %i, %t : index, i16
}

// -----

// A cast between index and i64 disappears; calls and vectors of index follow.

// CHECK-LABEL: func.func @same_width(
// CHECK-SAME:    %[[X:[^:]*]]: i64, %[[V:[^:]*]]: vector<2xi64>) -> i64 {
// CHECK-NEXT:    %[[R:.*]] = func.call @same_width(%[[X]], %[[V]]) : (i64, vector<2xi64>) -> i64
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[R]], %[[X]] : i64
// CHECK-NEXT:    func.return %[[S]] : i64
func.func @same_width(%x: i64, %v: vector<2xindex>) -> i64 {
  %i = arith.index_cast %x : i64 to index
  %r = func.call @same_width(%x, %v) : (i64, vector<2xindex>) -> i64
  %j = arith.index_castui %i : index to i64
  %s = arith.addi %r, %j : i64
  func.return %s : i64
}
