// RUN: warpforge-opt %s --split-input-file -p lower-kernel-control-flow | filecheck %s

// kernel.if with a result: both branches branch to a continuation block carrying the value.
// CHECK-LABEL: kernel.func @if_result(
// CHECK: cf.cond_br %{{.*}}, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK: ^[[THEN]]:
// CHECK-NEXT: cf.br ^[[CONT:.*]](%{{.*}} : f32)
// CHECK: ^[[ELSE]]:
// CHECK-NEXT: cf.br ^[[CONT]](%{{.*}} : f32)
// CHECK: ^[[CONT]](%[[R:.*]]: f32):
// CHECK-NEXT: kernel.neg %[[R]] : f32
kernel.func @if_result(%c: i1, %a: f32, %b: f32) attributes {kernel} {
  %r = kernel.if %c -> (f32) {
    kernel.yield %a : f32
  } else {
    kernel.yield %b : f32
  }
  %n = kernel.neg %r : f32
  kernel.return
}

// -----

// range with a positive constant step: one `lt` compare in the header; the latch adds the step.
// CHECK-LABEL: kernel.func @for_up(
// CHECK: cf.br ^[[HDR:.*]](%{{.*}}, %{{.*}} : si64, f32)
// CHECK: ^[[HDR]](%[[I:.*]]: si64, %[[A:.*]]: f32):
// CHECK-NEXT: %[[C:.*]] = kernel.cmp lt, %[[I]], %{{.*}} : si64
// CHECK-NEXT: cf.cond_br %[[C]], ^[[BODY:.*]](%[[I]], %[[A]] : si64, f32), ^[[EXIT:.*]](%[[A]] : f32)
// CHECK: ^[[BODY]](%[[K:.*]]: si64, %{{.*}}: f32):
// CHECK: cf.br ^[[LATCH:.*]](%{{.*}} : f32)
// CHECK: ^[[LATCH]](%[[N:.*]]: f32):
// CHECK-NEXT: %[[NEXT:.*]] = kernel.add %[[K]], %{{.*}} : si64
// CHECK-NEXT: cf.br ^[[HDR]](%[[NEXT]], %[[N]] : si64, f32)
// CHECK: ^[[EXIT]](%{{.*}}: f32):
kernel.func @for_up(%n: si64, %x: f32) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %r = kernel.for %k = %z to %n step %one iter_args(%a = %x) -> (f32) : si64 {
    %a2 = kernel.add %a, %x : f32
    kernel.yield %a2 : f32
  }
  kernel.return
}

// -----

// range with a negative constant step compares with `gt`.
// CHECK-LABEL: kernel.func @for_down(
// CHECK: kernel.cmp gt,
kernel.func @for_down(%n: si64) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %m1 = kernel.constant -1 : si64
  kernel.for %k = %n to %z step %m1 : si64 {
    kernel.yield
  }
  kernel.return
}

// -----

// A run-time step: (step > 0 and i < hi) or (step < 0 and i > hi); a step of 0 runs nothing.
// CHECK-LABEL: kernel.func @for_dynamic_step(
// CHECK: kernel.cmp gt, %{{.*}}, %{{.*}} : si64
// CHECK: kernel.cmp lt, %{{.*}}, %{{.*}} : si64
// CHECK: kernel.and
// CHECK: kernel.and
// CHECK: kernel.or
kernel.func @for_dynamic_step(%lo: si64, %hi: si64, %st: si64) attributes {kernel} {
  kernel.for %k = %lo to %hi step %st : si64 {
    kernel.yield
  }
  kernel.return
}

// -----

// break goes to the exit with the current carried values; continue to the latch.
// CHECK-LABEL: kernel.func @break_continue(
// CHECK: ^[[HDR:bb[0-9]+]](%{{.*}}: si64, %{{.*}}: si32):
// CHECK: cf.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]](%{{.*}}), ^[[EXIT:bb[0-9]+]](%{{.*}} : si32)
// CHECK: cf.br ^[[EXIT]](%{{.*}} : si32)
// CHECK: cf.br ^[[LATCH:bb[0-9]+]](%{{.*}} : si32)
// CHECK: ^[[LATCH]](%{{.*}}: si32):
// CHECK: ^[[EXIT]](%{{.*}}: si32):
kernel.func @break_continue(%n: si64, %v: si32) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %r = kernel.for %k = %z to %n step %one iter_args(%a = %v) -> (si32) : si64 {
    %big = kernel.cmp gt, %k, %one : si64
    kernel.if %big {
      kernel.break %a : si32
    } else {
      kernel.continue %a : si32
    }
    kernel.yield %a : si32
  }
  kernel.return
}

// -----

