"""`canonicalize`: xDSL's canonicalization (MLIR's `canonicalize`), with less bookkeeping per op.

The same rewrites in the same order as xDSL 0.75's `canonicalize` (`xdsl.transforms.canonicalize`):
each op is offered, through xDSL's `GreedyRewritePatternApplier` with folding, first for erasure
when trivially dead, then to its folder (`HasFolder`; constants are not folded), then to the
canonicalization patterns of its `HasCanonicalizationPatternsTrait` traits in order until one
rewrites; region DCE (`xdsl.transforms.dead_code_elimination.region_dce`) after every walk, and walks
repeated until one changes nothing. What differs is the cost, not the result:

- the walker is `warpforge.rewriting.FastRewriteWalker` (xDSL's order and fixpoint, its worklist
  filled in one loop and no insertion-point validation per op);
- an op class's canonicalization patterns are asked of its traits once per run, not at every visit
  (xDSL builds them, and a `GreedyRewritePatternApplier` around them, for each op it visits). The
  patterns are xDSL's and ours, instantiated by their traits as before; none keeps state between
  matches;
- region DCE asks whether an op would be dead once per op class where the class decides it
  (`warpforge.rewriting.dead_if_unused`).

Compiles call it twice in `kernel-to-gpu-pipeline` and once after `tile-to-gpu`; the PTX of every
example is the same with either pass (docs/compile-time.md, round 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.dead_code_elimination import LiveSet

from warpforge.rewriting import FastRewriteWalker, dead_if_unused, is_dead


@dataclass(eq=False)
class CanonicalizationPatterns(RewritePattern):
    """Offer an op to its traits' canonicalization patterns, in trait order, until one rewrites (the
    patterns looked up once per op class: `HasCanonicalizationPatternsTrait.get_patterns`)."""

    by_class: dict[type[Operation], tuple[RewritePattern, ...]] = field(default_factory=dict[type[Operation], tuple[RewritePattern, ...]])
    """Op class -> its canonicalization patterns, for this run."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cls = type(op)
        patterns = self.by_class.get(cls)
        if patterns is None:
            traits = op.get_traits_of_type(HasCanonicalizationPatternsTrait)
            patterns = self.by_class[cls] = tuple(p for trait in traits for p in trait.get_patterns(cls))
        if not patterns:
            return
        if len(patterns) > 1 and is_dead(op):  # xDSL applies several through a (DCE-enabled) greedy applier
            rewriter.erase(op)
            return
        for pattern in patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


class _LiveSet(LiveSet):
    """xDSL's liveness for region DCE, asking `dead_if_unused` (memoized per op class) instead of
    `would_be_trivially_dead` for each op on each round."""

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        live = self._live_ops  # pyright: ignore[reportPrivateUsage]
        if op in live:
            return
        if not dead_if_unused(op) or any(use.operation in live for result in op.results for use in result.uses):
            self.set_live(op)


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's `region_dce` (liveness to a fixpoint, then every op not live erased, and blocks with no
    live op but the entry block) with `_LiveSet`. Returns whether anything was erased."""
    live = _LiveSet()
    while live.changed:
        live.changed = False
        live.propagate_region_liveness(region)
    live.delete_dead(region, listener)
    return live.changed


class CanonicalizePass(ModulePass):
    """Fold ops, erase dead ones and apply every op's canonicalization patterns, to a fixpoint."""

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = GreedyRewritePatternApplier([CanonicalizationPatterns()], ctx=ctx, folding_enabled=True)
        FastRewriteWalker(applier, post_walk_func=region_dce).rewrite_module(op)
