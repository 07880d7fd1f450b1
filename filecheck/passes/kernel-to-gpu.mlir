// RUN: warpforge-opt %s --split-input-file -p 'kernel-to-gpu{chip=sm_90 features="+ptx80" module=m}' | filecheck %s
// Without features, the #nvvm.target's PTX version is the chip's default (the chip table): sm_100 → 8.6, sm_90a → 8.0.
// RUN: warpforge-opt %s --split-input-file -p 'kernel-to-gpu{chip=sm_100 module=m}' | filecheck %s --check-prefix=SM100
// RUN: warpforge-opt %s --split-input-file -p 'kernel-to-gpu{chip=sm_90a module=m}' | filecheck %s --check-prefix=SM90A

// Slices become global memrefs (read-only ones noalias+readonly), the error record is appended, the
// contract becomes known_block_size, a checked read is scf.if(i ult len) with the error report.
// CHECK: gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// SM100: gpu.module @m [#nvvm.target<chip = "sm_100", features = "+ptx86">]
// SM90A: gpu.module @m [#nvvm.target<chip = "sm_90a", features = "+ptx80">]
// CHECK: func.func private @__wf_report_error(%{{.*}}: memref<8xi64, 1 : i32>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK: "memref.atomic_rmw"
// CHECK-LABEL: gpu.func @vecadd(
// CHECK-SAME: %[[A:.*]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}
// CHECK-SAME: %[[C:.*]]: memref<?xf32, 1 : i32> {llvm.noalias}
// CHECK-SAME: %[[ERR:.*]]: memref<8xi64, 1 : i32> {llvm.noalias}) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: kernel.error_sites = [{kind = "out-of-range read", text = "a[i]", file = "k.py", line = 5 : i64, col = 9 : i64
// CHECK: %[[BID:.*]] = gpu.block_id x
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[I:.*]] = arith.addi
// CHECK: %[[N:.*]] = memref.dim %[[A]]
// CHECK: %[[LEN:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %[[LEN]] : i64
// CHECK: %[[X:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK: memref.load %[[A]]
// CHECK: } else {
// CHECK: func.call @__wf_report_error(%[[ERR]], %{{.*}}, %[[I]], %[[LEN]])
// CHECK: }
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: gpu.return
builtin.module {
  kernel.func @vecadd(%a: !kernel.slice<f32>, %c: !kernel.disjoint_slice<f32>) attributes {kernel, contract_block = array<i32: 256, 1, 1>} {
    %idx = kernel.index_1d : !kernel.thread_index loc("k.py":4:5)
    %i = kernel.index_get %idx : si64 loc("k.py":4:5)
    %x = kernel.load %a[%i] {text = "a[i]"} : !kernel.slice<f32>, si64 -> f32 loc("k.py":5:9)
    kernel.store %x, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index loc("k.py":5:5)
    kernel.return
  }
}

// -----

// Signedness moves into the ops; unchecked kernels have no error record.
// CHECK-LABEL: gpu.func @signedness(
// CHECK-SAME: %[[S:.*]]: i32, %[[U:.*]]: i32, %[[F:.*]]: f32) kernel {
// CHECK: arith.cmpi slt, %[[S]], %[[S]] : i32
// CHECK: arith.cmpi ult, %[[U]], %[[U]] : i32
// CHECK: arith.sitofp %[[S]] : i32 to f32
// CHECK: arith.uitofp %[[U]] : i32 to f32
// CHECK: arith.extsi %[[S]] : i32 to i64
// CHECK: arith.extui %[[U]] : i32 to i64
// CHECK: arith.fptosi %[[F]] : f32 to i32
// CHECK: arith.maximumf %[[F]], %[[F]] : f32
// CHECK: arith.maxui %[[U]], %[[U]] : i32
builtin.module {
  kernel.func @signedness(%s: si32, %u: ui32, %f: f32) attributes {kernel, checks = false} {
    %0 = kernel.cmp lt, %s, %s : si32
    %1 = kernel.cmp lt, %u, %u : ui32
    %2 = kernel.cast %s : si32 to f32
    %3 = kernel.cast %u : ui32 to f32
    %4 = kernel.cast %s : si32 to si64
    %5 = kernel.cast %u : ui32 to si64
    %6 = kernel.cast %f : f32 to si32
    %7 = kernel.max %f, %f : f32
    %8 = kernel.max %u, %u : ui32
    kernel.return
  }
}

// -----

