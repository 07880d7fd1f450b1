"""The `@tile.kernel` frontend: Python AST → `kernel`-dialect module with `tile` values.

It is the SIMT frontend (`warpforge.frontend`: NEP 50 typing, structured control flow, source
locations, `CompileError`s) extended, not copied: a tile is a `Scalar` whose dtype is a `TileDType`
(element dtype + static shape), so variables, `if` merges and loop-carried values work for tiles
unchanged, and the tile mixins add broadcasting arithmetic, the `tile.*` functions, tensor
parameters and the specialization (symbols, static extents, `wf.Constant` values).
"""

from warpforge.frontend.tile.compiler import TileKernelIR, compile_tile_kernel

__all__ = ["TileKernelIR", "compile_tile_kernel"]
