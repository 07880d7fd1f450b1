// RUN: warpforge-opt %s --split-input-file --verify-diagnostics
// Each case fails verification or parsing with a message that says what was expected and what was found.
// (--verify-diagnostics: each expected-error names a diagnostic the line it points at must produce.)


// CASE 1: a disjoint slice is read only at the thread's own index
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64) attributes {kernel} {
  // expected-error @+1 {{a disjoint_slice is read only at the thread's own !kernel.thread_index}}
  %x = kernel.load %c[%i] : !kernel.disjoint_slice<f32>, si64 -> f32
  kernel.return
}
// -----

// CASE 2: signless integers are not kernel-level types
// expected-error @+1 {{must be bool, a signed/unsigned integer or a float, got i32}}
kernel.func @k(%a: !kernel.slice<i32>) attributes {kernel} {
  kernel.return
}
// -----

// CASE: a fence scope is one of gpu.thread_fence's (an enum attribute, as in gpu)
kernel.func @k() attributes {kernel} {
  // expected-error @+1 {{'kernel.thread_fence' op "block" should be of base attribute gpu.fence_scope}}
  "kernel.thread_fence"() <{scope = "block"}> : () -> ()
  kernel.return
}
// -----

// CASE: a shuffle mode is one of gpu.shuffle's
kernel.func @k(%x: f32, %i: si64) attributes {kernel} {
  // expected-error @+1 {{Expected one of 'down', 'idx', 'up', 'xor' (shuffle mode)}}
  %r, %rv = kernel.shuffle left %x, %i {width = 32} : f32, si64
  kernel.return
}
// -----

// CASE 3: binary ops need operands of one type
kernel.func @k(%a: si32, %b: si64) attributes {kernel} {
  // expected-error @+1 {{operand is used with type si32, but has been previously used or defined with type si64}}
  %c = kernel.add %a, %b : si32
  kernel.return
}
// -----

// CASE 4: true division is defined on floats only (the frontend converts integers to f64 first)
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error @+1 {{'kernel.truediv' op is not defined on integers (si32)}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}
// -----

// CASE 5: shifts are integer-only
kernel.func @k(%a: f32) attributes {kernel} {
  // expected-error @+1 {{'kernel.lshift' op is not defined on floats (f32)}}
  %c = kernel.lshift %a, %a : f32
  kernel.return
}
// -----

// CASE 6: an unknown comparison predicate
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error-re @+1 {{Expected one of {{.*}} (comparison predicate)}}
  %c = kernel.cmp lte, %a, %a : si32
  kernel.return
}
// -----

// CASE 7: a stored value must have the slice's element type
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %v: f64) attributes {kernel} {
  %idx = kernel.index_1d : !kernel.thread_index
  // expected-error @+1 {{stored value type f64 must be the element type f32}}
  kernel.store %v, %c[%idx] : f64, !kernel.disjoint_slice<f32>, !kernel.thread_index
  kernel.return
}
// -----

// CASE 8: kernel.if branches must yield the op's result types
kernel.func @k(%c: i1, %a: si32, %f: f32) attributes {kernel} {
  // expected-error @+1 {{the then region yields ['si32'] but kernel.if returns ['f32']}}
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
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64, %v: f32) attributes {kernel} {
  // expected-error @+1 {{a disjoint_slice is written only through a !kernel.thread_index or !kernel.block_index, got si64}}
  kernel.store %v, %c[%i] : f32, !kernel.disjoint_slice<f32>, si64
  kernel.return
}
// -----

// CASE: a shuffle width is a power of two up to 32
kernel.func @k(%x: f32, %i: si64) attributes {kernel} {
  // expected-error @+1 {{the shuffle width must be a power of two from 1 to 32, got 12}}
  %r, %rv = kernel.shuffle xor %x, %i {width = 12} : f32, si64
  kernel.return
}
// -----

// CASE: no atomic and on floats
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  // expected-error @+1 {{atomic and is integer-only, got f32}}
  %r = kernel.atomic and %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: no 16-bit integer atomics
kernel.func @k(%a: !kernel.atomic_slice<si16>, %i: si64, %x: si16) attributes {kernel} {
  // expected-error @+1 {{atomic add on 16-bit integers is not supported (32- and 64-bit only)}}
  %r = kernel.atomic add %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<si16>, si64, si16
  kernel.return
}
// -----

