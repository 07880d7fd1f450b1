"""`lower-kernel-control-flow`: the `kernel` dialect's structured control flow → `cf` branches.

`kernel.if`, `kernel.for` (Python `range` with any sign of step) and `kernel.while` are inlined into
their function's CFG; `kernel.yield`, `kernel.condition`, `kernel.break` and `kernel.continue` become
`cf.br`/`cf.cond_br` carrying the loop's values as block arguments. A `kernel.return` nested anywhere
simply stays the terminator of its block (a function may have several). xDSL's `convert-scf-to-cf`
cannot do this: it has no `scf.while`, no break/continue, and compares signed only. A `range` runs
Python's iterations even where `i + step` would pass the end of the loop variable's type: a latch
whose sum can wrap (a step other than ±1, unless constant bounds rule it out) leaves the loop when
the sum lies on the wrong side of `i` (`range(0, 2**63 - 1, 2**62)` runs twice).

Structured ops are lowered innermost first, so when a loop is lowered every `kernel.break` /
`kernel.continue` left in its (by then multi-block) body belongs to it. Each new op takes the
structured op's source location.

```mlir
%r = kernel.for %i = %lo to %hi step %c1 iter_args(%a = %x) -> (f32) : si64 { ...; kernel.yield %a2 : f32 }
// becomes
  cf.br ^header(%lo, %x : si64, f32)
^header(%i: si64, %a: f32):
  %c = kernel.cmp lt, %i, %hi : si64          // step > 0 known: one compare
  cf.cond_br %c, ^body(%i, %a : si64, f32), ^exit(%a : f32)
^body(...): ...; cf.br ^latch(%a2 : f32)
^latch(%a3: f32):
  %next = kernel.add %i, %c1 : si64
  cf.br ^header(%next, %a3 : si64, f32)
^exit(%r: f32): ...
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, cf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from warpforge.dialects import kernel
from warpforge.rewriting import inherit_location


def _constant(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, kernel.ConstantOp) and isinstance(owner.value, builtin.IntegerAttr):
        return owner.value.value.data
    return None


def _type_range(t: builtin.IntegerType) -> tuple[int, int]:
    width = t.width.data
    if t.signedness.data == builtin.Signedness.UNSIGNED:
        return 0, 2**width - 1
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


def _post_order(region: Region) -> list[Operation]:
    """Structured kernel ops under `region`, children before parents."""
    found: list[Operation] = []
    for block in region.blocks:
        for op in block.ops:
            for inner in op.regions:
                found.extend(_post_order(inner))
            if isinstance(op, kernel.IfOp | kernel.ForOp | kernel.WhileOp):
                found.append(op)
    return found


def _split_after(op: Operation, result_types: Sequence[builtin.Attribute]) -> Block:
    """Split `op`'s block after `op`; the new continuation block takes `result_types` arguments that
    replace `op`'s results."""
    block = op.parent_block()
    assert block is not None
    nxt = op.next_op
    if nxt is None:  # op is last (only possible for malformed input: a structured op is never a terminator)
        cont = Block(arg_types=result_types)
        region = block.parent
        assert region is not None
        region.insert_block_after(cont, block)
    else:
        cont = block.split_before(nxt, arg_types=result_types)
    for res, arg in zip(op.results, cont.args):
        res.replace_all_uses_with(arg)
    return cont


def _branch(dest: Block, values: Sequence[SSAValue], loc_of: Operation) -> cf.BranchOp:
    br = cf.BranchOp(dest, *values)
    inherit_location([br], loc_of)
    return br


def _replace_terminator(term: Operation, new: Operation) -> None:
    inherit_location([new], term)
    block = term.parent_block()
    assert block is not None
    block.insert_op_before(new, term)
    term.detach()
    term.erase()


def _move_region_before(region: Region, target: Block) -> list[Block]:
    blocks = list(region.blocks)
    region.move_blocks_before(target)
    return blocks


