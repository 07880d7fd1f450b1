// RUN: warpforge-opt %s -p convert-gpu-to-nvvm --split-input-file | filecheck %s

// Ids: a special-register read (i32, unsigned) widened to index with arith.index_castui.

// CHECK-LABEL: func.func @ids(
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[TIDX:.*]] = arith.index_castui %[[TID]] : i32 to index
// CHECK-NEXT:    %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT:    %[[CTAX:.*]] = arith.index_castui %[[CTA]] : i32 to index
// CHECK-NEXT:    %[[NT:.*]] = nvvm.read.ptx.sreg.ntid.z : i32
// CHECK-NEXT:    %[[NTX:.*]] = arith.index_castui %[[NT]] : i32 to index
// CHECK-NEXT:    %[[NC:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT:    %[[NCX:.*]] = arith.index_castui %[[NC]] : i32 to index
// CHECK-NEXT:    %[[LANE:.*]] = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT:    %[[LANEX:.*]] = arith.index_castui %[[LANE]] : i32 to index
// CHECK-NEXT:    func.return %[[TIDX]], %[[CTAX]], %[[NTX]], %[[NCX]], %[[LANEX]] : index, index, index, index, index
gpu.module @m {
  gpu.func @ids() -> (index, index, index, index, index) {
    %t = gpu.thread_id x
    %b = gpu.block_id y
    %d = gpu.block_dim z
    %g = gpu.grid_dim x
    %l = gpu.lane_id
    gpu.return %t, %b, %d, %g, %l : index, index, index, index, index
  }
}

// -----

// global_id = block_id * block_dim + thread_id, in index (64-bit); gpu.barrier → nvvm.barrier0.

// CHECK-LABEL: func.func @global_id_and_barrier(
// CHECK:         %[[B:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:    %[[BX:.*]] = arith.index_castui %[[B]] : i32 to index
// CHECK-NEXT:    %[[D:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK-NEXT:    %[[DX:.*]] = arith.index_castui %[[D]] : i32 to index
// CHECK-NEXT:    %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[TX:.*]] = arith.index_castui %[[T]] : i32 to index
// CHECK-NEXT:    %[[M:.*]] = arith.muli %[[BX]], %[[DX]] : index
// CHECK-NEXT:    %[[G:.*]] = arith.addi %[[M]], %[[TX]] : index
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    func.return %[[G]] : index
gpu.module @m {
  gpu.func @global_id_and_barrier() -> index {
    %i = gpu.global_id x
    gpu.barrier
    gpu.return %i : index
  }
}

// -----

// A kernel: nvvm.kernel, known_block_size → nvvm.reqntid (and block_dim folds to it), argument
// attributes and nvvm.maxntid kept, the target of the gpu.module kept.

// CHECK:       gpu.module @k_mod [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME:    %{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %[[OUT:[^:]*]]: memref<?xindex, 1 : i32>)
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.maxntid = array<i32: 128, 1, 1>}
// CHECK-NEXT:    %[[Y:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[X:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[X]], %[[Y]] : index
// CHECK-NEXT:    memref.store %[[S]], %[[OUT]][%[[S]]] : memref<?xindex, 1 : i32>
// CHECK-NEXT:    func.return
gpu.module @k_mod [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  gpu.func @kernel(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %out: memref<?xindex, 1 : i32>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.maxntid = array<i32: 128, 1, 1>} {
    %y = gpu.block_dim y
    %x = gpu.block_dim x
    %s = arith.addi %x, %y : index
    memref.store %s, %out[%s] : memref<?xindex, 1 : i32>
    gpu.return
  }
}

// -----

// A device function (not a kernel) keeps its signature and gets no kernel attributes.

// CHECK-LABEL: func.func @helper(%{{.*}}: f32) -> f32 {
// CHECK-NEXT:    func.return %{{.*}} : f32
// CHECK-NEXT:  }
// CHECK-NOT:   nvvm.kernel
gpu.module @m {
  gpu.func @helper(%x: f32) -> f32 {
    gpu.return %x : f32
  }
}
