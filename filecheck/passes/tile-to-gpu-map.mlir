// RUN: warpforge-opt %s --split-input-file -p 'tile-to-gpu{module=m},canonicalize,cse' | filecheck %s

// tile.map in tile-to-gpu (passes/lowerings/tile_map.py): the body once per register. Here a 64-element
// tile over 32 threads (2 registers each) and a body of several blocks (a device function with an `if`,
// inlined by inline-device-functions): each register gets its own copy of the blocks, joined by a branch
// to a continuation whose argument is the element; the store continues in the last continuation.
// CHECK-LABEL: gpu.func @leaky(
// CHECK:         %[[R0:.*]], %[[R1:.*]] = scf.if
// CHECK:         %[[C0:.*]] = arith.cmpf olt, %[[R0]], %{{.*}} : f32
// CHECK-NEXT:    cf.cond_br %[[C0]], ^[[NEG0:.*]], ^[[POS0:.*]]
// CHECK:       ^[[NEG0]]:
// CHECK:         arith.mulf
// CHECK:         cf.br ^[[JOIN0:.*]](%{{.*}} : f64)
// CHECK:       ^[[POS0]]:
// CHECK:         cf.br ^[[JOIN0]](%{{.*}} : f64)
// CHECK:       ^[[JOIN0]](%[[E0:.*]]: f64):
// CHECK:         %[[C1:.*]] = arith.cmpf olt, %[[R1]], %{{.*}} : f32
// CHECK-NEXT:    cf.cond_br %[[C1]]
// CHECK:       ^{{.*}}(%[[E1:.*]]: f64):
// CHECK-DAG:     arith.truncf %[[E0]] : f64 to f32
// CHECK-DAG:     arith.truncf %[[E1]] : f64 to f32
// CHECK:         vector.store
// CHECK:         gpu.return
kernel.func @leaky(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<64xf32>) attributes {kernel, tile, tile.grid = 0 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}], tile.num_warps = 1 : i32, checks = false} {
  %0 = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %1 = tile.block_coord %0[0] : !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
  %2 = tile.make_partition_view %x : !tile.tensor_view<64xf32> -> !tile.partition_view<[64], !tile.tensor_view<64xf32>, padding = 0.000000e+00 : f32>
  %3 = tile.load %2[%1] : !tile.partition_view<[64], !tile.tensor_view<64xf32>, padding = 0.000000e+00 : f32>, si64 -> !tile.tile<64xf32>
  %4 = tile.map %3 : (!tile.tile<64xf32>) -> !tile.tile<64xf64> {
  ^bb0(%x_1: f32):
    %slope = kernel.constant 5.000000e-01 : f64
    cf.br ^bb1
  ^bb1:
    %5 = kernel.constant 0.000000e+00 : f32
    %6 = kernel.cmp lt, %x_1, %5 : f32
    cf.cond_br %6, ^bb2, ^bb3
  ^bb2:
    %7 = kernel.cast %x_1 : f32 to f64
    %8 = kernel.mul %7, %slope : f64
    cf.br ^bb5(%8 : f64)
  ^bb3:
    cf.br ^bb4
  ^bb4:
    %9 = kernel.cast %x_1 : f32 to f64
    cf.br ^bb5(%9 : f64)
  ^bb5(%10: f64):
    tile.yield %10 : f64
  }
  %11 = tile.cast %4 : !tile.tile<64xf64> to !tile.tile<64xf32>
  tile.store %11, %0[%1] : !tile.tile<64xf32>, !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>, si64
  kernel.return
}

// -----

// A one-block body (no control flow) is emitted in place, once per register: no branches.
// CHECK-LABEL: gpu.func @scale(
// CHECK-NOT:     cf.br
// CHECK:         %[[A:.*]] = arith.mulf %{{.*}}, %[[H:.*]] : f32
// CHECK-NEXT:    %[[B:.*]] = arith.mulf %{{.*}}, %[[H]] : f32
// CHECK-NOT:     cf.br
// CHECK:         vector.store
kernel.func @scale(%z: !tile.tensor_view<?xf32>, %x: !tile.tensor_view<64xf32>) attributes {kernel, tile, tile.grid = 0 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 16>}, {align = 16 : i64, divisibility = array<i64: 16>}], tile.num_warps = 1 : i32, checks = false} {
%0 = tile.make_partition_view %z : !tile.tensor_view<?xf32> -> !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
%1 = tile.block_coord %0[0] : !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>
%2 = tile.make_partition_view %x : !tile.tensor_view<64xf32> -> !tile.partition_view<[64], !tile.tensor_view<64xf32>, padding = 0.000000e+00 : f32>
%3 = tile.load %2[%1] : !tile.partition_view<[64], !tile.tensor_view<64xf32>, padding = 0.000000e+00 : f32>, si64 -> !tile.tile<64xf32>
%4 = tile.map %3 : (!tile.tile<64xf32>) -> !tile.tile<64xf32> {
^bb0(%e: f32):
  %h = kernel.constant 5.000000e-01 : f32
  %m = kernel.mul %e, %h : f32
  tile.yield %m : f32
}
tile.store %4, %0[%1] : !tile.tile<64xf32>, !tile.partition_view<[64], !tile.tensor_view<?xf32>, padding = 0.000000e+00 : f32>, si64
kernel.return
}
