// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s

// tile.dot in tile-to-gpu (passes/lowerings/tile_dot.py): A and B go to their own shared arrays (rows
// padded by 16 bytes; tile.loads of aligned f16 views used only here, by cp.async), the accumulator
// stays in registers in the MMA layout (one warp: a 32x16 product is 2x2 m16n8 tiles), ldmatrix x4
// (A) / x4.trans (B, two n8 tiles at once) feed nvgpu.mma.sync, the store writes each thread's
// 2-column chunks straight from the accumulator registers (no shared-memory round trip).
// CHECK-DAG:   "memref.global"() <{sym_name = "[[GA:.*]]", type = memref<32x24xf16, 3 : i32>
// CHECK-DAG:   "memref.global"() <{sym_name = "{{.*}}", type = memref<16x24xf16, 3 : i32>
// CHECK-LABEL: gpu.func @dot(
// CHECK-SAME:    tile.shared_bytes = 2304 : i64
// CHECK:       %[[SA:.*]] = memref.get_global @[[GA]] : memref<32x24xf16, 3 : i32>
// CHECK:       gpu.barrier
// CHECK:       nvgpu.device_async_copy %[[AG:.*]][%{{.*}}, %{{.*}}], %[[SA]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?xf16, 1 : i32> to memref<32x24xf16, 3 : i32>
// CHECK:       nvgpu.device_async_copy %[[AG]]
// CHECK:       nvgpu.device_async_copy %{{.*}} : memref<?x?xf16, 1 : i32> to memref<16x24xf16, 3 : i32>
// CHECK:       nvgpu.device_async_create_group
// CHECK-NEXT:  nvgpu.device_async_wait {numGroups = 0 : i32}
// CHECK-NEXT:  gpu.barrier
// CHECK:       %[[A0:[^,]*]], {{.*}} = nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<32x24xf16, 3 : i32> -> f16, f16, f16, f16, f16, f16, f16, f16
// CHECK:       nvgpu.ldmatrix %[[SA]]
// CHECK:       %[[B0:[^,]*]], %[[B1:[^,]*]], %[[B2:[^,]*]], %[[B3:[^,]*]], %[[B4:[^,]*]], {{.*}} = nvgpu.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16, f16, f16, f16, f16, f16, f16
// CHECK-NEXT:  %[[D0:[0-9a-z_]*]], %[[D1:[0-9a-z_]*]], {{.*}} = nvgpu.mma.sync "m16n8k16" "f16"(%[[A0]], {{.*}}) (%[[B0]], %[[B1]], %[[B2]], %[[B3]]) ({{.*}}) : {{.*}} -> (f32, f32, f32, f32)
// CHECK-NEXT:  nvgpu.mma.sync "m16n8k16" "f16"(%[[A0]], {{.*}}) (%[[B4]], {{.*}})
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK:       vector.broadcast %{{.*}} : f32 to vector<2xf32>
// CHECK-NEXT:  vector.insert
// CHECK-NEXT:  vector.store %{{.*}}, %c[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x?xf32, 1 : i32>, vector<2xf32>
// CHECK-COUNT-7: vector.store
kernel.func @dot(%c: !tile.tensor_view<32x16xf32>, %a: !tile.tensor_view<32x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<32x16xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<32x16xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %x, %y, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// The cp.async ring of tile-pipeline: ring 0 (2 stages of a 32x16 f16 tile) is a view of the launch's
// dynamic shared memory (tile.dynamic_shared_bytes), rows of 16 elements swizzled (chunk ^ (row/4)%2);
// a copy of a tile wholly inside the tensor is 16 bytes per chunk without src-size, a tail tile's
// copies zero-fill; the wait is cp.async.wait_group + a barrier; the dot's A operand comes from the
// slot by ldmatrix, B (registers) through its own padded array.
// CHECK-LABEL: gpu.func @ring(
// CHECK-SAME:    tile.dynamic_shared_bytes = 2048 : i64
// CHECK:       %[[RAW:.*]] = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
// CHECK:       %[[RING:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<?xi8, 3 : i32> to memref<64x16xf16, 3 : i32>
// CHECK:       scf.if %{{.*}} {
// CHECK:         nvgpu.device_async_copy %a[%{{.*}}, %{{.*}}], %[[RING]][%{{.*}}, %{{.*}}], 8 {bypassL1} : memref<?x?xf16, 1 : i32> to memref<64x16xf16, 3 : i32>
// CHECK:       } else {
// CHECK:         nvgpu.device_async_copy %a[%{{.*}}, %{{.*}}], %[[RING]][%{{.*}}, %{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:       nvgpu.device_async_create_group
// CHECK-NEXT:  nvgpu.device_async_wait {numGroups = 1 : i32}
// CHECK-NEXT:  gpu.barrier
// CHECK:       nvgpu.ldmatrix %[[RING]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<64x16xf16, 3 : i32>
// CHECK:       nvgpu.mma.sync "m16n8k16" "f16"
kernel.func @ring(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<?x?xf16>, %b: !tile.tensor_view<16x16xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  tile.async_copy %ap[%zero, %zero] into %s {ring = 0, stages = 2} : !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64, si64
  tile.async_commit
  tile.async_wait {pending = 1}
  %x = tile.ring_tile %s {ring = 0, stages = 2} : si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %y2 = tile.exp %y : !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %x, %y2, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// A transposed B operand (tile.dot(a, b.T)): B's N×K tile is staged as loaded (cp.async into a
// 16x24 padded array, the same bytes as an untransposed B) and read by ldmatrix without .trans
// (K-major is mma.sync's "col" B layout); the transpose needs no scratch.
// CHECK-LABEL: gpu.func @dot_b_transposed(
// CHECK-SAME:    tile.shared_bytes = 2304 : i64
// CHECK:       %[[SB:.*]] = memref.get_global @{{.*}} : memref<16x24xf16, 3 : i32>
// CHECK:       nvgpu.device_async_copy %b[%{{.*}}, %{{.*}}], %[[SB]][%{{.*}}, %{{.*}}], 8
// CHECK:       nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32} : memref<32x24xf16, 3 : i32>
// CHECK:       %[[B0:[^,]*]], %[[B1:[^,]*]], %[[B2:[^,]*]], %[[B3:[^,]*]], %[[B4:[^,]*]], {{.*}} = nvgpu.ldmatrix %[[SB]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<16x24xf16, 3 : i32>
// CHECK-NEXT:  nvgpu.mma.sync "m16n8k16" "f16"(%{{.*}}) (%[[B0]], %[[B1]], %[[B2]], %[[B3]])
// CHECK-NEXT:  nvgpu.mma.sync "m16n8k16" "f16"(%{{.*}}) (%[[B4]],
// CHECK-NOT:   transpose
// CHECK:       gpu.return
kernel.func @dot_b_transposed(%c: !tile.tensor_view<32x16xf32>, %a: !tile.tensor_view<32x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<32x16xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<32x16xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %yt = tile.transpose %y : !tile.tile<16x16xf16> -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %x, %yt, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// B^T from a ring slot (tile.permute [1, 0] of a tile.ring_tile): ldmatrix from the slot without
// .trans. A^T from registers (exp of a 16x32 load): its registers are stored untransposed into a
// 16x40 padded array and read with ldmatrix.trans.
// CHECK-LABEL: gpu.func @ring_transposed(
// CHECK-SAME:    tile.shared_bytes = 1280 : i64
// CHECK:       %[[RING:.*]] = memref.view %{{.*}} : memref<?xi8, 3 : i32> to memref<32x16xf16, 3 : i32>
// CHECK:       %[[SA:.*]] = memref.get_global @{{.*}} : memref<16x40xf16, 3 : i32>
// CHECK:       memref.store %{{.*}}, %[[SA]]
// CHECK:       gpu.barrier
// CHECK:       nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose} : memref<16x40xf16, 3 : i32>
// CHECK:       nvgpu.ldmatrix %[[SA]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose} : memref<16x40xf16, 3 : i32>
// CHECK:       nvgpu.ldmatrix %[[RING]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32} : memref<32x16xf16, 3 : i32>
// CHECK-COUNT-4: nvgpu.mma.sync "m16n8k16" "f16"
kernel.func @ring_transposed(%c: !tile.tensor_view<?x?xf32>, %a: !tile.tensor_view<16x32xf16>, %b: !tile.tensor_view<?x?xf16>, %s: si64) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<16x32xf16> -> !tile.partition_view<[16, 32], !tile.tensor_view<16x32xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<?x?xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  tile.async_copy %bp[%zero, %zero] into %s {ring = 0, stages = 2} : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf16>, padding = 0.0 : f16>, si64, si64, si64
  tile.async_commit
  tile.async_wait {pending = 1}
  %y = tile.ring_tile %s {ring = 0, stages = 2} : si64 -> !tile.tile<16x16xf16>
  %yt = tile.permute %y [1, 0] : !tile.tile<16x16xf16> -> !tile.tile<16x16xf16>
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[16, 32], !tile.tensor_view<16x32xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x32xf16>
  %x2 = tile.exp %x : !tile.tile<16x32xf16>
  %xt = tile.transpose %x2 : !tile.tile<16x32xf16> -> !tile.tile<32x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %d = tile.dot %xt, %yt, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// P·V: the second dot's A operand is the first dot's product cast to f16. Its m16n8 accumulator
// registers are the A fragments of the next m16n8k16 MMA (n8 tiles 2s and 2s + 1 make k-step s), so
// both products split M only over the warps (2 warps, 16 rows each) and the second MMA takes the
// truncf results directly: one ldmatrix for A (the first dot's), no shared array and no scratch for P
// (3072 bytes: the first dot's A and B, the second's B).
// CHECK-LABEL: gpu.func @register_a(
// CHECK-SAME:    tile.shared_bytes = 3072 : i64
// CHECK:       nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32} : memref<32x24xf16, 3 : i32>
// CHECK:       %[[P0:.*]], %[[P1:.*]], %[[P2:.*]], %[[P3:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK-NEXT:  %[[P4:.*]], %[[P5:.*]], %[[P6:.*]], %[[P7:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK:       %[[H0:.*]] = arith.truncf %[[P0]] : f32 to f16
// CHECK-NEXT:  %[[H1:.*]] = arith.truncf %[[P1]] : f32 to f16
// CHECK-NEXT:  %[[H2:.*]] = arith.truncf %[[P2]] : f32 to f16
// CHECK-NEXT:  %[[H3:.*]] = arith.truncf %[[P3]] : f32 to f16
// CHECK-NEXT:  %[[H4:.*]] = arith.truncf %[[P4]] : f32 to f16
// CHECK:       nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose} : memref<16x24xf16, 3 : i32>
// CHECK-NEXT:  nvgpu.mma.sync "m16n8k16" "f16"(%[[H0]], %[[H1]], %[[H2]], %[[H3]], %[[H4]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT:   nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32} :
// CHECK:       gpu.return
kernel.func @register_a(%c: !tile.tensor_view<32x16xf32>, %a: !tile.tensor_view<32x16xf16>, %b: !tile.tensor_view<16x16xf16>, %v: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 2 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<32x16xf32> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<32x16xf16> -> !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %vp = tile.make_partition_view %v : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<32x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %w = tile.load %vp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<32x16xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  %p = tile.cast %s : !tile.tile<32x16xf32> to !tile.tile<32x16xf16>
  %o = tile.dot %p, %w, %acc : !tile.tile<32x16xf16>, !tile.tile<16x16xf16>, !tile.tile<32x16xf32> -> !tile.tile<32x16xf32>
  tile.store %o, %cp[%zero, %zero] : !tile.tile<32x16xf32>, !tile.partition_view<[32, 16], !tile.tensor_view<32x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// tile.reduce along the rows of an MMA accumulator (passes/lowerings/tile_dot_rows.py): lane l holds
// rows l/4 and l/4 + 8 of the m16 tile, so each row's maximum is a tree over the thread's 4 values of
// it (2 n8 tiles x 2 columns), then shuffles xor 1 and xor 2 across the quad; the broadcast back over
// the columns (s - m[:, None]) reuses those registers. No shared scratch, no barrier after the MMAs.
// CHECK-LABEL: gpu.func @row_max(
// CHECK:       %[[S0:.*]], %[[S1:.*]], %[[S2:.*]], %[[S3:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK-NEXT:  %[[S4:.*]], %[[S5:.*]], %[[S6:.*]], %[[S7:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK-NEXT:  %[[A:.*]] = arith.maximumf %[[S0]], %[[S1]] : f32
// CHECK-NEXT:  %[[B:.*]] = arith.maximumf %[[S4]], %[[S5]] : f32
// CHECK-NEXT:  %[[R:.*]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[W:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[X1:.*]], %{{.*}} = gpu.shuffle xor %[[R]], %[[ONE]], %[[W]] : f32
// CHECK-NEXT:  %[[R1:.*]] = arith.maximumf %[[R]], %[[X1]] : f32
// CHECK-NEXT:  %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[X2:.*]], %{{.*}} = gpu.shuffle xor %[[R1]], %[[TWO]], %[[W]] : f32
// CHECK-NEXT:  %[[ROW0:.*]] = arith.maximumf %[[R1]], %[[X2]] : f32
// CHECK:       gpu.shuffle xor %{{.*}}, %[[ONE]], %[[W]] : f32
// CHECK:       gpu.shuffle xor %{{.*}}, %[[TWO]], %[[W]] : f32
// CHECK-NEXT:  %[[ROW8:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  arith.subf %[[S0]], %[[ROW0]] : f32
// CHECK-NEXT:  arith.subf %[[S1]], %[[ROW0]] : f32
// CHECK-NEXT:  arith.subf %[[S2]], %[[ROW8]] : f32
// CHECK-NEXT:  arith.subf %[[S3]], %[[ROW8]] : f32
// CHECK-NEXT:  arith.subf %[[S4]], %[[ROW0]] : f32
// CHECK-NOT:   gpu.barrier
// CHECK-NOT:   memref.store
// CHECK:       gpu.return
kernel.func @row_max(%c: !tile.tensor_view<16x16xf32>, %a: !tile.tensor_view<16x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<16x16xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16>
  %acc = tile.full 0.0 : f32 -> !tile.tile<16x16xf32>
  %s = tile.dot %x, %y, %acc : !tile.tile<16x16xf16>, !tile.tile<16x16xf16>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
  %m = tile.reduce max %s [1] : !tile.tile<16x16xf32> -> !tile.tile<16xf32>
  %m1 = tile.reshape %m : !tile.tile<16xf32> -> !tile.tile<16x1xf32>
  %mb = tile.broadcast %m1 : !tile.tile<16x1xf32> -> !tile.tile<16x16xf32>
  %d = tile.sub %s, %mb : !tile.tile<16x16xf32>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<16x16xf32>, !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}

// -----

// The same kernel as tile-assign-layouts writes it (filecheck/passes/tile-assign-layouts-rows.mlir):
// the accumulator #tile.mma, the row maxima #tile.slice<dim = 1, …, parent = #tile.mma<…>>. tile-to-gpu
// reads the rows layout from the types (tile_dot_rows.encoded_row_layouts) and lowers it alike.
// CHECK-LABEL: gpu.func @row_max_encoded(
// CHECK:       %[[S0:.*]], %[[S1:.*]], %[[S2:.*]], %[[S3:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK-NEXT:  %[[S4:.*]], %[[S5:.*]], %[[S6:.*]], %[[S7:.*]] = nvgpu.mma.sync "m16n8k16" "f16"
// CHECK-NEXT:  %[[A:.*]] = arith.maximumf %[[S0]], %[[S1]] : f32
// CHECK-NEXT:  %[[B:.*]] = arith.maximumf %[[S4]], %[[S5]] : f32
// CHECK-NEXT:  %[[R:.*]] = arith.maximumf %[[A]], %[[B]] : f32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[W:.*]] = arith.constant 32 : i32
// CHECK-NEXT:  %[[X1:.*]], %{{.*}} = gpu.shuffle xor %[[R]], %[[ONE]], %[[W]] : f32
// CHECK-NEXT:  %[[R1:.*]] = arith.maximumf %[[R]], %[[X1]] : f32
// CHECK-NEXT:  %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[X2:.*]], %{{.*}} = gpu.shuffle xor %[[R1]], %[[TWO]], %[[W]] : f32
// CHECK-NEXT:  %[[ROW0:.*]] = arith.maximumf %[[R1]], %[[X2]] : f32
// CHECK:       gpu.shuffle xor %{{.*}}, %[[ONE]], %[[W]] : f32
// CHECK:       gpu.shuffle xor %{{.*}}, %[[TWO]], %[[W]] : f32
// CHECK-NEXT:  %[[ROW8:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  arith.subf %[[S0]], %[[ROW0]] : f32
// CHECK-NEXT:  arith.subf %[[S1]], %[[ROW0]] : f32
// CHECK-NEXT:  arith.subf %[[S2]], %[[ROW8]] : f32
// CHECK-NEXT:  arith.subf %[[S3]], %[[ROW8]] : f32
// CHECK-NEXT:  arith.subf %[[S4]], %[[ROW0]] : f32
// CHECK-NOT:   gpu.barrier
// CHECK-NOT:   memref.store
// CHECK:       gpu.return
kernel.func @row_max_encoded(%c: !tile.tensor_view<16x16xf32>, %a: !tile.tensor_view<16x16xf16>, %b: !tile.tensor_view<16x16xf16>) attributes {kernel, tile, checks = false, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}, {align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<16x16xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf32>, padding = 0.0 : f32>
  %ap = tile.make_partition_view %a : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %bp = tile.make_partition_view %b : !tile.tensor_view<16x16xf16> -> !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>
  %zero = kernel.constant 0 : si64
  %x = tile.load %ap[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16, #tile.blocked<vec = 2, owners = 32, replicas = 1>>
  %y = tile.load %bp[%zero, %zero] : !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf16>, padding = 0.0 : f16>, si64, si64 -> !tile.tile<16x16xf16, #tile.blocked<vec = 2, owners = 32, replicas = 1>>
  %acc = tile.full 0.0 : f32 -> !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
  %s = tile.dot %x, %y, %acc : !tile.tile<16x16xf16, #tile.blocked<vec = 2, owners = 32, replicas = 1>>, !tile.tile<16x16xf16, #tile.blocked<vec = 2, owners = 32, replicas = 1>>, !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>> -> !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
  %m = tile.reduce max %s [1] : !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>> -> !tile.tile<16xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>>
  %m1 = tile.reshape %m : !tile.tile<16xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>> -> !tile.tile<16x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>>
  %mb = tile.broadcast %m1 : !tile.tile<16x1xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>> -> !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
  %d = tile.sub %s, %mb : !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>
  tile.store %d, %cp[%zero, %zero] : !tile.tile<16x16xf32, #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>, !tile.partition_view<[16, 16], !tile.tensor_view<16x16xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
