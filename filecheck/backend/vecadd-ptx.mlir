// RUN: warpforge-opt %s -t llvm | filecheck %s --check-prefix=LL
// RUN: warpforge-opt %s -t 'ptx{chip=sm_90 features="+ptx80"}' | filecheck %s --check-prefix=PTX
// RUN: warpforge-opt %s -t ptx > %t.ptx && %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// REQUIRES: ptxas

// A hand-written LLVM-dialect vector add: a kernel with `.reqntid`, global-space GEP/load/store,
// read-only no-alias inputs (→ ld.global.nc), source locations (→ .loc), and a libdevice call.

// LL: define ptx_kernel void @"vecadd"(ptr addrspace(1) noalias readonly {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias readonly {{.*}}, i64 {{.*}}, ptr addrspace(1) noalias {{.*}}, i64 {{.*}})
// LL: getelementptr inbounds float, ptr addrspace(1)
// LL: load float, ptr addrspace(1)
// LL: store float {{.*}}, ptr addrspace(1)
// LL-DAG: !{ ptr @"vecadd", !"reqntidx", i32 256 }
// LL-DAG: !DILocation(column: 12, line: 6

// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .visible .entry vecadd(
// PTX: .reqntid 256, 1, 1
// PTX: .loc 1 6 4
// PTX: ld.global.nc.b32
// PTX: ex2.approx
// PTX: st.global.b32
// PTX-NOT: .extern .func
// PTX: .file 1 "k.py"

builtin.module {
  llvm.func @vecadd(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %na: i64, %b: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %nb: i64, %c: !llvm.ptr<1> {llvm.noalias}, %nc: i64) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    %t = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32 loc("k.py":4:10)
    %bid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
    %bd = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
    %t64 = llvm.zext %t : i32 to i64
    %b64 = llvm.zext %bid : i32 to i64
    %d64 = llvm.zext %bd : i32 to i64
    %m = llvm.mul %b64, %d64 : i64
    %i = llvm.add %m, %t64 : i64
    %ok = llvm.icmp "ult" %i, %nc : i64 loc("k.py":6:4)
    llvm.cond_br %ok, ^bb1, ^bb2
  ^bb1:
    %pa = llvm.getelementptr inbounds %a[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32 loc("k.py":6:12)
    %x = llvm.load %pa : !llvm.ptr<1> -> f32
    %pb = llvm.getelementptr inbounds %b[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %y = llvm.load %pb : !llvm.ptr<1> -> f32
    %s = llvm.fadd %x, %y : f32
    %e = llvm.call @__nv_expf(%s) : (f32) -> f32
    %pc = llvm.getelementptr inbounds %c[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %e, %pc : f32, !llvm.ptr<1>
    llvm.br ^bb2
  ^bb2:
    llvm.return
  } loc("k.py":2:0)
  llvm.func @__nv_expf(f32) -> f32
}
