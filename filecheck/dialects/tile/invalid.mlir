// RUN: warpforge-opt %s --split-input-file --verify-diagnostics
// Each case fails verification or parsing with a message that says what was expected and what was found.

// CASE 1: tile dimensions are powers of two
// expected-error @+1 {{!tile.tile has dimension 100 in 100xf32: tile dimensions must be powers of two (1, 2, 4, …)}}
kernel.func @k(%a: !tile.tile<100xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 2: tile shapes are static
// expected-error @+1 {{!tile.tile has a dynamic dimension '?' in ?x16xf32: tile shapes are static}}
kernel.func @k(%a: !tile.tile<?x16xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 3: a partition view's tile shape is a power of two too
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{the tile shape of !tile.partition_view has dimension 96 in [96]: tile dimensions must be powers of two}}
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[96], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  kernel.return
}
// -----

// CASE 4: the partition's rank is the tensor's
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{a partition view's tile shape [16, 16] must have the tensor's rank 1}}
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  kernel.return
}
// -----

// CASE 5: the padding has the element type
kernel.func @k(%a: !tile.tensor_view<?xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{the padding value must be a constant of the element type f32, got 0 : si32}}
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0 : si32>
  kernel.return
}
// -----

// CASE 6: the last stride of a tensor view is 1
// expected-error @+1 {{the last stride of a !tile.tensor_view must be 1 (rows are contiguous), got 2}}
kernel.func @k(%a: !tile.tensor_view<?x?xf32, strides = [?, 2]>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 7: elementwise ops take one tile type
kernel.func @k(%a: !tile.tile<16xf32>, %b: !tile.tile<32xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{operand is used with type !tile.tile<16xf32>, but has been previously used or defined with type !tile.tile<32xf32>}}
  %c = tile.add %a, %b : !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 8: true division is a float op
kernel.func @k(%a: !tile.tile<16xsi32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.truediv' op is not defined on integer tiles (!tile.tile<16xsi32>)}}
  %c = tile.truediv %a, %a : !tile.tile<16xsi32>
  kernel.return
}
// -----

// CASE 9: broadcasting follows NumPy
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{cannot broadcast shape (4, 16) to (8, 16)}}
  %c = tile.broadcast %a : !tile.tile<4x16xf32> -> !tile.tile<8x16xf32>
  kernel.return
}
// -----

// CASE 10: reshape keeps the number of elements
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.reshape' op keeps the element type and the number of elements}}
  %c = tile.reshape %a : !tile.tile<4x16xf32> -> !tile.tile<128xf32>
  kernel.return
}
// -----

// CASE 11: a reduction's result type follows from the axis
kernel.func @k(%a: !tile.tile<4x16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{reducing axis 1 of !tile.tile<4x16xf32> gives !tile.tile<4xf32>, not !tile.tile<16xf32>}}
  %c = "tile.reduce"(%a) <{kind = "sum", axis = #builtin.int<1>}> : (!tile.tile<4x16xf32>) -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 12: tile.load needs one coordinate per dimension
kernel.func @k(%a: !tile.tensor_view<?x?xf32>, %i: si64) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  // expected-error @+1 {{'tile.load' op needs 2 tile coordinate(s), got 1}}
  %t = tile.load %p[%i] : !tile.partition_view<[16, 16], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<16x16xf32>
  kernel.return
}
// -----

// CASE 13: tile.store writes the partition's tile type
kernel.func @k(%a: !tile.tensor_view<?xf32>, %t: !tile.tile<32xf32>, %i: si64) attributes {kernel, tile} {
  %p = tile.make_partition_view %a : !tile.tensor_view<?xf32> -> !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // expected-error @+1 {{'tile.store' op into !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32> needs a !tile.tile<16xf32>, got !tile.tile<32xf32>}}
  tile.store %t, %p[%i] : !tile.tile<32xf32>, !tile.partition_view<[16], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  kernel.return
}
// -----

// CASE 14: tile.extract needs one element
kernel.func @k(%t: !tile.tile<16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.extract' op needs a one-element tile, got !tile.tile<16xf32>}}
  %s = tile.extract %t : !tile.tile<16xf32> -> f32
  kernel.return
}
// -----

