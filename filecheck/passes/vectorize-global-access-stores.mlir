// RUN: warpforge-opt %s --split-input-file -p vectorize-global-access | filecheck %s

// A row view's four guarded stores c[4 * t + q] (kernel-to-gpu's "out of range: not written"): the
// values travel through the loop in a vector<4xf32>; at the loop's end one 16-byte vector.store when
// every guard holds (base + 3 < len(c), with 0 <= base <= 2^62 so nothing wraps), else a loop over
// the elements, each under its own guard computed again for q = k. llvm.align stays on %c (the store relies on it).

// CHECK-LABEL: gpu.func @row_store(
// CHECK-SAME:    %[[C:[a-z]+]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}
// CHECK:       %[[BASE:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK:       %[[V0:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK:       cf.br ^[[HDR:[a-z0-9_]+]](%{{.*}}, %[[V0]] : i64, vector<4xf32>)
// CHECK:     ^[[HDR]](%[[IV:.*]]: i64, %[[V:.*]]: vector<4xf32>):
// CHECK:       cf.cond_br %{{.*}}, ^[[BODY:[a-z0-9_]+]](%[[IV]] : i64), ^[[TAIL:[a-z0-9_]+]]
// CHECK:     ^[[BODY]](%[[Q:.*]]: i64):
// CHECK-NOT:   memref.store
// CHECK:       %[[X:.*]] = arith.addf
// CHECK:       %[[P:.*]] = arith.index_cast %[[Q]] : i64 to index
// CHECK:       %[[V1:.*]] = vector.insert %[[X]], %[[V]] [%[[P]]] : f32 into vector<4xf32>
// CHECK-NOT:   scf.if
// CHECK:       cf.br ^[[HDR]](%{{.*}}, %[[V1]] : i64, vector<4xf32>) {llvm.loop_unroll_full}
// CHECK:     ^[[TAIL]]:
// CHECK:       %[[START:.*]] = arith.index_cast %[[BASE]] : i64 to index
// CHECK:       %[[LAST:.*]] = arith.addi %[[BASE]], %{{.*}} : i64
// CHECK:       %[[FITS:.*]] = arith.cmpi ult, %[[LAST]], %{{.*}} : i64
// CHECK:       %[[ALL:.*]] = arith.andi %{{.*}}, %[[FITS]] : i1
// CHECK:       scf.if %[[ALL]] {
// CHECK-NEXT:    vector.store %[[V]], %[[C]][%[[START]]] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK-NEXT:  } else {
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT:      %[[AT:.*]] = arith.addi %[[BASE]], %[[K]] : i64
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[AT]], %{{.*}} : i64
// CHECK-NEXT:      scf.if %[[OK]] {
// CHECK-NEXT:        %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:        %[[E:.*]] = vector.extract %[[V]][%[[KI]]] : f32 from vector<4xf32>
// CHECK:             memref.store %[[E]], %[[C]][%{{.*}}] : memref<?xf32, 1 : i32>
// CHECK:       cf.br ^[[EXIT:[a-z0-9_]+]]
// CHECK:     ^[[EXIT]]:
// CHECK-NEXT:  gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @row_store(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %z = arith.constant 0 : index
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %xi = arith.index_cast %i : i64 to index
      %x = memref.load %a[%xi] : memref<?xf32, 1 : i32>
      %y = arith.addf %x, %x : f32
      %len = memref.dim %c, %z : memref<?xf32, 1 : i32>
      %n = arith.index_cast %len : index to i64
      %ok = arith.cmpi ult, %i, %n : i64
      scf.if %ok {
        %at = arith.index_cast %i : i64 to index
        memref.store %y, %c[%at] : memref<?xf32, 1 : i32>
      }
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Unconditional stores (an unchecked RawSlice, or a check hoist-checks proved: its condition is the
// constant true, the reporter unreachable) of two f64: one vector.store, no guard. A base x + (y + q)
// (a tile view's row * n + (8 * col + j)) is x + y: both multiples of 2 (%n by warpforge.divisibility).

// CHECK-LABEL: gpu.func @proven_pair(
// CHECK:       vector.insert %{{.*}}, %{{.*}} [%{{.*}}] : f64 into vector<2xf64>
// CHECK-NOT:   scf.if
// CHECK:       cf.br ^{{.*}} {llvm.loop_unroll_full}
// CHECK-NEXT: ^{{.*}}:
// CHECK-NEXT:  %[[XY:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  %[[START:.*]] = arith.index_cast %[[XY]] : i64 to index
// CHECK-NEXT:  vector.store %{{.*}}, %{{.*}}[%[[START]]] {alignment = 16 : i64} : memref<?xf64, 1 : i32>, vector<2xf64>
// CHECK-NOT:   func.call @__wf_report_error
// CHECK:       gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @proven_pair(%c: memref<?xf64, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %err: memref<8xi64, 1 : i32> {llvm.noalias}, %row: i64, %col: i64, %n: i64 {warpforge.divisibility = 16 : i64}) kernel {
      %x = arith.muli %row, %n : i64
      %c8 = arith.constant 8 : i64
      %y = arith.muli %col, %c8 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c2 = arith.constant 2 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c2 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %yq = arith.addi %y, %q : i64
      %i = arith.addi %x, %yq : i64
      %v = arith.sitofp %q : i64 to f64
      %true = arith.constant true
      scf.if %true {
        %at = arith.index_cast %i : i64 to index
        memref.store %v, %c[%at] : memref<?xf64, 1 : i32>
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %n) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
      }
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Eight f32 (32 bytes) from a base that is a multiple of 4: one vector<8xf32> stored with 16-byte
// alignment (LLVM writes it as two st.global.v4).

