"""`tile-assign-layouts`: give every tile value of a tile kernel a layout encoding (`#tile.blocked`,
`#tile.slice`), inserting `tile.convert_layout` where a value is produced in one layout and used in
another. It runs after `lower-kernel-control-flow` (loops are blocks and branches) and before
`tile-to-gpu`, which reads the encodings.

**Which values share a layout.** The operands and result of an elementwise op (`tile.add`, …,
`tile.cmp`, `tile.where`, `tile.cast`) are held per register, so they must have one layout; a block
argument and the values every branch passes to it too. Such values form one *class* (union-find).

**What each class gets.** The canonical blocked layout of its shape (`canonical_layout`: the choice
from the shape and `tile.num_warps` `tile-to-gpu` has always made) unless every producer in it is a
reduction along one dimension whose result `tile-to-gpu` produces in registers (`reduce_plan`'s
`rows` and `groups` paths) or makes no demand (`tile.full`, `tile.splat`, `tile.iota`, block
arguments), and every use outside the class is free on that slice (a `tile.broadcast` back along the
reduced dimension, `tile.extract` of one element, or the result of a reduction that is one value):
then it gets the reduction's `#tile.slice` — so `x - max(x, axis=1, keepdims=True)` keeps the row
maxima in the threads that hold the rows, with no shared-memory round trip. A value whose encoding
is already set keeps it (another pass's, or written in the input), and its class follows it.

**Where layouts meet.** A producer whose natural layout is not its class's — a `groups` reduction in
a blocked class, an encoded value in a class of another encoding — gets its own layout and a
`tile.convert_layout` to the class's after it. The `FoldConvertLayout` pattern then removes
conversions to the layout a value already has and folds back-to-back ones.

**`tile.dot`'s accumulator.** Last, a `tile.dot`'s result and the values that share its registers
(loop-carried accumulators, elementwise epilogues, broadcasts used only there) get the MMA layout
`tile-to-gpu` lowers them in (`tile_dot.choose_mma_layouts`): `#tile.mma` (`mma.sync` m16n8), or
`#tile.wgmma` on `sm_90a` for dots whose operands are ring slots of a wgmma shape
(`tile_dot_wgmma.choose_wgmma_layouts`; option `chip`, as `tile-to-gpu`'s). The splats that start
them (`tile.zeros` of a K loop) take the encoding too. A value of another layout that is an operand
of an elementwise op of them (an epilogue adding a loaded tile, attention's causal mask at
`tile.where`) gets a `tile.convert_layout` to the MMA encoding right before that op (where
`tile-to-gpu` converts such an operand itself); where one meets them at a branch or as a dot's
accumulator the kernel keeps blocked types and `tile-to-gpu` makes the same choice itself,
converting where they meet. The dot's operands stay blocked (`tile-to-gpu` stages them in shared
memory).

**The rows of an accumulator.** Then (`assign_row_encodings`) a row reduction of such an
accumulator whose warps split M only, and the values that keep its registers — the running
maximum and sum of an online softmax carried through a loop, elementwise ops of them, the splats
they start from, reshapes M <-> Mx1 — get the rows slice `#tile.slice<dim = 1, extent = N, parent =
#tile.mma<…> | #tile.wgmma<…>>` (`tile_dot_rows.choose_row_layouts`, the choice `tile-to-gpu` makes
itself for IR without it): reduced in registers and across the quad by shuffles, broadcast back
over the accumulator by register copies. Where such a value meets another layout at an elementwise
op or a branch, a `tile.convert_layout` right before it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, cf
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import Rewriter

from warpforge.dialects import kernel, tile
from warpforge.dialects.tile_layout import MmaEncodingAttr, SliceEncodingAttr, WgmmaEncodingAttr
from warpforge.passes.tile_to_gpu.layouts import canonical_layout, kernel_threads, reduce_plan, slice_layout

AGNOSTIC_SPLATS: tuple[type[Operation], ...] = (tile.FullOp, tile.SplatOp)
"""Producers that take the MMA encoding of the values they feed (a splat in any layout)."""

SAME_LAYOUT_OPS: tuple[type[Operation], ...] = (*tile.ELEMENTWISE_BINARY, *tile.ELEMENTWISE_UNARY, tile.CmpOp, tile.WhereOp, tile.CastOp)
"""Ops held per register: their tile operands and result share one layout."""

AGNOSTIC_PRODUCERS: tuple[type[Operation], ...] = (tile.FullOp, tile.SplatOp, tile.IotaOp)
"""Ops that produce a tile in any layout at no cost."""


# --------------------------------------------------------------------------- the cleanup pattern


class FoldConvertLayout(RewritePattern):
    """`tile.convert_layout` to the layout the value already has → the value; a conversion of a
    conversion → one conversion from the first source (or none when it returns to it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tile.ConvertLayoutOp, rewriter: PatternRewriter) -> None:
        if op.input.type == op.result.type:
            rewriter.replace_op(op, [], [op.input])
            return
        inner = op.input.owner
        if isinstance(inner, tile.ConvertLayoutOp):
            if inner.input.type == op.result.type:
                rewriter.replace_op(op, [], [inner.input])
            else:
                rewriter.replace_op(op, tile.ConvertLayoutOp(inner.input, op.result.type))  # pyright: ignore[reportArgumentType]
            if not inner.result.uses:
                rewriter.erase_op(inner)


