// RUN: warpforge-opt %s | filecheck %s
// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// Every tile-dialect type and op round-trips through its custom syntax and the generic form.

// CHECK-LABEL: kernel.func @views(
// CHECK-SAME: %[[Z:.*]]: !tile.tensor_view<?xf32>, %[[X:.*]]: !tile.tensor_view<?x1024xf32>, %[[S:.*]]: !tile.tensor_view<?x?xsi32, strides = [?, 1]>)
kernel.func @views(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<?x1024xf32>, %s: !tile.tensor_view<?x?xsi32, strides = [?, 1]>) attributes {kernel, tile} {
  // CHECK: %[[B:.*]] = tile.block_id : si64
  %b = tile.block_id : si64
  // CHECK: tile.num_blocks : si64
  %nb = tile.num_blocks : si64
  // CHECK: %[[N:.*]] = tile.dim %[[X]][0] : !tile.tensor_view<?x1024xf32>
  %n = tile.dim %x[0] : !tile.tensor_view<?x1024xf32>
  // CHECK: %[[ZP:.*]] = tile.make_partition_view %[[Z]] : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %zp = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // CHECK: tile.num_tiles %[[ZP]][0] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %nt = tile.num_tiles %zp[0] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // CHECK: tile.block_coord %[[ZP]][0] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %bc = tile.block_coord %zp[0] : !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>
  // CHECK: %[[X2:.*]] = tile.make_tensor_view %[[Z]](%[[N]]) : !tile.tensor_view<?xf32> -> !tile.tensor_view<?x8xf32>
  %x2 = tile.make_tensor_view %z (%n) : !tile.tensor_view<?xf32> -> !tile.tensor_view<?x8xf32>
  // CHECK: %[[XP:.*]] = tile.make_partition_view %[[X]] : !tile.tensor_view<?x1024xf32> -> !tile.partition_view<[1, 1024], !tile.tensor_view<?x1024xf32>, padding = 0xff800000 : f32>
  %xp = tile.make_partition_view %x : !tile.tensor_view<?x1024xf32> -> !tile.partition_view<[1, 1024], !tile.tensor_view<?x1024xf32>, padding = 0xFF800000 : f32>
  // CHECK: %[[T:.*]] = tile.load %[[XP]][%[[B]], %[[B]]] : !tile.partition_view<[1, 1024], !tile.tensor_view<?x1024xf32>, padding = 0xff800000 : f32>, si64, si64 -> !tile.tile<1x1024xf32>
  %t = tile.load %xp[%b, %b] : !tile.partition_view<[1, 1024], !tile.tensor_view<?x1024xf32>, padding = 0xff800000 : f32>, si64, si64 -> !tile.tile<1x1024xf32>
  // CHECK: %[[L:.*]] = tile.load_tile_like %[[Z]], %[[ZP]][%[[B]]] : !tile.tensor_view<?xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>, si64 -> !tile.tile<128xf32>
  %l = tile.load_tile_like %z, %zp[%b] : !tile.tensor_view<?xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64 -> !tile.tile<128xf32>
  // CHECK: tile.store %[[L]], %[[ZP]][%[[B]]] : !tile.tile<128xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>, si64
  tile.store %l, %zp[%b] : !tile.tile<128xf32>, !tile.partition_view<[128], !tile.tensor_view<?xf32>, padding = 0.0 : f32>, si64
  // CHECK: %[[I:.*]] = tile.iota : !tile.tile<128xsi64>
  %i = tile.iota : !tile.tile<128xsi64>
  // CHECK: %[[TRUE:.*]] = tile.full true -> !tile.tile<128xi1>
  %true = tile.full true -> !tile.tile<128xi1>
  // CHECK: %[[PAD:.*]] = kernel.constant 0.000000e+00 : f32
  %pad = kernel.constant 0.0 : f32
  // CHECK: %[[G:.*]] = tile.load_masked %[[Z]][%[[I]]], %[[TRUE]], %[[PAD]] : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
  %g = tile.load_masked %z[%i], %true, %pad : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>, f32 -> !tile.tile<128xf32>
  // CHECK: tile.store_masked %[[G]], %[[Z]][%[[I]]], %[[TRUE]] : !tile.tile<128xf32>, !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>
  tile.store_masked %g, %z[%i], %true : !tile.tile<128xf32>, !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xi1>
  // CHECK: tile.atomic_rmw add %[[Z]][%[[I]]], %[[G]], %[[TRUE]] : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>
  tile.atomic_rmw add %z[%i], %g, %true : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>
  // CHECK: tile.atomic_rmw max %[[Z]][%[[I]]], %[[G]], %[[TRUE]]
  tile.atomic_rmw max %z[%i], %g, %true : !tile.tensor_view<?xf32>, !tile.tile<128xsi64>, !tile.tile<128xf32>, !tile.tile<128xi1>
  kernel.return
}