// Floor division: a zero divisor is reported (checked) and gives 0; -1 is special-cased so divsi
// never overflows; the quotient is adjusted toward -inf when the remainder's sign differs.
// CHECK-LABEL: gpu.func @floordiv(
// CHECK-SAME: kind = "integer division by zero", text = "a // b"
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i64
// CHECK: scf.if %[[Z]] {
// CHECK: func.call @__wf_report_error
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: arith.cmpi slt
// CHECK: arith.subi
// CHECK: arith.select
builtin.module {
  kernel.func @floordiv(%a: si64, %b: si64, %out: !kernel.disjoint_slice<si64>) attributes {kernel} {
    %q = kernel.floordiv %a, %b {text = "a // b"} : si64
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %q, %out[%idx] : si64, !kernel.disjoint_slice<si64>, !kernel.thread_index
    kernel.return
  }
}

// -----

// Shifts by >= the width give 0 (or the sign fill), never poison.
// CHECK-LABEL: gpu.func @shifts(
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[W]] : i32
// CHECK: arith.shli
// CHECK: arith.select %[[IN]]
// CHECK: arith.shrsi
builtin.module {
  kernel.func @shifts(%a: si32, %n: si32) attributes {kernel, checks = false} {
    %0 = kernel.lshift %a, %n : si32
    %1 = kernel.rshift %a, %n : si32
    kernel.return
  }
}

// -----

// index_2d writes also need 0 <= col < ncols (signed) and row*ncols + col exact (uniqueness).
// CHECK-LABEL: gpu.func @two_d(
// CHECK: gpu.block_id y
// CHECK: gpu.block_id x
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sge
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[COL]], %ncols : i64
// CHECK: %[[VALID:.*]] = arith.andi %[[LT]], %{{.*}} : i1
// CHECK: %[[INB:.*]] = arith.cmpi ult
// CHECK: %[[OK:.*]] = arith.andi %[[INB]], %[[VALID]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK: memref.store
builtin.module {
  kernel.func @two_d(%c: !kernel.disjoint_slice<f32>, %ncols: si64, %v: f32) attributes {kernel, checks = false} {
    %idx = kernel.index_2d %ncols : si64 -> !kernel.thread_index
    kernel.store %v, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
    kernel.return
  }
}

// -----

// index_2d of a 32-bit ncols: row < 2^26 (at most 65535 blocks of 1024 threads along y) and
// 0 <= col < ncols < 2^31, so row*ncols + col < 2^57 is exact by the bounds: no flag is computed.
// CHECK-LABEL: gpu.func @two_d_i32(
// CHECK: %[[N:.*]] = arith.extsi %ncols : i32 to i64
// CHECK-NOT: arith.shrui
// CHECK: %[[PROD:.*]] = arith.muli %{{.*}}, %[[N]] : i64
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[PROD]], %{{.*}} : i64
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i64
// CHECK-NEXT: %{{.*}} = arith.andi %[[LT]], %[[TRUE]] : i1
// CHECK-NOT: arith.shrui
// CHECK: memref.store
builtin.module {
  kernel.func @two_d_i32(%c: !kernel.disjoint_slice<f32>, %ncols: si32, %v: f32) attributes {kernel, checks = false} {
    %idx = kernel.index_2d %ncols : si32 -> !kernel.thread_index
    kernel.store %v, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
    kernel.return
  }
}

// -----

// A row view of a 1-D index (< 2^41) with a 32-bit n can wrap (2^41 * 2^31): the flag stays.
// CHECK-LABEL: gpu.func @row_view_i32(
// CHECK: %[[N:.*]] = arith.extsi %n : i32 to i64
// CHECK: arith.shrui %[[N]], %{{.*}} : i64
// CHECK: %[[ADDR:.*]] = arith.addi %{{.*}}, %j : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sge, %[[ADDR]], %{{.*}} : i64
// CHECK: scf.if
builtin.module {
  kernel.func @row_view_i32(%c: !kernel.disjoint_slice<f32>, %n: si32, %x: f32, %j: si64) attributes {kernel, checks = false} {
    %t = kernel.index_1d : !kernel.thread_index
    %n64 = kernel.cast %n : si32 to si64
    kernel.view_store %x, %c[%t] at(%j) sizes(%n64) {view = "row"} : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64), (si64)
    kernel.return
  }
}

// -----

