// RUN: warpforge-opt %s -p finalize-memref-to-llvm --split-input-file | filecheck %s

// A memref is read through its descriptor !llvm.struct<(ptr<AS>, i64 per dynamic dim)>:
// cast, extract the pointer, linearize the index (i64), GEP on the element type, load/store
// with the natural alignment.

// CHECK-LABEL: func.func @load_store_1d(
// CHECK-SAME:    %[[A:[^:]*]]: memref<?xf32, 1 : i32>, %[[I:[^:]*]]: index, %[[V:[^:]*]]: f32)
// CHECK-NEXT:    %[[D:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<?xf32, 1 : i32> to !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[P:.*]] = llvm.extractvalue %[[D]][0] : !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[G:.*]] = llvm.getelementptr inbounds %[[P]][%[[I64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[G]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NEXT:    %[[Y:.*]] = arith.addf %[[X]], %[[V]] : f32
// CHECK:         %[[G2:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    llvm.store %[[Y]], %[[G2]] {alignment = 4 : i64} : f32, !llvm.ptr<1>
func.func @load_store_1d(%a: memref<?xf32, 1 : i32>, %i: index, %v: f32) {
  %x = memref.load %a[%i] : memref<?xf32, 1 : i32>
  %y = arith.addf %x, %v : f32
  memref.store %y, %a[%i] : memref<?xf32, 1 : i32>
  func.return
}

// -----

// Row-major linearization: a static extent is a constant, a dynamic one the descriptor's field.

// CHECK-LABEL: func.func @load_2d(
// CHECK-SAME:    %[[A:[^:]*]]: memref<?x64xf64, 1 : i32>, %[[B:[^:]*]]: memref<4x?xf16>, %[[I:[^:]*]]: index, %[[J:[^:]*]]: index)
// CHECK:         %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:    %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:    %[[C64:.*]] = llvm.mlir.constant(64) : i64
// CHECK-NEXT:    %[[M:.*]] = llvm.mul %[[I64]], %[[C64]] : i64
// CHECK-NEXT:    %[[L:.*]] = llvm.add %[[M]], %[[J64]] : i64
// CHECK-NEXT:    %[[G:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[L]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f64
// CHECK-NEXT:    llvm.load %[[G]] {alignment = 8 : i64} : !llvm.ptr<1> -> f64
// CHECK:         %[[DB:.*]] = builtin.unrealized_conversion_cast %[[B]] : memref<4x?xf16> to !llvm.struct<(!llvm.ptr, i64)>
// CHECK:         %[[N:.*]] = llvm.extractvalue %[[DB]][1] : !llvm.struct<(!llvm.ptr, i64)>
// CHECK-NEXT:    %[[M2:.*]] = llvm.mul %{{.*}}, %[[N]] : i64
// CHECK-NEXT:    %[[L2:.*]] = llvm.add %[[M2]], %{{.*}} : i64
// CHECK-NEXT:    %[[G2:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[L2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-NEXT:    llvm.load %[[G2]] {alignment = 2 : i64} : !llvm.ptr -> f16
func.func @load_2d(%a: memref<?x64xf64, 1 : i32>, %b: memref<4x?xf16>, %i: index, %j: index) -> (f64, f16) {
  %x = memref.load %a[%i, %j] : memref<?x64xf64, 1 : i32>
  %y = memref.load %b[%i, %j] : memref<4x?xf16>
  func.return %x, %y : f64, f16
}

// -----

// memref.dim: a static extent folds to a constant; a dynamic one is read from the descriptor.

// CHECK-LABEL: func.func @dims(
// CHECK-SAME:    %[[A:[^:]*]]: memref<?x8xi32, 1 : i32>)
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[D:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<?x8xi32, 1 : i32> to !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[N:.*]] = llvm.extractvalue %[[D]][1] : !llvm.struct<(!llvm.ptr<1>, i64)>
// CHECK-NEXT:    %[[NX:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT:    func.return %[[EIGHT]], %[[NX]] : index, index
func.func @dims(%a: memref<?x8xi32, 1 : i32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cols = memref.dim %a, %c1 : memref<?x8xi32, 1 : i32>
  %rows = memref.dim %a, %c0 : memref<?x8xi32, 1 : i32>
  func.return %cols, %rows : index, index
}

