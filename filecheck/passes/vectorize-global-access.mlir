// RUN: warpforge-opt %s --split-input-file -p vectorize-global-access | filecheck %s

// A simt.static_range loop of 4 reading a[base + q] (base = 4 * t, the slice 16-byte aligned): one
// 128-bit vector.load before the loop, an extract at q in the body; llvm.align stays on %a (the code
// relies on it) and is dropped from %b, which nothing vectorized reads.

// CHECK-LABEL: gpu.func @four_f32(
// CHECK-SAME:    %[[A:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}
// CHECK-SAME:    %[[B:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}
// CHECK:       %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:       %[[START:.*]] = arith.index_cast %[[BASE]] : i64 to index
// CHECK:       %[[V:.*]] = vector.load %[[A]][%[[START]]] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK-NEXT:  cf.br ^[[HDR:.*]](%{{.*}} : i64)
// CHECK:       cf.cond_br %{{.*}}, ^[[BODY:[a-z0-9_]+]](%{{.*}} : i64), ^{{.*}}
// CHECK:     ^[[BODY]](%[[Q:.*]]: i64):
// CHECK-NOT:   memref.load %[[A]]
// CHECK:       %[[P:.*]] = arith.index_cast %[[Q]] : i64 to index
// CHECK:       %[[X:.*]] = vector.extract %[[V]][%[[P]]] : f32 from vector<4xf32>
// CHECK:       memref.load %[[B]]
// CHECK:       arith.addf %[[X]], %{{.*}} : f32
// CHECK:       cf.br ^[[HDR]](%{{.*}} : i64) {llvm.loop_unroll_full}
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @four_f32(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %b: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %t: i64, %j: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %ia = arith.addi %base, %q : i64
      %xa = arith.index_cast %ia : i64 to index
      %x = memref.load %a[%xa] : memref<?xf32, 1 : i32>
      %jb = arith.addi %j, %q : i64
      %xb = arith.index_cast %jb : i64 to index
      %y = memref.load %b[%xb] : memref<?xf32, 1 : i32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%xa] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// The position clamped as the frontend clamps a static_range variable (minsi(maxsi(q, 0), 1)) is q;
// two f64 are one 16-byte block: vector<2xf64>. The base is a left shift by 1 (a multiple of 2).

// CHECK-LABEL: gpu.func @two_f64_clamped(
// CHECK:       %[[V:.*]] = vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf64, 1 : i32>, vector<2xf64>
// CHECK:       cf.cond_br %{{.*}}, ^[[BODY:[a-z0-9_]+]](%{{.*}} : i64), ^{{.*}}
// CHECK:     ^[[BODY]](%[[Q:.*]]: i64):
// CHECK:       %[[LO:.*]] = arith.maxsi %[[Q]], %{{.*}} : i64
// CHECK:       %[[QC:.*]] = arith.minsi %[[LO]], %{{.*}} : i64
// CHECK:       %[[P:.*]] = arith.index_cast %[[QC]] : i64 to index
// CHECK:       vector.extract %[[V]][%[[P]]] : f64 from vector<2xf64>
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @two_f64_clamped(%a: memref<?xf64, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %c: memref<?xf64, 1 : i32> {llvm.noalias}, %t: i64) kernel {
      %k1 = arith.constant 1 : i64
      %base = arith.shli %t, %k1 : i64
      %c0 = arith.constant 0 : i64
      %c2 = arith.constant 2 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c2 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %lo = arith.maxsi %q, %c0 : i64
      %qc = arith.minsi %lo, %k1 : i64
      %ia = arith.addi %base, %qc : i64
      %xa = arith.index_cast %ia : i64 to index
      %x = memref.load %a[%xa] : memref<?xf64, 1 : i32>
      memref.store %x, %c[%xa] : memref<?xf64, 1 : i32>
      %next = arith.addi %q, %k1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Left alone: a base not provably a multiple of 4 (%t itself), a slice without llvm.align (%b), and a
// checked read still inside its scf.if (the slow path, which must re-check element by element).
// llvm.align is dropped from every argument: the code relies on none.

// CHECK-LABEL: gpu.func @not_vectorized(
// CHECK-SAME:    %[[A:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly},
// CHECK-SAME:    %[[B:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly},
// CHECK-SAME:    %[[D:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly},
// CHECK-NOT:   vector.
// CHECK:       memref.load
// CHECK:       memref.load
// CHECK:       scf.if
// CHECK:         memref.load
// CHECK-NOT:   vector.
// CHECK:       gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @not_vectorized(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %b: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %d: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias}, %t: i64, %n: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %ia = arith.addi %t, %q : i64
      %xa = arith.index_cast %ia : i64 to index
      %x = memref.load %a[%xa] : memref<?xf32, 1 : i32>
      %ib = arith.addi %base, %q : i64
      %xb = arith.index_cast %ib : i64 to index
      %y = memref.load %b[%xb] : memref<?xf32, 1 : i32>
      %ok = arith.cmpi ult, %ib, %n : i64
      %z = scf.if %ok -> (f32) {
        %v = memref.load %d[%xb] : memref<?xf32, 1 : i32>
        scf.yield %v : f32
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %ib, %n) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
        %zero = arith.constant 0.0 : f32
        scf.yield %zero : f32
      }
      %s = arith.addf %x, %y : f32
      %s2 = arith.addf %s, %z : f32
      memref.store %s2, %c[%xb] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// A loop without llvm.loop_unroll_full is not a static_range loop: left alone (its trip count is the