// Shared arrays become shared-memory globals (address space 3, 16-byte aligned once lowered), the
// dynamic shared memory a typed view of gpu.dynamic_shared_memory, local arrays zero-filled allocas;
// every access is checked per dimension (the first dimension out of range is reported).
// CHECK: "memref.global"() <{sym_name = "__wf_shared_arrays_0", type = memref<32x33xf32, 3 : i32>, initial_value, sym_visibility = "private", alignment = 16 : i64}>
// CHECK-LABEL: gpu.func @arrays(
// CHECK-SAME: kind = "out-of-range write", text = "l[i]"
// CHECK: memref.get_global @__wf_shared_arrays_0 : memref<32x33xf32, 3 : i32>
// CHECK: %[[RAW:.*]] = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
// CHECK: %[[BYTES:.*]] = memref.dim %[[RAW]]
// CHECK: %[[COUNT:.*]] = arith.divui %[[BYTES]], %{{.*}} : index
// CHECK: memref.view %[[RAW]][%{{.*}}][%[[COUNT]]] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
// CHECK: %[[L:.*]] = memref.alloca() : memref<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[L]][%{{.*}}] : memref<4xf32>
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: arith.andi
// CHECK: arith.select
// CHECK: scf.if
// CHECK: memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x33xf32, 3 : i32>
// CHECK: func.call @__wf_report_error
builtin.module {
  kernel.func @arrays(%i: si64) attributes {kernel} {
    %s = kernel.shared_array : !kernel.shared<32x33xf32>
    %d = kernel.dynamic_shared : !kernel.shared<?xf32>
    %l = kernel.local_array : !kernel.local<4xf32>
    %v = kernel.array_load %s[%i, %i] : !kernel.shared<32x33xf32>, si64, si64 -> f32
    %w = kernel.array_load %d[%i] : !kernel.shared<?xf32>, si64 -> f32
    %u = kernel.add %v, %w : f32
    kernel.array_store %u, %l[%i] {text = "l[i]"} : f32, !kernel.local<4xf32>, si64
    kernel.return
  }
}

// -----

// Barriers, fences and warp collectives map to their gpu ops; an f16 shuffles as the low bits of an
// i32 (a run-time delta of 32 or more keeps the lane's own value, and %valid is false); warp min/max follow the signedness (floats: NaN-propagating minimumf/maximumf).
// CHECK-LABEL: gpu.func @sync_and_warps(
// CHECK: gpu.barrier
// CHECK: gpu.barrier_reduce popc %{{.*}} : i32
// CHECK: gpu.thread_fence device
// CHECK: gpu.warp_sync %{{.*}}
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f16 to i16
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i16 to i32
// CHECK: %[[OFF:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK: %[[R:.*]], %[[V:.*]] = gpu.shuffle down %[[WIDE]], %[[OFF]], %{{.*}} : i32
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: %[[SEL:.*]] = arith.select %[[IN]], %[[R]], %[[WIDE]] : i32
// CHECK: arith.andi %[[IN]], %[[V]] : i1
// CHECK: arith.trunci %[[SEL]] : i32 to i16
// CHECK: gpu.subgroup_reduce minui %{{.*}} : (i32) -> i32
// CHECK: gpu.subgroup_reduce maximumf %{{.*}} : (f32) -> f32
// CHECK: gpu.vote any
// CHECK: gpu.ballot %{{.*}} : i32
// CHECK: gpu.match_any %{{.*}} : i32
// CHECK: gpu.lane_id
builtin.module {
  kernel.func @sync_and_warps(%p: i1, %h: f16, %u: ui32, %f: f32, %i: si64, %c: !kernel.disjoint_slice<f16>) attributes {kernel, checks = false} {
    kernel.barrier
    %n = kernel.barrier_reduce popc %p : si32
    kernel.thread_fence device
    kernel.warp_sync %u : ui32
    %s, %sv = kernel.shuffle down %h, %i {width = 8} : f16, si64
    %m = kernel.warp_reduce min %u : ui32
    %x = kernel.warp_reduce max %f : f32
    %a = kernel.vote any %p
    %b = kernel.ballot %p : ui32
    %mm = kernel.match_any %u : ui32
    %l = kernel.lane_id : si64
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %s, %c[%idx] : f16, !kernel.disjoint_slice<f16>, !kernel.thread_index
    kernel.return
  }
}

// -----