// CASE: atomics need an atomic or raw slice, or a shared array
kernel.func @k(%a: !kernel.disjoint_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  // expected-error @+1 {{'kernel.atomic' op add needs an atomic_slice, raw_slice or shared array, got !kernel.disjoint_slice<f32>}}
  %r = kernel.atomic add %a[%i], %x {scope = "device", ordering = "relaxed"} : !kernel.disjoint_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: unknown atomic scope
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  // expected-error @+1 {{unknown atomic scope 'warp', expected one of block, device, system}}
  %r = kernel.atomic add %a[%i], %x {scope = "warp", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: an array index per dimension
kernel.func @k(%i: si64) attributes {kernel} {
  %s = kernel.shared_array : !kernel.shared<4x4xf32>
  // expected-error @+1 {{!kernel.shared<4x4xf32> has 2 dimension(s) but 1 index(es) were given}}
  %v = kernel.array_load %s[%i] : !kernel.shared<4x4xf32>, si64 -> f32
  kernel.return
}
// -----

// CASE: a local array has a static shape
kernel.func @k() attributes {kernel} {
  // expected-error @+1 {{a local array has a static shape}}
  %l = kernel.local_array : !kernel.local<?xf32>
  kernel.return
}
// -----

// CASE: a tile view takes two coordinates and three sizes
kernel.func @k(%c: !kernel.disjoint_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  %t = kernel.index_2d %i : si64 -> !kernel.thread_index
  // expected-error @+1 {{a tile view takes 2 coordinate(s), got 1}}
  kernel.view_store %x, %c[%t] at(%i) sizes(%i, %i, %i) {view = "tile"} : f32, !kernel.disjoint_slice<f32>, !kernel.thread_index, (si64), (si64, si64, si64)
  kernel.return
}
// -----

// CASE: compare-and-swap is integer-only
kernel.func @k(%a: !kernel.atomic_slice<f32>, %i: si64, %x: f32) attributes {kernel} {
  // expected-error @+1 {{atomic compare-and-swap works on 32- and 64-bit integers, got f32}}
  %r = kernel.atomic_cas %a[%i], %x, %x {scope = "device", ordering = "relaxed"} : !kernel.atomic_slice<f32>, si64, f32
  kernel.return
}
// -----

// CASE: kernel.print needs one operand per field
kernel.func @k(%i: si64) attributes {kernel} {
  // expected-error @+1 {{'kernel.print' op the format has 2 field(s) but the op has 1 operand(s)}}
  kernel.print "{} {}\n", %i : si64
  kernel.return
}
// -----

// CASE: a spec without a printf equivalent (centering) is refused
kernel.func @k(%x: f32) attributes {kernel} {
  // expected-error @+1 {{'kernel.print' op operand 0 (f32): the format spec ':^8' has no printf equivalent in a kernel (supported: [<|>}}
  kernel.print "{:^8}\n", %x : f32
  kernel.return
}
// -----

// CASE: hex of a signed integer would print two's-complement bits, unlike Python
kernel.func @k(%n: si32) attributes {kernel} {
  // expected-error @+1 {{'kernel.print' op operand 0 (si32): ':x': 'x' of a signed integer would print its two's-complement bits, not P}}
  kernel.print "{:x}\n", %n : si32
  kernel.return
}
// -----

// CASE: fields are anonymous
// CHECK: kernel.print fields are anonymous, without a conversion
kernel.func @k(%n: si32) attributes {kernel} {
  // expected-error @+1 {{'kernel.print' op fields are anonymous, without a conversion ('{}' or '{:spec}'); got '{n}'}}
  kernel.print "{n}\n", %n : si32
  kernel.return
}
// -----

// CASE: a float presentation of an integer operand (the frontend converts to f64 first)
kernel.func @k(%n: si32) attributes {kernel} {
  // expected-error @+1 {{'kernel.print' op operand 0 (si32): ':.2f': a float presentation needs a float operand (convert the integer to}}
  kernel.print "{:.2f}\n", %n : si32
  kernel.return
}
// -----

// CASE: at most one tile of rank > 0 per print
kernel.func @k() attributes {kernel, tile} {
  %a = tile.iota : !tile.tile<4xsi32>
  // expected-error @+1 {{'kernel.print' op at most one operand may be a tile of rank > 0, got 2}}
  kernel.print "{} {}\n", %a, %a : !tile.tile<4xsi32>, !tile.tile<4xsi32>
  kernel.return
}
// -----

// CASE: a strided tensor parameter's last axis is contiguous
// expected-error @+1 {{the last stride of a !kernel.tensor must be 1 (the last axis is contiguous), got 4}}
kernel.func @k(%x: !kernel.tensor<?x?xf32, strides = [1, 4]>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE: the builtins' integer ops refuse floats (the frontend says so first: simt.cdiv() needs integers)
kernel.func @k(%a: f32) attributes {kernel} {
  // expected-error @+1 {{'kernel.ceildiv' op is not defined on floats (f32)}}
  %c = kernel.ceildiv %a, %a : f32
  kernel.return
}
// -----
kernel.func @k(%a: f64) attributes {kernel} {
  // expected-error @+1 {{'kernel.popc' op is not defined on f64}}
  %c = kernel.popc %a : f64
  kernel.return
}
// -----

// CASE: a thread-id dimension is gpu.dim's x, y or z (an enum attribute, as on gpu.thread_id)
kernel.func @k() attributes {kernel} {
  // expected-error @+1 {{Expected `x`, `y`, or `z`}}
  %t = kernel.thread_idx w : si64
  kernel.return
}
// -----

// CASE: a vote is one of gpu.vote's kinds
kernel.func @k(%p: i1) attributes {kernel} {
  // expected-error @+1 {{Expected `any`, or `all`}}
  %r = kernel.vote none %p
  kernel.return
}
// -----

// CASE: a barrier reduction is one of gpu.barrier_reduce's
kernel.func @k(%p: i1) attributes {kernel} {
  // expected-error @+1 {{'kernel.barrier_reduce' op "popc" should be of base attribute gpu.barrier_reduction}}
  %n = "kernel.barrier_reduce"(%p) <{kind = "popc"}> : (i1) -> si32
  kernel.return
}
