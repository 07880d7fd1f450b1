"""`tile-to-gpu` lowerings of memory ops: `tile.load`/`tile.store` (vector accesses, masked tails),
`tile.load_tile_like`, masked loads/stores by offset, `tile.atomic_rmw`."""

from __future__ import annotations

from collections.abc import Callable

from dataclasses import dataclass
from functools import cache
from math import prod

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, MemRefType, VectorType, i1, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from warpforge.dialects import kernel, tile
from warpforge.passes.kernel_to_gpu import ATOMIC_RMW_KIND, Emitter, cast_value, signless
from warpforge.passes.tile_to_gpu.layouts import Layout, VECTOR_BYTES, canonical_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, PView, View, _TileFunctionLowering, _bytes, _log2, lowers
from warpforge.passes.tile_to_gpu.program import _traced


# --------------------------------------------------------------------------- loads and stores


def _linear(e: Emitter, view: View, coords: list[SSAValue]) -> SSAValue:
    """The element offset of global coordinates `coords` from the view's base: `sum(c_k * stride_k)`
    (row-major strides from the extents for a contiguous view), i64."""
    if view.strides is not None:
        lin: SSAValue | None = None
        for c, st in zip(coords, view.strides):
            term = c if st is None else e(arith.MuliOp(c, st))
            lin = term if lin is None else e(arith.AddiOp(lin, term))
        assert lin is not None
        return lin
    lin = coords[0]
    for c, d in zip(coords[1:], view.dims[1:]):
        lin = e(arith.AddiOp(e(arith.MuliOp(lin, d)), c))
    return lin


def _index(e: Emitter, view: View, lin: SSAValue | None, coords: list[SSAValue] | None = None, offset: int = 0) -> list[SSAValue]:
    """Memref indices of element `lin + offset` of the view (or, for a view with the memref's own
    shape, of global coordinates `coords` with `offset` added to the last). Without `coords`, `lin` is
    a row-major element offset; with them (a strided view's chunk), the offset in memory."""
    mt = view.memref.type
    assert isinstance(mt, MemRefType)

    def idx(v: SSAValue) -> SSAValue:
        return e(arith.IndexCastOp(v, IndexType()))

    def plus(v: SSAValue) -> SSAValue:
        return v if offset == 0 else e(arith.AddiOp(v, e.const(offset, i64)))

    if coords is not None and view.limit is None and view.strides is None and len(coords) == mt.get_num_dims() > 1:
        return [idx(c) for c in coords[:-1]] + [idx(plus(coords[-1]))]
    if view.strides is not None and coords is None:
        # a row-major element offset (gathers, scatters, atomics) into a strided view: its coordinates,
        # then the strides
        assert lin is not None
        rest, inner = lin, []
        for d in reversed(view.dims[1:]):
            inner.append(e(arith.RemUIOp(rest, d)))
            rest = e(arith.DivUIOp(rest, d))
        lin = _linear(e, view, [rest, *reversed(inner)])
    if lin is None:
        assert coords is not None
        lin = _linear(e, view, coords)
    if mt.get_num_dims() == 1:
        return [idx(plus(lin))]
    at = plus(lin)
    out: list[SSAValue] = []
    for d in reversed(view.base_dims[1:]):  # the memref's own row-major extents
        out.append(idx(e(arith.RemUIOp(at, d))))
        at = e(arith.DivUIOp(at, d))
    out.append(idx(at))
    return list(reversed(out))


