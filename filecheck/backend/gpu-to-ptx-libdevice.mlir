// RUN: warpforge-opt %s -p gpu-to-llvm -t llvm | filecheck %s --check-prefix=LL
// RUN: warpforge-opt %s -p gpu-to-llvm -t ptx > %t.ptx && filecheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// RUN: not grep -e ".extern .func" %t.ptx
// REQUIRES: ptxas, libdevice

// `math` at the gpu level: libdevice calls (linked and inlined by the PTX emitter, so no
// `.extern .func __nv_…` survives), LLVM intrinsics where NVPTX has an exact instruction, f16/bf16
// through f32, and `afn` selecting libdevice's `__nv_fast_*` approximations.

// LL-LABEL: define ptx_kernel void @"math_kernel"
// LL-DAG: call float @"__nv_expf"(float
// LL-DAG: call afn float @"__nv_fast_logf"(float
// LL-DAG: call float @"llvm.sqrt.f32"(float
// LL-DAG: call float @"__nv_tanhf"(float
// LL-DAG: fptrunc float {{.*}} to half
// LL-DAG: call float @"__nv_sinf"(float
// LL-DAG: fptrunc float {{.*}} to bfloat
// LL-DAG: call float @"llvm.round.f32"(float
// LL-DAG: call float @"__nv_powf"(float {{.*}}, float
// LL-DAG: call double @"__nv_atan2"(double {{.*}}, double
// LL-DAG: call double @"__nv_log1p"(double
// LL-DAG: declare float @"__nv_expf"(float
// LL-DAG: declare double @"__nv_atan2"(double {{.*}}, double

// PTX-LABEL: .visible .entry math_kernel(
// PTX: ex2.approx
// PTX: lg2.approx.f32
// PTX: sqrt.rn.f32
// PTX: cvt.f32.f16
// PTX: cvt.f32.bf16
// PTX: st.global.b32
// PTX: st.global.b64

builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @math_kernel(%o: memref<?xf32, 1 : i32> {llvm.noalias}, %d: memref<?xf64, 1 : i32> {llvm.noalias},
                          %x: f32, %y: f64, %h: f16, %b: bf16) kernel {
      %i = gpu.thread_id x
      %e = math.exp %x : f32 loc("m.py":4:8)
      %l = math.log %e fastmath<afn> : f32 loc("m.py":5:8)
      %r = math.sqrt %l : f32
      %t = math.tanh %h : f16
      %te = arith.extf %t : f16 to f32
      %s = math.sin %b : bf16
      %se = arith.extf %s : bf16 to f32
      %sum = arith.addf %r, %te : f32
      %sum2 = arith.addf %sum, %se : f32
      %rd = math.round %sum2 : f32
      %p = math.powf %rd, %x : f32
      memref.store %p, %o[%i] : memref<?xf32, 1 : i32>
      %a = math.atan2 %y, %y : f64
      %z = math.log1p %a : f64
      memref.store %z, %d[%i] : memref<?xf64, 1 : i32>
      gpu.return
    }
  }
}