// CHECK-LABEL: gpu.func @eight_f32(
// CHECK:       vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<8xf32>
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @eight_f32(%c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %c8 = arith.constant 8 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c8 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %v = arith.sitofp %q : i64 to f32
      %at = arith.index_cast %i : i64 to index
      memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Left alone: a base not provably a multiple of 4 (%t itself); llvm.align is dropped (nothing relies on it).

// CHECK-LABEL: gpu.func @unaligned_base(
// CHECK-SAME:    %{{[a-z]+}}: memref<?xf32, 1 : i32> {llvm.noalias},
// CHECK-NOT:   vector.
// CHECK:       memref.store
// CHECK-NOT:   vector.
// CHECK:       gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @unaligned_base(%c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %t, %q : i64
      %v = arith.sitofp %q : i64 to f32
      %at = arith.index_cast %i : i64 to index
      memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Left alone: an output that may alias another argument (no llvm.noalias: not a disjoint output the
// runtime checked), so moving its stores past the loop's loads of %a could change what they read.

// CHECK-LABEL: gpu.func @may_alias(
// CHECK-NOT:   vector.store
// CHECK:       memref.store
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @may_alias(%a: memref<?xf32, 1 : i32>, %c: memref<?xf32, 1 : i32> {llvm.align = 16 : i64}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %at = arith.index_cast %i : i64 to index
      %v = memref.load %a[%at] : memref<?xf32, 1 : i32>
      memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Left alone: a store under a condition of the program's own (its own block: the loop body is no
// longer one block), and a store nested two scf.if deep.

// CHECK-LABEL: gpu.func @under_condition(
// CHECK-NOT:   vector.store
// CHECK:       memref.store
// CHECK-NOT:   vector.store
// CHECK:       memref.store
// CHECK-NOT:   vector.store
// CHECK:       gpu.return
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @under_condition(%c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %d: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %t: i64, %p: i1) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %v = arith.sitofp %q : i64 to f32
      %at = arith.index_cast %i : i64 to index
      cf.cond_br %p, ^then, ^latch
    ^then:
      memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      cf.br ^latch
    ^latch:
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      cf.br ^hdr2(%c0 : i64)
    ^hdr2(%iv2: i64):
      %more2 = arith.cmpi slt, %iv2, %c4 : i64
      cf.cond_br %more2, ^body2(%iv2 : i64), ^exit2
    ^body2(%q2: i64):
      %i2 = arith.addi %base, %q2 : i64
      %v2 = arith.sitofp %q2 : i64 to f32
      %c0_idx = arith.constant 0 : index
      %len = memref.dim %d, %c0_idx : memref<?xf32, 1 : i32>
      %n = arith.index_cast %len : index to i64
      %ok = arith.cmpi ult, %i2, %n : i64
      scf.if %ok {
        scf.if %p {
          %at2 = arith.index_cast %i2 : i64 to index
          memref.store %v2, %d[%at2] : memref<?xf32, 1 : i32>
        }
      }
      %next2 = arith.addi %q2, %c1 : i64
      cf.br ^hdr2(%next2 : i64) {llvm.loop_unroll_full}
    ^exit2:
      gpu.return
    }
  }
}

