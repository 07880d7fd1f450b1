"""`@simt.device` functions called from tile kernels: with scalar arguments as in a SIMT kernel (one
`kernel.call`), with tile arguments elementwise (`z.store(gelu(tile.load_tile_like(x, z)))`).

An elementwise call broadcasts its tile and scalar arguments to one shape (NumPy's rules; literals
stay compile-time constants, as in SIMT calls), compiles the function once per element signature
(the same `kernel.func @<name>__<types>` a SIMT kernel calling it with those scalar types gets), and
emits a `tile.map` whose body calls it on one element of each argument. The function's own rules
hold per element: annotations bind each element (`x: wf.f32` accepts an f16 tile and converts each
element), errors inside it are reported at its lines, recursion is refused. It must return a value
(a number: the result is a tile of that dtype, the arguments' shape); slices, arrays and thread
indices cannot be tile elements.
"""

from __future__ import annotations

import ast

from warpforge.dialects import tile_map
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.device_function import DeviceFunction
from warpforge.frontend.tile.expressions import broadcast_shapes
from warpforge.frontend.tile.values import elem_of, is_tile, shape_of
from warpforge.frontend.values import Literal, Scalar, Value


class TileDeviceMixin(FunctionCompilerBase):
    """`f(args)` for a `@simt.device` f in a tile kernel (module doc)."""

    def call_device(self, dev: DeviceFunction, node: ast.Call, args: list[Value]) -> Value:
        if not any(isinstance(v, Scalar) and is_tile(v) for v in args):
            return super().call_device(dev, node, args)  # pyright: ignore[reportAttributeAccessIssue]
        name = dev.fn.__qualname__
        if node.keywords:
            self.error(node, f"{name}() on tiles takes its arguments by position")
        shape: tuple[int, ...] = ()
        for v in args:
            if isinstance(v, Literal):
                continue
            if not isinstance(v, Scalar):
                self.error(node, f"{name}() on tiles: {v.describe()} cannot be a tile element (pass tiles, scalars or constants)")
            s = shape_of(v)
            b = broadcast_shapes(shape, s)
            if b is None:
                self.error(node, f"{name}() on tiles: shapes {shape} and {s} do not broadcast together")
            shape = b
        tiles = []  # (position, tile operand) of every non-constant argument, broadcast to `shape`
        for i, v in enumerate(args):
            if isinstance(v, Literal):
                continue
            assert isinstance(v, Scalar)
            tiles.append((i, self.to_tile(v, elem_of(v.dtype), shape, node)))  # pyright: ignore[reportAttributeAccessIssue]
        region, block = tile_map.map_body([elem_of(t.dtype).mlir for _, t in tiles])
        element_args: list[Value] = list(args)
        for (i, t), arg in zip(tiles, block.args):
            element_args[i] = Scalar(arg, elem_of(t.dtype))
        with self.in_block(block):
            result = super().call_device(dev, node, element_args)  # pyright: ignore[reportAttributeAccessIssue]
            if not isinstance(result, Scalar):
                self.error(node, f"{name}() on tiles must return a number for each element, but it returns nothing")
            self.emit(tile_map.YieldOp(result.ssa), node)
        out = self.tile_dtype(result.dtype, shape, node)  # pyright: ignore[reportAttributeAccessIssue]
        op = tile_map.MapOp([t.ssa for _, t in tiles], out.mlir, region)  # pyright: ignore[reportArgumentType]
        return Scalar(self.emit(op, node), out)

