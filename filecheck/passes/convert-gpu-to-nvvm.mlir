// RUN: warpforge-opt %s -p convert-gpu-to-nvvm --split-input-file --allow-unregistered-dialect | filecheck %s

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
// attributes and nvvm.minctasm kept, the target of the gpu.module kept.

// CHECK:       gpu.module @k_mod [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME:    %{{.*}}: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %[[OUT:[^:]*]]: memref<?xindex, 1 : i32>)
// CHECK-SAME:    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK-NEXT:    %[[Y:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[X:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[X]], %[[Y]] : index
// CHECK-NEXT:    memref.store %[[S]], %[[OUT]][%[[S]]] : memref<?xindex, 1 : i32>
// CHECK-NEXT:    func.return
gpu.module @k_mod [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  gpu.func @kernel(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %out: memref<?xindex, 1 : i32>)
      kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32} {
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

// -----

// Synchronization: reducing barriers (bar.red), fences (membar), warp sync.

// CHECK-LABEL: func.func @sync(
// CHECK-SAME:    %[[P:.*]]: i1, %[[M:.*]]: i32)
// CHECK-NEXT:    %[[N:.*]] = nvvm.barrier0.popc %[[P]] : (i1) -> i32
// CHECK-NEXT:    %[[A:.*]] = nvvm.barrier0.and %[[P]] : (i1) -> i1
// CHECK-NEXT:    %[[O:.*]] = nvvm.barrier0.or %[[P]] : (i1) -> i1
// CHECK-NEXT:    nvvm.membar.cta
// CHECK-NEXT:    nvvm.membar.gl
// CHECK-NEXT:    nvvm.membar.sys
// CHECK-NEXT:    nvvm.bar.warp.sync %[[M]] : i32
// CHECK-NEXT:    func.return %[[N]], %[[A]], %[[O]]
gpu.module @m {
  gpu.func @sync(%p: i1, %m: i32) -> (i32, i1, i1) {
    %n = gpu.barrier_reduce popc %p : i32
    %a = gpu.barrier_reduce and %p : i1
    %o = gpu.barrier_reduce or %p : i1
    gpu.thread_fence block
    gpu.thread_fence device
    gpu.thread_fence system
    gpu.warp_sync %m
    gpu.return %n, %a, %o : i32, i1, i1
  }
}

// -----

// Votes, ballot, active mask and match over the full warp mask (-1 = 0xffffffff).

// CHECK-LABEL: func.func @votes(
// CHECK-SAME:    %[[P:.*]]: i1, %[[V:.*]]: i64)
// CHECK:         %[[FULL:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[ANY:.*]] = nvvm.vote.any.sync %[[FULL]], %[[P]] : (i32, i1) -> i1
// CHECK:         nvvm.vote.all.sync %{{.*}}, %[[P]] : (i32, i1) -> i1
// CHECK:         nvvm.vote.ballot.sync %{{.*}}, %[[P]] : (i32, i1) -> i32
// CHECK:         nvvm.activemask : i32
// CHECK:         nvvm.match.any.sync.i64 %{{.*}}, %[[V]] : (i32, i64) -> i32
gpu.module @m {
  gpu.func @votes(%p: i1, %v: i64) -> (i1, i1, i32, i32, i32) {
    %any = gpu.vote any %p
    %all = gpu.vote all %p
    %b = gpu.ballot %p : i32
    %am = gpu.active_mask : i32
    %mm = gpu.match_any %v : i64
    gpu.return %any, %all, %b, %am, %mm : i1, i1, i32, i32, i32
  }
}

// -----

// Shuffles: PTX's clamp operand ((32 - width) << 8 | 31, no `| 31` for up); xor is PTX's bfly; the
// `p` form only when %valid is used; a 64-bit value moves as two 32-bit halves; a run-time width is
// computed.

// CHECK-LABEL: func.func @shuffles(
// CHECK-SAME:    %[[X:.*]]: f32, %[[D:.*]]: f64, %[[OFF:.*]]: i32, %[[W:.*]]: i32)
// CHECK:         %[[C16:.*]] = arith.constant 4127 : i32
// CHECK:         %[[R1:.*]] = nvvm.shfl.sync.bfly.f32 %{{.*}}, %[[X]], %[[OFF]], %[[C16]] : (i32, f32, i32, i32) -> f32
// CHECK:         %[[CUP:.*]] = arith.constant 0 : i32
// CHECK:         %[[R2:.*]], %[[V2:.*]] = nvvm.shfl.sync.up.f32p %{{.*}}, %[[X]], %[[OFF]], %[[CUP]] : (i32, f32, i32, i32) -> (f32, i1)
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[D]] : f64 to i64
// CHECK:         %[[LO:.*]] = arith.trunci %[[BITS]] : i64 to i32
// CHECK:         %[[HI64:.*]] = arith.shrui %[[BITS]], %{{.*}} : i64
// CHECK:         %[[HI:.*]] = arith.trunci %[[HI64]] : i64 to i32
// CHECK:         %[[LOR:.*]] = nvvm.shfl.sync.down.i32 %{{.*}}, %[[LO]], %[[OFF]], %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK:         %[[HIR:.*]] = nvvm.shfl.sync.down.i32 %{{.*}}, %[[HI]], %[[OFF]], %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK:         arith.extui %[[LOR]] : i32 to i64
// CHECK:         arith.extui %[[HIR]] : i32 to i64
// CHECK:         arith.shli
// CHECK:         arith.ori
// CHECK:         %[[R3:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK:         %[[SEG:.*]] = arith.subi %{{.*}}, %[[W]] : i32
// CHECK-NEXT:    %[[SH:.*]] = arith.shli %[[SEG]], %{{.*}} : i32
// CHECK:         %[[CL:.*]] = arith.ori %[[SH]], %{{.*}} : i32
// CHECK:         nvvm.shfl.sync.idx.f32 %{{.*}}, %[[X]], %[[OFF]], %[[CL]]
gpu.module @m {
  gpu.func @shuffles(%x: f32, %d: f64, %off: i32, %w: i32) -> (f32, f32, i1, f64, f32) {
    %c16 = arith.constant 16 : i32
    %c32 = arith.constant 32 : i32
    %r1, %v1 = gpu.shuffle xor %x, %off, %c16 : f32
    %r2, %v2 = gpu.shuffle up %x, %off, %c32 : f32
    %r3, %v3 = gpu.shuffle down %d, %off, %c32 : f64
    %r4, %v4 = gpu.shuffle idx %x, %off, %w : f32
    gpu.return %r1, %r2, %v2, %r3, %r4 : f32, f32, i1, f64, f32
  }
}

