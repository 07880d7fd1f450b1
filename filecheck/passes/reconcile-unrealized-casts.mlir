// RUN: warpforge-opt %s --split-input-file --allow-unregistered-dialect -p reconcile-unrealized-casts | filecheck %s

// A cast chain that ends at the type it started from disappears: its users take the first input.

// CHECK-LABEL: func.func @round_trip(
// CHECK-SAME:    %[[X:.*]]: i64
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:         "test.use"(%[[X]]) : (i64) -> ()
func.func @round_trip(%x: i64) {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  %b = builtin.unrealized_conversion_cast %a : index to i64
  "test.use"(%b) : (i64) -> ()
  func.return
}

// -----

// A cast whose result is used at its new type stays.

// CHECK-LABEL: func.func @kept(
// CHECK:         %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK:         "test.use"(%[[A]]) : (index) -> ()
func.func @kept(%x: i64) {
  %a = builtin.unrealized_conversion_cast %x : i64 to index
  "test.use"(%a) : (index) -> ()
  func.return
}
