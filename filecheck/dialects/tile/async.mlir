// RUN: warpforge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The cp.async ring ops of a pipelined K loop (tile-pipeline) round-trip; their verifiers refuse rings
// of tiles cp.async/ldmatrix cannot move, out-of-range depths and pending counts, and other readers.

// CHECK-LABEL: kernel.func @ok(
// CHECK:       tile.async_copy %[[P:.*]][%[[I:.*]], %[[K:.*]]] into %[[S:.*]] {ring = 0 : i64, stages = 3 : i64} : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.000000e+00 : f16>, si64, si64, si64
// CHECK-NEXT:  tile.async_commit
// CHECK-NEXT:  tile.async_wait {pending = 1 : i64}
// CHECK-NEXT:  %[[A:.*]] = tile.ring_tile %[[S]] {ring = 0 : i64, stages = 3 : i64} : si64 -> !tile.tile<32x16xf16>
// CHECK-NEXT:  tile.dot %[[A]], %{{.*}}, %{{.*}}
kernel.func @ok(%t: !tile.tensor_view<?x?xf16>, %b: !tile.tile<16x16xf16>, %c: !tile.tile<32x16xf32>, %i: si64, %k: si64, %s: si64) attributes {kernel, tile} {
  %p = tile.make_partition_view %t : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  tile.async_copy %p[%i, %k] into %s {ring = 0, stages = 3} : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64, si64
  tile.async_commit
  tile.async_wait {pending = 1}
  %a = tile.ring_tile %s {ring = 0, stages = 3} : si64 -> !tile.tile<32x16xf16>
  %d = tile.dot %a, %b, %c : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  kernel.return
}

// -----

kernel.func @f32_ring(%s: si64) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.ring_tile' op a ring holds 2-D tiles of f16 or bf16 (the cp.async/ldmatrix path), got 32x16 of f32}}
  %a = tile.ring_tile %s {ring = 0, stages = 3} : si64 -> !tile.tile<32x16xf32>
  kernel.return
}

// -----

kernel.func @deep(%s: si64) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.ring_tile' op stages is in [1, 8], got 9}}
  %a = tile.ring_tile %s {ring = 0, stages = 9} : si64 -> !tile.tile<32x16xf16>
  kernel.return
}

// -----

kernel.func @wait() attributes {kernel, tile} {
  // expected-error @+1 {{'tile.async_wait' op pending is in [0, 7] (cp.async.wait_group), got 8}}
  tile.async_wait {pending = 8}
  kernel.return
}

// -----

kernel.func @other_reader(%s: si64) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.ring_tile' op its tile is read only as a tile.dot A or B operand}}
  %a = tile.ring_tile %s {ring = 0, stages = 3} : si64 -> !tile.tile<32x16xf16>
  %b = tile.exp %a : !tile.tile<32x16xf16>
  kernel.return
}
