// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// Each case fails verification or parsing with a message that says what was expected and what was found.
// (--verify-diagnostics/--parsing-diagnostics print the diagnostic of each chunk and go on.)


// CASE 1: a disjoint slice is read only at the thread's own index
// CHECK: a disjoint_slice is read only at the thread's own !kernel.thread_index
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64) attributes {kernel} {
  %x = kernel.load %c[%i] : !kernel.disjoint_slice<f32>, si64 -> f32
  kernel.return
}
// -----

// CASE 2: signless integers are not kernel-level types
// CHECK: must be bool, a signed/unsigned integer or a float, got i32
kernel.func @k(%a: !kernel.slice<i32>) attributes {kernel} {
  kernel.return
}
// -----

// CASE 3: binary ops need operands of one type
// CHECK: kernel.add
kernel.func @k(%a: si32, %b: si64) attributes {kernel} {
  %c = kernel.add %a, %b : si32
  kernel.return
}
// -----

// CASE 4: true division is defined on floats only (the frontend converts integers to f64 first)
// CHECK: kernel.truediv is not defined on integers (si32)
kernel.func @k(%a: si32) attributes {kernel} {
  %c = kernel.truediv %a, %a : si32
  kernel.return
}
// -----

// CASE 5: shifts are integer-only
// CHECK: kernel.lshift is not defined on floats (f32)
kernel.func @k(%a: f32) attributes {kernel} {
  %c = kernel.lshift %a, %a : f32
  kernel.return
}
// -----

// CASE 6: an unknown comparison predicate
// CHECK: Expected one of {{.*}} (comparison predicate)
kernel.func @k(%a: si32) attributes {kernel} {
  %c = kernel.cmp lte, %a, %a : si32
  kernel.return
}
// -----

// CASE 7: a stored value must have the slice's element type
// CHECK: stored value type f64 must be the element type f32
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %v: f64) attributes {kernel} {
  %idx = kernel.index_1d : !kernel.thread_index
  kernel.store %v, %c[%idx] : f64, !kernel.disjoint_slice<f32>
  kernel.return
}
// -----

// CASE 8: kernel.if branches must yield the op's result types
// CHECK: the then region yields ['si32'] but kernel.if returns ['f32']
kernel.func @k(%c: i1, %a: si32, %f: f32) attributes {kernel} {
  %r = kernel.if %c -> (f32) {
    kernel.yield %a : si32
  } else {
    kernel.yield %f : f32
  }
  kernel.return
}
// -----
