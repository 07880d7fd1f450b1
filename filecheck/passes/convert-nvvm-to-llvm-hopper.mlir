// RUN: warpforge-opt %s -p convert-nvvm-to-llvm --split-input-file | filecheck %s

// TMA: the destination is cast to shared::cluster (ptr<7>); the multicast mask, cache hint, their
// flags and cta_group follow the coordinates as constants (all off).
// CHECK-LABEL: func.func @tma_load(
// CHECK-SAME:    %[[DST:.*]]: !llvm.ptr<3>, %[[BAR:.*]]: !llvm.ptr<3>, %[[TMAP:.*]]: !llvm.ptr, %[[X:.*]]: i32, %[[Y:.*]]: i32)
// CHECK-NEXT:  %[[D7:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:  %[[MC:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-NEXT:  %[[HINT:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:  %[[F0:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:  %[[F1:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:  %[[CG:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d"(%[[D7]], %[[BAR]], %[[TMAP]], %[[X]], %[[Y]], %[[MC]], %[[HINT]], %[[F0]], %[[F1]], %[[CG]]) : (!llvm.ptr<7>, !llvm.ptr<3>, !llvm.ptr, i32, i32, i16, i64, i1, i1, i32) -> ()
func.func @tma_load(%dst: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %tmap: !llvm.ptr, %x: i32, %y: i32) {
  nvvm.cp.async.bulk.tensor.shared.cluster.global.2d %dst, %bar, %tmap, %x, %y : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32, i32
  func.return
}

// -----

// CHECK-LABEL: func.func @tma_store(
// CHECK-SAME:    %[[SRC:.*]]: !llvm.ptr<3>, %[[TMAP:.*]]: !llvm.ptr, %[[X:.*]]: i32)
// CHECK-NEXT:  %[[HINT:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:  %[[F:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.tensor.s2g.tile.1d"(%[[SRC]], %[[TMAP]], %[[X]], %[[HINT]], %[[F]]) : (!llvm.ptr<3>, !llvm.ptr, i32, i64, i1) -> ()
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.commit.group"() : () -> ()
// CHECK-NEXT:  %[[N:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.cp.async.bulk.wait.group.read"(%[[N]]) : (i32) -> ()
func.func @tma_store(%src: !llvm.ptr<3>, %tmap: !llvm.ptr, %x: i32) {
  nvvm.cp.async.bulk.tensor.global.shared.cta.1d %src, %tmap, %x : !llvm.ptr<3>, !llvm.ptr, i32
  nvvm.cp.async.bulk.commit.group
  nvvm.cp.async.bulk.wait_group.read 0
  func.return
}

// -----

// mbarrier: expect_tx and try_wait.parity take the scope/space-qualified LLVM 22 names (the older
// `.shared` names would become silent extern calls).
// CHECK-LABEL: func.func @mbarrier(
// CHECK-SAME:    %[[BAR:.*]]: !llvm.ptr<3>, %[[N:.*]]: i32)
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.mbarrier.init.shared"(%[[BAR]], %[[N]]) : (!llvm.ptr<3>, i32) -> ()
// CHECK-NEXT:  %[[T:.*]] = llvm.call_intrinsic "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta"(%[[BAR]], %[[N]]) : (!llvm.ptr<3>, i32) -> i64
// CHECK-NEXT:  %[[W:.*]] = llvm.call_intrinsic "llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta"(%[[BAR]], %[[N]]) : (!llvm.ptr<3>, i32) -> i1
func.func @mbarrier(%bar: !llvm.ptr<3>, %n: i32) -> (i64, i1) {
  nvvm.mbarrier.init.shared %bar, %n : !llvm.ptr<3>, i32
  %t = nvvm.mbarrier.arrive.expect_tx %bar, %n : (!llvm.ptr<3>, i32) -> i64
  %w = nvvm.mbarrier.try_wait.parity %bar, %n : (!llvm.ptr<3>, i32) -> i1
  func.return %t, %w : i64, i1
}

// -----

