// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s
// The chip option: without features the #nvvm.target's PTX version is the chip's default (sm_120 → 8.7);
// a PTX version too old for the chip is refused before anything is lowered.
// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m chip=sm_120}' | filecheck %s --check-prefix=SM120
// RUN: not warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m chip=sm_120 features="+ptx80"}' 2>&1 | filecheck %s --check-prefix=OLDPTX
// SM120: gpu.module @m [#nvvm.target<chip = "sm_120", features = "+ptx87">]
// OLDPTX: error: PTX 8.0 (features '+ptx80') cannot target sm_120: it needs PTX 8.7 or newer

// One tile block per CTA (tile.block_coord of a 1-D grid is the block id); a 512-element tile over
// 128 threads, 4 contiguous elements each; the pointers are 16-byte aligned (tile.arg_info), so each
// chunk is one 128-bit access. A uniform test picks the full tile (unmasked) or the tail (each vector
// guarded; loads give the padding). Inputs are noalias+readonly; no integer division: no error record.
// CHECK-LABEL: gpu.func @add(
// CHECK-SAME: %[[Z:.*]]: memref<?xf32, 1 : i32> {llvm.noalias}, %[[X:.*]]: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}) kernel
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[BID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[XD:.*]] = memref.dim %[[X]]
// CHECK-NEXT: %[[XN:.*]] = arith.index_cast %[[XD]] : index to i64
// CHECK: %[[ORIGIN:.*]] = arith.shli %[[BID]], %{{.*}} : i64
// CHECK: %[[OWN:.*]] = arith.shli %[[TID]], %{{.*}} : i64
// CHECK: %[[AT:.*]] = arith.addi %[[ORIGIN]], %[[OWN]] : i64
// CHECK: %[[START:.*]] = arith.cmpi ult, %[[ORIGIN]], %[[XN]] : i64
// CHECK: %[[END:.*]] = arith.addi %[[ORIGIN]], %{{.*}} : i64
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[END]], %[[XN]] : i64
// CHECK: %[[FULL:.*]] = arith.andi %[[START]], %[[FITS]] : i1
// CHECK: scf.if %[[FULL]] -> (f32, f32, f32, f32) {
// CHECK: vector.load %[[X]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK: } else {
// CHECK: arith.cmpi ult
// CHECK: scf.if %{{.*}} -> (f32, f32, f32, f32) {
// CHECK: vector.load %[[X]]
// CHECK: } else {
// CHECK: scf.yield %[[PAD:.*]], %[[PAD]], %[[PAD]], %[[PAD]] : f32, f32, f32, f32
// CHECK-COUNT-4: arith.addf
// CHECK: scf.if
// CHECK: vector.store %{{.*}}, %[[Z]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32, 1 : i32>, vector<4xf32>
// CHECK: gpu.return
kernel.func @add(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}]} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %c = tile.block_coord %zp[0] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %xp[%c] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<512xf32>
  %s = tile.add %t, %t : !tile.tile<512xf32>
  tile.store %s, %zp[%c] : !tile.tile<512xf32>, !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// Without a proven 16-byte alignment: scalar accesses, each element guarded in the tail.
// CHECK-LABEL: gpu.func @unaligned(
// CHECK-NOT: vector.
// CHECK: memref.load
// CHECK: memref.store
// CHECK: gpu.return
kernel.func @unaligned(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile, checks = false, tile.arg_info = [{align = 4 : i64, divisibility = array<i64: 1>}, {align = 4 : i64, divisibility = array<i64: 1>}]} {
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %c = tile.block_coord %zp[0] : !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %t = tile.load %zp[%c] : !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<256xf32>
  tile.store %t, %zp[%c] : !tile.tile<256xf32>, !tile.partition_view<[256], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// A reduction: each thread combines its 8 registers (a tree of maximumf: NaN propagates), the warp
// by gpu.shuffle xor 1, 2, 4, 8, 16, then the two warps through shared memory (lane 0 writes its
// warp's value; a barrier before the reads — none before the write: in the entry block nothing has
// touched the buffer yet), every thread reading both. The one-element result is held by every
// thread; only thread 0 (the first replica) stores it.
// CHECK: memref.global{{.*}}sym_name = "__tile_smem_rowmax_f32", type = memref<2xf32, 3 : i32>
// CHECK-LABEL: gpu.func @rowmax(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-SAME: tile.shared_bytes = 8 : i64
// CHECK: %[[SMEM:.*]] = memref.get_global @__tile_smem_rowmax_f32 : memref<2xf32, 3 : i32>
// CHECK-COUNT-7: arith.maximumf
// CHECK: gpu.shuffle xor
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SMEM]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[SMEM]]
// CHECK: memref.load %[[SMEM]]
// CHECK: arith.maximumf
// CHECK: scf.if
// CHECK: memref.store
kernel.func @rowmax(%o: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.num_warps = 2 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}]} {
  %op = tile.make_partition_view %o : !tile.tensor_view<?xf32> -> !tile.partition_view<[1], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %c = tile.block_coord %op[0] : !tile.partition_view<[1], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?xf32> -> !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0xFF800000 : f32>
  %t = tile.load %xp[%c] : !tile.partition_view<[512], !tile.tensor_view<?xf32>, padding = 0xFF800000 : f32>, si64 -> !tile.tile<512xf32>
  %m = tile.reduce max %t [0] keepdims : !tile.tile<512xf32> -> !tile.tile<1xf32>
  tile.store %m, %op[%c] : !tile.tile<1xf32>, !tile.partition_view<[1], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}