// same, but LLVM need not unroll it, and the extracts would stay at run-time positions).

// CHECK-LABEL: gpu.func @plain_loop(
// CHECK-NOT:   vector.load
// CHECK:       memref.load
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @plain_loop(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %ia = arith.addi %base, %q : i64
      %xa = arith.index_cast %ia : i64 to index
      %x = memref.load %a[%xa] : memref<?xf32, 1 : i32>
      memref.store %x, %c[%xa] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64)
    ^exit:
      gpu.return
    }
  }
}

// -----

// Eight f32 from a base that is a multiple of 4: one vector<8xf32> with 16-byte alignment (LLVM reads
// it with two ld.global.nc.v4); four f32 from a base only a multiple of 2: 8-byte alignment (two .v2).

// CHECK-LABEL: gpu.func @wide_and_half_aligned(
// CHECK:       vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<8xf32>
// CHECK:       vector.load %{{.*}}[%{{.*}}] {alignment = 8 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK-NOT:   memref.load %{{.*}} : memref<?xf32, 1 : i32>
// CHECK:       gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @wide_and_half_aligned(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %b: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly, llvm.align = 16 : i64}, %c: memref<?xf32, 1 : i32> {llvm.noalias}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %c2 = arith.constant 2 : i64
      %base = arith.muli %t, %c4 : i64
      %half = arith.muli %t, %c2 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c8 = arith.constant 8 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c8 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %ia = arith.addi %base, %q : i64
      %xa = arith.index_cast %ia : i64 to index
      %x = memref.load %a[%xa] : memref<?xf32, 1 : i32>
      memref.store %x, %c[%xa] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      cf.br ^hdr2(%c0 : i64)
    ^hdr2(%iv2: i64):
      %more2 = arith.cmpi slt, %iv2, %c4 : i64
      cf.cond_br %more2, ^body2(%iv2 : i64), ^exit2
    ^body2(%q2: i64):
      %ib = arith.addi %half, %q2 : i64
      %xb = arith.index_cast %ib : i64 to index
      %y = memref.load %b[%xb] : memref<?xf32, 1 : i32>
      memref.store %y, %c[%xb] : memref<?xf32, 1 : i32>
      %next2 = arith.addi %q2, %c1 : i64
      cf.br ^hdr2(%next2 : i64) {llvm.loop_unroll_full}
    ^exit2:
      gpu.return
    }
  }
}