// CHECK-LABEL: kernel.func @compute(
kernel.func @compute(%a: !tile.tile<8x16xf32>, %i: !tile.tile<128xsi32>, %u: !tile.tile<128xui8>, %s: f32) attributes {kernel, tile} {
  // CHECK: tile.add %{{.*}}, %{{.*}} : !tile.tile<8x16xf32>
  %0 = tile.add %a, %a : !tile.tile<8x16xf32>
  // CHECK: tile.sub %{{.*}}, %{{.*}} : !tile.tile<8x16xf32>
  %1 = tile.sub %a, %0 : !tile.tile<8x16xf32>
  // CHECK: tile.mul
  %2 = tile.mul %a, %1 : !tile.tile<8x16xf32>
  // CHECK: tile.truediv
  %3 = tile.truediv %a, %2 : !tile.tile<8x16xf32>
  // CHECK: tile.floordiv %{{.*}}, %{{.*}} : !tile.tile<128xsi32>
  %4 = tile.floordiv %i, %i : !tile.tile<128xsi32>
  // CHECK: tile.mod %{{.*}}, %{{.*}} : !tile.tile<128xsi32>
  %5 = tile.mod %i, %4 : !tile.tile<128xsi32>
  // CHECK: tile.pow
  %6 = tile.pow %a, %3 : !tile.tile<8x16xf32>
  // CHECK: tile.and
  %7 = tile.and %i, %5 : !tile.tile<128xsi32>
  // CHECK: tile.or
  %8 = tile.or %u, %u : !tile.tile<128xui8>
  // CHECK: tile.xor
  %9 = tile.xor %u, %8 : !tile.tile<128xui8>
  // CHECK: tile.lshift
  %10 = tile.lshift %i, %7 : !tile.tile<128xsi32>
  // CHECK: tile.rshift
  %11 = tile.rshift %i, %10 : !tile.tile<128xsi32>
  // CHECK: tile.maximum %{{.*}}, %{{.*}} : !tile.tile<8x16xf32>
  %12 = tile.maximum %a, %6 : !tile.tile<8x16xf32>
  // CHECK: tile.minimum
  %13 = tile.minimum %a, %12 : !tile.tile<8x16xf32>
  // CHECK: tile.neg %{{.*}} : !tile.tile<128xsi32>
  %14 = tile.neg %11 : !tile.tile<128xsi32>
  // CHECK: tile.abs
  %15 = tile.abs %14 : !tile.tile<128xsi32>
  // CHECK: tile.invert
  %16 = tile.invert %15 : !tile.tile<128xsi32>
  // CHECK: tile.exp %{{.*}} : !tile.tile<8x16xf32>
  %17 = tile.exp %13 : !tile.tile<8x16xf32>
  // CHECK: tile.exp2
  %18 = tile.exp2 %17 : !tile.tile<8x16xf32>
  // CHECK: tile.log
  %19 = tile.log %18 : !tile.tile<8x16xf32>
  // CHECK: tile.log2
  %20 = tile.log2 %19 : !tile.tile<8x16xf32>
  // CHECK: tile.sqrt
  %21 = tile.sqrt %20 : !tile.tile<8x16xf32>
  // CHECK: tile.rsqrt
  %22 = tile.rsqrt %21 : !tile.tile<8x16xf32>
  // CHECK: tile.sin
  %s1 = tile.sin %22 : !tile.tile<8x16xf32>
  // CHECK: tile.cos
  %s2 = tile.cos %s1 : !tile.tile<8x16xf32>
  // CHECK: tile.tanh
  %s3 = tile.tanh %s2 : !tile.tile<8x16xf32>
  // CHECK: tile.floor
  %s4 = tile.floor %s3 : !tile.tile<8x16xf32>
  // CHECK: tile.ceil
  %s5 = tile.ceil %s4 : !tile.tile<8x16xf32>
  // CHECK: %[[M:.*]] = tile.cmp lt, %{{.*}}, %{{.*}} : !tile.tile<8x16xf32> -> !tile.tile<8x16xi1>
  %23 = tile.cmp lt, %a, %s5 : !tile.tile<8x16xf32> -> !tile.tile<8x16xi1>
  // CHECK: tile.not %[[M]] : !tile.tile<8x16xi1>
  %n = tile.not %23 : !tile.tile<8x16xi1>
  // CHECK: tile.where %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<8x16xi1>, !tile.tile<8x16xf32>
  %24 = tile.where %n, %a, %s5 : !tile.tile<8x16xi1>, !tile.tile<8x16xf32>
  // CHECK: tile.cast %{{.*}} : !tile.tile<128xsi32> to !tile.tile<128xf32>
  %25 = tile.cast %16 : !tile.tile<128xsi32> to !tile.tile<128xf32>
  // CHECK: tile.splat %{{.*}} : f32 -> !tile.tile<8x16xf32>
  %26 = tile.splat %s : f32 -> !tile.tile<8x16xf32>
  // CHECK: %[[R:.*]] = tile.reduce sum %{{.*}} [1] keepdims : !tile.tile<8x16xf32> -> !tile.tile<8x1xf32>
  %27 = tile.reduce sum %24 [1] keepdims : !tile.tile<8x16xf32> -> !tile.tile<8x1xf32>
  // CHECK: tile.reduce max %{{.*}} [0] : !tile.tile<8x16xf32> -> !tile.tile<16xf32>
  %28 = tile.reduce max %26 [0] : !tile.tile<8x16xf32> -> !tile.tile<16xf32>
  // CHECK: %[[ALL:.*]] = tile.reduce prod %{{.*}} [0] : !tile.tile<16xf32> -> !tile.tile<f32>
  %29 = tile.reduce prod %28 [0] : !tile.tile<16xf32> -> !tile.tile<f32>
  // CHECK: tile.reduce min
  %m = tile.reduce min %25 [0] keepdims : !tile.tile<128xf32> -> !tile.tile<1xf32>
  // CHECK: tile.extract %[[ALL]] : !tile.tile<f32> -> f32
  %30 = tile.extract %29 : !tile.tile<f32> -> f32
  // CHECK: tile.broadcast %[[R]] : !tile.tile<8x1xf32> -> !tile.tile<8x16xf32>
  %31 = tile.broadcast %27 : !tile.tile<8x1xf32> -> !tile.tile<8x16xf32>
  // CHECK: tile.reshape %{{.*}} : !tile.tile<8x16xf32> -> !tile.tile<128xf32>
  %32 = tile.reshape %31 : !tile.tile<8x16xf32> -> !tile.tile<128xf32>
  // CHECK: tile.permute %{{.*}} [1, 0] : !tile.tile<8x16xf32> -> !tile.tile<16x8xf32>
  %33 = tile.permute %31 [1, 0] : !tile.tile<8x16xf32> -> !tile.tile<16x8xf32>
  // CHECK: tile.transpose %{{.*}} : !tile.tile<16x8xf32> -> !tile.tile<8x16xf32>
  %34 = tile.transpose %33 : !tile.tile<16x8xf32> -> !tile.tile<8x16xf32>
  // CHECK: tile.full 1.000000e+00 : f32 -> !tile.tile<f32>
  %35 = tile.full 1.0 : f32 -> !tile.tile<f32>
  kernel.return
}

