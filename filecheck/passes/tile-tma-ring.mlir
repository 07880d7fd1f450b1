// RUN: warpforge-opt %s --split-input-file -p 'tile-pipeline{chip=sm_90a},tile-tma-ring{chip=sm_90a}' | filecheck %s
// RUN: warpforge-opt %s --split-input-file -p 'tile-pipeline{chip=sm_90},tile-tma-ring{chip=sm_90}' | filecheck %s --check-prefix=SM90

// A wgmma K loop (4 warps, 64x128x64, 3 stages, one group in flight): the descriptors become new
// parameters (A: one 64x64 box, B: 64x64 panels, 128B swizzle), the prologue announces and copies step 0
// into slot 0, a CTA barrier; each step every thread waits until the refilled slot's readers released it
// (parity phase ^ (slot < 2)), thread 0 announces and copies step k + 1 (when k + 1 < n), every thread
// waits on the slot it reads, the dot, the previous slot is released; slot, phase and the previous slot
// are loop-carried; wgmma.wait_group 0 after the loop; the kernel walks its grid in groups of 8 tile rows.
// CHECK-LABEL: kernel.func @mm(
// CHECK-SAME:    %[[N:[^:]*]]: si64, %[[DA:.*]]: !kernel.tensor_map<64x64xf16, "128B">, %[[DB:.*]]: !kernel.tensor_map<64x64xf16, "128B">)
// CHECK-SAME:    tile.tma_params = [1 : i64, 2 : i64], tile.group_m = 8 : i64
// CHECK:       %[[AP:.*]] = tile.make_partition_view %a
// CHECK:       %[[BP:.*]] = tile.make_partition_view %b
// CHECK:       %[[LO:.*]] = kernel.constant 0 : si64
// CHECK:       %[[S0:.*]] = kernel.constant 0 : si64
// CHECK:       %[[K0:.*]] = kernel.add %[[LO]], %{{.*}} : si64
// CHECK-NEXT:  %[[V0:.*]] = kernel.cmp lt, %[[K0]], %[[N]] : si64
// CHECK-NEXT:  tile.tma_expect %[[S0]], %[[V0]] {pipeline = 0 : i64, stages = 3 : i64, bytes = 24576 : i64} : si64, i1
// CHECK-NEXT:  tile.tma_copy %[[DA]], %[[AP]][%{{.*}}, %[[LO]]] into %[[S0]], %[[V0]] {pipeline = 0 : i64, stages = 3 : i64, ring = 0 : i64}
// CHECK-NEXT:  tile.tma_copy %[[DB]], %[[BP]][%[[LO]], %{{.*}}] into %[[S0]], %[[V0]] {pipeline = 0 : i64, stages = 3 : i64, ring = 1 : i64}
// CHECK-NOT:   tile.async_commit
// CHECK:       tile.tma_barrier
// CHECK:       %[[P0:.*]] = kernel.constant 0 : si64
// CHECK-NEXT:  %[[SPARE:.*]] = kernel.constant 3 : si64
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = kernel.for %[[K:.*]] = %[[LO]] to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}}, %[[PHASE:.*]] = %[[P0]], %[[PREV:.*]] = %[[SPARE]])
// CHECK-NOT:     tile.async_wait
// CHECK:         %[[W:.*]] = kernel.select
// CHECK:         %[[AHEAD:.*]] = kernel.add %[[K]], %{{.*}} : si64
// CHECK-NEXT:    %[[REFILL:.*]] = kernel.cmp lt, %[[AHEAD]], %[[N]] : si64
// CHECK:         %[[FRESH:.*]] = kernel.cmp lt, %[[SLOT]], %{{.*}} : si64
// CHECK-NEXT:    %[[FLIP:.*]] = kernel.select %[[FRESH]], %{{.*}}, %{{.*}} : si64
// CHECK-NEXT:    %[[PAR:.*]] = kernel.xor %[[PHASE]], %[[FLIP]] : si64
// CHECK-NEXT:    tile.tma_expect %[[W]], %[[REFILL]], %[[PAR]] {pipeline = 0 : i64, stages = 3 : i64, bytes = 24576 : i64} : si64, i1, si64
// CHECK-NEXT:    tile.tma_copy %[[DA]], %[[AP]]{{.*}} into %[[W]], %[[REFILL]]
// CHECK-NEXT:    tile.tma_copy %[[DB]], %[[BP]]{{.*}} into %[[W]], %[[REFILL]]
// CHECK-NEXT:    tile.tma_wait %[[SLOT]], %[[PHASE]] {pipeline = 0 : i64, stages = 3 : i64} : si64, si64
// CHECK-NEXT:    %[[X:.*]] = tile.ring_tile %[[SLOT]] {ring = 0 : i64, stages = 3 : i64}
// CHECK-NEXT:    %[[Y:.*]] = tile.ring_tile %[[SLOT]] {ring = 1 : i64, stages = 3 : i64}
// CHECK-NEXT:    %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ACC]] {tile.mma_in_flight = 1 : i64}
// CHECK-NEXT:    %{{.*}} = kernel.constant 2 : si64
// CHECK-NEXT:    tile.tma_release %[[PREV]] {pipeline = 0 : i64, stages = 3 : i64} : si64
// CHECK:         %[[NEXT:.*]] = kernel.select
// CHECK:         %[[WRAPS:.*]] = kernel.cmp eq, %[[SLOT]], %{{.*}} : si64
// CHECK-NEXT:    %[[FLIPPED:.*]] = kernel.xor %[[PHASE]], %{{.*}} : si64
// CHECK-NEXT:    %[[NP:.*]] = kernel.select %[[WRAPS]], %[[FLIPPED]], %[[PHASE]] : si64
// CHECK-NEXT:    kernel.yield %[[D]], %[[NEXT]], %[[NP]], %[[SLOT]]
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.tma_ring_end
// CHECK-NOT:   tile.async_wait
// SM90-LABEL:  kernel.func @mm(
// SM90-NOT:    tile.tma_
// SM90:        tile.async_copy
kernel.func @mm(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.num_warps = 4 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<64x128xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<64x128xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x64xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<64x64xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32> -> !tile.tile<64x128xf32>
    kernel.yield %d : !tile.tile<64x128xf32>
  }
  tile.store %acc, %cp[%i, %j] : !tile.tile<64x128xf32>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// B's rows are not known to be a multiple of 16 bytes (divisibility 4): no TMA descriptor can describe
