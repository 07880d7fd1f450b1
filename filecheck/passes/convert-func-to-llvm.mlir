// RUN: warpforge-opt %s -p convert-func-to-llvm --split-input-file --allow-unregistered-dialect | filecheck %s

// A kernel: memref parameters expand to the pointer (carrying the argument's attributes) and one
// i64 per dynamic dimension; the descriptor is rebuilt at entry and cast back to the memref.

// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME:    %[[A:[^:]*]]: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %[[AN:[^:]*]]: i64,
// CHECK-SAME:    %[[T:[^:]*]]: !llvm.ptr<3>, %[[TN:[^:]*]]: i64,
// CHECK-SAME:    %[[E:[^:]*]]: !llvm.ptr<1> {llvm.noalias}, %[[K:[^:]*]]: i32)
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[U1:.*]] = llvm.insertvalue %[[A]], %[[U]][0] : !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[U2:.*]] = llvm.insertvalue %[[AN]], %[[U1]][1] : !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[AM:.*]] = builtin.unrealized_conversion_cast %[[U2]] : !llvm.struct<(!llvm.ptr<1>, i64)> to memref<?xf32, 1 : i32>
// CHECK:         %[[TM:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(!llvm.ptr<3>, i64)> to memref<4x?xf32, 3 : i32>
// CHECK:         %[[EM:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(!llvm.ptr<1>)> to memref<8xi64, 1 : i32>
// CHECK-NEXT:    %[[ED:.*]] = builtin.unrealized_conversion_cast %[[EM]] : memref<8xi64, 1 : i32> to !llvm.struct<(!llvm.ptr<1>)>
// CHECK-NEXT:    %[[EP:.*]] = llvm.extractvalue %[[ED]][0] : !llvm.struct<(!llvm.ptr<1>)>
// CHECK-NEXT:    llvm.call @report(%[[EP]], %[[K]]) : (!llvm.ptr<1>, i32) -> ()
// CHECK-NEXT:    "test.use"(%[[AM]], %[[TM]]) : (memref<?xf32, 1 : i32>, memref<4x?xf32, 3 : i32>) -> ()
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  }
// A private definition is internal; its memref parameter expands the same way.
// CHECK-LABEL: llvm.func internal @report(
// CHECK-SAME:    %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) {
// A declaration stays external.
// CHECK-LABEL: llvm.func @extern_fn(f32) -> f32
func.func @kernel(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %t: memref<4x?xf32, 3 : i32>,
                  %err: memref<8xi64, 1 : i32> {llvm.noalias}, %k: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  func.call @report(%err, %k) : (memref<8xi64, 1 : i32>, i32) -> ()
  "test.use"(%a, %t) : (memref<?xf32, 1 : i32>, memref<4x?xf32, 3 : i32>) -> ()
  func.return
}
func.func private @report(%rec: memref<8xi64, 1 : i32>, %k: i32) {
  func.return
}
func.func private @extern_fn(f32) -> f32

// -----

// Several results travel in a struct: built at func.return, taken apart after llvm.call.

// CHECK-LABEL: llvm.func internal @pair(
// CHECK-SAME:    %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: i64) -> !llvm.struct<(f32, i64)> {
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, i64)>
// CHECK-NEXT:    %[[S1:.*]] = llvm.insertvalue %[[X]], %[[U]][0] : !llvm.struct<(f32, i64)>
// CHECK-NEXT:    %[[S2:.*]] = llvm.insertvalue %[[Y]], %[[S1]][1] : !llvm.struct<(f32, i64)>
// CHECK-NEXT:    llvm.return %[[S2]] : !llvm.struct<(f32, i64)>
// CHECK-LABEL: llvm.func internal @caller(
// CHECK-SAME:    %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: i64) -> i64 {
// CHECK-NEXT:    %[[R:.*]] = llvm.call @pair(%[[X]], %[[Y]]) : (f32, i64) -> !llvm.struct<(f32, i64)>
// CHECK-NEXT:    %[[R0:.*]] = llvm.extractvalue %[[R]][0] : !llvm.struct<(f32, i64)>
// CHECK-NEXT:    %[[R1:.*]] = llvm.extractvalue %[[R]][1] : !llvm.struct<(f32, i64)>
// CHECK-NEXT:    %[[S:.*]] = llvm.call @single(%[[R0]]) : (f32) -> i64
// CHECK-NEXT:    %[[T:.*]] = arith.addi %[[S]], %[[R1]] : i64
// CHECK-NEXT:    llvm.return %[[T]] : i64
func.func @pair(%x: f32, %y: i64) -> (f32, i64) {
  func.return %x, %y : f32, i64
}
func.func @caller(%x: f32, %y: i64) -> i64 {
  %r:2 = func.call @pair(%x, %y) : (f32, i64) -> (f32, i64)
  %s = func.call @single(%r#0) : (f32) -> i64
  %t = arith.addi %s, %r#1 : i64
  func.return %t : i64
}
func.func @single(%x: f32) -> i64 {
  %c = arith.constant 1 : i64
  func.return %c : i64
}
