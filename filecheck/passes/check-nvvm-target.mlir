// RUN: warpforge-opt %s -p check-nvvm-target --split-input-file --verify-diagnostics | filecheck %s

// check-nvvm-target leaves valid IR untouched and names the first op its gpu.module's target lacks.
// (--verify-diagnostics prints each case's diagnostic instead of stopping at the first.)

// An op exactly at its minimum (redux.sync: sm_80, PTX 7.0) passes.
// CHECK-LABEL: gpu.module @at_minimum
// CHECK:         nvvm.redux.sync.add
gpu.module @at_minimum [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  func.func @f(%x: i32, %m: i32) -> i32 {
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32
    func.return %r : i32
  }
}

// -----

// The chip is too old.
// CHECK: k.py:4:7: 'nvvm.redux.sync.add' needs sm_80 and PTX 7.0, but gpu.module @old_chip targets sm_75 (PTX 6.3)
gpu.module @old_chip [#nvvm.target<chip = "sm_75">] {
  func.func @f(%x: i32, %m: i32) -> i32 {
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32 loc("k.py":4:7)
    func.return %r : i32
  }
}

// -----

// The chip is new enough, the PTX version is not.
// CHECK: in @f: 'nvvm.match.any.sync.i32' needs sm_70 and PTX 6.0, but gpu.module @old_ptx targets sm_90 (PTX 5.0)
gpu.module @old_ptx [#nvvm.target<chip = "sm_90", features = "+ptx50">] {
  func.func @f(%m: i32, %x: i32) -> i32 {
    %r = nvvm.match.any.sync.i32 %m, %x : (i32, i32) -> i32
    func.return %r : i32
  }
}

// -----

// Without an #nvvm.target the PTX emitter's default (sm_90, PTX 8.0) is checked.
// CHECK-LABEL: gpu.module @no_target
// CHECK:         nvvm.bar.warp.sync
gpu.module @no_target {
  func.func @f(%m: i32) {
    nvvm.bar.warp.sync %m : i32
    func.return
  }
}
