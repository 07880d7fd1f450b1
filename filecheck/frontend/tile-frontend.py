# RUN: warpforge compile %s --emit kernel | filecheck %s
# The tile frontend: tensor parameters (a partition's symbol bound to its tile shape), NumPy
# broadcasting and NEP 50 types between tiles and scalars, reductions, loops carrying tiles.
import math

import warpforge as wf
from warpforge import f32, i32, i64, tile


# CHECK-LABEL: kernel.func @add__
# CHECK-SAME: (%z: !kernel.partition<[128], !kernel.tensor<?xf32>>, %x: !kernel.tensor<?xf32>, %y: !kernel.tensor<?xf32>)
# CHECK-SAME: attributes {kernel, tile, tile.grid = 0 : i64, tile.arg_info = [{align = 16 : i64, divisibility = array<i64: 8>}
# CHECK: %[[TX:.*]] = kernel.load_tile_like %x, %z : !kernel.tensor<?xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>> -> !tile.tile<128xf32>
# CHECK: %[[TY:.*]] = kernel.load_tile_like %y, %z
# CHECK: %[[S:.*]] = tile.add %[[TX]], %[[TY]] : !tile.tile<128xf32>
# CHECK: kernel.part_store %[[S]], %z : !tile.tile<128xf32>, !kernel.partition<[128], !kernel.tensor<?xf32>>
@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


add.ahead_of_time(tile.spec(f32, (1000,), partition=(128,)), tile.spec(f32, (1000,)), tile.spec(f32, (1000,)))


# CHECK-LABEL: kernel.func @nep50__
@tile.kernel
def nep50(out: tile.Tensor[f32, ("B",)], xi: tile.Tensor[i32, (-1,)], n: i64):
    t = tile.load_tile_like(xi, out)
    # a weak literal keeps the tile's type: si32 + 1 is si32, splatted by tile.full
    # CHECK: %[[ONE:.*]] = tile.full 1 : si32 -> !tile.tile<128xsi32>
    # CHECK: tile.add %{{.*}}, %[[ONE]] : !tile.tile<128xsi32>
    a = t + 1
    # Python // and % on tiles round toward -inf (kernel semantics); the source text names the check
    # CHECK: tile.floordiv %{{.*}}, %{{.*}} {text = "a // 3"} : !tile.tile<128xsi32>
    q = a // 3
    # CHECK: tile.mod %{{.*}}, %{{.*}} {text = "a % 3"} : !tile.tile<128xsi32>
    r = a % 3
    # a typed scalar is strong: si32 tile + si64 scalar is si64, the scalar splatted
    # CHECK: tile.cast %{{.*}} : !tile.tile<128xsi32> to !tile.tile<128xsi64>
    # CHECK: tile.splat %n : si64 -> !tile.tile<128xsi64>
    # CHECK: tile.add %{{.*}}, %{{.*}} : !tile.tile<128xsi64>
    w = (q + r) + n
    # integer / is f64; then f32 by the store's same-kind conversion
    # CHECK: tile.truediv %{{.*}}, %{{.*}} : !tile.tile<128xf64>
    # CHECK: tile.cast %{{.*}} : !tile.tile<128xf64> to !tile.tile<128xf32>
    out.store(w / 2)


nep50.ahead_of_time(tile.spec(f32, (1000,), partition=(128,)), tile.spec(i32, (1000,)), tile.spec(i64))


# CHECK-LABEL: kernel.func @softmax__
# CHECK-SAME: (%out: !kernel.partition<[1, 1024], !kernel.tensor<?x?xf32>>, %x: !kernel.tensor<?x1024xf32>)
# CHECK: %[[ROW:.*]] = kernel.load_tile_like %x, %out {padding = 0xff800000 : f32}
# CHECK: %[[M:.*]] = tile.reduce max %[[ROW]] [1] keepdims : !tile.tile<1x1024xf32> -> !tile.tile<1x1xf32>
# CHECK: %[[MB:.*]] = tile.broadcast %[[M]] : !tile.tile<1x1xf32> -> !tile.tile<1x1024xf32>
# CHECK: %[[D:.*]] = tile.sub %[[ROW]], %[[MB]]
# CHECK: tile.exp %[[D]] : !tile.tile<1x1024xf32>
# CHECK: tile.reduce sum %{{.*}} [1] keepdims
# CHECK: tile.truediv
@tile.kernel
def softmax(out: tile.Tensor[f32, (1, "C")], x: tile.Tensor[f32, (-1, "C")]):
    row = tile.load_tile_like(x, out, padding=-math.inf)
    e = tile.exp(row - tile.max(row, axis=1, keepdims=True))
    out.store(e / e.sum(axis=1, keepdims=True))


softmax.ahead_of_time(tile.spec(f32, (64, 1024), partition=(1, 1024)), tile.spec(f32, (64, 1024)))


# CHECK-LABEL: kernel.func @partial_sum__
# CHECK: %[[ACC0:.*]] = tile.full 0.000000e+00 : f32 -> !tile.tile<256xf32>
# CHECK: kernel.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (!tile.tile<256xf32>) : si64 {
# CHECK: kernel.tile_id 0 : si64
# CHECK: %[[T:.*]] = kernel.tensor_load %x[%{{.*}}] : !kernel.tensor<?xf32>, si64 -> !tile.tile<256xf32>
# CHECK: %[[NEXT:.*]] = tile.add %[[ACC]], %[[T]] : !tile.tile<256xf32>
# CHECK: kernel.yield %[[NEXT]] : !tile.tile<256xf32>
# a full reduction is a rank-0 tile, broadcast to the (1,) part
# CHECK: %[[ALL:.*]] = tile.reduce sum %{{.*}} [0] : !tile.tile<256xf32> -> !tile.tile<f32>
# CHECK: tile.broadcast %[[ALL]] : !tile.tile<f32> -> !tile.tile<1xf32>
@tile.kernel
def partial_sum(out: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)], tiles: i64):
    acc = 0.0  # the loop decides its type: a tile of f32 (NEP 50, as the SIMT frontend's literals)
    for i in range(tiles):
        acc = acc + tile.load(x, (tile.bid(0) * tiles + i,), (256,))
    out.store(tile.sum(acc))


partial_sum.ahead_of_time(tile.spec(f32, (16,), partition=(1,)), tile.spec(f32, (4096,)), tile.spec(i64))


# CHECK-LABEL: kernel.func @branches__
# a one-element tile is a condition (its value); a variable may be a tile in both branches
# CHECK: %[[MX:.*]] = tile.reduce max %{{.*}} [0] : !tile.tile<64xf32> -> !tile.tile<f32>
# CHECK: %[[GT:.*]] = tile.cmp gt, %[[MX]], %{{.*}} : !tile.tile<f32> -> !tile.tile<i1>
# CHECK: %[[C:.*]] = tile.extract %[[GT]] : !tile.tile<i1> -> i1
# CHECK: kernel.if %[[C]] -> (!tile.tile<64xf32>) {
# CHECK: tile.mul
# CHECK: } else {
# CHECK: tile.where
# CHECK: tile.maximum
@tile.kernel
def branches(out: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, out)
    if tile.max(t) > 0:
        t = t * 2.0
    else:
        t = tile.where(t < -1.0, -1.0, t)
    out.store(tile.maximum(t, 0.0))


branches.ahead_of_time(tile.spec(f32, (640,), partition=(64,)), tile.spec(f32, (640,)))