// Atomics: a checked index, then memref.atomic_rmw with the scope and ordering as attributes; sub adds
// the negation; float max is maximumf (kind 4); compare-and-swap is gpu.atomic_cmpxchg.
// CHECK-LABEL: gpu.func @atomics(
// CHECK-SAME: kind = "out-of-range atomic"
// CHECK: %[[NEG:.*]] = arith.negf %{{.*}} : f32
// CHECK: scf.if
// CHECK: "memref.atomic_rmw"(%[[NEG]], %{{.*}}, %{{.*}}) <{kind = 0 : i64}> {syncscope = "device", ordering = "relaxed"}
// CHECK: kind = 4 : i64}> {syncscope = "block", ordering = "acq_rel"}
// CHECK: gpu.atomic_cmpxchg %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}} {syncscope = "system", ordering = "seq_cst"} : memref<?xi64, 1 : i32>, i64
builtin.module {
  kernel.func @atomics(%a: !kernel.atomic_slice<f32>, %b: !kernel.atomic_slice<si64>, %i: si64, %x: f32, %y: si64) attributes {kernel} {
    %o1 = kernel.atomic sub %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
    %o2 = kernel.atomic max %a[%i], %x {scope = "block", ordering = "acq_rel"} : !kernel.atomic_slice<f32>, si64, f32
    %o3 = kernel.atomic_cas %b[%i], %y, %y {scope = "system", ordering = "seq_cst"} : !kernel.atomic_slice<si64>, si64, si64
    kernel.return
  }
}

// -----

// A BlockIndex is the block's linear index over the whole grid; a write through it is guarded by
// "this is thread (0, 0, 0)". A raw-slice write is checked (out of range: an error, no write).
// CHECK-LABEL: gpu.func @block_and_raw(
// CHECK-SAME: kind = "out-of-range write"
// CHECK: gpu.block_id z
// CHECK: gpu.grid_dim y
// CHECK: gpu.thread_id x
// CHECK: gpu.thread_id y
// CHECK: gpu.thread_id z
// CHECK: arith.andi
// CHECK: scf.if
// CHECK: memref.store
builtin.module {
  kernel.func @block_and_raw(%c: !kernel.disjoint_slice<f32>, %r: !kernel.raw_slice<f32>, %x: f32, %i: si64) attributes {kernel} {
    %b = kernel.block_index_1d : !kernel.block_index
    kernel.store %x, %c[%b] : f32, !kernel.disjoint_slice<f32>, !kernel.block_index
    kernel.store %x, %r[%i] : f32, !kernel.raw_slice<f32>, si64
    kernel.return
  }
}

// -----

// A tile view: element (r, k) of thread (R, C) is (R*th + r)*n + C*tw + k, written only when r < th,
// k < tw, C*tw + k < n, no product wraps, and in range.
// CHECK-LABEL: gpu.func @tile_view(
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %r : i64
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %r : i64
// CHECK: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[COL]] : i64
// CHECK: arith.cmpi ult, %[[COL]], %n : i64
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32, 1 : i32>
builtin.module {
  kernel.func @tile_view(%c: !kernel.disjoint_slice<f32>, %n: si64, %x: f32, %r: si64) attributes {kernel} {
    %t = kernel.index_2d %n : si64 -> !kernel.thread_index
    %th = kernel.constant 8 : si64
    kernel.view_store %x, %c[%t] at(%r, %r) sizes(%th, %th, %n) {view = "tile"} : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64, si64), (si64, si64, si64)
    kernel.return
  }
}

// -----

// A fast-math kernel: afn, arcp, contract on every float op and f32 denormals flushed.
// CHECK-LABEL: gpu.func @fast(
// CHECK-SAME: llvm.denormal_fp_math_f32 = "preserve-sign"
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
// CHECK: math.exp %{{.*}} fastmath<arcp,contract,afn> : f32
builtin.module {
  kernel.func @fast(%x: f32, %c: !kernel.disjoint_slice<f32>) attributes {kernel, fastmath, checks = false} {
    %d = kernel.truediv %x, %x : f32
    %e = math.exp %d : f32
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %e, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
    kernel.return
  }
}

// -----

