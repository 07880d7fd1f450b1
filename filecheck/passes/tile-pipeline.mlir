// RUN: warpforge-opt %s --split-input-file -p tile-pipeline | filecheck %s
// RUN: warpforge-opt %s --split-input-file -p 'tile-pipeline{num_stages=1}' | filecheck %s --check-prefix=OFF
// RUN: warpforge-opt %s --split-input-file -p 'tile-pipeline{chip=sm_90a}' | filecheck %s --check-prefix=WGMMA

// A K loop whose tile.dot operands are tile.loads of aligned f16 views (tile.arg_info): three stages
// (the default). The prologue copies steps 0 and 1 into slots 0 and 1 (one commit group each); each
// iteration waits until one group is left in flight, copies step k + 2 into slot (slot - 1) mod 3,
// and the dot reads slot `slot` from the rings; the loop carries the slot; a wait for all after it.
// CHECK-LABEL: kernel.func @mm(
// CHECK:       %[[AP:.*]] = tile.make_partition_view %a
// CHECK:       %[[BP:.*]] = tile.make_partition_view %b
// CHECK:       %[[LO:.*]] = kernel.constant 0 : si64
// CHECK:       %[[S0:.*]] = kernel.constant 0 : si64
// CHECK-NEXT:  tile.async_copy %[[AP]][%{{.*}}, %[[LO]]] into %[[S0]] {ring = 0 : i64, stages = 3 : i64}
// CHECK-NEXT:  tile.async_copy %[[BP]][%[[LO]], %{{.*}}] into %[[S0]] {ring = 1 : i64, stages = 3 : i64}
// CHECK-NEXT:  tile.async_commit
// CHECK:       %[[K1:.*]] = kernel.add %[[LO]], %{{.*}} : si64
// CHECK-NEXT:  %[[S1:.*]] = kernel.constant 1 : si64
// CHECK-NEXT:  tile.async_copy %[[AP]][%{{.*}}, %[[K1]]] into %[[S1]] {ring = 0 : i64, stages = 3 : i64}
// CHECK-NEXT:  tile.async_copy %[[BP]][%[[K1]], %{{.*}}] into %[[S1]] {ring = 1 : i64, stages = 3 : i64}
// CHECK-NEXT:  tile.async_commit
// CHECK:       %{{.*}}, %{{.*}} = kernel.for %[[K:.*]] = %[[LO]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}}) -> (!tile.tile<32x32xf32>, si64) : si64 {
// CHECK-NEXT:    tile.async_wait {pending = 1 : i64}
// CHECK-NEXT:    %[[TWO:.*]] = kernel.constant 2 : si64
// CHECK-NEXT:    %[[AHEAD:.*]] = kernel.add %[[K]], %[[TWO]] : si64
// CHECK:         %[[FIRST:.*]] = kernel.cmp eq, %[[SLOT]], %{{.*}} : si64
// CHECK-NEXT:    %[[PREV:.*]] = kernel.sub %[[SLOT]], %{{.*}} : si64
// CHECK-NEXT:    %[[W:.*]] = kernel.select %[[FIRST]], %{{.*}}, %[[PREV]] : si64
// CHECK-NEXT:    tile.async_copy %[[AP]][%{{.*}}, %[[AHEAD]]] into %[[W]] {ring = 0 : i64, stages = 3 : i64}
// CHECK-NEXT:    tile.async_copy %[[BP]][%[[AHEAD]], %{{.*}}] into %[[W]] {ring = 1 : i64, stages = 3 : i64}
// CHECK-NEXT:    tile.async_commit
// CHECK-NEXT:    %[[X:.*]] = tile.ring_tile %[[SLOT]] {ring = 0 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:    %[[Y:.*]] = tile.ring_tile %[[SLOT]] {ring = 1 : i64, stages = 3 : i64} : si64 -> !tile.tile<16x32xf16>
// CHECK-NEXT:    %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ACC]]
// CHECK:         kernel.yield %[[D]], %{{.*}} : !tile.tile<32x32xf32>, si64
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.async_wait {pending = 0 : i64}
// OFF-LABEL:   kernel.func @mm(
// OFF-NOT:     tile.async_copy
// OFF:         tile.load
kernel.func @mm(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<32x32xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  tile.store %acc, %cp[%i, %j] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// The kernel's tile.num_stages = 2: one prologue step, each iteration waits for every group
// (nothing else is in flight when step k is read) and copies step k + 1. The coordinate 2k + 1 is
// recomputed from the induction variable for the steps ahead (k and k + 1).
// CHECK-LABEL: kernel.func @two_stages(
// CHECK:       %[[LO:.*]] = kernel.constant 0 : si64
// CHECK:       %[[C2:.*]] = kernel.constant 2 : si64
// CHECK:       %[[M0:.*]] = kernel.mul %[[LO]], %[[C2]] : si64
// CHECK-NEXT:  %[[K0:.*]] = kernel.add %[[M0]], %{{.*}} : si64
// CHECK-NEXT:  tile.async_copy %{{.*}}[%{{.*}}, %[[K0]]] into %{{.*}} {ring = 0 : i64, stages = 2 : i64}
// CHECK-NEXT:  tile.async_commit
// CHECK-NOT:   tile.async_copy
// CHECK:       kernel.for %[[K:.*]] = %[[LO]]
// CHECK-NEXT:    tile.async_wait {pending = 0 : i64}
// CHECK:         %[[AHEAD:.*]] = kernel.add %[[K]], %{{.*}} : si64
// CHECK:         %[[MA:.*]] = kernel.mul %[[AHEAD]], %[[C2]] : si64
// CHECK-NEXT:    %[[KA:.*]] = kernel.add %[[MA]], %{{.*}} : si64
// CHECK-NEXT:    tile.async_copy %{{.*}}[%{{.*}}, %[[KA]]] into %{{.*}} {ring = 0 : i64, stages = 2 : i64}
// CHECK:         tile.ring_tile
// CHECK:         tile.dot
kernel.func @two_stages(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xbf16>, %bt: !tile.tile<16x32xbf16>, %n: si64) attributes {kernel, tile, tile.num_stages = 2 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xbf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xbf16>, padding = 0.0 : bf16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %two = kernel.constant 2 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<32x32xf32>) : si64 {
    %k2 = kernel.mul %k, %two : si64
    %kk = kernel.add %k2, %one : si64
    %x = tile.load %ap[%i, %kk] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xbf16>, padding = 0.0 : bf16>, si64, si64 -> !tile.tile<32x16xbf16>
    %d = tile.dot %x, %bt, %acc0 : !tile.tile<32x16xbf16>, !tile.tile<16x32xbf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  tile.store %acc, %cp[%i, %i] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// Not pipelined: A's pointer is only 4-byte aligned (cp.async copies 16 bytes), and B's load has a
// padding other than 0 (cp.async zero-fills): both stay tile.loads.
// CHECK-LABEL: kernel.func @unaligned(
// CHECK-NOT:   tile.async_copy
// CHECK:       tile.load
// CHECK:       tile.load
// CHECK-NOT:   tile.ring_tile
kernel.func @unaligned(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 4 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 1.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<32x32xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %y = tile.load %bp[%k, %i] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 1.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  tile.store %acc, %cp[%i, %i] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// tile.dot(q, k.T): the B operand is the transpose of a load used only by it, so the load's N×K
// tile goes into the ring (ring 0) and the transpose reads the slot; the dot reads it transposed.
// CHECK-LABEL: kernel.func @transposed_b(
// CHECK:       %[[KP:.*]] = tile.make_partition_view %k
// CHECK:       tile.async_copy %[[KP]][%{{.*}}, %{{.*}}] into %{{.*}} {ring = 0 : i64, stages = 3 : i64}
// CHECK:       kernel.for
// CHECK:         tile.async_copy %[[KP]]
// CHECK:         %[[Y:.*]] = tile.ring_tile %{{.*}} {ring = 0 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:    %[[YT:.*]] = tile.transpose %[[Y]] : !tile.tile<32x16xf16> -> !tile.tile<16x32xf16>
// CHECK-NEXT:    tile.dot %{{.*}}, %[[YT]], %{{.*}}
kernel.func @transposed_b(%c: !tile.tensor_view<?x?xf32>, %q: !tile.tile<32x16xf16>, %k: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %kp = tile.make_partition_view %k : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %j = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<32x32xf32>) : si64 {
    %y = tile.load %kp[%j, %lo] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %yt = tile.transpose %y : !tile.tile<32x16xf16> -> !tile.tile<16x32xf16>
    %d = tile.dot %q, %yt, %acc0 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  tile.store %acc, %cp[%i, %i] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// On sm_90a a loop whose one dot will be a wgmma (4 warps = one warpgroup, 64x32 accumulator, K = 16,
// f16 from two rings, the accumulator only carried to the next step) keeps one wgmma group in flight
// (tile.mma_in_flight = 1 on the dot and on the wait after the loop): the copies go S - 2 = 1 step
// ahead into slot (slot - 2) mod 3 (the one the wait_group 1 of the previous step retired), each step
// waits for all copies (pending = S - 3 = 0). On sm_90 the same loop keeps the usual schedule.
// CHECK-LABEL: kernel.func @wgmma_in_flight(
// CHECK:         tile.async_wait {pending = 1 : i64}
// CHECK-NOT:     tile.mma_in_flight
// WGMMA-LABEL: kernel.func @wgmma_in_flight(
// WGMMA:         tile.async_copy %{{.*}} into %[[S0:.*]] {ring = 0 : i64, stages = 3 : i64}
// WGMMA-NEXT:    tile.async_copy %{{.*}} into %[[S0]] {ring = 1 : i64, stages = 3 : i64}
// WGMMA-NEXT:    tile.async_commit
// WGMMA-NOT:     tile.async_copy
// WGMMA:         kernel.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}})
// WGMMA-NEXT:      tile.async_wait {pending = 0 : i64}
// WGMMA-NEXT:      %[[ONE:.*]] = kernel.constant 1 : si64
// WGMMA-NEXT:      %[[AHEAD:.*]] = kernel.add %[[K]], %[[ONE]] : si64
// WGMMA:           %[[FIRST:.*]] = kernel.cmp lt, %[[SLOT]], %[[BACK:.*]] : si64
// WGMMA-NEXT:      %[[PREV:.*]] = kernel.sub %[[SLOT]], %[[BACK]] : si64
// WGMMA-NEXT:      %[[WRAPPED:.*]] = kernel.add %[[SLOT]], %[[WRAP:.*]] : si64
// WGMMA-NEXT:      %[[W:.*]] = kernel.select %[[FIRST]], %[[WRAPPED]], %[[PREV]] : si64
// WGMMA-NEXT:      tile.async_copy %{{.*}}[%{{.*}}, %[[AHEAD]]] into %[[W]] {ring = 0 : i64, stages = 3 : i64}
// WGMMA:           tile.dot %{{.*}}, %{{.*}}, %[[ACC]] {tile.mma_in_flight = 1 : i64}
// WGMMA:         tile.async_wait {tile.mma_in_flight = 1 : i64, pending = 0 : i64}
kernel.func @wgmma_in_flight(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.num_warps = 4 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[64, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[64, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<64x32xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<64x32xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[64, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x16xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<64x16xf16>, !tile.tile<16x32xf16>, !tile.tile<64x32xf32> -> !tile.tile<64x32xf32>
    kernel.yield %d : !tile.tile<64x32xf32>
  }
  tile.store %acc, %cp[%i, %j] : !tile.tile<64x32xf32>, !tile.partition_view<[64, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// Two K loops one after the other whose rings hold the same tiles (attention's unmasked and masked
// loops): the second takes the first's rings (0 and 1) once the wait after the first has drained them;
// a third loop whose rings hold other tiles (one of two differs) gets rings of its own (2, 3).
// CHECK-LABEL: kernel.func @two_loops(
// CHECK:       kernel.for
// CHECK:         tile.ring_tile %{{.*}} {ring = 0 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:    tile.ring_tile %{{.*}} {ring = 1 : i64, stages = 3 : i64} : si64 -> !tile.tile<16x32xf16>
// CHECK:       tile.async_wait {pending = 0 : i64}
// CHECK:       tile.async_copy %{{.*}} into %{{.*}} {ring = 0 : i64, stages = 3 : i64}
// CHECK-NEXT:  tile.async_copy %{{.*}} into %{{.*}} {ring = 1 : i64, stages = 3 : i64}
// CHECK:       kernel.for
// CHECK:         tile.ring_tile %{{.*}} {ring = 0 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:    tile.ring_tile %{{.*}} {ring = 1 : i64, stages = 3 : i64} : si64 -> !tile.tile<16x32xf16>
// CHECK:       tile.async_wait {pending = 0 : i64}
// CHECK:       kernel.for
// CHECK:         tile.ring_tile %{{.*}} {ring = 2 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:    tile.ring_tile %{{.*}} {ring = 3 : i64, stages = 3 : i64} : si64 -> !tile.tile<16x16xf16>
kernel.func @two_loops(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %cq = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bq = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<32x32xf32>
  %zero16 = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<32x32xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  %acc2 = kernel.for %k = %n to %n step %one iter_args(%acc1 = %acc) -> (!tile.tile<32x32xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[16, 32], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
    %d = tile.dot %x, %y, %acc1 : !tile.tile<32x16xf16>, !tile.tile<16x32xf16>, !tile.tile<32x32xf32> -> !tile.tile<32x32xf32>
    kernel.yield %d : !tile.tile<32x32xf32>
  }
  %acc3 = kernel.for %k = %lo to %n step %one iter_args(%acc4 = %zero16) -> (!tile.tile<32x16xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
    %y = tile.load %bq[%k, %j] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
    %d = tile.dot %x, %y, %acc4 : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
    kernel.yield %d : !tile.tile<32x16xf32>
  }
  tile.store %acc2, %cp[%i, %j] : !tile.tile<32x32xf32>, !tile.partition_view<[32, 32], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  tile.store %acc3, %cq[%i, %j] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