// -----

// A 2-D grid: the block id delinearized by the tile count of axis 1 (ceil(cols / 64)). A broadcast of
// a (4, 1) column goes through shared memory (write; barrier; read: the buffer's first use, in the
// entry block, needs no barrier before it); the checked integer floordiv keeps the error record.
// 256 elements over 128 threads: 2 contiguous i32 per thread, one 64-bit store each.
// CHECK: func.func private @__wf_report_error
// CHECK-LABEL: gpu.func @bcast(
// CHECK-SAME: %[[O:.*]]: memref<?x?xi32, 1 : i32> {llvm.noalias}, %{{.*}}: memref<8xi64, 1 : i32> {llvm.noalias}) kernel
// CHECK-SAME: kernel.error_sites = [{kind = "integer division by zero"
// CHECK: memref.dim %[[O]]
// CHECK: %[[CD:.*]] = memref.dim %[[O]]
// CHECK-NEXT: %[[COLS:.*]] = arith.index_cast %[[CD]] : index to i64
// CHECK: %[[SUM:.*]] = arith.addi %[[COLS]], %{{.*}} : i64
// CHECK: %[[N:.*]] = arith.shrui %[[SUM]], %{{.*}} : i64
// CHECK: arith.divui %{{.*}}, %[[N]] : i64
// CHECK: arith.remui %{{.*}}, %[[N]] : i64
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<4xi32, 3 : i32>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<4xi32, 3 : i32>
// CHECK: func.call @__wf_report_error
// CHECK: vector.store %{{.*}}, %[[O]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<?x?xi32, 1 : i32>, vector<2xi32>
kernel.func @bcast(%o: !tile.tensor_view<?x?xsi32>) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %op = tile.make_partition_view %o : !tile.tensor_view<?x?xsi32> -> !tile.partition_view<[4, 64], !tile.tensor_view<?x?xsi32>, padding = 0 : si32>
  %c0 = tile.block_coord %op[0] : !tile.partition_view<[4, 64], !tile.tensor_view<?x?xsi32>, padding = 0 : si32>
  %c1 = tile.block_coord %op[1] : !tile.partition_view<[4, 64], !tile.tensor_view<?x?xsi32>, padding = 0 : si32>
  %i = tile.iota : !tile.tile<4xsi32>
  %r = tile.reshape %i : !tile.tile<4xsi32> -> !tile.tile<4x1xsi32>
  %b = tile.broadcast %r : !tile.tile<4x1xsi32> -> !tile.tile<4x64xsi32>
  %d = tile.floordiv %b, %b : !tile.tile<4x64xsi32>
  tile.store %d, %op[%c0, %c1] : !tile.tile<4x64xsi32>, !tile.partition_view<[4, 64], !tile.tensor_view<?x?xsi32>, padding = 0 : si32>, si64, si64
  kernel.return
}

// -----

