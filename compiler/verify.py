"""Verification xDSL 0.75 does not do, run before anything reaches LLVM.

- **Dominance** (MLIR's `verifyDominance` in `mlir/lib/IR/Verifier.cpp`): every operand's definition
  dominates its use — a use later in the same block than its definition, a use in a block the
  definition's block does not dominate, a use outside the region of its definition, or a use that
  crosses an `IsolatedFromAbove` op is refused. xDSL parses forward references and never checks
  dominance, and LLVM aborts the whole process ("Broken module found") on such IR; this check is one
  walk of the module.
- **Launch bounds** (`nvvm.reqntid`, `nvvm.maxntid`, `nvvm.minctasm` on a kernel function, PTX ISA
  §11.4 "Performance-tuning directives"): 1 to 3 positive i32 extents whose product is at most 1024
  threads, never `.reqntid` and `.maxntid` on one kernel (ptxas refuses both), `.minnctapersm` in
  [1, 32]. MLIR's NVVM dialect checks these in `verifyOperationAttribute`.

Both raise a located diagnostic (`warpforge.diagnostics.error_at`: the op's `loc(...)`, else where
it or the op around it was parsed; else a `VerifyException` naming the enclosing function), so
`warpforge-opt` prints it with line:col and exits 1. `warpforge-opt` checks dominance right after
parsing; `export_llvm_ir` runs `verify_for_export` on every module it exports.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from warpforge.rewriting import walk_ops
from warpforge.rewriting import where as _where


def where(op: Operation) -> str:
    """`file:line:col` of `op`, else its enclosing (or own) function as `in @name`."""
    at = _where(op)
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    if at == "<unknown location>" and name is not None and hasattr(name, "data"):
        return f"in @{name.data}"  # pyright: ignore[reportAttributeAccessIssue]
    return at


MAX_THREADS_PER_BLOCK = 1024
"""CUDA's limit on threads per block (every chip since sm_20)."""
MAX_MINCTASM = 32
"""The most resident blocks per SM on current chips (sm_50 … sm_100): the largest `.minnctapersm`."""

_GRAPH_REGION_OPS = frozenset({"builtin.module", "gpu.module"})
"""Ops whose single-block region is a graph region (MLIR `RegionKind::Graph`): no ordering rule."""


class _Dominance:
    """Block dominators per region, computed on demand (iterative data flow: regions are small)."""

    def __init__(self) -> None:
        self._doms: dict[Region, dict[Block, set[Block]]] = {}
        self._index: dict[Block, dict[Operation, int]] = {}

    def position(self, op: Operation) -> int:
        block = op.parent_block()
        assert block is not None
        index = self._index.get(block)
        if index is None:
            index = self._index[block] = {o: i for i, o in enumerate(block.ops)}
        return index[op]

    def dominators(self, region: Region) -> dict[Block, set[Block]]:
        """Each block reachable from the entry block → the set of blocks dominating it."""
        doms = self._doms.get(region)
        if doms is not None:
            return doms
        blocks = list(region.blocks)
        entry = blocks[0]
        succs: dict[Block, list[Block]] = {}
        for b in blocks:
            last = b.last_op
            succs[b] = list(last.successors) if last is not None else []
        reachable = {entry}
        stack = [entry]
        while stack:
            for s in succs[stack.pop()]:
                if s not in reachable:
                    reachable.add(s)
                    stack.append(s)
        preds: dict[Block, list[Block]] = {b: [] for b in reachable}
        for b in reachable:
            for s in succs[b]:
                preds[s].append(b)
        order = [b for b in blocks if b in reachable]
        doms = {b: set(reachable) for b in order}
        doms[entry] = {entry}
        changed = True
        while changed:
            changed = False
            for b in order[1:]:
                new = set.intersection(*(doms[p] for p in preds[b])) if preds[b] else set()
                new.add(b)
                if new != doms[b]:
                    doms[b] = new
                    changed = True
        self._doms[region] = doms
        return doms


def _defined_at(value: SSAValue) -> str:
    if isinstance(value, OpResult):
        at = where(value.op)
        return f"by '{value.op.name}' {at if at.startswith('in @') else 'at ' + at}"
    if isinstance(value, BlockArgument):
        return f"as argument #{value.index} of a block"
    return "elsewhere"


