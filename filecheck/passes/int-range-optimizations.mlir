// RUN: warpforge-opt %s --split-input-file --allow-unregistered-dialect -p int-range-optimizations | filecheck %s

// A thread index of an exact 128-thread block (known_block_size) is below 128: the check of
// `tid * 2 % 128 < 128` folds to true; `tid < %n` (a runtime length) stays.

// CHECK-LABEL: gpu.func @bounded(
// CHECK:       %[[TRUE:.*]] = arith.constant true
// CHECK:       arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK:       "test.use"(%[[TRUE]], %{{.*}}) : (i1, i1) -> ()
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @bounded(%n: i64) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i64
      %c2 = arith.constant 2 : i64
      %c128 = arith.constant 128 : i64
      %d = arith.muli %ti, %c2 : i64
      %m = arith.remui %d, %c128 : i64
      %ok = arith.cmpi ult, %m, %c128 : i64
      %ok2 = arith.cmpi ult, %ti, %n : i64
      "test.use"(%ok, %ok2) : (i1, i1) -> ()
      gpu.return
    }
  }
}

// -----

// Without a known block size, tid.x is only below 1024 (the hardware limit): `tid < 256` is not decided,
// `tid < 1024` is.

// CHECK-LABEL: gpu.func @unbounded(
// CHECK:       %[[LT:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : i64
// CHECK:       %[[TRUE:.*]] = arith.constant true
// CHECK:       "test.use"(%[[LT]], %[[TRUE]]) : (i1, i1) -> ()
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @unbounded() kernel {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i64
      %c256 = arith.constant 256 : i64
      %c1024 = arith.constant 1024 : i64
      %a = arith.cmpi ult, %ti, %c256 : i64
      %b = arith.cmpi ult, %ti, %c1024 : i64
      "test.use"(%a, %b) : (i1, i1) -> ()
      gpu.return
    }
  }
}

// -----

// Arithmetic that may wrap gets the full range: `tid * 2^62` is not assumed to stay below anything.

// CHECK-LABEL: gpu.func @wraps(
// CHECK-NOT:   arith.constant true
// CHECK:       arith.cmpi ult
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @wraps() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i64
      %big = arith.constant 4611686018427387904 : i64
      %c8 = arith.constant 8 : i64
      %p = arith.muli %ti, %big : i64
      %ok = arith.cmpi ult, %p, %c8 : i64
      "test.use"(%ok) : (i1) -> ()
      gpu.return
    }
  }
}

// -----

// A zero-extended u8 is below 256 whatever byte was loaded (the histogram's bin index
// `counts[data[k]]`): the check folds to true; the signed `x < 100` of the same byte stays.

// CHECK-LABEL: gpu.func @zero_extended_byte(
// CHECK:       %[[TRUE:.*]] = arith.constant true
// CHECK:       %[[SIGNED:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK:       "test.use"(%[[TRUE]], %[[SIGNED]]) : (i1, i1) -> ()
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @zero_extended_byte(%data: memref<?xi8, 1 : i32>) kernel {
      %c0 = arith.constant 0 : index
      %b = memref.load %data[%c0] : memref<?xi8, 1 : i32>
      %x = arith.extui %b : i8 to i64
      %c256 = arith.constant 256 : i64
      %ok = arith.cmpi ult, %x, %c256 : i64
      %s = arith.extsi %b : i8 to i64
      %c100 = arith.constant 100 : i64
      %lt = arith.cmpi slt, %s, %c100 : i64
      "test.use"(%ok, %lt) : (i1, i1) -> ()
      gpu.return
    }
  }
}