// -----

// subgroup_reduce: redux.sync for i32 add/min/max/and/or/xor over the warp on sm_80+; otherwise a
// butterfly of xor shuffles (5 rounds for 32 lanes, log2(size) for a cluster); f16 moves in an i32.

// CHECK-LABEL: func.func @reduce(
// CHECK-SAME:    %[[I:.*]]: i32, %[[F:.*]]: f32, %[[H:.*]]: f16)
// CHECK:         nvvm.redux.sync.umax %[[I]], %{{.*}} : (i32, i32) -> i32
// CHECK:         %[[S1:.*]] = nvvm.shfl.sync.bfly.f32 %{{.*}}, %[[F]], %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[A1:.*]] = arith.maximumf %[[F]], %[[S1]] : f32
// CHECK-COUNT-4: nvvm.shfl.sync.bfly.f32
// CHECK:         nvvm.shfl.sync.bfly.i32
// CHECK:         arith.muli
// CHECK:         nvvm.shfl.sync.bfly.i32
// CHECK:         arith.muli
// CHECK-NOT:     nvvm.shfl.sync.bfly.i32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> i32{{$}}
// CHECK:         arith.bitcast %[[H]] : f16 to i16
// CHECK:         arith.extui %{{.*}} : i16 to i32
// CHECK:         nvvm.shfl.sync.bfly.i32
// CHECK:         arith.trunci %{{.*}} : i32 to i16
// CHECK:         arith.bitcast %{{.*}} : i16 to f16
// CHECK:         arith.addf %[[H]], %{{.*}} : f16
gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  gpu.func @reduce(%i: i32, %f: f32, %h: f16) -> (i32, f32, i32, f16) {
    %a = gpu.subgroup_reduce maxui %i : (i32) -> i32
    %b = gpu.subgroup_reduce maximumf %f : (f32) -> f32
    %c = gpu.subgroup_reduce mul %i cluster(size = 4) : (i32) -> i32
    %d = gpu.subgroup_reduce add %h : (f16) -> f16
    gpu.return %a, %b, %c, %d : i32, f32, i32, f16
  }
}