# --------------------------------------------------------------------------- layout assignment


class _Classes:
    """Union-find over tile values."""

    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}

    def find(self, v: SSAValue) -> SSAValue:
        self.parent.setdefault(v, v)
        while self.parent[v] is not v:
            self.parent[v] = self.parent[self.parent[v]]
            v = self.parent[v]
        return v

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[ra] = rb


def _is_tile(v: SSAValue) -> bool:
    return isinstance(v.type, tile.TileType)


def _branch_edges(op: Operation) -> list[tuple[SSAValue, BlockArgument]]:
    if isinstance(op, cf.BranchOp):
        return list(zip(op.arguments, op.successor.args))
    if isinstance(op, cf.ConditionalBranchOp):
        return list(zip(op.then_arguments, op.then_block.args)) + list(zip(op.else_arguments, op.else_block.args))
    return []


def _branch_target(op: Operation, index: int) -> BlockArgument | None:
    """The block argument operand `index` of branch `op` is passed to (None: not a branch argument)."""
    if isinstance(op, cf.BranchOp):
        return op.successor.args[index]
    if isinstance(op, cf.ConditionalBranchOp) and index > 0:
        then = len(op.then_arguments)
        return op.then_block.args[index - 1] if index <= then else op.else_block.args[index - 1 - then]
    return None