// it (nor a cp.async ring fetch it): the loads stay, nothing of the TMA ring appears.
// CHECK-LABEL: kernel.func @unaligned(
// CHECK-NOT:   tile.tma_
// CHECK:       tile.load
kernel.func @unaligned(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.num_warps = 4 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 4>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<64x128xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<64x128xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x64xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<64x64xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32> -> !tile.tile<64x128xf32>
    kernel.yield %d : !tile.tile<64x128xf32>
  }
  tile.store %acc, %cp[%i, %j] : !tile.tile<64x128xf32>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// A deep ring (tile.num_stages = 8): one slot is read by the group in flight and one by this step,
// so the prologue fills slots 0 … 5 (steps 0 … 5) and step k refills slot (slot - 2) mod 8, released
// at the end of step k - 1, with step k + 6: six steps in flight; the spare barrier is 8.
// CHECK-LABEL: kernel.func @deep(
// CHECK-COUNT-6: tile.tma_expect %{{.*}}, %{{.*}} {pipeline = 0 : i64, stages = 8 : i64, bytes = 24576 : i64} : si64, i1
// CHECK-NOT:   tile.tma_expect
// CHECK:       tile.tma_barrier
// CHECK-NEXT:  kernel.constant 0 : si64
// CHECK-NEXT:  %[[SPARE:.*]] = kernel.constant 8 : si64
// CHECK-NEXT:  kernel.for %[[K:.*]] = %{{.*}} to %[[N:[^ ]*]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %{{.*}}, %[[PHASE:.*]] = %{{.*}}, %[[PREV:.*]] = %[[SPARE]])
// CHECK:         %[[TWO:.*]] = kernel.constant 2 : si64
// CHECK-NEXT:    %[[SIX:.*]] = kernel.constant 6 : si64
// CHECK-NEXT:    %[[LOW:.*]] = kernel.cmp lt, %[[SLOT]], %[[TWO]] : si64
// CHECK-NEXT:    %[[BACK:.*]] = kernel.sub %[[SLOT]], %[[TWO]] : si64
// CHECK-NEXT:    %[[WRAP:.*]] = kernel.add %[[SLOT]], %[[SIX]] : si64
// CHECK-NEXT:    %[[W:.*]] = kernel.select %[[LOW]], %[[WRAP]], %[[BACK]] : si64
// CHECK-NEXT:    %[[OFF:.*]] = kernel.constant 6 : si64
// CHECK-NEXT:    %[[AHEAD:.*]] = kernel.add %[[K]], %[[OFF]] : si64
// CHECK-NEXT:    %[[REFILL:.*]] = kernel.cmp lt, %[[AHEAD]], %[[N]] : si64
// CHECK:         tile.tma_expect %[[W]], %[[REFILL]], %{{.*}} {pipeline = 0 : i64, stages = 8 : i64, bytes = 24576 : i64} : si64, i1, si64
// CHECK:         tile.tma_wait %[[SLOT]], %[[PHASE]]
// CHECK:         tile.dot {{.*}} {tile.mma_in_flight = 1 : i64}
// CHECK:         tile.tma_release %[[PREV]] {pipeline = 0 : i64, stages = 8 : i64} : si64
// CHECK:         kernel.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT]]
// CHECK:       tile.tma_ring_end
kernel.func @deep(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<?x?xf16>, %n: si64) attributes {kernel, tile, tile.num_warps = 4 : i64, tile.num_stages = 8 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = tile.full 0.0 : f32 -> !tile.tile<64x128xf32>
  %lo = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %acc = kernel.for %k = %lo to %n step %one iter_args(%acc0 = %zero) -> (!tile.tile<64x128xf32>) : si64 {
    %x = tile.load %ap[%i, %k] : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x64xf16>
    %y = tile.load %bp[%k, %j] : !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : !tile.tile<64x64xf16>, !tile.tile<64x128xf16>, !tile.tile<64x128xf32> -> !tile.tile<64x128xf32>
    kernel.yield %d : !tile.tile<64x128xf32>
  }
  tile.store %acc, %cp[%i, %j] : !tile.tile<64x128xf32>, !tile.partition_view<[64, 128], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
