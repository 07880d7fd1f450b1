"""`kernel-to-tile`: a tile kernel's ownership-level `kernel` ops → explicit `tile` views and coordinates.

A `kernel.func` marked `tile` takes its tensors as the host passed them — borrowed
`!kernel.tensor<…>` inputs and `!kernel.partition<[tile], !kernel.tensor<…>>` parts — and reads and
writes them in those terms. After this pass every tensor parameter is a `!tile.tensor_view` of the
whole tensor, and:

| kernel op | becomes |
|---|---|
| (entry) | `tile.make_partition_view` of the grid partition (`tile.grid`), `tile.block_coord` per axis |
| `kernel.load_tile_like %x, %z {padding}` | `tile.make_partition_view %x` with `%z`'s tile shape and the padding, `tile.load` at the block's coordinates |
| `kernel.part_load %z` / `kernel.part_store %t, %z` | `tile.load` / `tile.store` of `%z`'s partition view at the block's coordinates |
| `kernel.tensor_load %x[%i…] {padding}` | `tile.make_partition_view %x` with the result's tile shape, `tile.load %pv[%i…]` |
| `kernel.tensor_dim %x[a]` | `tile.dim %x[a]` |
| `kernel.tensor_gather` / `kernel.tensor_atomic` | `tile.load_masked` / `tile.atomic_rmw` |
| `kernel.tile_id a` / `kernel.tile_count a` | `tile.block_coord` / `tile.num_tiles` of the grid partition view |

Every partition of a launch has the same tile grid (the host checks it), so the block's coordinates
in the grid partition are its coordinates in each. Other ops (scalars, control flow, `tile` ops)
are unchanged; every new op takes the location of the op it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import FunctionType, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass

from warpforge.diagnostics import error_at
from warpforge.dialects import kernel, kernel_tile as kt, tile
from warpforge.rewriting import inherit_location


def convert_type(t: Attribute) -> Attribute:
    """`!kernel.tensor<…>` and `!kernel.partition<[…], !kernel.tensor<…>>` → `!tile.tensor_view<…>`."""
    if isinstance(t, kt.PartitionType):
        t = t.tensor
    if isinstance(t, kt.TensorType):
        return tile.TensorViewType(t.dims, t.element_type, t.stride_values or None)
    return t


@dataclass
class _FunctionRewrite:
    func: kernel.FuncOp
    entry: Block = field(init=False)
    views: dict[tuple[SSAValue, tuple[int, ...], Attribute | None], SSAValue] = field(default_factory=dict)
    coords: list[SSAValue] = field(default_factory=list)
    grid_view: SSAValue | None = None
    _prologue: list[Operation] = field(default_factory=list)

    def run(self) -> None:
        f = self.func
        old = f.body.blocks.first
        assert old is not None
        if len(f.body.blocks) != 1:
            raise error_at(f, "kernel-to-tile runs before lower-kernel-control-flow (one block per tile kernel)")
        types = [convert_type(t) for t in f.function_type.inputs]
        new = Block(arg_types=types)
        partitions: dict[SSAValue, kt.PartitionType] = {}
        for o, n in zip(old.args, new.args):
            n.name_hint = o.name_hint
            if isinstance(o.type, kt.PartitionType):
                partitions[n] = o.type
        for op in list(old.ops):
            op.detach()
            new.add_op(op)
        for o, n in zip(old.args, new.args):
            o.replace_all_uses_with(n)
        self.entry = new
        self.partitions = partitions
        grid = f.attributes.get("tile.grid")
        if isinstance(grid, IntegerAttr):
            if not 0 <= grid.value.data < len(new.args):
                raise error_at(f, f"tile.grid names parameter {grid.value.data}, but the function has {len(new.args)}")
            g = new.args[grid.value.data]
            if g not in partitions:
                raise error_at(f, f"tile.grid names parameter {grid.value.data}, which is not a partition")
            self.grid_view = self.partition_view(g, partitions[g].dims, None, f)
            for axis in range(len(partitions[g].dims)):
                self.coords.append(self.prologue(tile.BlockCoordOp(self.grid_view, axis), f))
        for op in list(new.walk()):
            handler = _REWRITES.get(type(op))
            if handler is not None:
                handler(self, op)
        for op in reversed(self._prologue):
            if new.first_op is None:
                new.add_op(op)
            else:
                new.insert_op_before(op, new.first_op)
        f.body.detach_block(old)
        f.body.add_block(new)
        old.erase()
        f.properties["function_type"] = FunctionType.from_lists(types, list(f.function_type.outputs.data))

    def prologue(self, op: Operation, source: Operation) -> SSAValue:
        inherit_location([op], source)
        self._prologue.append(op)
        return op.results[0]

    def partition_view(self, tensor: SSAValue, tile_shape: tuple[int, ...], padding: Attribute | None, source: Operation) -> SSAValue:
        """The partition view of `tensor` (a block argument) with `tile_shape` and `padding` (made once, at entry)."""
        key = (tensor, tuple(tile_shape), padding)
        if key not in self.views:
            tv = tensor.type
            assert isinstance(tv, tile.TensorViewType)
            pv = tile.PartitionViewType(tile_shape, tv, padding)
            self.views[key] = self.prologue(tile.MakePartitionViewOp(tensor, pv), source)
        return self.views[key]

    def replace(self, op: Operation, new_ops: list[Operation], result: SSAValue | None = None) -> None:
        inherit_location(new_ops, op)
        block = op.parent_block()
        assert block is not None
        for n in new_ops:
            block.insert_op_before(n, op)
        if op.results and result is not None:
            op.results[0].replace_all_uses_with(result)
            result.name_hint = result.name_hint or op.results[0].name_hint
        op.detach()
        op.erase()


def _root_tensor(v: SSAValue, op: Operation) -> SSAValue:
    if not isinstance(v.type, tile.TensorViewType):
        raise error_at(op, f"needs a tensor parameter, got {v.type}")
    return v


def _load_tile_like(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.LoadTileLikeOp)
    like = rw.partitions.get(op.like)
    if like is None:
        raise error_at(op, "needs a partition parameter as its second operand")
    pv = rw.partition_view(_root_tensor(op.source, op), like.dims, op.padding, op)
    load = tile.LoadOp(pv, rw.coords)
    rw.replace(op, [load], load.result)


def _part_load(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.PartLoadOp)
    pv = rw.partition_view(op.part, rw.partitions[op.part].dims, None, op)
    load = tile.LoadOp(pv, rw.coords)
    rw.replace(op, [load], load.result)


def _part_store(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.PartStoreOp)
    pv = rw.partition_view(op.part, rw.partitions[op.part].dims, None, op)
    rw.replace(op, [tile.StoreOp(op.value, pv, rw.coords)])


def _tensor_load(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TensorLoadOp)
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    pv = rw.partition_view(_root_tensor(op.source, op), rt.dims, op.padding, op)
    load = tile.LoadOp(pv, list(op.coords))
    rw.replace(op, [load], load.result)


def _tensor_dim(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TensorDimOp)
    dim = tile.DimOp(_root_tensor(op.source, op), op.axis.data)
    rw.replace(op, [dim], dim.result)


def _gather(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TensorGatherOp)
    new = tile.LoadMaskedOp(_root_tensor(op.source, op), op.offsets, op.mask, op.padding)
    rw.replace(op, [new], new.result)


def _atomic(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TensorAtomicOp)
    rw.replace(op, [tile.AtomicRMWOp(op.kind.data, _root_tensor(op.source, op), op.offsets, op.values, op.mask)])


def _tile_id(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TileIdOp)
    if not 0 <= op.axis.data < len(rw.coords):
        raise error_at(op, f"axis {op.axis.data} is not an axis of the grid, which has {len(rw.coords)}")
    op.results[0].replace_all_uses_with(rw.coords[op.axis.data])
    op.detach()
    op.erase()


def _tile_count(rw: _FunctionRewrite, op: Operation) -> None:
    assert isinstance(op, kt.TileCountOp)
    assert rw.grid_view is not None
    n = tile.NumTilesOp(rw.grid_view, op.axis.data)
    rw.replace(op, [n], n.result)


_REWRITES = {
    kt.LoadTileLikeOp: _load_tile_like,
    kt.PartLoadOp: _part_load,
    kt.PartStoreOp: _part_store,
    kt.TensorLoadOp: _tensor_load,
    kt.TensorDimOp: _tensor_dim,
    kt.TensorGatherOp: _gather,
    kt.TensorAtomicOp: _atomic,
    kt.TileIdOp: _tile_id,
    kt.TileCountOp: _tile_count,
}


@dataclass(frozen=True)
class KernelToTilePass(ModulePass):
    """Tile kernels' tensors and parts (kernel dialect) → tile tensor views, partition views and coordinates."""

    name = "kernel-to-tile"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, kernel.FuncOp) and "tile" in f.attributes:
                _FunctionRewrite(f).run()