def _vector_width(view: View, layout: Layout, tile_shape: tuple[int, ...], vector_bytes: int = VECTOR_BYTES) -> int:
    """Elements per global access: up to `vector_bytes` (16) when alignment and contiguity are proven."""
    elem = signless(view.elem)
    if elem == i1:
        return 1
    b = _bytes(elem)
    w = max(1, min(layout.vec, vector_bytes // b))
    while w > 1:
        aligned = view.align >= w * b
        # every row of the last axis starts aligned: the extent (contiguous) or each stride is a multiple of w
        rows_ok = len(tile_shape) == 1 or (view.divisible[-1] >= w if view.strides is None else all(dv >= w for dv in view.stride_divisible))
        if aligned and rows_ok and view.limit is None:
            return w
        w //= 2
    return 1


@dataclass
class _Chunk:
    """One chunk (vec contiguous elements) of a tile access: its global coordinates and, for views that
    need it (reinterpreted or strided memory), its linear element offset."""

    coords: list[SSAValue]
    lin: SSAValue | None


def _chunks(fl: _TileFunctionLowering, e: Emitter, view: View, layout: Layout, origin: list[SSAValue]) -> list[_Chunk]:
    shape = layout.shape
    mt = view.memref.type
    assert isinstance(mt, MemRefType)
    needs_lin = view.limit is not None or view.strides is not None or (len(shape) > 1 and mt.get_num_dims() == 1)
    out = []
    for r in range(layout.reps):
        fb = fl.flat(e, layout, r)
        local = []
        for k, n in enumerate(shape):  # the row-major multi-index of fb (powers of two: shifts and masks)
            if k > 0 and n == 1:
                local.append(e.const(0, i64))
                continue
            inner = prod(shape[k + 1 :])
            q = e(arith.ShRUIOp(fb, e.const(_log2(inner), i64))) if inner > 1 else fb
            local.append(q if k == 0 else e(arith.AndIOp(q, e.const(n - 1, i64))))
        g = [e(arith.AddiOp(o, i)) for o, i in zip(origin, local)]
        lin = g[0] if len(shape) == 1 else (_linear(e, view, g) if needs_lin else None)
        out.append(_Chunk(g, lin))
    return out


def _origin(e: Emitter, coords: list[SSAValue], tile_shape: tuple[int, ...]) -> list[SSAValue]:
    out = []
    for c, t in zip(coords, tile_shape):
        out.append(c if t == 1 else e(arith.ShLIOp(c, e.const(_log2(t), i64))))
    return out


def _coords64(fl: _TileFunctionLowering, e: Emitter, coords: tuple[SSAValue, ...] | list[SSAValue]) -> list[SSAValue]:
    out = []
    for c in coords:
        v = fl.v(c)
        out.append(cast_value(e, v, c.type, kernel.SI64))
    return out


def _whole_tiles(view: View, tile_shape: tuple[int, ...]) -> bool:
    """No tile is partial: each extent is a multiple of the tile's (known from the specialization), so
    a tile is wholly inside the tensor or wholly outside."""
    return all(dv >= t and dv % t == 0 for dv, t in zip(view.divisible, tile_shape)) and view.limit is None


def _tile_inside(e: Emitter, view: View, origin: list[SSAValue]) -> SSAValue:
    """i1: the tile at `origin` starts inside the tensor (uniform; a negative coordinate is outside)."""
    cond: SSAValue | None = None
    for o, d in zip(origin, view.dims):
        ok = e(arith.CmpiOp(o, d, "ult"))
        cond = ok if cond is None else e(arith.AndIOp(cond, ok))
    assert cond is not None
    return cond


def _full_tile(e: Emitter, view: View, origin: list[SSAValue], tile_shape: tuple[int, ...]) -> SSAValue:
    """i1: the tile at `origin` lies wholly inside the tensor (uniform across the CTA)."""
    cond = _tile_inside(e, view, origin)
    for o, t, d in zip(origin, tile_shape, view.dims):
        end = e(arith.AddiOp(o, e.const(t, i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(end, d, "ule"))))
    if view.limit is not None:
        last = [e(arith.AddiOp(o, e.const(t - 1, i64))) if t > 1 else o for o, t in zip(origin, tile_shape)]
        end = e(arith.AddiOp(_linear(e, view, last), e.const(1, i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(end, view.limit, "ule"))))
    return cond


def _in_bounds(e: Emitter, view: View, chunk: _Chunk, offset: int, count: int) -> SSAValue:
    """i1: elements `offset … offset+count-1` of the chunk lie inside the tensor."""
    cond: SSAValue | None = None
    coords = chunk.coords
    for axis, (g, d) in enumerate(zip(coords, view.dims)):
        last = axis == len(coords) - 1
        pos = e(arith.AddiOp(g, e.const(offset + count - 1, i64))) if last and offset + count - 1 else g
        ok = e(arith.CmpiOp(pos, d, "ult"))  # a negative coordinate is a huge unsigned one: outside
        cond = ok if cond is None else e(arith.AndIOp(cond, ok))
    if view.limit is not None:
        assert chunk.lin is not None
        pos = e(arith.AddiOp(chunk.lin, e.const(offset + count - 1, i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(pos, view.limit, "ult"))))  # pyright: ignore[reportArgumentType]
    assert cond is not None
    return cond


def _load_group(e: Emitter, view: View, chunk: _Chunk, offset: int, w: int, alignment: int) -> list[SSAValue]:
    elem = signless(view.elem)
    idx = _index(e, view, chunk.lin, chunk.coords, offset)
    if w == 1:
        return [e(memref.LoadOp.get(view.memref, idx))]
    vt = VectorType(elem, [w])
    load = vector.LoadOp(view.memref, idx, vt)
    load.attributes["alignment"] = IntegerAttr(alignment, i64)
    v = e(load)
    return [e(vector.ExtractOp(v, [k], elem)) for k in range(w)]


def _store_group(e: Emitter, view: View, chunk: _Chunk, offset: int, values: list[SSAValue], alignment: int) -> None:
    elem = signless(view.elem)
    idx = _index(e, view, chunk.lin, chunk.coords, offset)
    if len(values) == 1:
        e(memref.StoreOp.get(values[0], view.memref, idx))
        return
    vt = VectorType(elem, [len(values)])
    vec = e(vector.BroadcastOp(values[0], vt))
    for k, x in enumerate(values[1:], start=1):
        vec = e(vector.InsertOp(x, vec, [k], vt))
    store = vector.StoreOp(vec, view.memref, idx)
    store.attributes["alignment"] = IntegerAttr(alignment, i64)
    e(store)


def _padding_value(e: Emitter, padding: Attribute, elem: Attribute) -> SSAValue:
    if isinstance(padding, FloatAttr):
        return e.const(padding.value.data, signless(elem))
    if isinstance(padding, IntegerAttr):
        return e.const(padding.value.data, signless(elem))
    return e.const(0, signless(elem))


def load_tile(
    fl: _TileFunctionLowering, e: Emitter, view: View, tile_shape: tuple[int, ...], padding: Attribute, coords: list[SSAValue], elem: Attribute,
    masks_for: Operation | None = None,
) -> Dist:
    """The tile at `coords`: unmasked when it lies wholly inside the tensor, else per vector group with
    `padding` outside. With `masks_for` (a load an atomic reads elementwise, `padded_loads`), also
    records `fl.inside_masks[masks_for]`: each register's in-bounds bit, the predicates the masked path
    computes anyway (true on the unmasked path), so the atomic need not compute them again."""
    layout = canonical_layout(tile_shape, fl.threads)
    origin = _origin(e, coords, tile_shape)
    chunks = _chunks(fl, e, view, layout, origin)
    w = _vector_width(view, layout, tile_shape, fl.vector_bytes)
    b = _bytes(signless(view.elem))
    masks = masks_for is not None
    types = [signless(elem)] * layout.slots + ([i1] * layout.slots if masks else [])

    def unmasked(b_: Emitter) -> list[SSAValue]:
        regs: list[SSAValue] = []
        for ch in chunks:
            for k in range(0, layout.vec, w):
                regs += _load_group(b_, view, ch, k, w, w * b)
        return regs + ([b_.const(1, i1)] * layout.slots if masks else [])

    wm = w if view.divisible[-1] >= w else 1  # a vector is wholly inside or outside the tensor

    def masked(b_: Emitter) -> list[SSAValue]:
        pad = _padding_value(b_, padding, elem)
        regs: list[SSAValue] = []
        oks: list[SSAValue] = []
        for ch in chunks:
            for k in range(0, layout.vec, wm):
                ok = _in_bounds(b_, view, ch, k, wm)
                rtypes = [signless(elem)] * wm
                regs += fl.branch_values(b_, ok, lambda x, ch=ch, k=k: _load_group(x, view, ch, k, wm, wm * b), lambda x: [pad] * wm, rtypes)
                oks += [ok] * wm
        return regs + (oks if masks else [])

    if _whole_tiles(view, tile_shape):
        # no partial tiles: wholly inside (unmasked) or wholly outside (all padding)
        inside = _tile_inside(e, view, origin)
        regs = fl.branch_values(e, inside, lambda b_: unmasked(b_)[: layout.slots], lambda b_: [_padding_value(b_, padding, elem)] * layout.slots, types[: layout.slots])
        if masks_for is not None:
            fl.inside_masks[masks_for] = (tuple(tile_shape), [inside] * layout.slots)
    else:
        full = _full_tile(e, view, origin, tile_shape)
        regs = fl.branch_values(e, full, unmasked, masked, types)
        if masks_for is not None:
            regs, fl.inside_masks[masks_for] = regs[: layout.slots], (tuple(tile_shape), regs[layout.slots :])
    return Dist(layout, regs, elem)


def _masks_for(fl: _TileFunctionLowering, op: Operation) -> Operation | None:
    """`op` when an atomic is computed from it elementwise, or (checked kernels) an integer elementwise
    binary op that can record an error (division by zero) — its lowering then records `inside_masks`,
    so neither acts on, nor reports, elements past the tensor's end."""
    if fl.inside_mask_loads is None:
        loads = {load for a in fl.src.walk() if isinstance(a, tile.AtomicRMWOp) for load in padded_loads([a.values, a.offsets, a.mask])}
        if fl.checks:
            loads |= {load for b in fl.src.walk() if reports_errors(b) for load in padded_loads(_error_operands(b))}
        fl.inside_mask_loads = loads
    return op if op in fl.inside_mask_loads else None


def reports_errors(op: Operation) -> bool:
    """An elementwise op whose scalar lowering may record a checked error: a binary op on integers
    (integer division or remainder by zero, `tile.cdiv`), or a `tile.map` (its body — a
    `@simt.device` function — runs scalar `kernel` ops with their checks)."""
    from warpforge.dialects.tile_map import MapOp

    if isinstance(op, MapOp):
        return True
    return isinstance(op, tile.ElementwiseBinaryOp) and isinstance(op.lhs.type, tile.TileType) and isinstance(
        signless(op.lhs.type.element_type), IntegerType  # pyright: ignore[reportAttributeAccessIssue]
    )


def _error_operands(op: Operation) -> list[SSAValue]:
    """The tiles an op that `reports_errors` computes its elements from, position by position."""
    from warpforge.dialects.tile_map import MapOp

    if isinstance(op, MapOp):
        return list(op.inputs)
    return [op.lhs, op.rhs]  # pyright: ignore[reportAttributeAccessIssue]


def padding_bits(fl: _TileFunctionLowering, e: Emitter, op: Operation, layout: object, count: int) -> list[SSAValue] | None:
    """Per register of `op`'s result (`count` of them, in `layout`): whether every tile it is computed
    from elementwise read that element inside its tensor (`padded_loads`); None when nothing is known
    (no padded load, another layout) — then every register counts as inside."""
    if not fl.checks or not reports_errors(op):
        return None
    bits: list[SSAValue] | None = None
    for load in padded_loads(_error_operands(op)):
        if load not in fl.inside_masks or not isinstance(layout, Layout) or layout != canonical_layout(layout.shape, fl.threads):
            continue
        inside = _inside_mask(fl, e, load, layout.shape)
        if inside is None or len(inside) != count:
            continue
        bits = inside if bits is None else [e(arith.AndIOp(x, y)) for x, y in zip(bits, inside)]
    return bits


def store_full_or_tail(fl: _TileFunctionLowering, x: Emitter, view: View, origin: list[SSAValue], tile_shape: tuple[int, ...],
                       unmasked: Callable[[Emitter], None], masked: Callable[[Emitter], None]) -> None:  # fmt: skip
    """Emit a tile store: `unmasked` when the tile lies wholly inside the tensor (a uniform test), else
    `masked` (each access guarded) — or, when every tile is whole, `unmasked` under the inside test only
    (a tile past the end stores nothing)."""
    if _whole_tiles(view, tile_shape):
        fl.when(x, _tile_inside(x, view, origin), unmasked)
        return
    full = _full_tile(x, view, origin, tile_shape)
    tb, eb = Block(), Block()
    te, ee = Emitter(tb, x.source), Emitter(eb, x.source)
    unmasked(te)
    te(scf.YieldOp())
    masked(ee)
    ee(scf.YieldOp())
    x(scf.IfOp(full, [], Region(tb), Region(eb)))


def store_tile(fl: _TileFunctionLowering, e: Emitter, d: Dist, view: View, tile_shape: tuple[int, ...], coords: list[SSAValue]) -> None:
    own = getattr(d.layout, "store_tile", None)
    if own is not None:  # a layout family with its own store (tile.dot's MMA layout: straight from registers)
        own(fl, e, d, view, tile_shape, coords)
        return
    d = fl.canon(e, d)
    layout = d.layout
    origin = _origin(e, coords, tile_shape)
    w = _vector_width(view, layout, tile_shape, fl.vector_bytes)
    b = _bytes(signless(view.elem))

    def body(x: Emitter) -> None:
        chunks = _chunks(fl, x, view, layout, origin)

        def unmasked(y: Emitter) -> None:
            for r, ch in enumerate(chunks):
                for k in range(0, layout.vec, w):
                    _store_group(y, view, ch, k, d.regs[r * layout.vec + k : r * layout.vec + k + w], w * b)

        wm = w if view.divisible[-1] >= w else 1  # a vector is wholly inside or outside the tensor

        def masked(y: Emitter) -> None:
            for r, ch in enumerate(chunks):
                for k in range(0, layout.vec, wm):
                    ok = _in_bounds(y, view, ch, k, wm)
                    vals = d.regs[r * layout.vec + k : r * layout.vec + k + wm]
                    fl.when(y, ok, lambda z, ch=ch, k=k, vals=vals: _store_group(z, view, ch, k, vals, wm * b))

        store_full_or_tail(fl, x, view, origin, tile_shape, unmasked, masked)

    fl.when(e, fl.is_first_replica(layout), body)


@lowers(tile.LoadOp)
def _load(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadOp)
    pv = _traced(fl, op, op.view, PView)
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    return load_tile(fl, e, pv.view, pv.tile, pv.padding, _coords64(fl, e, op.coords), rt.element_type, _masks_for(fl, op))


@lowers(tile.LoadTileLikeOp)
def _load_tile_like(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadTileLikeOp)
    view = _traced(fl, op, op.source, View)
    like = _traced(fl, op, op.like, PView)
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    padding = like.padding if getattr(like.padding, "type", None) == rt.element_type else tile.zero_attr(rt.element_type)
    return load_tile(fl, e, view, like.tile, padding, _coords64(fl, e, op.coords), rt.element_type, _masks_for(fl, op))


@lowers(tile.StoreOp)
def _store(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, tile.StoreOp)
    pv = _traced(fl, op, op.view, PView)
    store_tile(fl, e, fl.dist(op.value), pv.view, pv.tile, _coords64(fl, e, op.coords))
    return None


def _numel(e: Emitter, view: View) -> SSAValue:
    if view.limit is not None:
        return view.limit
    n = view.dims[0]
    for d in view.dims[1:]:
        n = e(arith.MuliOp(n, d))
    return n


def _masked_offsets(fl: _TileFunctionLowering, e: Emitter, view: View, offsets: Dist, mask: Dist) -> tuple[list[SSAValue], list[SSAValue]]:
    """Per register: the i64 offset and whether it is accessed (mask true, 0 ≤ offset < numel)."""
    offsets, mask = fl.canon(e, offsets), fl.canon(e, mask)
    numel = _numel(e, view)
    offs, oks = [], []
    for o, m in zip(offsets.regs, mask.regs):
        o64 = cast_value(e, o, offsets.elem, kernel.SI64)
        inside = e(arith.CmpiOp(o64, numel, "ult"))  # a negative offset is huge unsigned: outside
        offs.append(o64)
        oks.append(e(arith.AndIOp(inside, m)))
    return offs, oks


@lowers(tile.LoadMaskedOp)
def _load_masked(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadMaskedOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    offsets = fl.canon(e, fl.dist(op.offsets))
    offs, oks = _masked_offsets(fl, e, view, offsets, fl.dist(op.mask))
    pad = fl.v(op.padding)
    elem = signless(view.elem)
    regs = []
    for o, ok in zip(offs, oks):
        regs += fl.branch_values(e, ok, lambda x, o=o: [x(memref.LoadOp.get(view.memref, _index(x, view, o)))], lambda x: [pad], [elem])
    return Dist(offsets.layout, regs, view.elem)


@lowers(tile.StoreMaskedOp)
def _store_masked(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, tile.StoreMaskedOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    value = fl.canon(e, fl.dist(op.value))
    offs, oks = _masked_offsets(fl, e, view, fl.dist(op.offsets), fl.dist(op.mask))

    def body(x: Emitter) -> None:
        for v, o, ok in zip(value.regs, offs, oks):
            fl.when(x, ok, lambda y, v=v, o=o: y(memref.StoreOp.get(v, view.memref, _index(y, view, o))) and None)

    fl.when(e, fl.is_first_replica(value.layout), body)
    return None


@cache
def _positionwise() -> tuple[type[Operation], ...]:
    from warpforge.dialects.tile_map import MapOp

    return (*tile.ELEMENTWISE_BINARY, *tile.ELEMENTWISE_UNARY, tile.CmpOp, tile.WhereOp, tile.CastOp, MapOp)


def padded_loads(values: list[SSAValue]) -> list[tile.LoadOp | tile.LoadTileLikeOp]:
    """The tile loads that `values` are computed from element by element (through elementwise ops,
    comparisons, `tile.where`, casts and `tile.map`): element p of each value depends on element p of
    each of them, so where one of them read padding (past the tensor's end) element p is padding too.
    Other producers (reductions, reshapes, broadcasts, `tile.dot`, loop-carried tiles) end the walk:
    their padding is what the load's `padding=` made it."""
    kinds = _positionwise()
    roots: list[tile.LoadOp | tile.LoadTileLikeOp] = []
    seen: set[Operation] = set()
    stack = list(values)
    while stack:
        owner = stack.pop().owner
        if not isinstance(owner, Operation) or owner in seen:
            continue
        seen.add(owner)
        if isinstance(owner, tile.LoadOp | tile.LoadTileLikeOp):
            roots.append(owner)
        elif isinstance(owner, kinds):
            stack.extend(v for v in owner.operands if isinstance(v.type, tile.TileType))
    return roots


def _inside_mask(fl: _TileFunctionLowering, e: Emitter, load: tile.LoadOp | tile.LoadTileLikeOp, shape: tuple[int, ...]) -> list[SSAValue] | None:
    """Per register of the canonical layout of `shape`: whether `load` read that element from inside
    its tensor (None when the load's tile has another shape): the bits its lowering recorded
    (`load_tile`'s `masks_for`), else (a load lowered another way) computed here."""
    if load in fl.inside_masks:
        tile_shape, masks = fl.inside_masks[load]
        return masks if tile_shape == tuple(shape) else None
    if isinstance(load, tile.LoadOp):
        pv = _traced(fl, load, load.view, PView)
        view, tile_shape = pv.view, pv.tile
    else:
        view = _traced(fl, load, load.source, View)
        tile_shape = _traced(fl, load, load.like, PView).tile
    if tuple(tile_shape) != tuple(shape):
        return None
    layout = canonical_layout(tile_shape, fl.threads)
    chunks = _chunks(fl, e, view, layout, _origin(e, _coords64(fl, e, load.coords), tile_shape))
    return [_in_bounds(e, view, ch, k, 1) for ch in chunks for k in range(layout.vec)]


@lowers(tile.AtomicRMWOp)
def _atomic(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    """Per element: the atomic at its offset when the mask holds, the offset is inside the target,
    and no tile it is computed from elementwise (`padded_loads`) read padding there — elements past
    a loaded tensor's end take no part (as they are not stored): a histogram of a 300-element tensor
    in tiles of 128 counts 300 values, not 384."""
    assert isinstance(op, tile.AtomicRMWOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    values = fl.canon(e, fl.dist(op.values))
    offs, oks = _masked_offsets(fl, e, view, fl.dist(op.offsets), fl.dist(op.mask))
    shape = values.layout.shape
    for load in padded_loads([op.values, op.offsets, op.mask]):
        inside = _inside_mask(fl, e, load, shape)
        if inside is not None and len(inside) == len(oks):
            oks = [e(arith.AndIOp(ok, i)) for ok, i in zip(oks, inside)]
    kind = ATOMIC_RMW_KIND[(op.kind.data, tile.kind_of(view.elem))]
    elem = signless(view.elem)

    def body(x: Emitter) -> None:
        for v, o, ok in zip(values.regs, offs, oks):

            def rmw(y: Emitter, v: SSAValue = v, o: SSAValue = o) -> None:
                y(memref.AtomicRMWOp.build(operands=[v, view.memref, _index(y, view, o)], result_types=[elem], properties={"kind": kind.attr()}))

            fl.when(x, ok, rmw)

    fl.when(e, fl.is_first_replica(values.layout), body)
    return None