// Layout encodings (warpforge.dialects.tile_layout) as the last parameter of a tile type, and
// tile.convert_layout between them.

// CHECK-LABEL: kernel.func @layouts(
// CHECK-SAME: %[[A:.*]]: !tile.tile<64x128xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>
kernel.func @layouts(%a: !tile.tile<64x128xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>>) attributes {kernel, tile} {
  // CHECK: %[[R:.*]] = tile.reduce max %[[A]] [1] keepdims : !tile.tile<64x128xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>> -> !tile.tile<64x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>
  %r = tile.reduce max %a [1] keepdims : !tile.tile<64x128xf32, #tile.blocked<vec = 4, owners = 128, replicas = 1>> -> !tile.tile<64x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>>
  // CHECK: tile.convert_layout %[[R]] : !tile.tile<64x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>> -> !tile.tile<64x1xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  %c = tile.convert_layout %r : !tile.tile<64x1xf32, #tile.slice<dim = 1, extent = 128, parent = #tile.blocked<vec = 4, owners = 128, replicas = 1>>> -> !tile.tile<64x1xf32, #tile.blocked<vec = 1, owners = 64, replicas = 2>>
  // CHECK: tile.full 0.000000e+00 : f32 -> !tile.tile<64x64xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
  %m = tile.full 0.0 : f32 -> !tile.tile<64x64xf32, #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>
  // CHECK: !tile.tile<64x32xf16, #tile.dot_operand<op_idx = 0, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>
  %da = tile.full 0.0 : f16 -> !tile.tile<64x32xf16, #tile.dot_operand<op_idx = 0, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>
  // CHECK: !tile.tile<32x64xf16, #tile.dot_operand<op_idx = 1, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>
  %db = tile.full 0.0 : f16 -> !tile.tile<32x64xf16, #tile.dot_operand<op_idx = 1, parent = #tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>>>
  // CHECK: !tile.tile<64x32xf16, #tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [1, 0]>>
  %s = tile.full 0.0 : f16 -> !tile.tile<64x32xf16, #tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [1, 0]>>
  kernel.return
}
