// RUN: warpforge-opt %s -p gpu-to-llvm -t llvm | filecheck %s --check-prefix=LL
// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx > %t.ptx && filecheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas

// gpu-level kernels (the contract `kernel-to-gpu` produces) through `gpu-to-llvm`, the LLVM IR
// exporter and the NVPTX backend, then ptxas. One gpu.module, so one PTX file and one ptxas run.

// The shared-memory tile of @transpose, flattened row-major, 16-byte aligned:
// LL: @"tile" = internal addrspace(3) global [256 x float] undef, align 16

builtin.module {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {

    // vecadd: read-only no-alias inputs → ld.global.nc; `.reqntid` from known_block_size;
    // an early-out branch; the checked-mode error record and its helper call.
    // LL-LABEL: define ptx_kernel void @"vecadd"(ptr addrspace(1) noalias readonly {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias readonly {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias {{.*}})
    // LL: call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
    // LL: getelementptr inbounds float, ptr addrspace(1)
    // LL: load float, ptr addrspace(1) {{.*}}, align 4
    // LL: store float {{.*}}, ptr addrspace(1) {{.*}}, align 4
    // LL: call void @"__wf_report_error"(ptr addrspace(1)
    // PTX-LABEL: .visible .entry vecadd(
    // PTX: .reqntid 256, 1, 1
    // PTX: .loc 1 5 13
    // PTX: mov.u32 {{.*}}, %tid.x;
    // PTX: ld.global.nc.b32
    // PTX: ld.global.nc.b32
    // PTX: add.rn.f32
    // PTX: st.global.b32
    gpu.func @vecadd(%a: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %b: memref<?xf32, 1 : i32> {llvm.noalias, llvm.readonly},
                     %c: memref<?xf32, 1 : i32> {llvm.noalias}, %err: memref<8xi64, 1 : i32> {llvm.noalias})
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %i = gpu.global_id x loc("k.py":5:13)
      %c0 = arith.constant 0 : index
      %n = memref.dim %c, %c0 : memref<?xf32, 1 : i32> loc("k.py":6:7)
      %ok = arith.cmpi ult, %i, %n : index loc("k.py":6:7)
      cf.cond_br %ok, ^body, ^oob
    ^body:
      %x = memref.load %a[%i] : memref<?xf32, 1 : i32> loc("k.py":7:17)
      %y = memref.load %b[%i] : memref<?xf32, 1 : i32> loc("k.py":7:24)
      %s = arith.addf %x, %y : f32 loc("k.py":7:17)
      memref.store %s, %c[%i] : memref<?xf32, 1 : i32> loc("k.py":7:8)
      cf.br ^done
    ^oob:
      %site = arith.constant 7 : i64
      %i64 = arith.index_cast %i : index to i64
      func.call @__wf_report_error(%err, %site, %i64, %i64) : (memref<8xi64, 1 : i32>, i64, i64, i64) -> () loc("k.py":7:8)
      cf.br ^done
    ^done:
      gpu.return loc("k.py":8:4)
    } loc("k.py":3:1)

    // The checked-mode error record: the first error wins (atomic compare on slot 0).
    // LL-LABEL: define internal void @"__wf_report_error"(ptr addrspace(1) {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}})
    // LL: atomicrmw umax ptr addrspace(1) {{.*}}, i64 1 syncscope("device") monotonic
    func.func private @__wf_report_error(%rec: memref<8xi64, 1 : i32>, %site: i64, %a: i64, %b: i64) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i64
      %old = "memref.atomic_rmw"(%one, %rec, %c0) <{kind = 7 : i64}> : (i64, memref<8xi64, 1 : i32>, index) -> i64
      %zero = arith.constant 0 : i64
      %first = arith.cmpi eq, %old, %zero : i64
      scf.if %first {
        memref.store %site, %rec[%c1] : memref<8xi64, 1 : i32>
      }
      func.return
    }

    // A loop carrying values in block arguments, then scf.if with a result.
    // LL-LABEL: define ptx_kernel void @"loop_sum"
    // LL: phi i64
    // LL: phi float
    // PTX-LABEL: .visible .entry loop_sum(
    // PTX: cvt.rn.f32.{{[su]}}64
    // PTX: st.global.b32
    gpu.func @loop_sum(%out: memref<?xf32, 1 : i32> {llvm.noalias}, %n: i64) kernel {
      %tid = gpu.thread_id x
      %zero = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %nn = arith.index_cast %n : i64 to index
      cf.br ^loop(%c0, %zero : index, f32)
    ^loop(%i: index, %acc: f32):
      %more = arith.cmpi slt, %i, %nn : index
      cf.cond_br %more, ^step, ^exit
    ^step:
      %i64 = arith.index_cast %i : index to i64
      %f = arith.sitofp %i64 : i64 to f32
      %acc2 = arith.addf %acc, %f : f32
      %next = arith.addi %i, %c1 : index
      cf.br ^loop(%next, %acc2 : index, f32)
    ^exit:
      %pos = arith.cmpf ogt, %acc, %zero : f32
      %r = scf.if %pos -> (f32) {
        %sq = arith.mulf %acc, %acc : f32
        scf.yield %sq : f32
      } else {
        %neg = arith.negf %acc : f32
        scf.yield %neg : f32
      }
      memref.store %r, %out[%tid] : memref<?xf32, 1 : i32>
      gpu.return
    }

    // 2-D memrefs (row-major, dynamic extents passed as i64 parameters), a shared-memory tile,
    // a barrier, and a float atomic.
    // LL-LABEL: define ptx_kernel void @"transpose"(ptr addrspace(1) noalias readonly {{.*}}, i64 {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias {{.*}}, i64 {{.*}}, i64 {{.*}}, ptr addrspace(1) {{.*}})
    // LL: getelementptr inbounds float, ptr addrspace(3)
    // LL: call void @"llvm.nvvm.barrier.cta.sync.aligned.all"(i32 0)
    // LL: atomicrmw fadd ptr addrspace(1) {{.*}} syncscope("device") monotonic
    // PTX-LABEL: .visible .entry transpose(
    // PTX: .reqntid 16, 16, 1
    // PTX: st.shared.b32
    // PTX: bar.sync 0
    // PTX: ld.shared.b32
    // PTX: atom.global.add.f32
    "memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<16x16xf32, 3 : i32>, initial_value}> : () -> ()
    gpu.func @transpose(%in: memref<?x?xf32, 1 : i32> {llvm.noalias, llvm.readonly}, %out: memref<?x?xf32, 1 : i32> {llvm.noalias},
                        %total: memref<1xf32, 1 : i32>)
        kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %c16 = arith.constant 16 : index
      %r0 = arith.muli %by, %c16 : index
      %c0b = arith.muli %bx, %c16 : index
      %row = arith.addi %r0, %ty : index
      %col = arith.addi %c0b, %tx : index
      %tile = memref.get_global @tile : memref<16x16xf32, 3 : i32>
      %v = memref.load %in[%row, %col] : memref<?x?xf32, 1 : i32>
      memref.store %v, %tile[%ty, %tx] : memref<16x16xf32, 3 : i32>
      gpu.barrier
      %w = memref.load %tile[%tx, %ty] : memref<16x16xf32, 3 : i32>
      %orow = arith.addi %c0b, %ty : index
      %ocol = arith.addi %r0, %tx : index
      memref.store %w, %out[%orow, %ocol] : memref<?x?xf32, 1 : i32>
      %c0 = arith.constant 0 : index
      %old = "memref.atomic_rmw"(%w, %total, %c0) <{kind = 0 : i64}> : (f32, memref<1xf32, 1 : i32>, index) -> f32
      gpu.return
    }

    // A local array (memref.alloca, hoisted to the entry block) and integer max/min.
    // LL-LABEL: define ptx_kernel void @"local_array"
    // LL-NOT: br
    // LL: alloca float, i64 4, align 4
    // LL: call i32 @"llvm.smax.i32"
    // LL: br i1
    // PTX-LABEL: .visible .entry local_array(
    gpu.func @local_array(%out: memref<?xf32, 1 : i32>, %k: i32) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %zero = arith.constant 0 : i32
      %kk = arith.maxsi %k, %zero : i32
      %pos = arith.cmpi sgt, %kk, %zero : i32
      cf.cond_br %pos, ^use, ^skip
    ^use:
      %buf = memref.alloca() : memref<4xf32>
      %f = arith.sitofp %kk : i32 to f32
      memref.store %f, %buf[%c3] : memref<4xf32>
      %g = memref.load %buf[%c3] : memref<4xf32>
      memref.store %g, %out[%tid] : memref<?xf32, 1 : i32>
      cf.br ^skip
    ^skip:
      gpu.return
    }
  }
}