// while: the condition block takes the carried values and branches to the body or the exit.
// CHECK-LABEL: kernel.func @while_loop(
// CHECK: cf.br ^[[COND:bb[0-9]+]](%{{.*}} : si64)
// CHECK: ^[[COND]](%[[V:.*]]: si64):
// CHECK: cf.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]](%[[V]] : si64), ^[[EXIT:bb[0-9]+]](%[[V]] : si64)
// CHECK: ^[[BODY]](%{{.*}}: si64):
// CHECK: cf.br ^[[COND]](%{{.*}} : si64)
// CHECK: ^[[EXIT]](%{{.*}}: si64):
kernel.func @while_loop(%n: si64) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  %w = kernel.while (%v = %n) : (si64) {
    %go = kernel.cmp gt, %v, %z : si64
    kernel.condition %go(%v : si64)
  } do {
  ^bb0(%v2: si64):
    %v3 = kernel.sub %v2, %one : si64
    kernel.yield %v3 : si64
  }
  kernel.return
}

// -----

// A return nested in a loop stays a terminator of its block.
// CHECK-LABEL: kernel.func @nested_return(
// CHECK-COUNT-2: kernel.return
kernel.func @nested_return(%n: si64) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %one = kernel.constant 1 : si64
  kernel.for %k = %z to %n step %one : si64 {
    %big = kernel.cmp gt, %k, %one : si64
    kernel.if %big {
      kernel.return
    } else {
      kernel.yield
    }
    kernel.yield
  }
  kernel.return
}

// -----

// A `simt.static_range` loop kept as a loop: its `llvm.*` attributes go to the back edge (the latch
// branch), where LLVM reads loop metadata (as MLIR's convert-scf-to-cf does).
// CHECK-LABEL: kernel.func @for_unroll_full(
// CHECK: cf.br ^[[HDR:.*]](%{{.*}} : si64)
// CHECK: ^[[HDR]](%[[I:.*]]: si64):
// CHECK: %[[NEXT:.*]] = kernel.add %{{.*}}, %{{.*}} : si64
// CHECK-NEXT: cf.br ^[[HDR]](%[[NEXT]] : si64) {llvm.loop_unroll_full}
// CHECK-NOT: llvm.loop_unroll_full
kernel.func @for_unroll_full(%x: f32) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %four = kernel.constant 4 : si64
  %one = kernel.constant 1 : si64
  kernel.for %k = %z to %four step %one : si64 {
    kernel.yield
  } attributes {llvm.loop_unroll_full}
  kernel.return
}

// -----

// A step that is not ±1: `i + step` may pass the type's end (Python's range never wraps). With a
// run-time start the latch goes on only while `i` is at most the last value the step fits after;
// with a constant start far enough from the type's minimum a wrapped sum lands below the start, so
// the header tests `lo <= i < hi`; with ±1, or constant bounds whose last sum fits, nothing is added.
// CHECK-LABEL: kernel.func @for_wide_step(
// CHECK: ^[[HDR:bb[0-9]+]](%{{.*}}: si64):
// CHECK: ^[[LATCH:bb[0-9]+]]:
// CHECK-NEXT: %[[NEXT:.*]] = kernel.add %[[K:.*]], %{{.*}} : si64
// CHECK-NEXT: %[[LAST:.*]] = kernel.constant 4611686018427387903 : si64
// CHECK-NEXT: %[[FITS:.*]] = kernel.cmp le, %[[K]], %[[LAST]] : si64
// CHECK-NEXT: cf.cond_br %[[FITS]], ^[[HDR]](%[[NEXT]] : si64), ^[[EXIT:bb[0-9]+]]
// CHECK-LABEL: kernel.func @for_wide_step_from_zero(
// CHECK: ^{{bb[0-9]+}}(%[[I:.*]]: si64):
// CHECK-NEXT: %[[LT:.*]] = kernel.cmp lt, %[[I]], %{{.*}} : si64
// CHECK-NEXT: %[[GE:.*]] = kernel.cmp ge, %[[I]], %{{.*}} : si64
// CHECK-NEXT: %[[BOTH:.*]] = kernel.and %[[LT]], %[[GE]] : i1
// CHECK-NEXT: cf.cond_br %[[BOTH]]
// CHECK: kernel.add %{{.*}}, %{{.*}} : si64
// CHECK-NEXT: cf.br
// CHECK-LABEL: kernel.func @for_wide_step_constant_bounds(
// CHECK: kernel.add %{{.*}}, %{{.*}} : si64
// CHECK-NEXT: cf.br ^bb{{[0-9]+}}(%{{.*}} : si64)
kernel.func @for_wide_step(%lo: si64, %hi: si64) attributes {kernel} {
  %s = kernel.constant 4611686018427387904 : si64
  kernel.for %k = %lo to %hi step %s : si64 {
    kernel.yield
  }
  kernel.return
}
kernel.func @for_wide_step_from_zero(%hi: si64) attributes {kernel} {
  %z = kernel.constant 0 : si64
  %s = kernel.constant 8 : si64
  kernel.for %k = %z to %hi step %s : si64 {
    kernel.yield
  }
  kernel.return
}
kernel.func @for_wide_step_constant_bounds(%lo: si64) attributes {kernel} {
  %s = kernel.constant 8 : si64
  %hi = kernel.constant 1024 : si64
  kernel.for %k = %lo to %hi step %s : si64 {
    kernel.yield
  }
  kernel.return
}