// -----

// Atomics: MLIR's kind numbering; monotonic unless `ordering` says otherwise; device scope unless
// `syncscope` says otherwise; maximumf/minimumf propagate NaN (fmaximum/fminimum), maxnumf ignores it.

// CHECK-LABEL: func.func @atomics(
// CHECK:         llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK:         llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("block") monotonic : !llvm.ptr<3>, i32
// CHECK:         llvm.atomicrmw xchg %{{.*}}, %{{.*}} syncscope("cluster") monotonic : !llvm.ptr<1>, i64
// CHECK:         llvm.atomicrmw umin %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, i64
// CHECK:         llvm.atomicrmw fmaximum %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK:         llvm.atomicrmw fminimum %{{.*}}, %{{.*}} syncscope("device") acq_rel : !llvm.ptr<1>, f32
// CHECK:         llvm.atomicrmw fmax %{{.*}}, %{{.*}} syncscope("block") seq_cst : !llvm.ptr<1>, f32
func.func @atomics(%f: memref<?xf32, 1 : i32>, %s: memref<32xi32, 3 : i32>, %g: memref<?xi64, 1 : i32>, %i: index,
                   %x: f32, %y: i32, %z: i64) -> (f32, i32, i64, i64, f32, f32, f32) {
  %0 = "memref.atomic_rmw"(%x, %f, %i) <{kind = 0 : i64}> : (f32, memref<?xf32, 1 : i32>, index) -> f32
  %1 = "memref.atomic_rmw"(%y, %s, %i) <{kind = 6 : i64}> {syncscope = "block"} : (i32, memref<32xi32, 3 : i32>, index) -> i32
  %2 = "memref.atomic_rmw"(%z, %g, %i) <{kind = 3 : i64}> {syncscope = "cluster"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
  %3 = "memref.atomic_rmw"(%z, %g, %i) <{kind = 11 : i64}> : (i64, memref<?xi64, 1 : i32>, index) -> i64
  %4 = "memref.atomic_rmw"(%x, %f, %i) <{kind = 4 : i64}> : (f32, memref<?xf32, 1 : i32>, index) -> f32
  %5 = "memref.atomic_rmw"(%x, %f, %i) <{kind = 8 : i64}> {ordering = "acq_rel"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
  %6 = "memref.atomic_rmw"(%x, %f, %i) <{kind = 5 : i64}> {ordering = "seq_cst", syncscope = "block"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
  func.return %0, %1, %2, %3, %4, %5, %6 : f32, i32, i64, i64, f32, f32, f32
}

// -----

// memref.view: a byte GEP on the source pointer and a new descriptor (how dynamic shared memory is typed).

// CHECK-LABEL: func.func @view(
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %{{.*}} : memref<?xi8, 3 : i32> to !llvm.struct<(!llvm.ptr<3>, i64)>
// CHECK-NEXT:    %[[P:.*]] = llvm.extractvalue %[[D]][0] : !llvm.struct<(!llvm.ptr<3>, i64)>
// CHECK-NEXT:    %[[SH:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK-NEXT:    %[[G:.*]] = llvm.getelementptr inbounds %[[P]][%[[SH]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         llvm.insertvalue %[[G]], %{{.*}}[0] : !llvm.struct<(!llvm.ptr<3>, i64)>
// CHECK-NEXT:    llvm.insertvalue %[[N]], %{{.*}}[1] : !llvm.struct<(!llvm.ptr<3>, i64)>
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
func.func @view(%bytes: memref<?xi8, 3 : i32>, %n: index, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %typed = memref.view %bytes[%c0][%n] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
  %v = memref.load %typed[%i] : memref<?xf32, 3 : i32>
  func.return %v : f32
}

// -----

// Shared memory: an internal, uninitialized, ≥16-byte-aligned global in address space 3, flattened.
// A local array: llvm.alloca of the element count, hoisted into the entry block.

// CHECK:       llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x f32>
// CHECK:       llvm.mlir.global internal constant @table(dense<[1, 2, 3, 4]> : tensor<4xi32>) {addr_space = 1 : i32, alignment = 4 : i64} : !llvm.array<4 x i32>
// CHECK-LABEL: func.func @shared_and_local(
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[BUF:.*]] = llvm.alloca %[[N]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[ADDR:.*]] = llvm.mlir.addressof @tile : !llvm.ptr<3>
// CHECK-NEXT:    %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr<3>)>
// CHECK-NEXT:    %[[S:.*]] = llvm.insertvalue %[[ADDR]], %[[U]][0] : !llvm.struct<(!llvm.ptr<3>)>
// CHECK-NEXT:    %[[T:.*]] = builtin.unrealized_conversion_cast %[[S]] : !llvm.struct<(!llvm.ptr<3>)> to memref<2x64xf32, 3 : i32>
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:         cf.br ^[[BB:.*]]
// CHECK:       ^[[BB]]:
// CHECK-NEXT:    %[[U2:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr)>
// CHECK-NEXT:    %[[S2:.*]] = llvm.insertvalue %[[BUF]], %[[U2]][0] : !llvm.struct<(!llvm.ptr)>
// CHECK-NEXT:    builtin.unrealized_conversion_cast %[[S2]] : !llvm.struct<(!llvm.ptr)> to memref<8xindex>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK:         %[[L:.*]] = llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK-NEXT:    arith.index_cast %[[L]] : i64 to index
"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<2x64xf32, 3 : i32>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<4xi32, 1 : i32>, initial_value = dense<[1, 2, 3, 4]> : tensor<4xi32>, constant}> : () -> ()
func.func @shared_and_local(%i: index, %j: index) -> (f32, index) {
  %t = memref.get_global @tile : memref<2x64xf32, 3 : i32>
  %x = memref.load %t[%i, %j] : memref<2x64xf32, 3 : i32>
  cf.br ^next
^next:
  %buf = memref.alloca() : memref<8xindex>
  memref.store %j, %buf[%i] : memref<8xindex>
  %y = memref.load %buf[%j] : memref<8xindex>
  func.return %x, %y : f32, index
}

// -----

// Bools are bytes in memory (as in NumPy): a load reads the i8 and compares it != 0 (any nonzero
// byte is True; `load i1` of a byte other than 0/1 is undefined), a store writes zext'd 0/1; GEPs,
// allocas and globals use i8.
// CHECK-LABEL: func.func @bools(
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT:    %[[B:.*]] = llvm.load %[[P]] {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT:    %[[V:.*]] = llvm.icmp "ne" %[[B]], %[[Z]] : i8
// CHECK:         %[[Q:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT:    %[[E:.*]] = llvm.zext %[[V]] : i1 to i8
// CHECK-NEXT:    llvm.store %[[E]], %[[Q]] {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK:         llvm.alloca %{{.*}} x i8 {{.*}}: (i64) -> !llvm.ptr
func.func @bools(%x: memref<?xi1, 1 : i32>, %y: memref<?xi1, 1 : i32>, %i: index) -> i1 {
  %v = memref.load %x[%i] : memref<?xi1, 1 : i32>
  memref.store %v, %y[%i] : memref<?xi1, 1 : i32>
  %l = memref.alloca() : memref<4xi1>
  memref.store %v, %l[%i] : memref<4xi1>
  %w = memref.load %l[%i] : memref<4xi1>
  func.return %w : i1
}

// -----

// A bool global is an array of bytes; its initializer becomes 0/1 bytes.
// CHECK: llvm.mlir.global internal constant @bool_table(dense<[1, 0, 1]> : tensor<3xi8>) {addr_space = 0 : i32, alignment = 1 : i64} : !llvm.array<3 x i8>
"memref.global"() <{sym_name = "bool_table", type = memref<3xi1>, initial_value = dense<[true, false, true]> : tensor<3xi1>, sym_visibility = "private", constant}> : () -> ()
