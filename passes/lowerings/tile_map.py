"""`tile-to-gpu`'s lowering of `tile.map` (registered into its `@lowers` table when `tile_to_gpu` loads):
the body once per register of the result.

Every operand has the result's shape, so in the canonical layout register k of each operand holds
the element register k of the result gets. For each k the body's block arguments are bound to the
operands' register k and its ops are lowered by the function lowering itself (scalar `kernel` ops
exactly as in SIMT kernels, checks included). A one-block body is emitted in place; a body with
several blocks (a device function inlined by `inline-device-functions`, with its branches) is
cloned per register into blocks of the `gpu.func`, entered by a branch and left by one to a
continuation block whose argument is the element; the ops after the `tile.map` continue in the
last continuation block. `canonicalize` merges the straight-line chains afterwards. In a checked
kernel an element past a loaded tensor's end (padding) records no error from the body
(`memory.padding_bits`).
"""

from __future__ import annotations

from xdsl.dialects import cf
from xdsl.ir import Block, Operation, SSAValue

from warpforge.dialects.tile_map import MapOp, YieldOp
from warpforge.passes.kernel_to_gpu import Emitter, signless
from warpforge.passes.tile_to_gpu.layouts import canonical_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering, lowers  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.memory import padding_bits


@lowers(MapOp)
def _map(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, MapOp)
    ins = [fl.canon(e, fl.dist(v)) for v in op.inputs]
    rt = op.result.type
    target = canonical_layout(rt.dims, fl.threads)  # pyright: ignore[reportAttributeAccessIssue]
    body = list(op.body.blocks)
    parent = op.parent_block()
    assert parent is not None and e.block is not None
    current = e.block
    region = current.parent
    assert region is not None
    regs: list[SSAValue] = []
    inside = padding_bits(fl, e, op, target, target.slots)  # elements past a loaded tensor's end report nothing
    with fl.registers_of(target):  # a checked error in the body: recorded by one thread per element
        for k in range(target.slots):
            fl.reporting_inside = inside[k] if inside is not None else None
            for arg, d in zip(body[0].args, ins):
                fl.values[arg] = d.regs[k]
            if len(body) == 1:
                for inner in body[0].ops:
                    if isinstance(inner, YieldOp):
                        regs.append(fl.v(inner.value))
                    else:
                        fl.lower(inner, current)
                continue
            anchor = current
            for i, b in enumerate(body):
                new = Block(arg_types=[] if i == 0 else [signless(a.type) for a in b.args])
                if i:
                    for old, arg in zip(b.args, new.args):
                        arg.name_hint = old.name_hint
                        fl.values[old] = arg
                region.insert_block_after(new, anchor)
                anchor = new
                fl.blocks[b] = new
            after = Block(arg_types=[signless(rt.element_type)])  # pyright: ignore[reportAttributeAccessIssue]
            region.insert_block_after(after, anchor)
            Emitter(current, op)(cf.BranchOp(fl.blocks[body[0]]))
            for b in body:
                for inner in list(b.ops):
                    if isinstance(inner, YieldOp):
                        Emitter(fl.blocks[b], inner)(cf.BranchOp(after, fl.v(inner.value)))
                    else:
                        fl.lower(inner, fl.blocks[b])
            regs.append(after.args[0])
            current = after
        fl.reporting_inside = None
    fl.blocks[parent] = current  # the ops after the tile.map continue here
    return Dist(target, regs, rt.element_type)  # pyright: ignore[reportAttributeAccessIssue]
