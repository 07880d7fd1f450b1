// RUN: warpforge-opt %s -p check-nvvm-target --split-input-file --verify-diagnostics | filecheck %s

// sm_90a-only ops (wgmma, setmaxnreg: catalog `arch_specific`) pass on sm_90a and are refused on
// sm_90 and on later chips, before LLVM could abort the process on them ("Cannot select").

// CHECK-LABEL: gpu.module @arch_specific_ok
// CHECK:         nvvm.setmaxnreg.inc 240
gpu.module @arch_specific_ok [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  func.func @f(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
    nvvm.wgmma.fence.aligned
    %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %r = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
    nvvm.setmaxnreg.inc 240
    func.return %r : f32
  }
}

// -----

gpu.module @plain_sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @f() {
    // expected-error @+1 {{'nvvm.wgmma.fence.aligned' op needs sm_90a and PTX 8.0, but gpu.module @plain_sm90 targets sm_90 (PTX 8.0)}}
    nvvm.wgmma.fence.aligned loc("k.py":3:5)
    func.return
  }
}

// -----

gpu.module @wgmma_sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @f(%da: i64, %db: i64, %p: i1, %c: f32) -> f32 {
    // expected-error @+1 {{'nvvm.wgmma.mma_async' op needs sm_90a and PTX 8.0, but gpu.module @wgmma_sm90 targets sm_90 (PTX 8.0)}}
    %d:4 = nvvm.wgmma.mma_async %da, %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_a = "row", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %r = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
    func.return %r : f32
  }
}

// -----

gpu.module @wgmma_reg_a_sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @f(%a: i32, %db: i64, %p: i1, %c: f32) -> f32 {
    // expected-error @+1 {{'nvvm.wgmma.mma_async.reg_a' op needs sm_90a and PTX 8.0, but gpu.module @wgmma_reg_a_sm90 targets sm_90 (PTX 8.0)}}
    %d:4 = nvvm.wgmma.mma_async.reg_a(%a, %a, %a, %a), %db, %p, (%c, %c, %c, %c) {n = 8 : i32, type = "f16", layout_b = "col", scale_a = 1 : i32, scale_b = 1 : i32} : (i32, i32, i32, i32), f32, f32, f32, f32 -> f32, f32, f32, f32
    nvvm.wgmma.commit.group.sync.aligned
    %r = nvvm.wgmma.wait_accumulators %d#0 {n = 0 : i64} : f32 -> f32
    func.return %r : f32
  }
}

// -----

// An sm_90a feature is not in sm_100a (arch-specific features do not carry forward).
gpu.module @blackwell [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
  func.func @f() {
    // expected-error @+1 {{'nvvm.setmaxnreg.dec' op needs sm_90a and PTX 8.0, but gpu.module @blackwell targets sm_100a (PTX 8.6)}}
    nvvm.setmaxnreg.dec 40
    func.return
  }
}

// -----

// try_wait.parity needs sm_90 (LLVM aborts on sm_80).
gpu.module @ampere [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  func.func @f(%bar: !llvm.ptr<3>, %ph: i32) -> i1 {
    // expected-error @+1 {{'nvvm.mbarrier.try_wait.parity' op needs sm_90 and PTX 7.8, but gpu.module @ampere targets sm_80 (PTX 7.0)}}
    %w = nvvm.mbarrier.try_wait.parity %bar, %ph : (!llvm.ptr<3>, i32) -> i1
    func.return %w : i1
  }
}

// -----

// sm_90a without features defaults to PTX 8.0 (LLVM's choice), enough for TMA.
// CHECK-LABEL: gpu.module @sm90a_default_ptx
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global.1d
gpu.module @sm90a_default_ptx [#nvvm.target<chip = "sm_90a">] {
  func.func @f(%dst: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %tmap: !llvm.ptr, %x: i32) {
    nvvm.cp.async.bulk.tensor.shared.cluster.global.1d %dst, %bar, %tmap, %x : !llvm.ptr<3>, !llvm.ptr<3>, !llvm.ptr, i32
    func.return
  }
}

// -----

// The blocking wait (inline PTX of mbarrier.try_wait.parity) has the same requirement.
gpu.module @ampere_wait [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  func.func @f(%addr: i32, %ph: i32) {
    // expected-error @+1 {{'nvvm.mbarrier.wait.parity' op needs sm_90 and PTX 7.8, but gpu.module @ampere_wait targets sm_80 (PTX 7.0)}}
    nvvm.mbarrier.wait.parity %addr, %ph : i32, i32
    func.return
  }
}
