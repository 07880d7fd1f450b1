"""`fuse-checks`: check the reads of a straight-line region together, with one branch to the fast path.

`kernel-to-gpu` guards every checked read on its own::

    %r1 = scf.if %ok1 -> (f32) { load a[i] } else { call @__wf_report_error(...site 1...); yield 0 }
    ...pure ops...
    %r2 = scf.if %ok2 -> (f32) { load b[i] } else { call @__wf_report_error(...site 2...); yield 0 }

Each guard is a branch in the PTX, and the branches keep the loads apart. This pass rewrites a run of
such checks, separated only by side-effect-free ops that do not use the earlier checks' results, into

    %all = arith.andi %ok1, %ok2
    %r1, %r2 = scf.if %all -> (f32, f32) { load a[i]; load b[i] }     // the fast path: every read in range
               else { <the original checks, in their order> }         // the slow path: reports exactly as before

so the slow path re-checks each read and records the first error (kernel, file:line:col, index, length,
block, thread) exactly as the unfused code does, and the fast path is branch-free. No op moves before
an op it depends on: the checks are moved down to the last one's place, past pure ops that do not use
them; a check whose condition depends on an earlier read in the run (`a[b[i]]`) starts a new run.

A check is recognized by its shape, so the pass also applies to hand-written IR: an `scf.if` whose
`then` block holds only side-effect-free ops and loads, and whose `else` block calls
`@__wf_report_error` (the reporter `kernel-to-gpu` declares).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

REPORTER = "__wf_report_error"
"""The symbol of the error reporter that `kernel-to-gpu` calls on the slow path of a check."""


def _is_pure(op: Operation) -> bool:
    return not op.regions and is_side_effect_free(op)


def is_check(op: Operation) -> bool:
    """Whether `op` is a bounds/division check in the shape `kernel-to-gpu` emits (see the module doc)."""
    if not isinstance(op, scf.IfOp) or len(op.false_region.blocks) != 1 or len(op.true_region.blocks) != 1:
        return False
    then_ops = list(op.true_region.block.ops)
    if not all(_is_pure(o) or isinstance(o, memref.LoadOp | scf.YieldOp) for o in then_ops):
        return False
    return any(
        isinstance(o, func.CallOp) and o.callee.root_reference.data == REPORTER for o in op.false_region.block.ops
    )


def _fuse(checks: list[scf.IfOp]) -> scf.IfOp:
    """Replace `checks` (all in `run`, in block order) by one fused check at the last one's place."""
    last = checks[-1]
    block = last.parent_block()
    assert block is not None
    conditions = [c.cond for c in checks]
    ops: list[Operation] = []
    combined = conditions[0]
    for cond in conditions[1:]:
        conj = arith.AndIOp(combined, cond)
        ops.append(conj)
        combined = conj.result
    result_types = [r.type for c in checks for r in c.results]

    fast = Block()
    fast_values: list[SSAValue] = []
    for check in checks:
        mapping: dict[SSAValue, SSAValue] = {}
        for o in check.true_region.block.ops:
            if isinstance(o, scf.YieldOp):
                fast_values.extend(mapping.get(v, v) for v in o.operands)
                continue
            clone = o.clone(value_mapper=mapping)
            fast.add_op(clone)
    fast.add_op(scf.YieldOp(*fast_values))

    slow = Block()
    slow_values: list[SSAValue] = []
    for check in checks:
        clone = check.clone()
        slow.add_op(clone)
        slow_values.extend(clone.results)
    slow.add_op(scf.YieldOp(*slow_values))

    fused = scf.IfOp(combined, result_types, Region(fast), Region(slow))
    ops.append(fused)
    for o in ops:
        o.location = last.location
    Rewriter.insert_op(ops, InsertPoint.before(last))
    results = iter(fused.results)
    for check in checks:
        for old in check.results:
            new = next(results)
            new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
    for check in checks:
        Rewriter.erase_op(check)
    return fused


@dataclass
class _Run:
    checks: list[scf.IfOp]
    tainted: set[SSAValue]
    """Results of the run's checks, and of the pure ops computed from them."""
    deferred: list[Operation]
    """Pure ops that use a result of the run: they move below the fused check, in their order."""

    @staticmethod
    def empty() -> _Run:
        return _Run([], set(), [])

    def flush(self) -> int:
        if len(self.checks) < 2:
            return 0
        last = self.checks[-1]
        moved = [o for o in self.deferred if o.is_before_in_block(last)]
        fused = _fuse(self.checks)
        point: Operation = fused
        for o in moved:
            o.detach()
            Rewriter.insert_op(o, InsertPoint.after(point))
            point = o
        return len(self.checks)


def fuse_block(block: Block) -> int:
    """Fuse the runs of checks of one block (not its nested blocks); returns how many checks were fused."""
    fused = 0
    run = _Run.empty()
    for op in list(block.ops):
        uses_tainted = any(v in run.tainted for v in op.operands)
        if is_check(op) and not uses_tainted:
            assert isinstance(op, scf.IfOp)
            run.checks.append(op)
            run.tainted.update(op.results)
        elif _is_pure(op):
            if uses_tainted:  # computed from a read of the run: it waits below the fused check
                run.deferred.append(op)
                run.tainted.update(op.results)
        elif is_check(op):  # a check on a value the run reads (`a[b[i]]`): it starts the next run
            assert isinstance(op, scf.IfOp)
            fused += run.flush()
            run = _Run([op], set(op.results), [])
        else:
            fused += run.flush()
            run = _Run.empty()
    fused += run.flush()
    return fused


@dataclass(frozen=True)
class FuseChecksPass(ModulePass):
    """Check the reads of a straight-line region together: one predicate, one branch to the fast path.

    The slow path repeats the original checks in order, so the first error is reported exactly as
    before. Runs on gpu-level IR (after `kernel-to-gpu`), in every block of every function."""

    name = "fuse-checks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        blocks = [b for o in op.walk() for r in o.regions for b in r.blocks]
        for block in reversed(blocks):  # innermost first: a fused check's blocks are gone afterwards
            fuse_block(block)