@dataclass
class _Lowering:
    def lower_if(self, op: kernel.IfOp) -> None:
        before = op.parent_block()
        assert before is not None
        cont = _split_after(op, [r.type for r in op.output])
        then_blocks = _move_region_before(op.then_region, cont)
        else_blocks = _move_region_before(op.else_region, cont)
        for blocks in (then_blocks, else_blocks):
            for block in blocks:
                term = block.last_op
                if isinstance(term, kernel.YieldOp):
                    _replace_terminator(term, cf.BranchOp(cont, *term.values))
                elif term is None or not term.has_trait(IsTerminator):  # an empty `else`
                    block.add_op(_branch(cont, (), op))
        cond_br = cf.ConditionalBranchOp(op.cond, then_blocks[0], (), else_blocks[0], ())
        inherit_location([cond_br], op)
        op.detach()
        op.erase()
        before.add_op(cond_br)

    def _rewire_loop_exits(self, blocks: list[Block], latch: Block, exit_: Block) -> None:
        for block in blocks:
            term = block.last_op
            if isinstance(term, kernel.YieldOp | kernel.ContinueOp):
                _replace_terminator(term, cf.BranchOp(latch, *term.values))
            elif isinstance(term, kernel.BreakOp):
                _replace_terminator(term, cf.BranchOp(exit_, *term.values))

    def lower_for(self, op: kernel.ForOp) -> None:
        before = op.parent_block()
        assert before is not None
        carried_types = [v.type for v in op.inits]
        iv_type = op.lower.type
        exit_ = _split_after(op, carried_types)
        header = Block(arg_types=[iv_type, *carried_types])
        latch = Block(arg_types=carried_types)
        region = before.parent
        assert region is not None
        region.insert_block_before(header, exit_)
        body_blocks = _move_region_before(op.body, exit_)
        region.insert_block_before(latch, exit_)
        body_entry = body_blocks[0]
        iv = body_entry.args[0]

        # header: evaluate `i < hi` (step > 0) / `i > hi` (step < 0); a step of 0 runs no iteration
        hdr_iv = header.args[0]
        cond_ops = self._range_condition(hdr_iv, op.upper, op.step)
        from_below = self._wraps_below_start(op)
        if from_below is not None:  # a wrapped `i + step` lands before the start: `lo <= i < hi` (s > 0)
            side = kernel.CmpOp("ge" if from_below else "le", hdr_iv, op.lower)
            cond_ops += [side, kernel.AndOp(cond_ops[-1].results[0], side.result)]
        cond_br = cf.ConditionalBranchOp(cond_ops[-1].results[0], body_entry, header.args, exit_, header.args[1:])
        header.add_ops([*cond_ops, cond_br])

        # latch: i += step, back to the header; the back edge takes the loop's `llvm.*` attributes
        # (`llvm.loop_unroll_full`), as MLIR's convert-scf-to-cf gives them to the latch branch
        # Python's range never wraps: where `i + step` can pass the type's end (`range(0, 2**63 - 1,
        # 2**62)` has 2 iterations), a wrapped `next` leaves the loop instead of re-entering it
        nxt = kernel.AddOp(iv, op.step)
        wrap_ops = [] if from_below is not None else self._no_wrap_condition(iv, nxt.result, op)
        if wrap_ops:
            back = cf.ConditionalBranchOp(wrap_ops[-1].results[0], header, [nxt.result, *latch.args], exit_, latch.args)
        else:
            back = cf.BranchOp(header, nxt.result, *latch.args)
        back.attributes.update({k: v for k, v in op.attributes.items() if k.startswith("llvm.")})
        latch.add_ops([nxt, *wrap_ops, back])

        self._rewire_loop_exits(body_blocks, latch, exit_)
        entry_br = cf.BranchOp(header, op.lower, *op.inits)
        inherit_location([*header.ops, *latch.ops, entry_br], op)
        op.detach()
        op.erase()
        before.add_op(entry_br)

    def _range_condition(self, iv: SSAValue, upper: SSAValue, step: SSAValue) -> list[Operation]:
        s = _constant(step)
        if s is not None:
            if s > 0:
                return [kernel.CmpOp("lt", iv, upper)]
            if s < 0:
                return [kernel.CmpOp("gt", iv, upper)]
            return [kernel.ConstantOp(builtin.IntegerAttr(0, builtin.i1))]
        zero = kernel.ConstantOp(builtin.IntegerAttr(0, step.type))  # pyright: ignore[reportArgumentType]
        pos = kernel.CmpOp("gt", step, zero)
        neg = kernel.CmpOp("lt", step, zero)
        lt = kernel.CmpOp("lt", iv, upper)
        gt = kernel.CmpOp("gt", iv, upper)
        up = kernel.AndOp(pos, lt)
        down = kernel.AndOp(neg, gt)
        return [zero, pos, neg, lt, gt, up, down, kernel.OrOp(up, down)]

    def _wraps_below_start(self, op: kernel.ForOp) -> bool | None:
        """True (False) when `i + step` can wrap and a wrapped sum always lands below (above) the
        loop's start, so the header's `i >= lo` (`i <= lo`) test ends the loop there: a constant
        step and a constant start at least `step` from the type's far end (`range(0, n, 8)`: a wrapped
        value is within 8 of the minimum). None otherwise (the latch tests the sum)."""
        s, lo, t = _constant(op.step), _constant(op.lower), op.lower.type
        if s is None or lo is None or s in (-1, 0, 1) or not isinstance(t, builtin.IntegerType):
            return None
        if self._cannot_wrap(op, s, t):
            return None
        bottom, top = _type_range(t)
        if s > 0 and lo >= bottom + s:
            return True
        if s < 0 and lo <= top + s:
            return False
        return None

    def _cannot_wrap(self, op: kernel.ForOp, s: int, t: builtin.IntegerType) -> bool:
        hi = _constant(op.upper)
        bottom, top = _type_range(t)
        return hi is not None and ((s > 0 and hi - 1 + s <= top) or (s < 0 and hi + 1 + s >= bottom))

    def _no_wrap_condition(self, iv: SSAValue, nxt: SSAValue, op: kernel.ForOp) -> list[Operation]:
        """Ops whose last result is true when `nxt = iv + step` did not wrap around (the loop may go on),
        or [] when it cannot wrap: a step of ±1 (the latch's `iv` is strictly inside the bounds), or
        constant bounds whose last `iv + step` fits the type. A constant step compares `iv` with the
        last value the step may start from; a run-time one finds the wrapped sum on the wrong side of
        `iv` (`step > 0`: `nxt < iv`)."""
        s = _constant(op.step)
        if s is not None:
            if s in (-1, 0, 1):
                return []
            t = iv.type
            if not isinstance(t, builtin.IntegerType):
                return [kernel.CmpOp("gt" if s > 0 else "lt", nxt, iv)]
            if self._cannot_wrap(op, s, t):
                return []
            bottom, top = _type_range(t)
            # `i + s` fits iff `i <= top - s` (s > 0) / `i >= bottom - s` (s < 0): `i` against a constant
            limit = kernel.ConstantOp(builtin.IntegerAttr(top - s if s > 0 else bottom - s, t))
            return [limit, kernel.CmpOp("le" if s > 0 else "ge", iv, limit)]
        zero = kernel.ConstantOp(builtin.IntegerAttr(0, op.step.type))  # pyright: ignore[reportArgumentType]
        pos = kernel.CmpOp("gt", op.step, zero)
        neg = kernel.CmpOp("lt", op.step, zero)
        grew = kernel.CmpOp("gt", nxt, iv)
        fell = kernel.CmpOp("lt", nxt, iv)
        up = kernel.AndOp(pos, grew)
        down = kernel.AndOp(neg, fell)
        return [zero, pos, neg, grew, fell, up, down, kernel.OrOp(up, down)]

    def lower_while(self, op: kernel.WhileOp) -> None:
        before = op.parent_block()
        assert before is not None
        types = [v.type for v in op.inits]
        exit_ = _split_after(op, types)
        cond_blocks = _move_region_before(op.before, exit_)
        body_blocks = _move_region_before(op.after, exit_)
        cond_entry = cond_blocks[0]
        for block in cond_blocks:
            term = block.last_op
            if isinstance(term, kernel.ConditionOp):
                _replace_terminator(
                    term, cf.ConditionalBranchOp(term.cond, body_blocks[0], term.values, exit_, term.values)
                )
        self._rewire_loop_exits(body_blocks, cond_entry, exit_)
        entry_br = cf.BranchOp(cond_entry, *op.inits)
        inherit_location([entry_br], op)
        op.detach()
        op.erase()
        before.add_op(entry_br)


class LowerKernelControlFlowPass(ModulePass):
    """Lower kernel.if/for/while/break/continue to cf branches with block arguments (nested returns stay)."""

    name = "lower-kernel-control-flow"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        lowering = _Lowering()
        for func in [f for f in op.walk() if isinstance(f, kernel.FuncOp)]:
            for structured in _post_order(func.body):
                if isinstance(structured, kernel.IfOp):
                    lowering.lower_if(structured)
                elif isinstance(structured, kernel.ForOp):
                    lowering.lower_for(structured)
                elif isinstance(structured, kernel.WhileOp):
                    lowering.lower_while(structured)
