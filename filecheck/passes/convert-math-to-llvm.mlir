// RUN: warpforge-opt %s -p convert-math-to-llvm --split-input-file | filecheck %s

// libdevice: f32 → __nv_<fn>f, f64 → __nv_<fn>, declared once in the enclosing gpu.module.

// CHECK-LABEL: func.func @libdevice(
// CHECK-SAME:    %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f64)
// CHECK-NEXT:    %[[E:.*]] = llvm.call @__nv_expf(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    %[[E2:.*]] = llvm.call @__nv_expf(%[[E]]) : (f32) -> f32
// CHECK-NEXT:    %[[A:.*]] = llvm.call @__nv_atan2f(%[[E2]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = llvm.call @__nv_rsqrtf(%[[A]]) : (f32) -> f32
// CHECK-NEXT:    %[[L:.*]] = llvm.call @__nv_log1p(%[[Y]]) : (f64) -> f64
// CHECK-NEXT:    %[[P:.*]] = llvm.call @__nv_pow(%[[L]], %[[Y]]) : (f64, f64) -> f64
// CHECK-NEXT:    func.return %[[R]], %[[P]] : f32, f64
// CHECK-NEXT:  }
// CHECK-DAG:   llvm.func @__nv_expf(f32) -> f32
// CHECK-DAG:   llvm.func @__nv_atan2f(f32, f32) -> f32
// CHECK-DAG:   llvm.func @__nv_rsqrtf(f32) -> f32
// CHECK-DAG:   llvm.func @__nv_log1p(f64) -> f64
// CHECK-DAG:   llvm.func @__nv_pow(f64, f64) -> f64
gpu.module @m {
  func.func @libdevice(%x: f32, %y: f64) -> (f32, f64) {
    %e = math.exp %x : f32
    %e2 = math.exp %e : f32
    %a = math.atan2 %e2, %x : f32
    %r = math.rsqrt %a : f32
    %l = math.log1p %y : f64
    %p = math.powf %l, %y : f64
    func.return %r, %p : f32, f64
  }
}

// -----

// f16/bf16 go through the f32 function; `afn` picks __nv_fast_* for f32 (and keeps the flags);
// fpowi takes an i32 exponent.

// CHECK-LABEL: func.func @narrow_and_fast(
// CHECK-SAME:    %[[H:[^:]*]]: f16, %[[B:[^:]*]]: bf16, %[[X:[^:]*]]: f32, %[[N:[^:]*]]: i32)
// CHECK-NEXT:    %[[HX:.*]] = llvm.fpext %[[H]] : f16 to f32
// CHECK-NEXT:    %[[HT:.*]] = llvm.call @__nv_tanhf(%[[HX]]) : (f32) -> f32
// CHECK-NEXT:    %[[HR:.*]] = llvm.fptrunc %[[HT]] : f32 to f16
// CHECK-NEXT:    %[[BX:.*]] = llvm.fpext %[[B]] : bf16 to f32
// CHECK-NEXT:    %[[BS:.*]] = llvm.call @__nv_sinf(%[[BX]]) : (f32) -> f32
// CHECK-NEXT:    %[[BR:.*]] = llvm.fptrunc %[[BS]] : f32 to bf16
// CHECK-NEXT:    %[[F:.*]] = llvm.call @__nv_fast_logf(%[[X]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NEXT:    %[[C:.*]] = llvm.call @__nv_cosf(%[[F]]) {fastmathFlags = #llvm.fastmath<nnan>} : (f32) -> f32
// CHECK-NEXT:    %[[PI:.*]] = llvm.call @__nv_powif(%[[C]], %[[N]]) : (f32, i32) -> f32
// CHECK-NEXT:    func.return %[[HR]], %[[BR]], %[[PI]] : f16, bf16, f32
gpu.module @m {
  func.func @narrow_and_fast(%h: f16, %b: bf16, %x: f32, %n: i32) -> (f16, bf16, f32) {
    %ht = math.tanh %h : f16
    %bs = math.sin %b : bf16
    %f = math.log %x fastmath<afn> : f32
    %c = math.cos %f fastmath<nnan> : f32
    %p = math.fpowi %c, %n : f32, i32
    func.return %ht, %bs, %p : f16, bf16, f32
  }
}

// -----

// LLVM intrinsics where NVPTX has an exact instruction; they keep the type (f16, vectors).

// CHECK-LABEL: func.func @intrinsics(
// CHECK-SAME:    %[[X:[^:]*]]: f32, %[[V:[^:]*]]: vector<4xf32>, %[[H:[^:]*]]: f16, %[[I:[^:]*]]: i32)
// CHECK-NEXT:    %[[A:.*]] = llvm.intr.fabs(%[[V]]) : (vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT:    %[[S:.*]] = llvm.intr.sqrt(%[[X]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK-NEXT:    %[[FL:.*]] = llvm.intr.floor(%[[S]]) : (f32) -> f32
// CHECK-NEXT:    %[[CE:.*]] = llvm.intr.ceil(%[[H]]) : (f16) -> f16
// CHECK-NEXT:    %[[T:.*]] = llvm.call_intrinsic "llvm.trunc.f32"(%[[FL]]) : (f32) -> f32
// CHECK-NEXT:    %[[R:.*]] = llvm.call_intrinsic "llvm.round.f32"(%[[T]]) : (f32) -> f32
// CHECK-NEXT:    %[[RE:.*]] = llvm.call_intrinsic "llvm.roundeven.f32"(%[[R]]) : (f32) -> f32
// CHECK-NEXT:    %[[CS:.*]] = llvm.intr.copysign(%[[RE]], %[[X]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[FMA:.*]] = llvm.intr.fma(%[[CS]], %[[CS]], %[[X]]) : (f32, f32, f32) -> f32
// CHECK-NEXT:    %[[F0:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %[[CTLZ:.*]] = llvm.call_intrinsic "llvm.ctlz.i32"(%[[I]], %[[F0]]) : (i32, i1) -> i32
// CHECK-NEXT:    %[[POP:.*]] = llvm.call_intrinsic "llvm.ctpop.i32"(%[[CTLZ]]) : (i32) -> i32
// CHECK-NEXT:    %[[F1:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %[[ABS:.*]] = llvm.call_intrinsic "llvm.abs.i32"(%[[POP]], %[[F1]]) : (i32, i1) -> i32
// CHECK-NEXT:    func.return %[[A]], %[[FMA]], %[[CE]], %[[ABS]] : vector<4xf32>, f32, f16, i32
gpu.module @m {
  func.func @intrinsics(%x: f32, %v: vector<4xf32>, %h: f16, %i: i32) -> (vector<4xf32>, f32, f16, i32) {
    %a = math.absf %v : vector<4xf32>
    %s = math.sqrt %x fastmath<afn> : f32
    %fl = math.floor %s : f32
    %ce = math.ceil %h : f16
    %t = math.trunc %fl : f32
    %r = math.round %t : f32
    %re = math.roundeven %r : f32
    %cs = math.copysign %re, %x : f32
    %fma = math.fma %cs, %cs, %x : f32
    %clz = math.ctlz %i : i32
    %pop = math.ctpop %clz : i32
    %abs = math.absi %pop : i32
    func.return %a, %fma, %ce, %abs : vector<4xf32>, f32, f16, i32
  }
}
