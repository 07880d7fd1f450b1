"""`@simt.device` functions called from tile kernels: with scalar arguments as in a SIMT kernel (one
`kernel.call`), with tile arguments elementwise (`z.store(gelu(tile.load_tile_like(x, z)))`).

An elementwise call broadcasts its tile and scalar arguments to one shape (NumPy's rules; literals
stay compile-time constants, as in SIMT calls), compiles the function once per element signature
(the same `kernel.func @<name>__<types>` a SIMT kernel calling it with those scalar types gets), and
emits a `tile.map` whose body calls it on one element of each argument. The function's own rules
hold per element: annotations bind each element (`x: wf.f32` accepts an f16 tile and converts each
element), errors inside it are reported at its lines, recursion is refused. It must return a value
(a number: the result is a tile of that dtype, the arguments' shape); slices, arrays and thread
indices cannot be tile elements, and a function that reads the thread's place or works with other
threads is refused (`_refuse_per_thread_ops`), called on tiles or with scalars.
"""

from __future__ import annotations

import ast

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Block

from warpforge.dialects import kernel, tile_map
from warpforge.frontend.builder import FunctionCompilerBase
from warpforge.frontend.device_function import DeviceFunction
from warpforge.frontend.tile.expressions import broadcast_shapes
from warpforge.frontend.tile.values import elem_of, is_tile, shape_of
from warpforge.frontend.values import Literal, Scalar, Value


class TileDeviceMixin(FunctionCompilerBase):
    """`f(args)` for a `@simt.device` f in a tile kernel (module doc)."""

    def call_device(self, dev: DeviceFunction, node: ast.Call, args: list[Value]) -> Value:
        name = dev.fn.__qualname__
        if not any(isinstance(v, Scalar) and is_tile(v) for v in args):
            result = super().call_device(dev, node, args)  # pyright: ignore[reportAttributeAccessIssue]
            self._refuse_per_thread_ops(name, self.block, node, "with scalars runs on every thread of the tile block alike")
            return result
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
            self._refuse_per_thread_ops(name, block, node, "on tiles runs once per tile element, on whichever thread holds it")
            if not isinstance(result, Scalar):
                self.error(node, f"{name}() on tiles must return a number for each element, but it returns nothing")
            self.emit(tile_map.YieldOp(result.ssa), node)
        out = self.tile_dtype(result.dtype, shape, node)  # pyright: ignore[reportAttributeAccessIssue]
        op = tile_map.MapOp([t.ssa for _, t in tiles], out.mlir, region)  # pyright: ignore[reportArgumentType]
        return Scalar(self.emit(op, node), out)


    def _refuse_per_thread_ops(self, name: str, block: Block, node: ast.Call, how: str) -> None:
        """A function applied to tiles runs once per element, on whichever thread holds it (the
        layout decides), and one called with scalars on every thread alike: an op that reads the thread's place (thread and block indices, lane id),
        talks to other threads (warp collectives, barriers, shared memory) or uses the tensor cores
        and async copies would give layout-dependent values or hang, so it is a `CompileError` at the
        call, naming the op's line in the function."""
        unit = self.unit  # pyright: ignore[reportAttributeAccessIssue]
        functions = {f.sym_name.data: f for f in unit.functions}
        seen: set[str] = set()
        calls = [op for op in block.ops if isinstance(op, kernel.CallOp)]
        work = [calls[-1].callee.root_reference.data] if calls else []  # the call just emitted
        while work:
            symbol = work.pop()
            func = functions.get(symbol)
            if symbol in seen or func is None:
                continue
            seen.add(symbol)
            for op in func.walk():
                if isinstance(op, kernel.CallOp):
                    work.append(op.callee.root_reference.data)
                    continue
                dialect = op.name.split(".", 1)[0]
                if op.name in PER_THREAD_OPS or dialect not in ELEMENTWISE_DIALECTS:
                    where = ""
                    loc = op.location
                    if isinstance(loc, FileLineColLoc):
                        where = f" ({loc.filename.data}:{loc.line.data}:{loc.column.data})"
                    self.error(
                        node,
                        f"{name}() {how}: `{op.name}`{where} "
                        "depends on the thread or the other threads (indices, warp collectives, barriers, shared memory, "
                        "tensor cores) and is refused in a function a tile kernel calls; call it from a SIMT kernel, or use "
                        "the tile ops (tile.sum, tile.max, ...)",
                    )


PER_THREAD_OPS = frozenset(
    "kernel." + n
    for n in (
        "active_mask ballot barrier barrier_reduce block_dim block_idx block_index block_index_1d block_index_get "
        "cp_async cp_async_commit cp_async_wait dynamic_shared elect_sync grid_dim index_1d index_2d index_3d "
        "index_col index_get index_plane index_row lane_id ldmatrix match_any mma_sync shared shared_array shuffle "
        "thread_idx thread_index tile_count tile_id tma_load tma_store vote warp_reduce warp_sync tensor_map"
    ).split()
)
"""`kernel` ops whose value depends on the executing thread, or that synchronize or share data with
other threads (module doc of `_refuse_per_thread_ops`)."""
ELEMENTWISE_DIALECTS = frozenset({"kernel", "arith", "math", "cf", "scf", "builtin", "func"})
"""Dialects whose ops a function applied to tiles may use (other dialects' ops — `nvvm`, `nvgpu`,
`gpu` — are thread-level by nature)."""
