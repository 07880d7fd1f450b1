// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

// Verifier rules of the Hopper nvvm ops: immediate ranges from the PTX ISA, wgmma shapes and
// types, and the rule that a wgmma accumulator in flight is read only as the next wgmma's
// accumulator or through the results of a wait_accumulators {n = 0}.

func.func @setmaxnreg_too_few() {
  // expected-error @+1 {{'nvvm.setmaxnreg.inc' op 'nvvm.setmaxnreg.inc' register count must be a multiple of 8 in [24, 256] (PTX ISA §9}}
  nvvm.setmaxnreg.inc 20
  func.return
}

// -----

func.func @setmaxnreg_not_multiple_of_8() {
  // expected-error @+1 {{'nvvm.setmaxnreg.dec' op 'nvvm.setmaxnreg.dec' register count must be a multiple of 8 in [24, 256] (PTX ISA §9}}
  nvvm.setmaxnreg.dec 100
  func.return
}

// -----

func.func @named_barrier_id() {
  %id = arith.constant 16 : i32
  %n = arith.constant 128 : i32
  // expected-error @+1 {{'nvvm.barrier' op 'nvvm.barrier' barrier id must be in [0, 15] (PTX ISA §9.7.13.1), got 16}}
  nvvm.barrier %id, %n : i32, i32
  func.return
}

// -----

func.func @named_barrier_count() {
  %id = arith.constant 1 : i32
  %n = arith.constant 100 : i32
  // expected-error @+1 {{'nvvm.barrier.arrive' op 'nvvm.barrier.arrive' thread count must be a positive multiple of 32 (PTX ISA §9.7.13}}
  nvvm.barrier.arrive %id, %n : i32, i32
  func.return
}

// -----

func.func @mbarrier_zero_count(%bar: !llvm.ptr<3>) {
  %n = arith.constant 0 : i32
  // expected-error @+1 {{'nvvm.mbarrier.init.shared' op 'nvvm.mbarrier.init.shared' arrival count must be in [1, 2^20 - 1] (PTX ISA §9.}}
  nvvm.mbarrier.init.shared %bar, %n : !llvm.ptr<3>, i32
  func.return
}

// -----

// CHECK-NEXT: Expected attribute !llvm.ptr<3> but got !llvm.ptr<1>
func.func @mbarrier_in_global(%bar: !llvm.ptr<1>, %n: i32) {
  // expected-error @+1 {{'nvvm.mbarrier.init.shared' op operand 'addr' at position 0 does not verify:}}
  "nvvm.mbarrier.init.shared"(%bar, %n) : (!llvm.ptr<1>, i32) -> ()
  func.return
}

// -----

func.func @wgmma_bad_n(%da: i64, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' n must be a multiple of 8 in [8, 256] (PTX ISA §9.7.15.5.2), }}
  %d:6 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c, %c, %c) {n = 12 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32, f32, f32 -> f32, f32, f32, f32, f32, f32
  func.return
}

// -----