// -----

// Left alone: a checked store that can fail (a RawSlice write whose check hoist-checks did not prove):
// it must report its first bad index exactly as the scalar code does, element by element, in order.

// CHECK-LABEL: gpu.func @failing_check(
// CHECK-NOT:   vector.store
// CHECK:       scf.if
// CHECK-NEXT:    arith.index_cast
// CHECK-NEXT:    memref.store
// CHECK:         func.call @__wf_report_error
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64)
    gpu.func @failing_check(%c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %err: memref<8xi64, 1 : i32> {llvm.noalias}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      %z = arith.constant 0 : index
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %v = arith.sitofp %q : i64 to f32
      %len = memref.dim %c, %z : memref<?xf32, 1 : i32>
      %n = arith.index_cast %len : index to i64
      %ok = arith.cmpi ult, %i, %n : i64
      scf.if %ok {
        %at = arith.index_cast %i : i64 to index
        memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      } else {
        %s1 = arith.constant 1 : i64
        func.call @__wf_report_error(%err, %s1, %i, %n) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> ()
      }
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      gpu.return
    }
  }
}

// -----

// Left alone: a barrier in the loop (another thread could read c after it), and a second access of
// the output in the loop (its load would see the stores move).

// CHECK-LABEL: gpu.func @ordered(
// CHECK-NOT:   vector.store
// CHECK:       gpu.barrier
// CHECK:       memref.store
// CHECK:       memref.load %{{.*}}[%{{.*}}] : memref<?xf32, 1 : i32>
// CHECK:       memref.store
// CHECK-NOT:   vector.store
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @ordered(%c: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %d: memref<?xf32, 1 : i32> {llvm.noalias, llvm.align = 16 : i64}, %t: i64) kernel {
      %c4 = arith.constant 4 : i64
      %base = arith.muli %t, %c4 : i64
      %c0 = arith.constant 0 : i64
      %c1 = arith.constant 1 : i64
      cf.br ^hdr(%c0 : i64)
    ^hdr(%iv: i64):
      %more = arith.cmpi slt, %iv, %c4 : i64
      cf.cond_br %more, ^body(%iv : i64), ^exit
    ^body(%q: i64):
      %i = arith.addi %base, %q : i64
      %v = arith.sitofp %q : i64 to f32
      %at = arith.index_cast %i : i64 to index
      gpu.barrier
      memref.store %v, %c[%at] : memref<?xf32, 1 : i32>
      %next = arith.addi %q, %c1 : i64
      cf.br ^hdr(%next : i64) {llvm.loop_unroll_full}
    ^exit:
      cf.br ^hdr2(%c0 : i64)
    ^hdr2(%iv2: i64):
      %more2 = arith.cmpi slt, %iv2, %c4 : i64
      cf.cond_br %more2, ^body2(%iv2 : i64), ^exit2
    ^body2(%q2: i64):
      %i2 = arith.addi %base, %q2 : i64
      %at2 = arith.index_cast %i2 : i64 to index
      %old = memref.load %d[%at2] : memref<?xf32, 1 : i32>
      %v2 = arith.addf %old, %old : f32
      memref.store %v2, %d[%at2] : memref<?xf32, 1 : i32>
      %next2 = arith.addi %q2, %c1 : i64
      cf.br ^hdr2(%next2 : i64) {llvm.loop_unroll_full}
    ^exit2:
      gpu.return
    }
  }
}
