// RUN: warpforge-opt %s -p gpu-to-llvm --print-debuginfo | filecheck %s

// The whole `gpu-to-llvm` pipeline on a gpu-level vecadd: only llvm ops remain inside the
// gpu.module (which keeps its target), and every op keeps its source location.

// CHECK:       gpu.module @vecadd_mod [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
// CHECK-LABEL: llvm.func @vecadd(
// CHECK-SAME:    %[[A:[^:]*]]: !llvm.ptr<1> {llvm.noalias, llvm.readonly} loc(unknown), %[[AN:[^:]*]]: i64 loc(unknown),
// CHECK-SAME:    %[[B:[^:]*]]: !llvm.ptr<1> {llvm.noalias, llvm.readonly} loc(unknown), %{{[^:]*}}: i64 loc(unknown),
// CHECK-SAME:    %[[C:[^:]*]]: !llvm.ptr<1> {llvm.noalias} loc(unknown), %[[CN:[^:]*]]: i64 loc(unknown),
// CHECK-SAME:    %[[ERR:[^:]*]]: !llvm.ptr<1> {llvm.noalias} loc(unknown))
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:         %[[BID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32 loc("k.py":5:13)
// CHECK:         %[[BLOCK:.*]] = llvm.mlir.constant(256) : i64 loc("k.py":5:13)
// CHECK:         %[[TID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32 loc("k.py":5:13)
// CHECK:         %[[I:.*]] = llvm.add %{{.*}}, %{{.*}} : i64 loc("k.py":5:13)
// CHECK:         %[[N:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(!llvm.ptr<1>, i64)> loc("k.py":6:7)
// CHECK-NEXT:    %[[OK:.*]] = llvm.icmp "ult" %[[I]], %[[N]] : i64 loc("k.py":6:7)
// CHECK-NEXT:    llvm.cond_br %[[OK]], ^[[BODY:.*]], ^[[DONE:.*]] loc("k.py":6:4)
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         %[[PA:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32 loc("k.py":7:17)
// CHECK-NEXT:    %[[X:.*]] = llvm.load %[[PA]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32 loc("k.py":7:17)
// CHECK:         %[[Y:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32 loc("k.py":7:24)
// CHECK-NEXT:    %[[S:.*]] = llvm.fadd %[[X]], %[[Y]] : f32 loc("k.py":7:21)
// CHECK:         llvm.store %[[S]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1> loc("k.py":7:8)
// CHECK-NEXT:    llvm.br ^[[DONE]] loc("k.py":7:8)
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    llvm.return loc("k.py":8:4)
// CHECK-NEXT:  } loc("k.py":3:1)
// CHECK-NOT:   {{gpu\.func|gpu\.return|nvvm\.|memref\.|arith\.|func\.|cf\.|scf\.|math\.|unrealized_conversion_cast}}

builtin.module {
  gpu.module @vecadd_mod [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @vecadd(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %b: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly},
                     %c: memref<?xf32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias})
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %i = gpu.global_id x loc("k.py":5:13)
      %c0 = arith.constant 0 : index loc("k.py":6:7)
      %n = memref.dim %c, %c0 : memref<?xf32, 1 : i32> loc("k.py":6:7)
      %ok = arith.cmpi ult, %i, %n : index loc("k.py":6:7)
      cf.cond_br %ok, ^body, ^done loc("k.py":6:4)
    ^body:
      %x = memref.load %a[%i] : memref<?xf32, 1 : i32> loc("k.py":7:17)
      %y = memref.load %b[%i] : memref<?xf32, 1 : i32> loc("k.py":7:24)
      %s = arith.addf %x, %y : f32 loc("k.py":7:21)
      memref.store %s, %c[%i] : memref<?xf32, 1 : i32> loc("k.py":7:8)
      cf.br ^done loc("k.py":7:8)
    ^done:
      gpu.return loc("k.py":8:4)
    } loc("k.py":3:1)
  }
}
