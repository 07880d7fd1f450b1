// RUN: warpforge-opt %s -p tile-to-gpu | filecheck %s

// tile.group_m = 4 (tile-tma-ring sets it): block ids walk 4 tile rows column by column. With
// R x C tiles (R = ceil(m / 64), C = ceil(n / 64)): group = bid / (4 C), first row 4 group, rows in
// the group min(R - first, 4); row = first + (bid mod 4C) mod size, column = (bid mod 4C) / size.
// CHECK-LABEL: gpu.func @grouped(
// CHECK:       %[[B:.*]] = gpu.block_id x
// CHECK-NEXT:  %[[BID:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK:       %[[ROWS:.*]] = arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK:       %[[COLS:.*]] = arith.shrui %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  %[[G:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  %[[PER:.*]] = arith.muli %[[COLS]], %[[G]] : i64
// CHECK-NEXT:  %[[GROUP:.*]] = arith.divui %[[BID]], %[[PER]] : i64
// CHECK-NEXT:  %[[G2:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  %[[FIRST:.*]] = arith.muli %[[GROUP]], %[[G2]] : i64
// CHECK-NEXT:  %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[FIRST]] : i64
// CHECK-NEXT:  %[[G3:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[G3]] : i64
// CHECK-NEXT:  %[[WITHIN:.*]] = arith.remui %[[BID]], %[[PER]] : i64
// CHECK-NEXT:  %[[R:.*]] = arith.remui %[[WITHIN]], %[[SIZE]] : i64
// CHECK-NEXT:  %[[ROW:.*]] = arith.addi %[[FIRST]], %[[R]] : i64
// CHECK:       %[[COL:.*]] = arith.divui %{{.*}}, %{{.*}} : i64
kernel.func @grouped(%c: !tile.tensor_view<?x?xf32>) attributes {kernel, tile, tile.group_m = 4 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16, 16>}]} {
  %cp = tile.make_partition_view %c : !tile.tensor_view<?x?xf32> -> !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %i = tile.block_coord %cp[0] : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %j = tile.block_coord %cp[1] : !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>
  %t = tile.full 1.0 : f32 -> !tile.tile<64x64xf32>
  tile.store %t, %cp[%i, %j] : !tile.tile<64x64xf32>, !tile.partition_view<[64, 64], !tile.tensor_view<?x?xf32>, padding = 0.0 : f32>, si64, si64
  kernel.return
}
