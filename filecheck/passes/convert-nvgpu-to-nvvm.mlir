// RUN: warpforge-opt %s -p convert-nvgpu-to-nvvm --split-input-file | filecheck %s

// nvgpu ops become nvvm catalog ops; fragment elements are packed into the row's registers.

// bf16 pairs travel as i32 (insertelement into vector<2xbf16>, bitcast); f32 accumulators as they are.
// CHECK-LABEL: func.func @mma_bf16(
// CHECK-SAME:    %[[X:[^:]*]]: bf16, %[[Y:[^:]*]]: bf16, %[[C:[^:]*]]: f32)
// CHECK:         %[[U:.*]] = llvm.mlir.undef : vector<2xbf16>
// CHECK-NEXT:    %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[V0:.*]] = llvm.insertelement %[[X]], %[[U]][%[[K0]] : i32] : vector<2xbf16>
// CHECK-NEXT:    %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[V1:.*]] = llvm.insertelement %[[Y]], %[[V0]][%[[K1]] : i32] : vector<2xbf16>
// CHECK-NEXT:    %[[R0:.*]] = llvm.bitcast %[[V1]] : vector<2xbf16> to i32
// CHECK:         %[[D:.*]], %{{.*}}, %{{.*}}, %[[D3:.*]] = nvvm.mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 %[[R0]], {{.*}}, %[[C]], %[[C]], %[[C]], %[[C]] : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT:    func.return %[[D]], %[[D3]] : f32, f32
func.func @mma_bf16(%x: bf16, %y: bf16, %c: f32) -> (f32, f32) {
  %d:4 = nvgpu.mma.sync "m16n8k16" "bf16" (%x, %y, %x, %y, %x, %y, %x, %y) (%x, %y, %x, %y) (%c, %c, %c, %c) : (bf16, bf16, bf16, bf16, bf16, bf16, bf16, bf16), (bf16, bf16, bf16, bf16), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  func.return %d#0, %d#3 : f32, f32
}

// -----

// tf32 operands are the f32's bits; s8 quadruples one i32; the s32 accumulator stays i32.
// CHECK-LABEL: func.func @mma_tf32_s8(
// CHECK:         %[[T:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK:         nvvm.mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 %[[T]],
// CHECK:         llvm.mlir.undef : vector<4xi8>
// CHECK:         llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK:         nvvm.mma.sync.m16n8k32.row.col.s32.s8.s8.s32 {{.*}} -> (i32, i32, i32, i32)
func.func @mma_tf32_s8(%f: f32, %q: i8, %i: i32) -> (f32, i32) {
  %d:4 = nvgpu.mma.sync "m16n8k8" "tf32" (%f, %f, %f, %f) (%f, %f) (%f, %f, %f, %f) : (f32, f32, f32, f32), (f32, f32), (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %e:4 = nvgpu.mma.sync "m16n8k32" "s8" (%q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q, %q) (%q, %q, %q, %q, %q, %q, %q, %q) (%i, %i, %i, %i) : (i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), (i8, i8, i8, i8, i8, i8, i8, i8), (i32, i32, i32, i32) -> (i32, i32, i32, i32)
  func.return %d#0, %e#0 : f32, i32
}

// -----

// ldmatrix: this lane's row address as finalize-memref-to-llvm computes it, each i32 split in two.
// CHECK-LABEL: func.func @ldmatrix(
// CHECK-SAME:    %[[S:[^:]*]]: memref<16x24xf16, 3 : i32>, %[[R:[^:]*]]: index, %[[C:[^:]*]]: index)
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
// CHECK-NEXT:    %[[L:.*]] = nvvm.ldmatrix.x1.trans.b16 %[[P]] : (!llvm.ptr<3>) -> i32
// CHECK-NEXT:    %[[V:.*]] = llvm.bitcast %[[L]] : i32 to vector<2xf16>
// CHECK-NEXT:    %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[E0:.*]] = llvm.extractelement %[[V]][%[[K0]] : i32] : vector<2xf16>
// CHECK-NEXT:    %[[K1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[E1:.*]] = llvm.extractelement %[[V]][%[[K1]] : i32] : vector<2xf16>
// CHECK-NEXT:    func.return %[[E0]], %[[E1]] : f16, f16
func.func @ldmatrix(%s: memref<16x24xf16, 3 : i32>, %r: index, %c: index) -> (f16, f16) {
  %v:2 = nvgpu.ldmatrix %s[%r, %c] {numTiles = 1 : i32, transpose} : memref<16x24xf16, 3 : i32> -> f16, f16
  func.return %v#0, %v#1 : f16, f16
}

// -----

// cp.async: .ca for 4 bytes; srcElements gives the zero-filling .s form with a byte count.
// CHECK-LABEL: func.func @async_copy(
// CHECK-SAME:    %[[G:[^:]*]]: memref<?xf32, 1 : i32>, %[[S:[^:]*]]: memref<64xf32, 3 : i32>, %[[I:[^:]*]]: index, %[[N:[^:]*]]: index)
// CHECK:         nvvm.cp.async.ca.shared.global.4 %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK:         %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT:    %[[BYTES:.*]] = arith.muli %[[N32]], %[[FOUR]] : i32
// CHECK-NEXT:    nvvm.cp.async.cg.shared.global.16.s %{{.*}}, %{{.*}}, %[[BYTES]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:    nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 1
func.func @async_copy(%g: memref<?xf32, 1 : i32>, %s: memref<64xf32, 3 : i32>, %i: index, %n: index) {
  nvgpu.device_async_copy %g[%i], %s[%i], 1 : memref<?xf32, 1 : i32> to memref<64xf32, 3 : i32>
  nvgpu.device_async_copy %g[%i], %s[%i], 4, %n {bypassL1} : memref<?xf32, 1 : i32> to memref<64xf32, 3 : i32>
  nvgpu.device_async_create_group
  nvgpu.device_async_wait {numGroups = 1 : i32}
  func.return
}