// -----

// On sm_75 (no redux.sync) an i32 sum is a shuffle butterfly.

// CHECK-LABEL: func.func @reduce_sm75(
// CHECK-NOT:     nvvm.redux.sync
// CHECK-COUNT-5: nvvm.shfl.sync.bfly.i32
gpu.module @m [#nvvm.target<chip = "sm_75">] {
  gpu.func @reduce_sm75(%i: i32) -> i32 {
    %a = gpu.subgroup_reduce add %i : (i32) -> i32
    gpu.return %a : i32
  }
}

// -----

// Dynamic shared memory: one extern shared array per module (16-byte aligned), its size from
// %dynamic_smem_size; memref.view types it.

// CHECK:       llvm.mlir.global external @__wf_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-NOT:   llvm.mlir.global
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[ADDR:.*]] = llvm.mlir.addressof @__wf_dynamic_shared : !llvm.ptr<3>
// CHECK-NEXT:    %[[SIZE:.*]] = nvvm.read.ptx.sreg.dynamic_smem_size : i32
// CHECK-NEXT:    %[[SIZE64:.*]] = arith.extui %[[SIZE]] : i32 to i64
// CHECK:         llvm.insertvalue %[[ADDR]], %{{.*}}[0]
// CHECK-NEXT:    llvm.insertvalue %[[SIZE64]], %{{.*}}[1]
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(!llvm.ptr<3>, i64)> to memref<?xi8, 3 : i32>
// CHECK:         memref.view
gpu.module @m {
  gpu.func @dynamic(%n: index) -> (memref<?xf32, 3 : i32>, memref<?xi8, 3 : i32>) {
    %bytes = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
    %again = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
    %c0 = arith.constant 0 : index
    %typed = memref.view %bytes[%c0][%n] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
    gpu.return %typed, %again : memref<?xf32, 3 : i32>, memref<?xi8, 3 : i32>
  }
}

// -----

// Compare-and-swap and the packed f16 pair add become llvm atomics on the element's address.
// CHECK-LABEL: func.func @atomics(
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK-NEXT:    %[[CAS:.*]] = llvm.cmpxchg %[[P]], %{{.*}}, %{{.*}} syncscope("block") acq_rel acquire : !llvm.ptr<1>, i32
// CHECK-NEXT:    %[[OLD:.*]] = llvm.extractvalue %[[CAS]][0] : !llvm.struct<(i32, i1)>
// CHECK:         llvm.insertelement
// CHECK:         llvm.insertelement
// CHECK:         %[[V:.*]] = llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic : !llvm.ptr<1>, vector<2xf16>
// CHECK:         llvm.extractelement %[[V]]
// CHECK:         llvm.extractelement %[[V]]
gpu.module @m {
  gpu.func @atomics(%m: memref<?xi32, 1 : i32>, %h: memref<?xf16, 1 : i32>, %i: index, %x: i32, %y: f16) -> (i32, f16, f16) {
    %old = gpu.atomic_cmpxchg %m[%i], %x, %x {syncscope = "block", ordering = "acq_rel"} : memref<?xi32, 1 : i32>, i32
    %lo, %hi = gpu.atomic_add_pair %h[%i], %y, %y : memref<?xf16, 1 : i32>, f16
    gpu.return %old, %lo, %hi : i32, f16, f16
  }
}