// wgmma.mma_async: inline PTX with n/2 "=f" outputs tied to the accumulator inputs, the scale-d
// predicate as "r", the descriptors as "l"; scales and transposes (layout_b = row: transposed B)
// are immediates.
// CHECK-LABEL: func.func @wgmma(
// CHECK-SAME:    %[[DA:.*]]: i64, %[[DB:.*]]: i64, %[[P:.*]]: i1, %[[C:.*]]: f32)
// CHECK:       nvvm.wgmma.fence.sync.aligned
// CHECK-NEXT:  %[[S:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK-NEXT:  %[[R:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $4, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $5, $6, p, 1, -1, 0, 1;\0A}", "=f,=f,=f,=f,r,l,l,0,1,2,3" %[[S]], %[[DA]], %[[DB]], %[[C]], %[[C]], %[[C]], %[[C]] : (i32, i64, i64, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:  %[[D0:.*]] = llvm.extractvalue %[[R]][0] : !llvm.struct<(f32, f32, f32, f32)>
// wgmma.wait_accumulators: inline PTX of the wait with "=f" outputs tied to its inputs, so the read
// (func.return) depends on the wait; the bare wait stays the intrinsic.
// CHECK:       llvm.call_intrinsic "llvm.nvvm.wgmma.commit_group.sync.aligned"() : () -> ()
// CHECK-NEXT:  %[[W:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,0,1,~{memory}" %[[D0]], %{{.*}} : (f32, f32) -> !llvm.struct<(f32, f32)>
// CHECK-NEXT:  %[[W0:.*]] = llvm.extractvalue %[[W]][0] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:  %[[W1:.*]] = llvm.extractvalue %[[W]][1] : !llvm.struct<(f32, f32)>
// CHECK-NEXT:  %[[N:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:  llvm.call_intrinsic "llvm.nvvm.wgmma.wait_group.sync.aligned"(%[[N]]) : (i64) -> ()
// CHECK-NEXT:  %[[S:.*]] = llvm.fadd %[[W0]], %[[W1]] : f32
// CHECK-NEXT:  func.return %[[S]] : f32
func.func @wgmma(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  nvvm.wgmma.fence.aligned
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "bf16", layout_a = "row", layout_b = "row", scale_a = 1 : i32, scale_b = -1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %w:2 = nvvm.wgmma.wait_accumulators %d#0, %d#3 {n = 0 : i64} : f32, f32 -> f32, f32
  nvvm.wgmma.wait.group.sync.aligned 1
  %s = llvm.fadd %w#0, %w#1 : f32
  func.return %s : f32
}

// -----

// wgmma.mma_async with A from registers: the four A registers as "r" after the scale-d predicate,
// then B's descriptor; only imm-trans-b (layout_b = col: 0).
// CHECK-LABEL: func.func @wgmma_reg_a(
// CHECK-SAME:    %[[A0:.*]]: i32, %[[A1:.*]]: i32, %[[DB:.*]]: i64, %[[P:.*]]: i1, %[[C:.*]]: f32)
// CHECK:       nvvm.wgmma.fence.sync.aligned
// CHECK-NEXT:  %[[S:.*]] = llvm.zext %[[P]] : i1 to i32
// CHECK-NEXT:  %[[R:.*]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $4, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, {$5, $6, $7, $8}, $9, p, 1, 1, 0;\0A}", "=f,=f,=f,=f,r,r,r,r,r,l,0,1,2,3" %[[S]], %[[A0]], %[[A1]], %[[A0]], %[[A1]], %[[DB]], %[[C]], %[[C]], %[[C]], %[[C]] : (i32, i32, i32, i32, i32, i64, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT:  %[[D0:.*]] = llvm.extractvalue %[[R]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK:       %[[W:.*]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,0,~{memory}" %[[D0]] : (f32) -> !llvm.struct<(f32)>
// CHECK-NEXT:  %[[W0:.*]] = llvm.extractvalue %[[W]][0] : !llvm.struct<(f32)>
// CHECK-NEXT:  func.return %[[W0]] : f32
func.func @wgmma_reg_a(%a0: i32, %a1: i32, %db: i64, %p: i1, %c: f32) -> f32 {
  nvvm.wgmma.fence.aligned
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a0, %a1, %a0, %a1), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %w = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
  func.return %w : f32
}

// -----

// cvt.rn.f16x2.f32: pure inline PTX (no side effects), hi then lo as PTX's a and b.
// CHECK-LABEL: func.func @cvt_x2(
// CHECK-SAME:    %[[A:.*]]: f32, %[[B:.*]]: f32)
// CHECK-NEXT:  %[[R:.*]] = llvm.inline_asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f" %[[A]], %[[B]] : (f32, f32) -> i32
// CHECK-NEXT:  func.return %[[R]] : i32
func.func @cvt_x2(%a: f32, %b: f32) -> i32 {
  %r = nvvm.cvt.rn.x2.f32 %a, %b {type = "bf16"} : f32, f32 -> i32
  func.return %r : i32
}

// -----

// elect.sync returns {i32, i1}, taken apart with extractvalue.
// CHECK-LABEL: func.func @elect(
// CHECK:       %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.elect.sync"(%{{.*}}) : (i32) -> !llvm.struct<(i32, i1)>
// CHECK-NEXT:  %{{.*}} = llvm.extractvalue %[[R]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:  %{{.*}} = llvm.extractvalue %[[R]][1] : !llvm.struct<(i32, i1)>
func.func @elect(%m: i32) -> (i32, i1) {
  %l, %e = nvvm.elect.sync %m : (i32) -> (i32, i1)
  func.return %l, %e : i32, i1
}

// -----

// nvvm.mbarrier.wait.parity: inline PTX that loops on try_wait (labels are local to the braces; bra.uni:
// every lane of a warp sees the same phase), a memory clobber, no results.
// CHECK-LABEL: func.func @mbarrier_wait(
// CHECK-SAME:    %[[ADDR:.*]]: i32, %[[PAR:.*]]: i32)
// CHECK-NEXT:  llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Await:\0Ambarrier.try_wait.parity.shared.b64 p, [$0], $1;\0A@!p bra.uni wait;\0A}", "r,r,~{memory}" %[[ADDR]], %[[PAR]] : (i32, i32) -> ()
func.func @mbarrier_wait(%addr: i32, %parity: i32) {
  nvvm.mbarrier.wait.parity %addr, %parity : i32, i32
  func.return
}