@dataclass
class _Assignment:
    func: kernel.FuncOp
    threads: int

    def canonical(self, t: tile.TileType) -> Attribute:
        return canonical_layout(t.dims, self.threads).encoding()

    def reduce_slice(self, op: tile.ReduceOp) -> tuple[SliceEncodingAttr, bool] | None:
        """The `#tile.slice` of a reduction `tile-to-gpu` produces in registers, and whether its
        lowering straight into the canonical layout costs as much (the `rows` path); None for the
        `shared` path."""
        st, rt = op.input.type, op.result.type
        assert isinstance(st, tile.TileType) and isinstance(rt, tile.TileType)
        parent = canonical_layout(st.dims, self.threads)
        sl = slice_layout(parent, op.axis.data, rt.dims)
        plan = reduce_plan(st.dims, op.axis.data, self.threads, rt.dims, sl)
        if plan.path == "shared":
            return None
        return SliceEncodingAttr(op.axis.data, st.dims[op.axis.data], parent.encoding()), plan.path == "rows"

    def free_broadcast(self, op: tile.BroadcastOp, enc: SliceEncodingAttr) -> bool:
        """Whether broadcasting a tile of slice `enc` by `op` only copies registers (`broadcast_slice`)."""
        st, dt = op.input.type, op.result.type
        assert isinstance(st, tile.TileType) and isinstance(dt, tile.TileType)
        parent = enc.parent
        target = canonical_layout(dt.dims, self.threads)
        if (target.vec, target.owners, target.replicas) != (parent.vec.data, parent.owners.data, parent.replicas.data):  # pyright: ignore[reportAttributeAccessIssue]
            return False
        if dt.numel != st.numel * enc.extent.data:
            return False
        low = int(np.prod(st.dims[enc.dim.data :])) if st.dims[enc.dim.data :] else 1
        source = np.broadcast_to(np.arange(st.numel).reshape(st.dims), dt.dims).ravel()
        f = np.arange(dt.numel)
        return bool(np.array_equal(source, (f // (enc.extent.data * low)) * low + f % low))

    def run(self) -> None:
        func = self.func
        classes = _Classes()
        values: list[SSAValue] = []
        for op in func.walk():
            for region in op.regions:
                for block in region.blocks:
                    values += [a for a in block.args if _is_tile(a)]
            if op is func:
                continue
            values += [r for r in op.results if _is_tile(r)]
            if isinstance(op, SAME_LAYOUT_OPS):
                group = [v for v in (*op.operands, *op.results) if _is_tile(v)]
                for v in group[1:]:
                    classes.union(group[0], v)
            for src, arg in _branch_edges(op):
                if _is_tile(src):
                    classes.union(src, arg)
        if not values:
            return
        members: dict[SSAValue, list[SSAValue]] = {}
        for v in values:
            members.setdefault(classes.find(v), []).append(v)

        # each producer's own layout (None: whatever its class has)
        own: dict[SSAValue, Attribute | None] = {}
        rows_path: set[SSAValue] = set()
        for v in values:
            t = v.type
            assert isinstance(t, tile.TileType)
            if t.has_encoding:
                own[v] = t.encoding
                continue
            owner = v.owner
            if isinstance(owner, Block) or isinstance(owner, SAME_LAYOUT_OPS + AGNOSTIC_PRODUCERS):
                own[v] = None
            elif isinstance(owner, tile.ReduceOp) and (found := self.reduce_slice(owner)) is not None:
                own[v] = found[0]
                if found[1]:
                    rows_path.add(v)
            else:
                own[v] = self.canonical(t)

        chosen: dict[SSAValue, Attribute] = {}
        for root, vs in members.items():
            t = vs[0].type
            assert isinstance(t, tile.TileType)
            wanted = {own[v] for v in vs if own[v] is not None}
            fixed = [v.type.encoding for v in vs if v.type.has_encoding]  # pyright: ignore[reportAttributeAccessIssue]
            chosen[root] = self.canonical(t.plain)
            if fixed:
                chosen[root] = fixed[0]
            elif len(wanted) == 1 and isinstance(enc := next(iter(wanted)), SliceEncodingAttr):
                # the slice, converting before the uses that need a blocked layout, when that takes
                # no more conversions than converting after each reduction that is not on the rows path
                need_blocked = sum(1 for v in vs if self._blocked_uses(v, enc))
                after_reductions = sum(1 for v in vs if own[v] is not None and v not in rows_path)
                if need_blocked <= after_reductions or need_blocked == 0:
                    chosen[root] = enc

        for v in values:
            enc = chosen[classes.find(v)]
            mine = own[v]
            if v in rows_path and not isinstance(enc, SliceEncodingAttr) and not v.type.has_encoding:  # pyright: ignore[reportAttributeAccessIssue]
                mine = enc  # the rows path reads its partials straight into the class's layout
            v = self._retype(v, mine if mine is not None else enc, enc)
            if isinstance(enc, SliceEncodingAttr) and not enc.rows_of_mma and (uses := self._blocked_uses(v, enc)):
                t = v.type
                assert isinstance(t, tile.TileType)
                self._convert_for(v, t.with_encoding(self.canonical(t.plain)), uses)

    def _blocked_uses(self, v: SSAValue, enc: SliceEncodingAttr) -> list[Operation]:
        """The users of `v` outside its class for which the slice `enc` is not free."""
        t = v.type
        assert isinstance(t, tile.TileType)
        if t.numel == 1:
            return []  # one element: every thread holds it, in any layout
        out: list[Operation] = []
        for use in v.uses:
            user = use.operation
            if isinstance(user, SAME_LAYOUT_OPS + (tile.ConvertLayoutOp,)) or _branch_edges(user):
                continue
            if isinstance(user, tile.BroadcastOp) and self.free_broadcast(user, enc):
                continue
            out.append(user)
        return out

    def _retype(self, v: SSAValue, produced: Attribute, wanted: Attribute) -> SSAValue:
        """Give `v` the encoding `produced`; when its class wants another, convert right after it.
        Returns the value (of the class's layout)."""
        t = v.type
        assert isinstance(t, tile.TileType)
        if t.encoding != produced:
            v = Rewriter.replace_value_with_new_type(v, t.with_encoding(produced))
        if produced == wanted:
            return v
        return self._convert_for(v, t.with_encoding(wanted), None)

    def _convert_for(self, v: SSAValue, to: tile.TileType, users: list[Operation] | None) -> SSAValue:
        """A `tile.convert_layout` of `v` to `to` right after its definition, replacing `v` in `users`
        (None: in every use). Returns the converted value."""
        conv = tile.ConvertLayoutOp(v, to)
        if isinstance(v, BlockArgument):
            block = v.block
            if block.first_op is None:
                block.add_op(conv)
            else:
                block.insert_op_before(conv, block.first_op)
        else:
            owner = v.owner
            assert isinstance(owner, Operation)
            conv.location = owner.location
            owner.parent_block().insert_op_after(conv, owner)  # pyright: ignore[reportOptionalMemberAccess]
        v.replace_uses_with_if(conv.result, lambda use: use.operation is not conv and (users is None or use.operation in users))
        return conv.result


def assign_mma_encodings(func: kernel.FuncOp, threads: int, chip: str) -> None:
    """Give the MMA-layout values of `func` (`tile_dot.choose_mma_layouts`, then
    `tile_dot_wgmma.choose_wgmma_layouts` for `chip`) their `#tile.mma` / `#tile.wgmma` types, and the
    splats whose every use is among them the same; nothing when some other value would meet them
    (module doc: tile-to-gpu then chooses and converts itself)."""
    from warpforge.dialects.tile_dot import DotOp
    from warpforge.passes.lowerings.tile_dot import choose_mma_layouts
    from warpforge.passes.lowerings.tile_dot_wgmma import choose_wgmma_layouts

    layouts = choose_mma_layouts(func, threads)
    if not layouts:
        return
    choose_wgmma_layouts(func, threads, chip, layouts)
    encoding: dict[SSAValue, Attribute] = {v: lay.encoding() for v, lay in layouts.items()}
    groups: list[list[SSAValue]] = []
    meets: list[tuple[Operation, int]] = []  # (elementwise op of an MMA result, operand of another layout)
    for op in func.walk():
        if isinstance(op, SAME_LAYOUT_OPS):
            group = [v for v in (*op.operands, *op.results) if _is_tile(v)]
            if op.results[0] in encoding:
                met = [i for i, o in enumerate(op.operands) if _is_tile(o) and o not in encoding and not isinstance(o.owner, AGNOSTIC_SPLATS)]
                meets += [(op, i) for i in met]
                group = [v for v in group if v not in {op.operands[i] for i in met}]
            groups.append(group)
        elif isinstance(op, DotOp):
            groups.append([op.acc, op.result])
        elif isinstance(op, tile.ConvertLayoutOp) and op.input in encoding:
            return  # a conversion from an MMA value: its source layout would change
        groups += [[src, arg] for src, arg in _branch_edges(op) if _is_tile(src)]
    splats: dict[SSAValue, Attribute] = {}
    for group in groups:
        inside = [encoding[v] for v in group if v in encoding]
        if not inside:
            continue
        for v in group:
            if v in encoding:
                continue
            if not isinstance(v.owner, AGNOSTIC_SPLATS) or splats.get(v, inside[0]) != inside[0]:
                return
            splats[v] = inside[0]
    for v in splats:  # every use of a splat is one where it meets the MMA values
        for use in v.uses:
            user = use.operation
            if isinstance(user, SAME_LAYOUT_OPS) and user.results[0] in encoding:
                continue
            if isinstance(user, DotOp) and use.index == 2 and user.result in encoding:
                continue
            if any(src is v and arg in encoding and user.operands[use.index] is v for src, arg in _branch_edges(user)):
                continue
            return
    for v, enc in (*encoding.items(), *splats.items()):
        t = v.type
        assert isinstance(t, tile.TileType)
        Rewriter.replace_value_with_new_type(v, t.with_encoding(enc))
    for op, i in meets:  # converted where it meets the MMA values (as tile-to-gpu converts an operand)
        v, to = op.operands[i], op.results[0].type
        assert isinstance(v.type, tile.TileType) and isinstance(to, tile.TileType)
        conv = tile.ConvertLayoutOp(v, v.type.with_encoding(to.encoding))
        conv.location = op.location
        op.parent_block().insert_op_before(conv, op)  # pyright: ignore[reportOptionalMemberAccess]
        op.operands = [conv.result if j == i else o for j, o in enumerate(op.operands)]


def assign_row_encodings(func: kernel.FuncOp, threads: int) -> None:
    """After `assign_mma_encodings`: give the row reductions of `func`'s `#tile.mma` / `#tile.wgmma`
    accumulators whose warps own whole rows, and the values sharing their registers (running maxima
    and sums, loop-carried, elementwise ops of them, reshapes M <-> Mx1), the rows slice
    `#tile.slice<dim = 1, extent = N, parent = <the accumulator's encoding>>`
    (`tile_dot_rows.choose_row_layouts`, the choice tile-to-gpu makes itself for IR without it).
    Conversions between two such values fold away; an elementwise op or a branch argument outside
    the set reading one gets a `tile.convert_layout` back to its own layout right before it. The
    broadcasts back over an accumulator are free and keep the accumulator's encoding."""
    from warpforge.passes.lowerings.tile_dot import _splat_source  # pyright: ignore[reportPrivateUsage]
    from warpforge.passes.lowerings.tile_dot_rows import choose_row_layouts
    from warpforge.passes.tile_to_gpu.layouts import layout_of

    known: dict[SSAValue, object] = {}
    for op in func.walk():
        for v in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            t = v.type
            if isinstance(t, tile.TileType) and isinstance(t.encoding, MmaEncodingAttr | WgmmaEncodingAttr) and not _splat_source(v):
                try:
                    known[v] = layout_of(t, threads)
                except ValueError:
                    return  # an MMA encoding for another CTA size: tile-to-gpu's diagnostic, at the value's op
    if not known:
        return
    chosen = choose_row_layouts(func, known)
    if not chosen:
        return
    rows: set[SSAValue] = set()
    for v, (_, group) in chosen.items():
        first = group[0].input.type
        assert isinstance(first, tile.TileType) and isinstance(v.type, tile.TileType)
        enc = SliceEncodingAttr(1, first.dims[1], first.encoding)
        old = v.type
        rows.add(Rewriter.replace_value_with_new_type(v, old.with_encoding(enc)) if old.encoding != enc else v)
    for op in list(func.walk()):
        if isinstance(op, tile.ConvertLayoutOp) and op.input in rows and op.result in rows:
            op.result.replace_all_uses_with(op.input)  # both sides hold the rows: nothing to convert
            rows.discard(op.result)
            op.detach()
            op.erase()

    def rows_site(user: Operation, index: int) -> Attribute | None:
        """The rows encoding operand `index` of `user` must have (an elementwise op of a rows result,
        a branch into a rows block argument), else None."""
        if isinstance(user, SAME_LAYOUT_OPS):
            target = user.results[0]
        elif (target := _branch_target(user, index)) is None:
            return None
        return target.type.encoding if target in rows else None  # pyright: ignore[reportAttributeAccessIssue]

    # a splat feeding only rows values is made in their layout (free, as every splat)
    for op in list(func.walk()):
        if isinstance(op, AGNOSTIC_SPLATS) and _is_tile(op.results[0]) and op.results[0] not in rows:
            wanted = {rows_site(u.operation, u.index) for u in op.results[0].uses}
            if len(wanted) == 1 and (enc := next(iter(wanted))) is not None:
                t = op.results[0].type
                assert isinstance(t, tile.TileType)
                rows.add(Rewriter.replace_value_with_new_type(op.results[0], t.with_encoding(enc)))
    # where a rows value meets another layout at an elementwise op or a branch: a conversion right before
    for user in list(func.walk()):
        if not isinstance(user, SAME_LAYOUT_OPS) and not _branch_edges(user):
            continue
        for index, v in enumerate(user.operands):
            if not _is_tile(v) or (isinstance(user, cf.ConditionalBranchOp) and index == 0):
                continue
            if isinstance(user, SAME_LAYOUT_OPS):
                to = user.results[0].type
            else:
                arg = _branch_target(user, index)
                assert arg is not None
                to = arg.type
            assert isinstance(to, tile.TileType) and isinstance(v.type, tile.TileType)
            if v.type.encoding == to.encoding or (v not in rows and to.encoding not in {rows_site(user, index)}):
                continue
            conv = tile.ConvertLayoutOp(v, v.type.with_encoding(to.encoding))
            conv.location = user.location
            user.parent_block().insert_op_before(conv, user)  # pyright: ignore[reportOptionalMemberAccess]
            user.operands = [conv.result if i == index else o for i, o in enumerate(user.operands)]


@dataclass(frozen=True)
class TileAssignLayoutsPass(ModulePass):
    """Give every tile value a layout encoding (#tile.blocked, #tile.slice; #tile.mma, #tile.wgmma for
    tile.dot's accumulator), converting where layouts meet."""

    name = "tile-assign-layouts"

    chip: str = "sm_90"
    """The target chip, as `tile-to-gpu`'s: on `sm_90a` a qualifying `tile.dot`'s accumulator is `#tile.wgmma`."""
    features: str = ""
    module: str = ""
    """(`features`, `module`: the target options every target pass takes; `features` is checked with `chip`.)"""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.walk()):
            if isinstance(f, kernel.FuncOp) and "tile" in f.attributes:
                threads = kernel_threads(f)
                if threads is not None:  # an invalid tile.num_warps is tile-to-gpu's diagnostic
                    _Assignment(f, threads).run()
        PatternRewriteWalker(GreedyRewritePatternApplier([FoldConvertLayout()]), apply_recursively=True).rewrite_module(op)
        from warpforge.backend.chips import resolve_target

        chip = resolve_target(self.chip, self.features).chip.name
        for f in list(op.walk()):
            if isinstance(f, kernel.FuncOp) and "tile" in f.attributes and (threads := kernel_threads(f)) is not None:
                assign_mma_encodings(f, threads, chip)
                assign_row_encodings(f, threads)