func.func @wgmma_acc_count(%da: i64, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' m64n16k16 takes 8 f32 accumulators per thread, got 4}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 16 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @wgmma_bad_type(%da: i64, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' has no f64 form with an f32 accumulator (supported: f16, bf16}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f64", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @wgmma_bad_scale(%da: i64, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' scale_b must be 1 or -1, got 2}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 2 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

// Read before any wait: refused.
func.func @acc_read_in_flight(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' accumulator is read by 'arith.addf' at loc("k.py":9:5) while }}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %s = arith.addf %d#0, %d#1 : f32 loc("k.py":9:5)
  nvvm.wgmma.wait.group.sync.aligned 0
  func.return %s : f32
}

// -----

// A bare wait_group 0 does not order the read (LLVM may hoist it above the wait): refused; read
// through nvvm.wgmma.wait_accumulators instead.
func.func @acc_read_after_bare_wait(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{accumulator is read by 'arith.addf' at loc("k.py":7:3) while its wgmma group may still be in flight: read it only as the next wgmma's accumulator, or through the results of 'nvvm.wgmma.wait_accumulators' with n = 0}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  %s = arith.addf %d#0, %d#1 : f32 loc("k.py":7:3)
  func.return %s : f32
}

// -----

// No commit_group: the wgmma belongs to no group, so the wait does not retire it: refused.
func.func @wgmma_not_committed(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' is not committed: no 'nvvm.wgmma.commit.group.sync.aligned' follows it, so it belongs to no wgmma-group and no wgmma.wait_group retires it (PTX ISA §9.7.15.7)}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  %w = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
  func.return %w : f32
}

// -----

// wait_accumulators with n = 1 leaves the newest group in flight: its results are refused too.
func.func @acc_read_after_wait_acc_1(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' accumulator is read by 'func.return' while its wgmma group may still be in flight}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %w = nvvm.wgmma.wait_accumulators %d#2 {n = 1 : i64} : f32 -> f32
  func.return %w : f32
}

// -----

func.func @wait_acc_negative(%c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.wait_accumulators' group count must be >= 0, got -1}}
  %w = nvvm.wgmma.wait_accumulators %c {n = -1 : i64} : f32 -> f32
  func.return %w : f32
}

// -----

// wait_group 1 leaves the newest group in flight: refused.
func.func @acc_read_after_wait_1(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' accumulator is read by 'func.return' while its wgmma group ma}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 1
  func.return %d#2 : f32
}

// -----

// A loop-carried accumulator read inside the loop by something other than the next wgmma: refused.
func.func @loop_carried_read(%da: i64, %db: i64, %p: i1, %c: f32, %lb: index, %ub: index, %st: index) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async' op 'nvvm.wgmma.mma_async' loop-carried accumulator is read by 'arith.addf' while its wg}}
  %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %r:4 = scf.for %i = %lb to %ub step %st iter_args(%a0 = %d#0, %a1 = %d#1, %a2 = %d#2, %a3 = %d#3) -> (f32, f32, f32, f32) {
    %bad = arith.addf %a0, %a1 : f32
    %e:4 = nvvm.wgmma.mma_async %da, %db, %p, (%bad, %a1, %a2, %a3) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    scf.yield %e#0, %e#1, %e#2, %e#3 : f32, f32, f32, f32
  }
  nvvm.wgmma.wait.group.sync.aligned 0
  func.return %r#0 : f32
}

// -----

func.func @wgmma_reg_a_count(%a: i32, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async.reg_a' op 'nvvm.wgmma.mma_async.reg_a' takes A as 4 i32 registers per thread (PTX ISA §9.7.15.5.1.1), got 2}}
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @wgmma_reg_a_bad_layout(%a: i32, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async.reg_a' op 'nvvm.wgmma.mma_async.reg_a' layout_b must be "row" or "col", got "diag"}}
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "bf16", layout_b = "diag", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

func.func @wgmma_reg_a_acc_count(%a: i32, %db: i64, %p: i1, %c: f32) {
  // expected-error @+1 {{'nvvm.wgmma.mma_async.reg_a' op 'nvvm.wgmma.mma_async.reg_a' m64n16k16 takes 8 f32 accumulators per thread, got 4}}
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 16 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  func.return
}

// -----

// The register-A form's accumulator follows the same rule: read before the wait, refused.
func.func @wgmma_reg_a_read_in_flight(%a: i32, %db: i64, %p: i1, %c: f32) -> f32 {
  // expected-error @+1 {{'nvvm.wgmma.mma_async.reg_a' op 'nvvm.wgmma.mma_async.reg_a' accumulator is read by 'arith.addf' while its wgmma group may still be in flight}}
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %s = arith.addf %d#0, %d#1 : f32
  nvvm.wgmma.wait.group.sync.aligned 0
  func.return %s : f32
}

// -----

// Chained register-A wgmmas (k-steps of one group) may pass the accumulator on; read through the wait: accepted.
func.func @wgmma_reg_a_chain(%a: i32, %db: i64, %p: i1, %c: f32) -> f32 {
  %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  %e:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%d#0, %d#1, %d#2, %d#3) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
  nvvm.wgmma.commit.group.sync.aligned
  %w:2 = nvvm.wgmma.wait_accumulators %e#0, %e#1 {n = 0 : i64} : f32, f32 -> f32, f32
  %s = arith.addf %w#0, %w#1 : f32
  func.return %s : f32
}

// -----

func.func @cvt_x2_bad_type(%a: f32, %b: f32) -> i32 {
  // expected-error @+1 {{'nvvm.cvt.rn.x2.f32' op 'nvvm.cvt.rn.x2.f32' type must be one of f16, bf16 (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32), got "e4m3"}}
  %r = nvvm.cvt.rn.x2.f32 %a, %b {type = "e4m3"} : f32, f32 -> i32
  func.return %r : i32
}
