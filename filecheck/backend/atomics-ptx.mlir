// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx > %t.ptx && filecheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas

// Atomic orderings and scopes through gpu-to-llvm, the exporter and NVPTX, then ptxas: each
// memref.atomic_rmw / gpu.atomic_cmpxchg and the PTX it becomes (tests/test_atomic_ordering.py
// checks every kind x dtype x space x ordering x scope). Ordered or system-scoped atomics are inline
// PTX `atom.<sem>.<scope>.<space>.<op>.<type>`; seq_cst is fence.sc + atom.acquire; relaxed atomics
// of block/device scope are LLVM's (.gpu implied); CAS and float max keep both in LLVM's cmpxchg.

// CHECK-LABEL: .visible .entry orderings(
// CHECK:       atom.acq_rel.sys.global.add.u32
// CHECK:       atom.release.gpu.global.exch.b64
// CHECK:       fence.sc.cta; atom.acquire.cta.shared.max.s32
// CHECK:       atom.acquire.gpu.global.min.u64
// CHECK:       atom.sys.global.add.f32
// CHECK:       atom.release.cta.shared.or.b32
// CHECK:       atom.acquire.sys.global.xor.b64
// CHECK:       atom.acq_rel.gpu.global.add.noftz.bf16
// CHECK:       atom.global.and.b32
// CHECK:       atom.shared.add.f64
// CHECK:       atom.acq_rel.cta.global.cas.b32
// CHECK:       fence.sc.sys
// CHECK-NEXT:  atom.acquire.sys.global.cas.b64
// CHECK:       atom.release.gpu.global.cas.b32
builtin.module {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @orderings(%u: memref<?xi32, 1 : i32>, %l: memref<?xi64, 1 : i32>, %f: memref<?xf32, 1 : i32>, %h: memref<?xbf16, 1 : i32>,
                        %s: memref<?xi32, 3 : i32>, %d: memref<?xf64, 3 : i32>, %out: memref<?xi64, 1 : i32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x = memref.load %u[%c0] : memref<?xi32, 1 : i32>
      %y = memref.load %l[%c0] : memref<?xi64, 1 : i32>
      %z = memref.load %f[%c0] : memref<?xf32, 1 : i32>
      %b = memref.load %h[%c0] : memref<?xbf16, 1 : i32>
      %w = memref.load %d[%c0] : memref<?xf64, 3 : i32>
      %0 = "memref.atomic_rmw"(%x, %u, %c1) <{kind = 1 : i64}> {syncscope = "system", ordering = "acq_rel"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
      %1 = "memref.atomic_rmw"(%y, %l, %c1) <{kind = 3 : i64}> {syncscope = "device", ordering = "release"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
      %2 = "memref.atomic_rmw"(%x, %s, %c1) <{kind = 6 : i64}> {syncscope = "block", ordering = "seq_cst"} : (i32, memref<?xi32, 3 : i32>, index) -> i32
      %3 = "memref.atomic_rmw"(%y, %l, %c2) <{kind = 11 : i64}> {syncscope = "device", ordering = "acquire"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
      %4 = "memref.atomic_rmw"(%z, %f, %c1) <{kind = 0 : i64}> {syncscope = "system", ordering = "relaxed"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
      %5 = "memref.atomic_rmw"(%x, %s, %c2) <{kind = 14 : i64}> {syncscope = "block", ordering = "release"} : (i32, memref<?xi32, 3 : i32>, index) -> i32
      %6 = "memref.atomic_rmw"(%y, %l, %c0) <{kind = 15 : i64}> {syncscope = "system", ordering = "acquire"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
      %7 = "memref.atomic_rmw"(%b, %h, %c1) <{kind = 0 : i64}> {syncscope = "device", ordering = "acq_rel"} : (bf16, memref<?xbf16, 1 : i32>, index) -> bf16
      %8 = "memref.atomic_rmw"(%x, %u, %c2) <{kind = 2 : i64}> {syncscope = "block", ordering = "relaxed"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
      %9 = "memref.atomic_rmw"(%w, %d, %c1) <{kind = 0 : i64}> {syncscope = "block", ordering = "relaxed"} : (f64, memref<?xf64, 3 : i32>, index) -> f64
      %10 = gpu.atomic_cmpxchg %u[%c0], %x, %x {syncscope = "block", ordering = "acq_rel"} : memref<?xi32, 1 : i32>, i32
      %11 = gpu.atomic_cmpxchg %l[%c1], %y, %y {syncscope = "system", ordering = "seq_cst"} : memref<?xi64, 1 : i32>, i64
      %12 = "memref.atomic_rmw"(%z, %f, %c2) <{kind = 4 : i64}> {syncscope = "device", ordering = "release"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
      %r0 = arith.extui %0 : i32 to i64
      %r2 = arith.extui %2 : i32 to i64
      %r5 = arith.extui %5 : i32 to i64
      %r8 = arith.extui %8 : i32 to i64
      %r10 = arith.extui %10 : i32 to i64
      %f4 = arith.bitcast %4 : f32 to i32
      %r4 = arith.extui %f4 : i32 to i64
      %f12 = arith.bitcast %12 : f32 to i32
      %r12 = arith.extui %f12 : i32 to i64
      %b7 = arith.bitcast %7 : bf16 to i16
      %r7 = arith.extui %b7 : i16 to i64
      %r9 = arith.bitcast %9 : f64 to i64
      %s0 = arith.addi %r0, %1 : i64
      %s1 = arith.addi %s0, %r2 : i64
      %s2 = arith.addi %s1, %3 : i64
      %s3 = arith.addi %s2, %r4 : i64
      %s4 = arith.addi %s3, %r5 : i64
      %s5 = arith.addi %s4, %6 : i64
      %s6 = arith.addi %s5, %r7 : i64
      %s7 = arith.addi %s6, %r8 : i64
      %s8 = arith.addi %s7, %r9 : i64
      %s9 = arith.addi %s8, %r10 : i64
      %s10 = arith.addi %s9, %11 : i64
      %s11 = arith.addi %s10, %r12 : i64
      memref.store %s11, %out[%c0] : memref<?xi64, 1 : i32>
      gpu.return
    }
  }
}