// kernel.print becomes gpu.printf with C conversions: si64 %lld, a ui8 zero-extended to i32 (%x), an
// si16 sign-extended (%5d), f32/bf16 extended to f64 (%.3f, %f), a bool as %s (True/False); a literal
// '%' is doubled.
// CHECK-LABEL: gpu.func @prints(
// CHECK-SAME:    %[[A:[^:]*]]: i64, %[[B:[^:]*]]: f32, %[[C:[^:]*]]: i1, %[[D:[^:]*]]: i8, %[[E:[^:]*]]: i16, %[[H:[^:]*]]: bf16
// CHECK:         %[[BW:.*]] = arith.extf %[[B]] : f32 to f64
// CHECK:         %[[DW:.*]] = arith.extui %[[D]] : i8 to i32
// CHECK:         %[[EW:.*]] = arith.extsi %[[E]] : i16 to i32
// CHECK:         %[[HW:.*]] = arith.extf %[[H]] : bf16 to f64
// CHECK:         gpu.printf "i = %lld x = %.3f %s 100%% %x %5d|%f\0A", %[[A]], %[[BW]], %[[C]], %[[DW]], %[[EW]], %[[HW]] : i64, f64, i1, i32, i32, f64
kernel.func @prints(%a: si64, %b: f32, %c: i1, %d: ui8, %e: si16, %h: bf16) attributes {kernel} {
  kernel.print "i = {} x = {:.3f} {} 100% {:x} {:>5}|{}\n", %a, %b, %c, %d, %e, %h : si64, f32, i1, ui8, si16, bf16
  kernel.return
}

// -----

// 64-bit unsigned integers print with %llu, unsigned 32-bit with %u; widths, zero padding and
// left alignment map to printf flags.
// CHECK-LABEL: gpu.func @unsigned(
// CHECK:         gpu.printf "%llu %-6u %08llx\0A"
kernel.func @unsigned(%a: ui64, %b: ui32) attributes {kernel} {
  kernel.print "{} {:<6} {:08x}\n", %a, %b, %a : ui64, ui32, ui64
  kernel.return
}

// -----

// Ceiling division (simt.cdiv): a zero divisor is reported as for //; the truncating quotient gets +1
// where the remainder is non-zero and has the divisor's sign; a / -1 is -a (no divsi overflow).
// CHECK-LABEL: gpu.func @ceildiv(
// CHECK-SAME: kind = "integer division by zero", text = "simt.cdiv(a, b)"
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i32
// CHECK: scf.if %[[Z]] {
// CHECK: func.call @__wf_report_error
// CHECK: %[[Q:.*]] = arith.divsi %[[A:.*]], %[[SAFE:.*]] : i32
// CHECK: %[[R:.*]] = arith.remsi %[[A]], %[[SAFE]] : i32
// CHECK: arith.xori %[[R]], %[[SAFE]] : i32
// CHECK: arith.cmpi sge
// CHECK: %[[UP:.*]] = arith.addi %[[Q]], %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %[[UP]], %[[Q]] : i32
// CHECK: arith.subi %{{.*}}, %[[A]] : i32
builtin.module {
  kernel.func @ceildiv(%a: si32, %b: si32, %out: !kernel.disjoint_slice<si32>) attributes {kernel} {
    %q = kernel.ceildiv %a, %b {text = "simt.cdiv(a, b)"} : si32
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %q, %out[%idx] : si32, !kernel.disjoint_slice<si32>, !kernel.thread_index
    kernel.return
  }
}

// -----

// Unsigned: divui/remui, +1 where the remainder is non-zero.
// CHECK-LABEL: gpu.func @ceildiv_unsigned(
// CHECK: %[[Q:.*]] = arith.divui
// CHECK: %[[R:.*]] = arith.remui
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[R]], %{{.*}} : i64
// CHECK: %[[UP:.*]] = arith.addi %[[Q]], %{{.*}} : i64
// CHECK: arith.select %[[NZ]], %[[UP]], %[[Q]] : i64
builtin.module {
  kernel.func @ceildiv_unsigned(%a: ui64, %b: ui64, %out: !kernel.disjoint_slice<ui64>) attributes {kernel} {
    %q = kernel.ceildiv %a, %b {text = "simt.cdiv(a, b)"} : ui64
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %q, %out[%idx] : ui64, !kernel.disjoint_slice<ui64>, !kernel.thread_index
    kernel.return
  }
}

// -----

// popc and clz are math.ctpop and math.ctlz on the signless type (the catalog's lowers_to).
// CHECK-LABEL: gpu.func @bits(
// CHECK: %[[P:.*]] = math.ctpop %{{.*}} : i32
// CHECK: math.ctlz %[[P]] : i32
builtin.module {
  kernel.func @bits(%a: si32, %out: !kernel.disjoint_slice<si32>) attributes {kernel} {
    %p = kernel.popc %a : si32
    %c = kernel.clz %p : si32
    %idx = kernel.index_1d : !kernel.thread_index
    kernel.store %c, %out[%idx] : si32, !kernel.disjoint_slice<si32>, !kernel.thread_index
    kernel.return
  }
}
