// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// The ops warpforge adds to xDSL's llvm dialect (warpforge.dialects.llvm.ADDED_OPS), and the xDSL
// ops the gpu → llvm lowering relies on, round-tripped in custom and generic form.

// CHECK:       llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>
llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

// CHECK-LABEL: llvm.func @added_ops(
// CHECK-SAME:    %[[P:[^:]*]]: !llvm.ptr<1> {llvm.noalias}, %[[X:[^:]*]]: f32, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i64, %[[V:[^:]*]]: vector<4xf32>)
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
// CHECK-NEXT:    %[[S:.*]] = llvm.mlir.addressof @smem : !llvm.ptr<3>
// CHECK-NEXT:    %[[G:.*]] = llvm.addrspacecast %[[S]] : !llvm.ptr<3> to !llvm.ptr
// CHECK-NEXT:    %{{.*}} = llvm.fptosi %[[X]] : f32 to i32
// CHECK-NEXT:    %{{.*}} = llvm.fptoui %[[X]] : f32 to i64
// CHECK-NEXT:    %{{.*}} = llvm.uitofp %[[I]] : i32 to f32
// CHECK-NEXT:    %{{.*}} = llvm.atomicrmw fadd %[[P]], %[[X]] syncscope("device") monotonic : !llvm.ptr<1>, f32
// CHECK-NEXT:    %{{.*}} = llvm.atomicrmw umax %[[P]], %[[J]] monotonic : !llvm.ptr<1>, i64
// CHECK-NEXT:    %{{.*}} = llvm.atomicrmw xchg %[[S]], %[[I]] syncscope("block") acq_rel : !llvm.ptr<3>, i32
// CHECK-NEXT:    %{{.*}} = llvm.cmpxchg %[[P]], %[[J]], %[[J]] syncscope("device") acq_rel monotonic : !llvm.ptr<1>, i64
// CHECK-NEXT:    llvm.fence syncscope("block") acq_rel
// CHECK-NEXT:    llvm.fence seq_cst
// CHECK-NEXT:    %[[IDX:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %{{.*}} = llvm.extractelement %[[V]][%[[IDX]] : i32] : vector<4xf32>
// CHECK-NEXT:    %{{.*}} = llvm.freeze %[[I]] : i32
// CHECK-NEXT:    %{{.*}} = llvm.mlir.poison : f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.maximum(%[[X]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:    %{{.*}} = llvm.intr.minimum(%[[V]], %[[V]]) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %{{.*}} = llvm.intr.smax(%[[I]], %[[I]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.intr.smin(%[[J]], %[[J]]) : (i64, i64) -> i64
// CHECK-NEXT:    %{{.*}} = llvm.intr.umax(%[[I]], %[[I]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.intr.umin(%[[I]], %[[I]]) : (i32, i32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%[[X]]) : (f32) -> i32
// CHECK-NEXT:    %{{.*}} = llvm.getelementptr inbounds %[[P]][%[[J]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK-NEXT:    llvm.switch %[[I]] : i32, ^[[DEF:.*]] [0: ^[[A:.*]], 7: ^[[B:.*]]]
// CHECK-NEXT:  ^[[A]]:
// CHECK-NEXT:    llvm.br ^[[DEF]]
// CHECK-NEXT:  ^[[B]]:
// CHECK-NEXT:    llvm.br ^[[DEF]]
// CHECK-NEXT:  ^[[DEF]]:
// CHECK-NEXT:    llvm.return
llvm.func @added_ops(%p: !llvm.ptr<1> {llvm.noalias}, %x: f32, %i: i32, %j: i64, %v: vector<4xf32>)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
  %g = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr
  %0 = llvm.fptosi %x : f32 to i32
  %1 = llvm.fptoui %x : f32 to i64
  %2 = llvm.uitofp %i : i32 to f32
  %3 = llvm.atomicrmw fadd %p, %x syncscope("device") monotonic : !llvm.ptr<1>, f32
  %4 = llvm.atomicrmw umax %p, %j monotonic : !llvm.ptr<1>, i64
  %5 = llvm.atomicrmw xchg %s, %i syncscope("block") acq_rel : !llvm.ptr<3>, i32
  %6 = llvm.cmpxchg %p, %j, %j syncscope("device") acq_rel monotonic : !llvm.ptr<1>, i64
  llvm.fence syncscope("block") acq_rel
  llvm.fence seq_cst
  %idx = llvm.mlir.constant(2 : i32) : i32
  %7 = llvm.extractelement %v[%idx : i32] : vector<4xf32>
  %8 = llvm.freeze %i : i32
  %9 = llvm.mlir.poison : f32
  %10 = llvm.intr.maximum(%x, %x) : (f32, f32) -> f32
  %11 = llvm.intr.minimum(%v, %v) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  %12 = llvm.intr.smax(%i, %i) : (i32, i32) -> i32
  %13 = llvm.intr.smin(%j, %j) : (i64, i64) -> i64
  %14 = llvm.intr.umax(%i, %i) : (i32, i32) -> i32
  %15 = llvm.intr.umin(%i, %i) : (i32, i32) -> i32
  %16 = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%x) : (f32) -> i32
  %17 = llvm.getelementptr inbounds %p[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  llvm.switch %i : i32, ^def [0: ^a, 7: ^b]
^a:
  llvm.br ^def
^b:
  llvm.br ^def
^def:
  llvm.return
}