// CASE 15: tile.where's condition is a bool tile of the same shape
kernel.func @k(%c: !tile.tile<8xi1>, %t: !tile.tile<16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.where' op needs a condition !tile.tile<16xi1>, got !tile.tile<8xi1>}}
  %s = tile.where %c, %t, %t : !tile.tile<8xi1>, !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 16: permutations are permutations
kernel.func @k(%t: !tile.tile<8x16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{[0, 0] is not a permutation of the 2 dimensions}}
  %s = "tile.permute"(%t) <{permutation = [#builtin.int<0>, #builtin.int<0>]}> : (!tile.tile<8x16xf32>) -> !tile.tile<8x8xf32>
  kernel.return
}
// -----

// CASE 17: masked accesses need a bool mask shaped like the offsets
kernel.func @k(%v: !tile.tensor_view<?xf32>, %o: !tile.tile<16xsi64>, %m: !tile.tile<16xsi32>, %p: f32) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.load_masked' op the mask must be !tile.tile<16xi1>, got !tile.tile<16xsi32>}}
  %t = tile.load_masked %v[%o], %m, %p : !tile.tensor_view<?xf32>, !tile.tile<16xsi64>, !tile.tile<16xsi32>, f32 -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 18: a full tile's value has the element type
kernel.func @k() attributes {kernel, tile} {
  // expected-error @+1 {{'tile.full' op the value 1 : si32 must have the element type f32}}
  %t = tile.full 1 : si32 -> !tile.tile<16xf32>
  kernel.return
}
// -----

// CASE 19: unknown reductions
kernel.func @k(%t: !tile.tile<16xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{Expected one of 'max', 'min', 'prod', 'sum' (reduction)}}
  %s = tile.reduce mean %t [0] : !tile.tile<16xf32> -> !tile.tile<f32>
  kernel.return
}
// -----

// CASE 20: tensor views have rank 1 to 4
// expected-error @+1 {{!tile.tensor_view has rank 1 to 4, got rank 5}}
kernel.func @k(%a: !tile.tensor_view<?x?x?x?x?xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 21: tiles have rank 0 to 4
// expected-error @+1 {{!tile.tile 2x2x2x2x2xf32 has rank 5; tiles have rank 0 to 4}}
kernel.func @k(%a: !tile.tile<2x2x2x2x2xf32>) attributes {kernel, tile} {
  kernel.return
}
// -----

// CASE 22: tile.argmax gives si64 indices without the reduced axis (or with it as 1, keepdims)
kernel.func @k(%t: !tile.tile<4x64xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.argmax' op over axis 1 of !tile.tile<4x64xf32> gives !tile.tile<4xsi64>, not !tile.tile<4xsi32>}}
  %i = tile.argmax %t [1] : !tile.tile<4x64xf32> -> !tile.tile<4xsi32>
  kernel.return
}
// -----

// CASE 23: tile.argmin's axis is an axis of the tile
kernel.func @k(%t: !tile.tile<4x64xf32>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.argmin' op axis 2 is out of range for !tile.tile<4x64xf32>}}
  %i = tile.argmin %t [2] : !tile.tile<4x64xf32> -> !tile.tile<4x64xsi64>
  kernel.return
}
// -----

// CASE 24: tile.cumsum keeps the type and is not defined on bool tiles
kernel.func @k(%t: !tile.tile<64xi1>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.cumsum' op is not defined on bool tiles (cast to an integer type first)}}
  %c = tile.cumsum %t [0] : !tile.tile<64xi1> -> !tile.tile<64xi1>
  kernel.return
}
// -----
// CASE 20: layout parameters are powers of two
// expected-error @+1 {{#tile.blocked owners must be a power of two, got 96}}
kernel.func @k(%t: !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 96, replicas = 1>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 21: a blocked layout's chunks lie in one row
// expected-error @+1 {{#tile.blocked vec = 4 must divide the last dimension 2 of the tile}}
kernel.func @k(%t: !tile.tile<64x2xf32, #tile.blocked<vec = 4, owners = 32, replicas = 1>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 22: a blocked layout's owners cover the tile
// expected-error @+1 {{#tile.blocked: 128 owners of 4 elements each need a multiple of 512 elements, the tile has 256}}
kernel.func @k(%t: !tile.tile<256xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 23: the mma accumulator layout covers M and N by whole fragments
// expected-error @+1 {{#tile.mma with 2x2 warps of 16x8 fragments covers M×N tiles with M a multiple of 32 and N of 16, got [16, 64]}}
kernel.func @k(%t: !tile.tile<16x64xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 24: mma.sync fragments are m16n8
// expected-error @+1 {{#tile.mma instr_shape is the mma.sync m16n8 fragment [16, 8], got [16, 16]}}
kernel.func @k(%t: !tile.tile<64x64xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 16]>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 25: dot operands name A or B
// expected-error @+1 {{#tile.dot_operand op_idx is 0 (A) or 1 (B), got 2}}
kernel.func @k(%t: !tile.tile<64x32xf16, #tile.dot_operand<op_idx = 2, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26: a slice's parent is a blocked layout or an MMA accumulator's
// expected-error @+1 {{the parent of #tile.slice is a #tile.blocked, #tile.mma or #tile.wgmma layout, got #tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [0]>}}
kernel.func @k(%t: !tile.tile<16xf32, #tile.slice<dim = 1, extent = 2, parent = #tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [0]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26b: the slice of an MMA accumulator is its rows (the columns reduced)
// expected-error @+1 {{#tile.slice of tile.mma is the rows of the accumulator (dim = 1, the columns reduced), got dim = 0}}
kernel.func @k(%t: !tile.tile<16xf32, #tile.slice<dim = 0, extent = 16, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26c: the rows of an accumulator whose warps split N are not whole in one warp
// expected-error @+1 {{#tile.slice of tile.mma needs warps that split M only (warps_per_cta = [Wm, 1]: each warp owns whole rows), got [2, 2]}}
kernel.func @k(%t: !tile.tile<32xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26d: the extent is the accumulator's N, whole n8 fragments
// expected-error @+1 {{#tile.slice of tile.mma: extent (the accumulator's N) must be a multiple of the fragment's 8 columns, got 2}}
kernel.func @k(%t: !tile.tile<16xf32, #tile.slice<dim = 1, extent = 2, parent = #tile.mma<warps_per_cta = [1, 1], instr_shape = [16, 8]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26e: the rows slice holds an M or Mx1 tile, 16 rows per warp along M
// expected-error @+1 {{#tile.slice of tile.mma with 4 warps along M holds the rows of the accumulator: an M or Mx1 tile, M a multiple of 64; got [32]}}
kernel.func @k(%t: !tile.tile<32xf32, #tile.slice<dim = 1, extent = 16, parent = #tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 26f: a wgmma accumulator's rows are its 16 x warps rows
// expected-error @+1 {{#tile.slice of tile.wgmma with 4 warps along M holds the rows of the accumulator: an M or Mx1 tile, 64; got [128, 1]}}
kernel.func @k(%t: !tile.tile<128x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 128]>>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 27: a shared layout's order names every dimension
// expected-error @+1 {{#tile.shared order [0] must name each of the 2 dimensions of the tile}}
kernel.func @k(%t: !tile.tile<64x32xf16, #tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [0]>>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 28: the encoding is a tile layout
// expected-error @+1 {{the encoding of !tile.tile is a #tile layout (blocked, slice, mma, dot_operand, shared), got 3 : i32}}
kernel.func @k(%t: !tile.tile<16xf32, 3 : i32>) attributes {kernel, tile} {
  kernel.return
}
// -----
// CASE 29: tile.convert_layout changes only the encoding
kernel.func @k(%t: !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 16, replicas = 1>>) attributes {kernel, tile} {
  // expected-error @+1 {{'tile.convert_layout' op changes only the encoding: !tile.tile<16xf32> vs !tile.tile<16xf16>}}
  %c = tile.convert_layout %t : !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 16, replicas = 1>> -> !tile.tile<16xf16, #tile.blocked<vec = 1, owners = 16, replicas = 1>>
  kernel.return
}
// -----
// CASE 30: elementwise operands agree in layout
kernel.func @k(%a: !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 16, replicas = 1>>, %b: !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 8, replicas = 2>>) attributes {kernel, tile} {
  // expected-error @+1 {{operand is used with type !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 16, replicas = 1>>, but has been previously used or defined with type !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 8, replicas = 2>>}}
  %c = tile.add %a, %b : !tile.tile<16xf32, #tile.blocked<vec = 1, owners = 16, replicas = 1>>
  kernel.return
}