// -----

// With a known block size, thread ids are bounded (umin with extent - 1: a no-op that gives LLVM the
// range, so bounds checks on thread-id indices fold).
// CHECK-LABEL: func.func @bounded(
// CHECK:         %[[T:.*]] = nvvm.read.ptx.sreg.tid.y : i32
// CHECK-NEXT:    %[[TOP:.*]] = arith.constant 15 : i32
// CHECK-NEXT:    %[[B:.*]] = arith.minui %[[T]], %[[TOP]] : i32
// CHECK-NEXT:    arith.index_castui %[[B]] : i32 to index
gpu.module @m {
  gpu.func @bounded() kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %t = gpu.thread_id y
    "test.use"(%t) : (index) -> ()
    gpu.return
  }
}

// -----

// gpu.printf becomes a vprintf call: the format is a constant global string (address space 1, cast
// to generic), the arguments go into an 8-aligned local buffer allocated in the entry block (i64 at
// 0, f64 at 8, the True/False string address of the i1 at 16, i32 at 24); vprintf is declared once.
// CHECK-DAG:     llvm.mlir.global internal constant @[[FMT:__wf_printf_[0-9]+]]("i = %lld x = %f %s %d\0A\00") {addr_space = 1 : i32, alignment = 1 : i64} : !llvm.array<23 x i8>
// CHECK-DAG:     llvm.mlir.global internal constant @[[T:__wf_printf_[0-9]+]]("True\00")
// CHECK-DAG:     llvm.mlir.global internal constant @[[F:__wf_printf_[0-9]+]]("False\00")
// CHECK-DAG:     llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @prints(
// CHECK-SAME:    %[[I:[^:]*]]: i64, %[[X:[^:]*]]: f64, %[[B:[^:]*]]: i1, %[[N:[^:]*]]: i32
// CHECK:         %[[SIZE:.*]] = llvm.mlir.constant(28 : i32) : i32
// CHECK-NEXT:    %[[BUF:.*]] = llvm.alloca %[[SIZE]] x i8 {alignment = 8 : i64} : (i32) -> !llvm.ptr
// CHECK:         %[[G:.*]] = llvm.mlir.addressof @[[FMT]] : !llvm.ptr<1>
// CHECK-NEXT:    %[[FP:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<1> to !llvm.ptr
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr inbounds %[[BUF]][0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[I]], %[[S0]] {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK-NEXT:    %[[S1:.*]] = llvm.getelementptr inbounds %[[BUF]][8] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[X]], %[[S1]] {alignment = 8 : i64} : f64, !llvm.ptr
// CHECK:         %[[TS:.*]] = llvm.select %[[B]], %{{.*}}, %{{.*}} : i1, !llvm.ptr
// CHECK-NEXT:    %[[S2:.*]] = llvm.getelementptr inbounds %[[BUF]][16] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[TS]], %[[S2]] {alignment = 8 : i64} : !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[S3:.*]] = llvm.getelementptr inbounds %[[BUF]][24] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.store %[[N]], %[[S3]] {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NEXT:    llvm.call @vprintf(%[[FP]], %[[BUF]]) : (!llvm.ptr, !llvm.ptr) -> i32
// Without arguments the buffer is null.
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    llvm.call @vprintf(%{{.*}}, %[[NULL]]) : (!llvm.ptr, !llvm.ptr) -> i32
gpu.module @m {
  gpu.func @prints(%i: i64, %x: f64, %b: i1, %n: i32) kernel {
    gpu.printf "i = %lld x = %f %s %d\n", %i, %x, %b, %n : i64, f64, i1, i32
    gpu.printf "done\n"
    gpu.return
  }
}

// -----