// A checked error is recorded once per failing element: 8 elements over 32 threads (4 replicas each,
// owner tid >> 2), so only replica 0 ((tid & 3) == 0) calls the reporter for the tile floordiv; a
// scalar floordiv, the same in every thread of the CTA, is recorded by thread 0.
// CHECK-LABEL: gpu.func @replicated(
// CHECK-SAME: %[[K:[a-z0-9_]+]]: i32,
// CHECK: %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[MASK:.*]] = arith.constant 3 : i64
// CHECK-NEXT: %[[LOW:.*]] = arith.andi %[[TID]], %[[MASK]] : i64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[LOW]], %[[ZERO]] : i64
// CHECK-NEXT: %[[T0:.*]] = arith.cmpi eq, %[[TID]], %[[ZERO]] : i64
// CHECK: scf.if %[[FIRST]] {
// CHECK: func.call @__wf_report_error
// CHECK: %[[KZERO:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[KZERO]] {
// CHECK: scf.if %[[T0]] {
// CHECK-NEXT: func.call @__wf_report_error
// CHECK-NOT: func.call @__wf_report_error
// CHECK: gpu.return
kernel.func @replicated(%o: !tile.tensor_view<8xsi32>, %k: si32) attributes {kernel, tile, tile.num_warps = 1 : i32, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 8>}, {}]} {
  %op = tile.make_partition_view %o : !tile.tensor_view<8xsi32> -> !tile.partition_view<[8], !tile.tensor_view<8xsi32>, padding = 0 : si32>
  %c0 = tile.block_coord %op[0] : !tile.partition_view<[8], !tile.tensor_view<8xsi32>, padding = 0 : si32>
  %i = tile.iota : !tile.tile<8xsi32>
  %d = tile.floordiv %i, %i : !tile.tile<8xsi32>
  %q = kernel.floordiv %k, %k : si32
  %s = tile.splat %q : si32 -> !tile.tile<8xsi32>
  %r = tile.add %d, %s : !tile.tile<8xsi32>
  tile.store %r, %op[%c0] : !tile.tile<8xsi32>, !tile.partition_view<[8], !tile.tensor_view<8xsi32>, padding = 0 : si32>, si64
  kernel.return
}

// -----

// The catalog's tile ops lower per register by their scalar op: tile.ceildiv by kernel.ceildiv's
// lowering (a checked division: the error record stays), tile.popc by math.ctpop, tile.erf by
// math.erf; tile.exp on f32 is ex2.approx(x·log2 e): math.exp2 of a product, never math.exp.
// CHECK-LABEL: gpu.func @builtins(
// CHECK-SAME: kernel.error_sites = [{kind = "integer division by zero", text = "tile.cdiv(x, x)"
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: math.ctpop %{{.*}} : i32
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: math.exp2 %[[P]] : f32
// CHECK-NOT: math.exp %
// CHECK: math.erf %{{.*}} : f32
kernel.func @builtins(%o: !tile.tensor_view<?xsi32>, %f: !tile.tensor_view<?xf32>) attributes {kernel, tile, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}]} {
  %op = tile.make_partition_view %o : !tile.tensor_view<?xsi32> -> !tile.partition_view<[128], !tile.tensor_view<?xsi32>, padding = 0 : si32>
  %fp = tile.make_partition_view %f : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %c = tile.block_coord %op[0] : !tile.partition_view<[128], !tile.tensor_view<?xsi32>, padding = 0 : si32>
  %x = tile.iota : !tile.tile<128xsi32>
  %q = tile.ceildiv %x, %x {text = "tile.cdiv(x, x)"} : !tile.tile<128xsi32>
  %p = tile.popc %q : !tile.tile<128xsi32>
  tile.store %p, %op[%c] : !tile.tile<128xsi32>, !tile.partition_view<[128], !tile.tensor_view<?xsi32>, padding = 0 : si32>, si64
  %y = tile.cast %x : !tile.tile<128xsi32> to !tile.tile<128xf32>
  %e = tile.exp %y : !tile.tile<128xf32>
  %r = tile.erf %e : !tile.tile<128xf32>
  tile.store %r, %fp[%c] : !tile.tile<128xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>, si64
  kernel.return
}

// -----

// kernel.print of a tile: each element prints once, from the first replica of the thread holding it,
// with its index in the tile ("[i] value"); 4 elements over 32 threads: owner tid >> 3, replica
// tid & 7. A print of scalars only comes from thread 0 (once per tile block).
// CHECK-LABEL: gpu.func @prints(
// CHECK-SAME:    %[[N:[^:]*]]: i32
// CHECK:         %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[OWNER:.*]] = arith.shrui %[[TID]], %{{.*}} : i64
// CHECK:         %[[REPLICA:.*]] = arith.andi %[[TID]], %{{.*}} : i64
// CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[REPLICA]], %{{.*}} : i64
// CHECK:         %[[ELEM:.*]] = arith.trunci %[[OWNER]] : i64 to i32
// CHECK:         scf.if %[[FIRST]] {
// CHECK-NEXT:      gpu.printf "n = %d t = [%lld] %3d\0A", %[[N]], %[[OWNER]], %[[ELEM]] : i32, i64, i32
// CHECK:         %[[T0:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i64
// CHECK-NEXT:    scf.if %[[T0]] {
// CHECK-NEXT:      gpu.printf "n = %d\0A", %[[N]] : i32
kernel.func @prints(%n: si32) attributes {kernel, tile} {
  %i = tile.iota : !tile.tile<4xsi32>
  kernel.print "n = {} t = {:>3}\n", %n, %i : si32, !tile.tile<4xsi32>
  kernel.print "n = {}\n", %n : si32
  kernel.return
}
