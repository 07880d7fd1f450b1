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

// The chip is too old (no features: the chip's default PTX version, at least 8.0).
gpu.module @old_chip [#nvvm.target<chip = "sm_75">] {
  func.func @f(%x: i32, %m: i32) -> i32 {
    // expected-error @+1 {{'nvvm.redux.sync.add' op needs sm_80 and PTX 7.0, but gpu.module @old_chip targets sm_75 (PTX 8.0)}}
    %r = nvvm.redux.sync.add %x, %m : (i32, i32) -> i32 loc("k.py":4:7)
    func.return %r : i32
  }
}

// -----

// The chip is new enough, the PTX version is not.
gpu.module @old_ptx [#nvvm.target<chip = "sm_90", features = "+ptx50">] {
  func.func @f(%m: i32, %x: i32) -> i32 {
    // expected-error @+1 {{'nvvm.match.any.sync.i32' op needs sm_70 and PTX 6.0, but gpu.module @old_ptx targets sm_90 (PTX 5.0)}}
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
gpu.module @f16_add [#nvvm.target<chip = "sm_60">] {
  func.func @f(%m: memref<?xf16, 1 : i32>, %i: index, %x: f16) -> f16 {
    // expected-error @+1 {{'memref.atomic_rmw' op (an atomic add of f16) needs sm_70, but gpu.module @f16_add targets sm_60}}
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 0 : i64}> : (f16, memref<?xf16, 1 : i32>, index) -> f16 loc("k.py":7:3)
    func.return %r : f16
  }
}

// -----

gpu.module @bf16_add [#nvvm.target<chip = "sm_80">] {
  func.func @f(%m: memref<?xbf16, 1 : i32>, %i: index, %x: bf16) -> bf16 {
    // expected-error @+1 {{'memref.atomic_rmw' op (an atomic add of bf16) needs sm_90, but gpu.module @bf16_add targets sm_80}}
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 0 : i64}> : (bf16, memref<?xbf16, 1 : i32>, index) -> bf16
    func.return %r : bf16
  }
}

// -----

