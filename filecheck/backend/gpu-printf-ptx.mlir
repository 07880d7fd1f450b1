// RUN: warpforge-opt %s -p 'kernel-to-gpu{chip=sm_90 features="+ptx80"}',gpu-to-llvm -t llvm | filecheck %s --check-prefix=LL
// RUN: warpforge-opt %s -p 'kernel-to-gpu{chip=sm_90 features="+ptx80"}',gpu-to-llvm -t ptx > %t.ptx && filecheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
// REQUIRES: ptxas

// kernel.print lowered to the end, CUDA's vprintf(format, argument buffer) with the format as a global
// string and the promoted arguments in a local buffer (i64, f64, a pointer to "True"/"False", i32).

// LL: @"[[FMT:__wf_printf_[0-9]+]]" = internal addrspace(1) constant [25 x i8] c"i=%lld x=%.3f b=%s u=%u\0a\00"
// LL: declare i32 @"vprintf"(ptr %{{.*}}, ptr %{{.*}})
// LL: %[[P:.*]] = addrspacecast ptr addrspace(1) @"[[FMT]]" to ptr
// LL: call i32 @"vprintf"(ptr %[[P]], ptr %{{.*}})

// PTX: .extern .func  (.param .b32 func_retval0) vprintf
// PTX: .global .align 1 .b8 __wf_printf_{{[0-9]+}}[25]
// PTX: .local .align 8 .b8 __local_depot0[32];
// PTX: cvt.f64.f32
// PTX: st.local.b64
// PTX: call.uni (retval0), vprintf, (param0, param1);
kernel.func @prints(%i: si64, %x: f32, %b: i1, %u: ui16) attributes {kernel} {
  kernel.print "i={} x={:.3f} b={} u={}\n", %i, %x, %b, %u : si64, f32, i1, ui16
  kernel.return
}
