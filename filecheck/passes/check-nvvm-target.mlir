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
// CHECK: k.py:4:7: error: 'nvvm.redux.sync.add' op needs sm_80 and PTX 7.0, but gpu.module @old_chip targets sm_75 (PTX 6.3)
gpu.module @old_chip [#nvvm.target<chip = "sm_75">] {
  func.func @f(%x: i32, %m: i32) -> i32 {
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32 loc("k.py":4:7)
    func.return %r : i32
  }
}

// -----

// The chip is new enough, the PTX version is not.
// CHECK: error: 'nvvm.match.any.sync.i32' op needs sm_70 and PTX 6.0, but gpu.module @old_ptx targets sm_90 (PTX 5.0)
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

// -----

// Atomics the chip lacks: an f16 add before sm_70 (bf16: sm_90, f64: sm_60).
// CHECK: k.py:7:3: error: 'memref.atomic_rmw' op (an atomic add of f16) needs sm_70, but gpu.module @f16_add targets sm_60
gpu.module @f16_add [#nvvm.target<chip = "sm_60">] {
  func.func @f(%m: memref<?xf16, 1 : i32>, %i: index, %x: f16) -> f16 {
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 0 : i64}> : (f16, memref<?xf16, 1 : i32>, index) -> f16 loc("k.py":7:3)
    func.return %r : f16
  }
}

// -----

// CHECK: error: 'memref.atomic_rmw' op (an atomic add of bf16) needs sm_90, but gpu.module @bf16_add targets sm_80
gpu.module @bf16_add [#nvvm.target<chip = "sm_80">] {
  func.func @f(%m: memref<?xbf16, 1 : i32>, %i: index, %x: bf16) -> bf16 {
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 0 : i64}> : (bf16, memref<?xbf16, 1 : i32>, index) -> bf16
    func.return %r : bf16
  }
}

// -----

// Scoped atomics (block, system) need sm_60; orderings other than relaxed need sm_70.
// CHECK: error: 'memref.atomic_rmw' op with scope 'system' needs sm_60, but gpu.module @scope targets sm_52 (device scope only)
gpu.module @scope [#nvvm.target<chip = "sm_52">] {
  func.func @f(%m: memref<?xi32, 1 : i32>, %i: index, %x: i32) -> i32 {
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 1 : i64}> {syncscope = "system"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
    func.return %r : i32
  }
}

// -----

// CHECK: error: 'gpu.atomic_cmpxchg' op with ordering 'acq_rel' needs sm_70, but gpu.module @order targets sm_61 (relaxed only)
gpu.module @order [#nvvm.target<chip = "sm_61">] {
  func.func @f(%m: memref<?xi32, 1 : i32>, %i: index, %x: i32) -> i32 {
    %r = gpu.atomic_cmpxchg %m[%i], %x, %x {ordering = "acq_rel"} : memref<?xi32, 1 : i32>, i32
    func.return %r : i32
  }
}

// -----

// On sm_90 all of these exist.
// CHECK-LABEL: gpu.module @h200
// CHECK-COUNT-2: memref.atomic_rmw
// CHECK:         gpu.atomic_cmpxchg
gpu.module @h200 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  func.func @f(%m: memref<?xbf16, 1 : i32>, %n: memref<?xi64, 1 : i32>, %i: index, %x: bf16, %y: i64) -> (bf16, i64, i64) {
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 0 : i64}> {syncscope = "block"} : (bf16, memref<?xbf16, 1 : i32>, index) -> bf16
    %s = "memref.atomic_rmw"(%y, %n, %i) <{kind = 6 : i64}> {ordering = "seq_cst", syncscope = "system"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
    %t = gpu.atomic_cmpxchg %n[%i], %y, %y {ordering = "acquire"} : memref<?xi64, 1 : i32>, i64
    func.return %r, %s, %t : bf16, i64, i64
  }
}
