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
// CHECK: invalid.mlir:24:23: error: operand is used with type si32, but has been previously used or defined with type si64
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
  kernel.store %v, %c[%idx] : f64, !kernel.disjoint_slice<f32>, !kernel.thread_index
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
// -----

// CASE: a disjoint slice is written through a thread or block index, not a plain integer
// CHECK: a disjoint_slice is written only through a !kernel.thread_index or !kernel.block_index, got si64
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64, %v: f32) attributes {kernel} {
  kernel.store %v, %c[%i] : f32, !kernel.disjoint_slice<f32>, si64
  kernel.return
}
// -----

// CASE: a shuffle width is a power of two up to 32
// CHECK: the shuffle width must be a power of two from 1 to 32, got 12
kernel.func @k(%x: f32, %i: si64) attributes {kernel} {
  %r, %rv = kernel.shuffle xor %x, %i {width = 12} : f32, si64
  kernel.return
}
// -----

// CASE: no atomic and on floats
// CHECK: atomic and is integer-only, got f32
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %r = kernel.atomic and %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: no 16-bit integer atomics
// CHECK: atomic add on 16-bit integers is not supported (32- and 64-bit only)
kernel.func @k(%a: !kernel.atomic_slice<si16>, %i: si64, %x: si16) attributes {kernel} {
  %r = kernel.atomic add %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<si16>, si64, si16
  kernel.return
}
// -----

// CASE: atomics need an atomic or raw slice, or a shared array
// CHECK: kernel.atomic add needs an atomic_slice, raw_slice or shared array, got !kernel.disjoint_slice<f32>
kernel.func @k(%a: !kernel.disjoint_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %r = kernel.atomic add %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.disjoint_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: unknown atomic scope
// CHECK: unknown atomic scope 'warp', expected one of block, device, system
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %r = kernel.atomic add %a[%i], %x {scope = "warp", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: an array index per dimension
// CHECK: !kernel.shared<4x4xf32> has 2 dimension(s) but 1 index(es) were given
kernel.func @k(%i: si64) attributes {kernel} {
  %s = kernel.shared_array : !kernel.shared<4x4xf32>
  %v = kernel.array_load %s[%i] : !kernel.shared<4x4xf32>, si64 -> f32
  kernel.return
}
// -----

// CASE: a local array has a static shape
// CHECK: a local array has a static shape
kernel.func @k() attributes {kernel} {
  %l = kernel.local_array : !kernel.local<?xf32>
  kernel.return
}
// -----

// CASE: a tile view takes two coordinates and three sizes
// CHECK: a tile view takes 2 coordinate(s), got 1
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %t = kernel.index_2d %i : si64 -> !kernel.thread_index
  kernel.view_store %x, %c[%t] at(%i) sizes(%i, %i, %i) {view = "tile"} : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64), (si64, si64, si64)
  kernel.return
}
// -----

// CASE: compare-and-swap is integer-only
// CHECK: atomic compare-and-swap works on 32- and 64-bit integers, got f32
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %r = kernel.atomic_cas %a[%i], %x, %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
