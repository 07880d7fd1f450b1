# Each kernel below is a CompileError with file:line:col, the source line and a caret, never a traceback.
# RUN: not warpforge compile %s --kernel pow2 --emit kernel 2>&1 | filecheck %s --check-prefix=P2
# RUN: not warpforge compile %s --kernel write_input --emit kernel 2>&1 | filecheck %s --check-prefix=WI
# RUN: not warpforge compile %s --kernel shapes --emit kernel 2>&1 | filecheck %s --check-prefix=SH
# RUN: not warpforge compile %s --kernel truth --emit kernel 2>&1 | filecheck %s --check-prefix=TR
# RUN: not warpforge compile %s --kernel element --emit kernel 2>&1 | filecheck %s --check-prefix=EL
# RUN: not warpforge compile %s --kernel narrowing --emit kernel 2>&1 | filecheck %s --check-prefix=NA
# RUN: not warpforge compile %s --kernel unsupported --emit kernel 2>&1 | filecheck %s --check-prefix=UN
import warpforge as wf
from warpforge import f32, i32, tile

X = tile.spec(f32, (1024,))
Z = tile.spec(f32, (1024,), partition=(128,))


@tile.kernel
def pow2(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    # P2: tile-errors.py:[[# @LINE + 4]]:9: error: tile shape (100,): tile dimensions must be powers of two (1, 2, 4, …), got 100
    # P2-NEXT: t = tile.zeros((100,), f32)
    # P2-NEXT: ^
    # P2-NOT: Traceback
    t = tile.zeros((100,), f32)
    z.store(t)


@tile.kernel
def write_input(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    # WI: tile-errors.py:[[# @LINE + 1]]:5: error: input tensor 'x' is a borrowed input (read-only); only a partitioned argument is written: pass x.partition(tile_shape)
    x.store(tile.load_tile_like(x, z))


@tile.kernel
def shapes(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    # SH: tile-errors.py:[[# @LINE + 1]]:13: error: '+': shapes (128,) and (64,) do not broadcast together
    z.store(t + tile.ones((64,), f32))


@tile.kernel
def truth(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    # TR: tile-errors.py:[[# @LINE + 1]]:5: error: the truth value of a tile with 128 elements is ambiguous; reduce it first (tile.max, tile.sum, …)
    if t > 0:
        t = -t
    z.store(t)


@tile.kernel
def element(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    t = tile.load_tile_like(x, z)
    # EL: tile-errors.py:[[# @LINE + 1]]:13: error: tiles are not indexed element by element; use tile.where, reductions or reshape
    z.store(t[0])


@tile.kernel
def narrowing(z: tile.Tensor[i32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    # NA: tile-errors.py:[[# @LINE + 1]]:5: error: storing f32 into partitioned tensor 'z' (i32) needs an explicit conversion: .astype(wf.i32)
    z.store(tile.load_tile_like(x, z))


@tile.kernel
def unsupported(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    # UN: tile-errors.py:[[# @LINE + 1]]:5: error: With statements are not supported in kernels
    with open("f"):
        pass


for k in (pow2, write_input, shapes, truth, element, unsupported):
    k.ahead_of_time(Z, X)
narrowing.ahead_of_time(tile.spec(i32, (1024,), partition=(128,)), X)
