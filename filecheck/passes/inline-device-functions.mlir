// RUN: warpforge-opt %s --split-input-file --verify-diagnostics -p lower-kernel-control-flow,inline-device-functions | filecheck %s

// A call is replaced by the callee's CFG between a branch in and a continuation block whose
// arguments are the results; a callee's own calls are inlined first; device functions are removed.

// CHECK-LABEL: kernel.func @k(
// CHECK-NOT:   kernel.call
// CHECK:       %[[D:.*]] = kernel.sub %[[X:.*]], %[[X]] : f32
// CHECK:       cf.br ^[[AFTER:.*]](%[[D]] : f32)
// CHECK:       ^[[AFTER]](%[[Y:.*]]: f32):
// CHECK:       kernel.store %[[Y]]
// CHECK-NOT:   kernel.func @twice
// CHECK-NOT:   kernel.func @id
builtin.module {
  kernel.func @k(%a: !kernel.slice<f32>, %c: !kernel.disjoint_slice<f32>) attributes {kernel} {
    %idx = kernel.index_1d : !kernel.thread_index
    %i = kernel.index_get %idx : si64
    %x = kernel.load %a[%i] : !kernel.slice<f32>, si64 -> f32
    %y = kernel.call @twice(%x) : (f32) -> f32
    kernel.store %y, %c[%idx] : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index
    kernel.return
  }
  kernel.func @twice(%p: f32) -> f32 {
    %c = kernel.cmp lt, %p, %p : f32
    kernel.if %c {
      %d = kernel.sub %p, %p : f32
      kernel.return %d : f32
    } else {
      kernel.yield
    }
    %t = kernel.call @id(%p) : (f32) -> f32
    kernel.return %t : f32
  }
  kernel.func @id(%p: f32) -> f32 {
    kernel.return %p : f32
  }
}

// -----

// Recursion is refused (the frontend refuses it first; hand-written IR gets a diagnostic too).
builtin.module {
  kernel.func @k(%x: f32) attributes {kernel} {
    %y = kernel.call @f(%x) : (f32) -> f32
    kernel.return
  }
  // expected-error @+1 {{'kernel.func' op @f calls itself (recursion is not supported on the GPU) (in pass 'inline-device-functions')}}
  kernel.func @f(%x: f32) -> f32 {
    %y = kernel.call @f(%x) : (f32) -> f32
    kernel.return %y : f32
  }
}