def _check_use(dom: _Dominance, user: Operation, index: int, value: SSAValue) -> None:
    if isinstance(value, OpResult):
        def_op: Operation | None = value.op
        def_block = value.op.parent_block()
    elif isinstance(value, BlockArgument):
        def_op = None
        def_block = value.block
    else:
        return

    def refuse(why: str) -> None:
        name = f"%{value.name_hint}" if value.name_hint else f"operand #{index}"
        raise _located(user, f"operand #{index} ({name}) {why} (defined {_defined_at(value)})")

    if def_block is None:
        refuse("is not defined in the module")
    region = def_block.parent
    # the ancestor of `user` (itself or an enclosing op) that lies in the definition's region
    anchor = user
    while anchor.parent_block() is not None and anchor.parent_block().parent is not region:  # pyright: ignore[reportOptionalMemberAccess]
        parent = anchor.parent_op()
        if parent is None:
            break
        if parent.has_trait(IsolatedFromAbove):
            refuse(f"is defined outside the isolated '{parent.name}' that uses it")
        anchor = parent
    use_block = anchor.parent_block()
    if use_block is None or use_block.parent is not region:
        refuse("is used outside the region of its definition")
    assert use_block is not None
    parent_op = region.parent
    if use_block is def_block:
        if def_op is None:
            return
        if anchor is def_op:
            refuse("is used inside the op that defines it")
        if parent_op is not None and parent_op.name in _GRAPH_REGION_OPS:
            return
        if dom.position(def_op) >= dom.position(anchor):
            refuse("does not dominate this use: it is defined later in the block")
        return
    doms = dom.dominators(region)
    if use_block not in doms:
        return  # an unreachable block: every use there is dominated (as in MLIR and LLVM)
    if def_block not in doms[use_block]:
        refuse("does not dominate this use: its block does not dominate the block of the use")


def _located(op: Operation, message: str) -> VerifyException:
    """`message` about `op` as a located diagnostic (its `loc(...)`, else where it, or the op around
    it, was parsed), else prefixed with `where(op)`."""
    from warpforge.diagnostics import error_at, nearest_location

    if nearest_location(op) is not None:
        return error_at(op, message)
    return VerifyException(f"{where(op)}: '{op.name}' {message}")


def verify_dominance(root: Operation) -> None:
    """Raise `VerifyException` (located at the use) for the first operand that does not dominate its use."""
    dom = _Dominance()
    for op in root.walk():
        for i, operand in enumerate(op.operands):
            _check_use(dom, op, i, operand)


def _dims(op: Operation, attr_name: str, at: Callable[[str], VerifyException]) -> tuple[int, ...] | None:
    attr = op.attributes.get(attr_name)
    if attr is None:
        return None
    if not isinstance(attr, DenseArrayBase):
        raise at(f"{attr_name} must be an array<i32: x[, y[, z]]>, got {attr}")
    dims = tuple(int(v) for v in attr.get_values())  # pyright: ignore[reportArgumentType]
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise at(f"{attr_name} must be 1 to 3 positive extents, got {list(dims)}")
    threads = 1
    for d in dims:
        threads *= d
    if threads > MAX_THREADS_PER_BLOCK:
        raise at(
            f"{attr_name} {list(dims)} asks for {threads} threads per block; a block has at most {MAX_THREADS_PER_BLOCK}"
        )
    return dims


def verify_launch_attributes(op: Operation, *, exact: str = "nvvm.reqntid", maximum: str = "nvvm.maxntid", located: bool = True) -> None:
    """Check `op`'s launch-bound attributes (PTX `.reqntid` / `.maxntid` / `.minnctapersm`).

    `exact` / `maximum` name the attributes carrying the exact and the maximum block shape (a
    `gpu.func` calls its exact one `known_block_size`). Raises `VerifyException`, its message prefixed
    with the op's location when `located` (op verifiers leave that to the driver).
    """
    def at(message: str) -> VerifyException:
        return _located(op, message) if located else VerifyException(f"{op.name}: {message}")

    req = _dims(op, exact, at)
    mx = _dims(op, maximum, at)
    if req is not None and mx is not None:
        raise at(
            f"has both {exact} (exact block, PTX .reqntid) and {maximum} (PTX .maxntid); ptxas accepts only one of them"
        )
    minctasm = op.attributes.get("nvvm.minctasm")
    if minctasm is not None:
        if not isinstance(minctasm, IntegerAttr) or not 1 <= minctasm.value.data <= MAX_MINCTASM:
            raise at(f"nvvm.minctasm (PTX .minnctapersm) must be an integer in [1, {MAX_MINCTASM}], got {minctasm}")


def verify_for_export(module: ModuleOp) -> None:
    """The checks LLVM would otherwise abort on: dominance, and the launch bounds of every function."""
    dom = _Dominance()
    for op in walk_ops(module):
        if any(name in op.attributes for name in ("nvvm.reqntid", "nvvm.maxntid", "nvvm.minctasm")):
            verify_launch_attributes(op)
        for i, operand in enumerate(op.operands):
            _check_use(dom, op, i, operand)
