// RUN: warpforge-opt %s --split-input-file -p 'kernel-to-gpu{chip=sm_90 features="+ptx80" module=m}' | filecheck %s

// Slices become global memrefs (read-only ones noalias+readonly), the error record is appended, the
// contract becomes known_block_size, a checked read is scf.if(i ult len) with the error report.
// CHECK: gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">]
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
    kernel.store %x, %c[%idx] : f32, !kernel.disjoint_slice<f32> loc("k.py":5:5)
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
    kernel.store %q, %out[%idx] : si64, !kernel.disjoint_slice<si64>
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

// index_2d writes also need col < ncols (uniqueness).
// CHECK-LABEL: gpu.func @two_d(
// CHECK: gpu.block_id y
// CHECK: gpu.block_id x
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK: %[[INB:.*]] = arith.cmpi ult
// CHECK: %[[OK:.*]] = arith.andi %[[INB]], %[[VALID]] : i1
// CHECK: scf.if %[[OK]] {
// CHECK: memref.store
builtin.module {
  kernel.func @two_d(%c: !kernel.disjoint_slice<f32>, %ncols: si64, %v: f32) attributes {kernel, checks = false} {
    %idx = kernel.index_2d %ncols : si64 -> !kernel.thread_index
    kernel.store %v, %c[%idx] : f32, !kernel.disjoint_slice<f32>
    kernel.return
  }
}
