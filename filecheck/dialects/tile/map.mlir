// RUN: warpforge-opt %s | warpforge-opt | filecheck %s

// tile.map prints and parses: operands, their types, the result type, the body with its element arguments.
// CHECK-LABEL: kernel.func @roundtrip(
// CHECK:         %{{.*}} = tile.map %{{.*}}, %{{.*}} : (!tile.tile<16x8xf32>, !tile.tile<16x8xsi32>) -> !tile.tile<16x8xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: si32):
// CHECK-NEXT:      %[[C:.*]] = kernel.cast %[[B]] : si32 to f32
// CHECK-NEXT:      %[[S:.*]] = kernel.add %[[A]], %[[C]] : f32
// CHECK-NEXT:      tile.yield %[[S]] : f32
// CHECK-NEXT:    }
kernel.func @roundtrip(%a: !tile.tile<16x8xf32>, %b: !tile.tile<16x8xsi32>) {
  %r = tile.map %a, %b : (!tile.tile<16x8xf32>, !tile.tile<16x8xsi32>) -> !tile.tile<16x8xf32> {
  ^bb0(%x: f32, %y: si32):
    %c = kernel.cast %y : si32 to f32
    %s = kernel.add %x, %c : f32
    tile.yield %s : f32
  }
  kernel.return
}