// Scoped atomics (block, system) need sm_60; orderings other than relaxed need sm_70.
gpu.module @scope [#nvvm.target<chip = "sm_52">] {
  func.func @f(%m: memref<?xi32, 1 : i32>, %i: index, %x: i32) -> i32 {
    // expected-error @+1 {{'memref.atomic_rmw' op with scope 'system' needs sm_60, but gpu.module @scope targets sm_52 (device scope only)}}
    %r = "memref.atomic_rmw"(%x, %m, %i) <{kind = 1 : i64}> {syncscope = "system"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
    func.return %r : i32
  }
}

// -----

gpu.module @order [#nvvm.target<chip = "sm_61">] {
  func.func @f(%m: memref<?xi32, 1 : i32>, %i: index, %x: i32) -> i32 {
    // expected-error @+1 {{'gpu.atomic_cmpxchg' op with ordering 'acq_rel' needs sm_70, but gpu.module @order targets sm_61 (relaxed only)}}
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

// -----

// nvvm.atomicrmw: the catalog row's chip and PTX version, and its .sem (sm_70, PTX 6.0) and .scope
// (sm_60, PTX 5.0; .cluster sm_90, PTX 7.8) qualifiers.
gpu.module @release [#nvvm.target<chip = "sm_61">] {
  func.func @f(%p: !llvm.ptr<1>, %x: i32) -> i32 {
    // expected-error @+1 {{'nvvm.atomicrmw' op (atom.release.gpu.global.add.u32) needs sm_70, but gpu.module @release targets sm_61 (PTX }}
    %r = nvvm.atomicrmw add %p, %x {sem = "release", scope = "gpu"} : !llvm.ptr<1>, i32 loc("k.py":9:3)
    func.return %r : i32
  }
}

// -----

gpu.module @cluster [#nvvm.target<chip = "sm_80">] {
  func.func @f(%p: !llvm.ptr<3>, %x: i32) -> i32 {
    // expected-error @+1 {{'nvvm.atomicrmw' op (fence.sc.cluster; atom.acquire.cluster.shared.add.u32) needs sm_90, but gpu.module @clust}}
    %r = nvvm.atomicrmw add %p, %x {sem = "seq_cst", scope = "cluster"} : !llvm.ptr<3>, i32
    func.return %r : i32
  }
}

// -----

gpu.module @bf16 [#nvvm.target<chip = "sm_89">] {
  func.func @f(%p: !llvm.ptr<1>, %x: bf16) -> bf16 {
    // expected-error @+1 {{'nvvm.atomicrmw' op (atom.sys.global.add.noftz.bf16) needs sm_90, but gpu.module @bf16 targets sm_89 (PTX 8.0)}}
    %r = nvvm.atomicrmw fadd %p, %x {sem = "relaxed", scope = "sys"} : !llvm.ptr<1>, bf16
    func.return %r : bf16
  }
}

// -----

gpu.module @sys [#nvvm.target<chip = "sm_52">] {
  func.func @f(%p: !llvm.ptr<1>, %x: i32) -> i32 {
    // expected-error @+1 {{'nvvm.atomicrmw' op (atom.sys.global.add.u32) needs sm_60, but gpu.module @sys targets sm_52 (PTX 8.0)}}
    %r = nvvm.atomicrmw add %p, %x {sem = "relaxed", scope = "sys"} : !llvm.ptr<1>, i32
    func.return %r : i32
  }
}

// -----

// CHECK-LABEL: gpu.module @ok
// CHECK:         nvvm.atomicrmw xchg
gpu.module @ok [#nvvm.target<chip = "sm_70", features = "+ptx60">] {
  func.func @f(%p: !llvm.ptr<1>, %x: i64) -> i64 {
    %r = nvvm.atomicrmw xchg %p, %x {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i64
    func.return %r : i64
  }
}

// -----

// mma.sync (every MMA_SHAPES row) needs sm_80: a Volta target is refused before LLVM could abort.
gpu.module @mma_on_volta [#nvvm.target<chip = "sm_70">] {
  func.func @f(%h: vector<2xf16>, %x: f32) -> f32 {
    // expected-error @+1 {{'nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32' op needs sm_80 and PTX 7.0, but gpu.module @mma_on_volta targ}}
    %d:4 = nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32 %h, %h, %h, %h, %h, %h, %x, %x, %x, %x : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> (f32, f32, f32, f32) loc("k.py":9:3)
    func.return %d#0 : f32
  }
}

// -----

// stmatrix is sm_90 (ldmatrix sm_75): on sm_80 the store is refused, the load passes.
gpu.module @stmatrix_on_ampere [#nvvm.target<chip = "sm_80">] {
  func.func @f(%p: !llvm.ptr<3>) {
    %r:4 = nvvm.ldmatrix.x4.b16 %p : (!llvm.ptr<3>) -> (i32, i32, i32, i32)
    // expected-error @+1 {{'nvvm.stmatrix.x4.b16' op needs sm_90 and PTX 7.8, but gpu.module @stmatrix_on_ampere targets sm_80 (PTX 8.0)}}
    nvvm.stmatrix.x4.b16 %p, %r#0, %r#1, %r#2, %r#3 : !llvm.ptr<3>, i32, i32, i32, i32
    func.return
  }
}

// -----

// cp.async needs sm_80 and PTX 7.0.
gpu.module @cp_async_on_turing [#nvvm.target<chip = "sm_75">] {
  func.func @f(%s: !llvm.ptr<3>, %g: !llvm.ptr<1>) {
    // expected-error @+1 {{'nvvm.cp.async.cg.shared.global.16' op needs sm_80 and PTX 7.0, but gpu.module @cp_async_on_turing targets sm_}}
    nvvm.cp.async.cg.shared.global.16 %s, %g : !llvm.ptr<3>, !llvm.ptr<1>
    func.return
  }
}

// -----

// A float type PTX has no form of (f80, f128) is refused where it is first used, before the memref
// and export passes (which would fail without a location).
gpu.module @x87 [#nvvm.target<chip = "sm_90">] {
  func.func @f(%a: memref<?xf80, 1 : i32>, %i: index) {
    // expected-error @+1 {{'memref.load' op uses f80, which PTX has no type for (its floats are f16, bf16, f32 and f64)}}
    %v = memref.load %a[%i] : memref<?xf80, 1 : i32>
    func.return
  }
}

// -----

// The packed f32 -> f16x2 conversion (inline PTX) is checked as the catalog ops are: sm_80, PTX 7.0.
gpu.module @cvt_x2_old_chip [#nvvm.target<chip = "sm_75">] {
  func.func @f(%a: f32, %b: f32) -> i32 {
    // expected-error @+1 {{'nvvm.cvt.rn.x2.f32' op needs sm_80 and PTX 7.0, but gpu.module @cvt_x2_old_chip targets sm_75 (PTX 8.0)}}
    %r = nvvm.cvt.rn.x2.f32 %a, %b {type = "f16"} : f32, f32 -> i32
    func.return %r : i32
  }
}