// An ordered (or system-scoped) memref.atomic_rmw with a native PTX atom becomes nvvm.atomicrmw with
// the PTX sem and scope (LLVM's atomicrmw would print a relaxed .gpu atom); the kernel's pointer
// parameters lose noalias/readonly, which would let LLVM move their accesses across the inline PTX.
// Relaxed atomics of block/device scope and float max (a CAS loop that keeps the ordering) stay.
// CHECK-LABEL: func.func @ordered_atomics(
// CHECK-SAME:    %{{[^:]*}}: memref<?xi32, 1 : i32>, %{{[^:]*}}: memref<?xf32, 1 : i32>, %{{[^:]*}}: memref<?xf32, 1 : i32>,
// CHECK-NOT:     llvm.noalias
// CHECK:         %[[P:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK-NEXT:    %{{.*}} = nvvm.atomicrmw add %[[P]], %{{.*}} {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32
// CHECK:         nvvm.atomicrmw xchg %{{.*}}, %{{.*}} {sem = "release", scope = "gpu"} : !llvm.ptr<1>, i32
// CHECK:         nvvm.atomicrmw umax %{{.*}}, %{{.*}} {sem = "seq_cst", scope = "cta"} : !llvm.ptr<3>, i32
// CHECK:         nvvm.atomicrmw fadd %{{.*}}, %{{.*}} {sem = "relaxed", scope = "sys"} : !llvm.ptr<1>, f32
// CHECK:         "memref.atomic_rmw"(%{{.*}}) <{kind = 1 : i64}> {syncscope = "block", ordering = "relaxed"}
// CHECK:         "memref.atomic_rmw"(%{{.*}}) <{kind = 4 : i64}> {syncscope = "device", ordering = "acquire"}
gpu.module @m {
  gpu.func @ordered_atomics(%a: memref<?xi32, 1 : i32> {llvm.noalias}, %f: memref<?xf32, 1 : i32> {llvm.noalias}, %x: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %s: memref<32xi32, 3 : i32>, %i: index, %v: i32, %w: f32) -> (i32, i32, i32, f32, i32, f32) {
    %0 = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {syncscope = "system", ordering = "acq_rel"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
    %1 = "memref.atomic_rmw"(%v, %a, %i) <{kind = 3 : i64}> {syncscope = "device", ordering = "release"} : (i32, memref<?xi32, 1 : i32>, index) -> i32
    %2 = "memref.atomic_rmw"(%v, %s, %i) <{kind = 7 : i64}> {syncscope = "block", ordering = "seq_cst"} : (i32, memref<32xi32, 3 : i32>, index) -> i32
    %3 = "memref.atomic_rmw"(%w, %f, %i) <{kind = 0 : i64}> {syncscope = "system", ordering = "relaxed"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
    %4 = "memref.atomic_rmw"(%v, %s, %i) <{kind = 1 : i64}> {syncscope = "block", ordering = "relaxed"} : (i32, memref<32xi32, 3 : i32>, index) -> i32
    %5 = "memref.atomic_rmw"(%w, %f, %i) <{kind = 4 : i64}> {syncscope = "device", ordering = "acquire"} : (f32, memref<?xf32, 1 : i32>, index) -> f32
    gpu.return %0, %1, %2, %3, %4, %5 : i32, i32, i32, f32, i32, f32
  }
}

// -----

// Only relaxed atomics (here system-scoped): the parameters keep noalias.
// CHECK-LABEL: func.func @relaxed_system(
// CHECK-SAME:    {llvm.noalias}
// CHECK:         nvvm.atomicrmw add %{{.*}}, %{{.*}} {sem = "relaxed", scope = "sys"} : !llvm.ptr<1>, i64
gpu.module @m {
  gpu.func @relaxed_system(%a: memref<?xi64, 1 : i32> {llvm.noalias}, %i: index, %v: i64) -> i64 {
    %0 = "memref.atomic_rmw"(%v, %a, %i) <{kind = 1 : i64}> {syncscope = "system"} : (i64, memref<?xi64, 1 : i32>, index) -> i64
    gpu.return %0 : i64
  }
}
