// RUN: warpforge-opt %s -p convert-vector-to-llvm | filecheck %s

// A 128-bit load and store through the memref descriptor (GEP as finalize-memref-to-llvm), with the
// op's alignment; element access by llvm.extractelement / llvm.insertelement; a broadcast is an undef
// and one insertelement per lane.
// CHECK-LABEL: func.func @copy4(
// CHECK-SAME: %[[A:[^:]*]]: memref<?xf32, 1 : i32>, %[[B:[^:]*]]: memref<?xf32, 1 : i32>, %[[I:[^:]*]]: index)
// CHECK: %[[DA:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<?xf32, 1 : i32> to !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK: %[[PA:.*]] = llvm.extractvalue %[[DA]][0]
// CHECK: %[[GA:.*]] = llvm.getelementptr inbounds %[[PA]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: %[[V:.*]] = llvm.load %[[GA]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[K:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[E:.*]] = llvm.extractelement %[[V]][%[[K]] : i32] : vector<4xf32>
// CHECK: %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-COUNT-4: llvm.insertelement %[[E]]
// CHECK: %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[W:.*]] = llvm.insertelement %[[E]], %{{.*}}[%[[K1]] : i32] : vector<4xf32>
// CHECK: %[[GB:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.store %[[W]], %[[GB]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @copy4(%a: memref<?xf32, 1 : i32>, %b: memref<?xf32, 1 : i32>, %i: index) {
  %v = vector.load %a[%i] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
  %e = vector.extract %v[2] : f32 from vector<4xf32>
  %s = vector.broadcast %e : f32 to vector<4xf32>
  %w = vector.insert %e, %s [1] : f32 into vector<4xf32>
  vector.store %w, %b[%i] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
  func.return
}

// Without an alignment attribute: the element's natural alignment (the backend splits the access).
// CHECK-LABEL: func.func @natural(
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf64>
func.func @natural(%a: memref<?x?xf64, 1 : i32>, %i: index, %j: index) -> vector<2xf64> {
  %v = vector.load %a[%i, %j] : memref<?x?xf64, 1 : i32>, vector<2xf64>
  func.return %v : vector<2xf64>
}

// Vectors of bools are bytes in memory: loaded as vector<Nxi8> and compared != 0, stored zero-extended.
// CHECK-LABEL: func.func @bools(
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> vector<4xi8>
// CHECK: %[[Z:.*]] = llvm.mlir.constant(dense<0> : vector<4xi8>) : vector<4xi8>
// CHECK: %[[B:.*]] = llvm.icmp "ne" %[[V]], %[[Z]] : vector<4xi8>
// CHECK: %[[E:.*]] = llvm.zext %[[B]] : vector<4xi1> to vector<4xi8>
// CHECK: llvm.store %[[E]], %{{.*}} {alignment = 1 : i64} : vector<4xi8>, !llvm.ptr<1>
func.func @bools(%a: memref<?xi1, 1 : i32>, %b: memref<?xi1, 1 : i32>, %i: index) {
  %v = vector.load %a[%i] : memref<?xi1, 1 : i32>, vector<4xi1>
  vector.store %v, %b[%i] : memref<?xi1, 1 : i32>, vector<4xi1>
  func.return
}
