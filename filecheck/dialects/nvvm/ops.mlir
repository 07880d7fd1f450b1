// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// Every op of the nvvm catalog (warpforge.dialects.nvvm_catalog.CATALOG), in catalog order, and
// the #nvvm.target attribute, round-tripped in custom and generic form.
// Generated from the catalog: one line per row; regenerate when a row is added.

// CHECK:      gpu.module @targets [#nvvm.target<chip = "sm_90", features = "+ptx80">, #nvvm.target<chip = "sm_90a", features = "+ptx86", O = 2>, #nvvm.target<chip = "sm_75">] {
gpu.module @targets [#nvvm.target<chip = "sm_90", features = "+ptx80">, #nvvm.target<chip = "sm_90a", features = "+ptx86", O = 2>, #nvvm.target<chip = "sm_75">] {
}

// CHECK-LABEL: func.func @catalog(
// CHECK-SAME:    %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: f32, %{{.*}}: f64, %{{.*}}: i1) {
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.tid.y : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.tid.z : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ntid.x : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ntid.y : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ntid.z : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.laneid : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.warpsize : i32
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.clock64 : i64
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK-NEXT:  %{{.*}} = nvvm.read.ptx.sreg.dynamic_smem_size : i32
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  %{{.*}} = nvvm.barrier0.popc %{{.*}} : (i1) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.barrier0.and %{{.*}} : (i1) -> i1
// CHECK-NEXT:  %{{.*}} = nvvm.barrier0.or %{{.*}} : (i1) -> i1
// CHECK-NEXT:  nvvm.bar.warp.sync %{{.*}} : i32
// CHECK-NEXT:  nvvm.membar.cta
// CHECK-NEXT:  nvvm.membar.gl
// CHECK-NEXT:  nvvm.membar.sys
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.bfly.i32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.bfly.i32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> (i32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.bfly.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.bfly.f32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> (f32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.up.i32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.up.i32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> (i32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.up.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.up.f32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> (f32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.down.i32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.down.i32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> (i32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.down.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.down.f32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> (f32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.idx.i32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.idx.i32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32) -> (i32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.shfl.sync.idx.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.shfl.sync.idx.f32p %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, f32, i32, i32) -> (f32, i1)
// CHECK-NEXT:  %{{.*}} = nvvm.vote.any.sync %{{.*}}, %{{.*}} : (i32, i1) -> i1
// CHECK-NEXT:  %{{.*}} = nvvm.vote.all.sync %{{.*}}, %{{.*}} : (i32, i1) -> i1
// CHECK-NEXT:  %{{.*}} = nvvm.vote.ballot.sync %{{.*}}, %{{.*}} : (i32, i1) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.activemask : i32
// CHECK-NEXT:  %{{.*}} = nvvm.match.any.sync.i32 %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.match.any.sync.i64 %{{.*}}, %{{.*}} : (i32, i64) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.add %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.min %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.max %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.umin %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.umax %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.and %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.or %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:  %{{.*}} = nvvm.redux.sync.xor %{{.*}}, %{{.*}} : (i32, i32) -> i32
// CHECK-NEXT:    func.return
func.func @catalog(%m: i32, %a: i32, %l: i64, %f: f32, %d: f64, %p: i1) {
  %r_read_ptx_sreg_tid_x = nvvm.read.ptx.sreg.tid.x : i32
  %r_read_ptx_sreg_tid_y = nvvm.read.ptx.sreg.tid.y : i32
  %r_read_ptx_sreg_tid_z = nvvm.read.ptx.sreg.tid.z : i32
  %r_read_ptx_sreg_ntid_x = nvvm.read.ptx.sreg.ntid.x : i32
  %r_read_ptx_sreg_ntid_y = nvvm.read.ptx.sreg.ntid.y : i32
  %r_read_ptx_sreg_ntid_z = nvvm.read.ptx.sreg.ntid.z : i32
  %r_read_ptx_sreg_ctaid_x = nvvm.read.ptx.sreg.ctaid.x : i32
  %r_read_ptx_sreg_ctaid_y = nvvm.read.ptx.sreg.ctaid.y : i32
  %r_read_ptx_sreg_ctaid_z = nvvm.read.ptx.sreg.ctaid.z : i32
  %r_read_ptx_sreg_nctaid_x = nvvm.read.ptx.sreg.nctaid.x : i32
  %r_read_ptx_sreg_nctaid_y = nvvm.read.ptx.sreg.nctaid.y : i32
  %r_read_ptx_sreg_nctaid_z = nvvm.read.ptx.sreg.nctaid.z : i32
  %r_read_ptx_sreg_laneid = nvvm.read.ptx.sreg.laneid : i32
  %r_read_ptx_sreg_warpsize = nvvm.read.ptx.sreg.warpsize : i32
  %r_read_ptx_sreg_clock64 = nvvm.read.ptx.sreg.clock64 : i64
  %r_read_ptx_sreg_globaltimer = nvvm.read.ptx.sreg.globaltimer : i64
  %r_read_ptx_sreg_dynamic_smem_size = nvvm.read.ptx.sreg.dynamic_smem_size : i32
  nvvm.barrier0
  %r_barrier0_popc = nvvm.barrier0.popc %p : (i1) -> i32
  %r_barrier0_and = nvvm.barrier0.and %p : (i1) -> i1
  %r_barrier0_or = nvvm.barrier0.or %p : (i1) -> i1
  nvvm.bar.warp.sync %m : i32
  nvvm.membar.cta
  nvvm.membar.gl
  nvvm.membar.sys
  %r_shfl_sync_bfly_i32 = nvvm.shfl.sync.bfly.i32 %m, %a, %a, %a : (i32, i32, i32, i32) -> i32
  %r_shfl_sync_bfly_i32p, %r_shfl_sync_bfly_i32p_1 = nvvm.shfl.sync.bfly.i32p %m, %a, %a, %a : (i32, i32, i32, i32) -> (i32, i1)
  %r_shfl_sync_bfly_f32 = nvvm.shfl.sync.bfly.f32 %m, %f, %a, %a : (i32, f32, i32, i32) -> f32
  %r_shfl_sync_bfly_f32p, %r_shfl_sync_bfly_f32p_1 = nvvm.shfl.sync.bfly.f32p %m, %f, %a, %a : (i32, f32, i32, i32) -> (f32, i1)
  %r_shfl_sync_up_i32 = nvvm.shfl.sync.up.i32 %m, %a, %a, %a : (i32, i32, i32, i32) -> i32
  %r_shfl_sync_up_i32p, %r_shfl_sync_up_i32p_1 = nvvm.shfl.sync.up.i32p %m, %a, %a, %a : (i32, i32, i32, i32) -> (i32, i1)
  %r_shfl_sync_up_f32 = nvvm.shfl.sync.up.f32 %m, %f, %a, %a : (i32, f32, i32, i32) -> f32
  %r_shfl_sync_up_f32p, %r_shfl_sync_up_f32p_1 = nvvm.shfl.sync.up.f32p %m, %f, %a, %a : (i32, f32, i32, i32) -> (f32, i1)
  %r_shfl_sync_down_i32 = nvvm.shfl.sync.down.i32 %m, %a, %a, %a : (i32, i32, i32, i32) -> i32
  %r_shfl_sync_down_i32p, %r_shfl_sync_down_i32p_1 = nvvm.shfl.sync.down.i32p %m, %a, %a, %a : (i32, i32, i32, i32) -> (i32, i1)
  %r_shfl_sync_down_f32 = nvvm.shfl.sync.down.f32 %m, %f, %a, %a : (i32, f32, i32, i32) -> f32
  %r_shfl_sync_down_f32p, %r_shfl_sync_down_f32p_1 = nvvm.shfl.sync.down.f32p %m, %f, %a, %a : (i32, f32, i32, i32) -> (f32, i1)
  %r_shfl_sync_idx_i32 = nvvm.shfl.sync.idx.i32 %m, %a, %a, %a : (i32, i32, i32, i32) -> i32
  %r_shfl_sync_idx_i32p, %r_shfl_sync_idx_i32p_1 = nvvm.shfl.sync.idx.i32p %m, %a, %a, %a : (i32, i32, i32, i32) -> (i32, i1)
  %r_shfl_sync_idx_f32 = nvvm.shfl.sync.idx.f32 %m, %f, %a, %a : (i32, f32, i32, i32) -> f32
  %r_shfl_sync_idx_f32p, %r_shfl_sync_idx_f32p_1 = nvvm.shfl.sync.idx.f32p %m, %f, %a, %a : (i32, f32, i32, i32) -> (f32, i1)
  %r_vote_any_sync = nvvm.vote.any.sync %m, %p : (i32, i1) -> i1
  %r_vote_all_sync = nvvm.vote.all.sync %m, %p : (i32, i1) -> i1
  %r_vote_ballot_sync = nvvm.vote.ballot.sync %m, %p : (i32, i1) -> i32
  %r_activemask = nvvm.activemask : i32
  %r_match_any_sync_i32 = nvvm.match.any.sync.i32 %m, %a : (i32, i32) -> i32
  %r_match_any_sync_i64 = nvvm.match.any.sync.i64 %m, %l : (i32, i64) -> i32
  %r_redux_sync_add = nvvm.redux.sync.add %m, %a : (i32, i32) -> i32
  %r_redux_sync_min = nvvm.redux.sync.min %m, %a : (i32, i32) -> i32
  %r_redux_sync_max = nvvm.redux.sync.max %m, %a : (i32, i32) -> i32
  %r_redux_sync_umin = nvvm.redux.sync.umin %m, %a : (i32, i32) -> i32
  %r_redux_sync_umax = nvvm.redux.sync.umax %m, %a : (i32, i32) -> i32
  %r_redux_sync_and = nvvm.redux.sync.and %m, %a : (i32, i32) -> i32
  %r_redux_sync_or = nvvm.redux.sync.or %m, %a : (i32, i32) -> i32
  %r_redux_sync_xor = nvvm.redux.sync.xor %m, %a : (i32, i32) -> i32
  func.return
}

// -----

// nvvm.atomicrmw (not a catalog intrinsic: lowered to inline PTX), on global and shared pointers.
// CHECK-LABEL: func.func @atomicrmw(
// CHECK-NEXT:  %{{.*}} = nvvm.atomicrmw add %{{.*}}, %{{.*}} {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32
// CHECK-NEXT:  %{{.*}} = nvvm.atomicrmw umin %{{.*}}, %{{.*}} {sem = "seq_cst", scope = "cta"} : !llvm.ptr<3>, i64
// CHECK-NEXT:  %{{.*}} = nvvm.atomicrmw fadd %{{.*}}, %{{.*}} {sem = "release", scope = "cluster"} : !llvm.ptr<1>, bf16
func.func @atomicrmw(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %a: i32, %l: i64, %b: bf16) {
  %0 = nvvm.atomicrmw add %g, %a {sem = "acq_rel", scope = "sys"} : !llvm.ptr<1>, i32
  %1 = nvvm.atomicrmw umin %s, %l {sem = "seq_cst", scope = "cta"} : !llvm.ptr<3>, i64
  %2 = nvvm.atomicrmw fadd %g, %b {sem = "release", scope = "cluster"} : !llvm.ptr<1>, bf16
  func.return
}

// -----

// The tensor-core rows: mma.sync (MMA_SHAPES), ldmatrix/stmatrix, cp.async.

// CHECK-LABEL: func.func @tensor_cores(
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k16.row.col.f16.f16.f16.f16 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>) -> (vector<2xf16>, vector<2xf16>)
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k32.row.col.s32.s8.s8.s32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.mma.sync.m16n8k32.row.col.s32.u8.u8.s32 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
// CHECK-NEXT:  %{{.*}} = nvvm.ldmatrix.x1.b16 %{{.*}} : (!llvm.ptr<3>) -> i32
// CHECK-NEXT:  nvvm.stmatrix.x1.b16 %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:  %{{.*}} = nvvm.ldmatrix.x1.trans.b16 %{{.*}} : (!llvm.ptr<3>) -> i32
// CHECK-NEXT:  nvvm.stmatrix.x1.trans.b16 %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.ldmatrix.x2.b16 %{{.*}} : (!llvm.ptr<3>) -> (i32, i32)
// CHECK-NEXT:  nvvm.stmatrix.x2.b16 %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NEXT:  %{{.*}}, %{{.*}} = nvvm.ldmatrix.x2.trans.b16 %{{.*}} : (!llvm.ptr<3>) -> (i32, i32)
// CHECK-NEXT:  nvvm.stmatrix.x2.trans.b16 %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.ldmatrix.x4.b16 %{{.*}} : (!llvm.ptr<3>) -> (i32, i32, i32, i32)
// CHECK-NEXT:  nvvm.stmatrix.x4.b16 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = nvvm.ldmatrix.x4.trans.b16 %{{.*}} : (!llvm.ptr<3>) -> (i32, i32, i32, i32)
// CHECK-NEXT:  nvvm.stmatrix.x4.trans.b16 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.4 %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.4.s %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.8 %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.8.s %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.16 %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT:  nvvm.cp.async.ca.shared.global.16.s %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  nvvm.cp.async.cg.shared.global.16 %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NEXT:  nvvm.cp.async.cg.shared.global.16.s %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  nvvm.cp.async.commit.group
// CHECK-NEXT:  nvvm.cp.async.wait.group 2
// CHECK-NEXT:  nvvm.cp.async.wait.all
// CHECK-NEXT:  func.return
func.func @tensor_cores(%h: vector<2xf16>, %a: i32, %f: f32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>) {
  %r_mma_sync_m16n8k16_row_col_f32_f16_f16_f32:4 = nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32 %h, %h, %h, %h, %h, %h, %f, %f, %f, %f : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %r_mma_sync_m16n8k16_row_col_f16_f16_f16_f16:2 = nvvm.mma.sync.m16n8k16.row.col.f16.f16.f16.f16 %h, %h, %h, %h, %h, %h, %h, %h : (vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>, vector<2xf16>) -> (vector<2xf16>, vector<2xf16>)
  %r_mma_sync_m16n8k16_row_col_f32_bf16_bf16_f32:4 = nvvm.mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 %a, %a, %a, %a, %a, %a, %f, %f, %f, %f : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %r_mma_sync_m16n8k8_row_col_f32_tf32_tf32_f32:4 = nvvm.mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 %a, %a, %a, %a, %a, %a, %f, %f, %f, %f : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
  %r_mma_sync_m16n8k32_row_col_s32_s8_s8_s32:4 = nvvm.mma.sync.m16n8k32.row.col.s32.s8.s8.s32 %a, %a, %a, %a, %a, %a, %a, %a, %a, %a : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  %r_mma_sync_m16n8k32_row_col_s32_u8_u8_s32:4 = nvvm.mma.sync.m16n8k32.row.col.s32.u8.u8.s32 %a, %a, %a, %a, %a, %a, %a, %a, %a, %a : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
  %r_ldmatrix_x1_b16 = nvvm.ldmatrix.x1.b16 %s : (!llvm.ptr<3>) -> i32
  nvvm.stmatrix.x1.b16 %s, %a : !llvm.ptr<3>, i32
  %r_ldmatrix_x1_trans_b16 = nvvm.ldmatrix.x1.trans.b16 %s : (!llvm.ptr<3>) -> i32
  nvvm.stmatrix.x1.trans.b16 %s, %a : !llvm.ptr<3>, i32
  %r_ldmatrix_x2_b16:2 = nvvm.ldmatrix.x2.b16 %s : (!llvm.ptr<3>) -> (i32, i32)
  nvvm.stmatrix.x2.b16 %s, %a, %a : !llvm.ptr<3>, i32, i32
  %r_ldmatrix_x2_trans_b16:2 = nvvm.ldmatrix.x2.trans.b16 %s : (!llvm.ptr<3>) -> (i32, i32)
  nvvm.stmatrix.x2.trans.b16 %s, %a, %a : !llvm.ptr<3>, i32, i32
  %r_ldmatrix_x4_b16:4 = nvvm.ldmatrix.x4.b16 %s : (!llvm.ptr<3>) -> (i32, i32, i32, i32)
  nvvm.stmatrix.x4.b16 %s, %a, %a, %a, %a : !llvm.ptr<3>, i32, i32, i32, i32
  %r_ldmatrix_x4_trans_b16:4 = nvvm.ldmatrix.x4.trans.b16 %s : (!llvm.ptr<3>) -> (i32, i32, i32, i32)
  nvvm.stmatrix.x4.trans.b16 %s, %a, %a, %a, %a : !llvm.ptr<3>, i32, i32, i32, i32
  nvvm.cp.async.ca.shared.global.4 %s, %g : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.ca.shared.global.4.s %s, %g, %a : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.ca.shared.global.8 %s, %g : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.ca.shared.global.8.s %s, %g, %a : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.ca.shared.global.16 %s, %g : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.ca.shared.global.16.s %s, %g, %a : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.cg.shared.global.16 %s, %g : !llvm.ptr<3>, !llvm.ptr<1>
  nvvm.cp.async.cg.shared.global.16.s %s, %g, %a : !llvm.ptr<3>, !llvm.ptr<1>, i32
  nvvm.cp.async.commit.group
  nvvm.cp.async.wait.group 2
  nvvm.cp.async.wait.all
  func.return
}
