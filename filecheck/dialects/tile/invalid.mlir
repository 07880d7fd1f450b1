// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// Each case fails verification or parsing with a message that says what was expected and what was found.

// CASE 1: tile dimensions are powers of two
// CHECK: !tile.tile has dimension 100 in 100xf32: tile dimensions must be powers of two (1, 2, 4, …)
kernel.func @k(%a: !tile.tile<100xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 2: tile shapes are static
// CHECK: !tile.tile has a dynamic dimension '?' in ?x16xf32: tile shapes are static
kernel.func @k(%a: !tile.tile<?x16xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 3: a partition view's tile shape is a power of two too
// CHECK: the tile shape of !tile.partition_view has dimension 96 in [96]: tile dimensions must be powers of two
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[96], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  kernel.return
}
// -----

// CASE 4: the partition's rank is the tensor's
// CHECK: a partition view's tile shape [16, 16] must have the tensor's rank 1
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  kernel.return
}
// -----

// CASE 5: the padding has the element type
// CHECK: the padding value must be a constant of the element type f32, got 0 : si32
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0 : si32>
  kernel.return
}
// -----

// CASE 6: the last stride of a tensor view is 1
// CHECK: the last stride of a !tile.tensor_view must be 1 (rows are contiguous), got 2
kernel.func @k(%a: !tile.tensor_view<?x?xf32, strides = [?, 2]>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 7: elementwise ops take one tile type
// CHECK: operand is used with type !tile.tile<16xf32>, but has been previously used or defined with type !tile.tile<32xf32>
kernel.func @k(%a: !tile.tile<16xf32>, %b: !tile.tile<32xf32>) attributes {kernel, tile} {
  %c = tile.add %a, %b : !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 8: true division is a float op
// CHECK: tile.truediv is not defined on integer tiles (!tile.tile<16xsi32>)
kernel.func @k(%a: !tile.tile<16xsi32>) attributes {kernel, tile} {
  %c = tile.truediv %a, %a : !tile.tile<16xsi32>
  kernel.return
}
// -----

// CASE 9: broadcasting follows NumPy
// CHECK: cannot broadcast shape (4, 16) to (8, 16)
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  %c = tile.broadcast %a : !tile.tile<4x16xf32> -> !tile.tile<8x16xf32>
  kernel.return
}
// -----

// CASE 10: reshape keeps the number of elements
// CHECK: tile.reshape keeps the element type and the number of elements
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  %c = tile.reshape %a : !tile.tile<4x16xf32> -> !tile.tile<128xf32>
  kernel.return
}
// -----

// CASE 11: a reduction's result type follows from the axis
// CHECK: reducing axis 1 of !tile.tile<4x16xf32> gives !tile.tile<4xf32>, not !tile.tile<16xf32>
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  %c = "tile.reduce"(%a) <{kind = "sum", axis = #builtin.int<1>}> : (!tile.tile<4x16xf32>) -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 12: tile.load needs one coordinate per dimension
// CHECK: tile.load needs 2 tile coordinate(s), got 1
kernel.func @k(%a: !tile.tensor_view<?x?xf32>, %i: si64) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.load %p[%i] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<16x16xf32>
  kernel.return
}
// -----

// CASE 13: tile.store writes the partition's tile type
// CHECK: tile.store into !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32> needs a !tile.tile<16xf32>, got !tile.tile<32xf32>
kernel.func @k(%a: !tile.tensor_view<?xf32>, %t: !tile.tile<32xf32>, %i: si64) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  tile.store %t, %p[%i] : !tile.tile<32xf32>, !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}
// -----

// CASE 14: tile.extract needs one element
// CHECK: tile.extract needs a one-element tile, got !tile.tile<16xf32>
kernel.func @k(%t: !tile.tile<16xf32>) attributes {kernel, tile} {
  %s = tile.extract %t : !tile.tile<16xf32> -> f32
  kernel.return
}
// -----

// CASE 15: tile.where's condition is a bool tile of the same shape
// CHECK: tile.where needs a condition !tile.tile<16xi1>, got !tile.tile<8xi1>
kernel.func @k(%c: !tile.tile<8xi1>, %t: !tile.tile<16xf32>) attributes {kernel, tile} {
  %s = tile.where %c, %t, %t : !tile.tile<8xi1>, !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 16: permutations are permutations
// CHECK: [0, 0] is not a permutation of the 2 dimensions
kernel.func @k(%t: !tile.tile<8x16xf32>) attributes {kernel, tile} {
  %s = "tile.permute"(%t) <{permutation = [#builtin.int<0>, #builtin.int<0>]}> : (!tile.tile<8x16xf32>) -> !tile.tile<8x8xf32>
  kernel.return
}
// -----

// CASE 17: masked accesses need a bool mask shaped like the offsets
// CHECK: tile.load_masked: the mask must be !tile.tile<16xi1>, got !tile.tile<16xsi32>
kernel.func @k(%v: !tile.tensor_view<?xf32>, %o: !tile.tile<16xsi64>, %m: !tile.tile<16xsi32>, %p: f32) attributes {kernel, tile} {
  %t = tile.load_masked %v[%o], %m, %p : !tile.tensor_view<?xf32>, !tile.tile<16xsi64>, !tile.tile<16xsi32>, f32 -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 18: a full tile's value has the element type
// CHECK: tile.full: the value 1 : si32 must have the element type f32
kernel.func @k() attributes {kernel, tile} {
  %t = tile.full 1 : si32 -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 19: unknown reductions
// CHECK: mean
kernel.func @k(%t: !tile.tile<16xf32>) attributes {kernel, tile} {
  %s = tile.reduce mean %t [0] : !tile.tile<16xf32> -> !tile.tile<f32>
  kernel.return
}
