"""`tile-to-gpu`'s lowering of `tile.dot` (registered into its `@lowers` table when `tile_to_gpu` loads)
and of `tile-pipeline`'s cp.async ring ops.

1. **The accumulator stays in registers** in the `mma.sync` m16n8 layout (`MmaLayout`, the `tile`
   dialect's `#tile.mma`): the CTA's warps form a wm × wn grid over M × N (`warp_grid`), each warp a
   tm × tn grid of m16n8 tiles, four f32 per tile per lane. `assign_mma_layouts` (run before lowering)
   gives that layout to dot results, to elementwise ops of them (epilogues run per register), to the
   block arguments they flow into (a K loop's accumulator never leaves registers) and to broadcasts
   used only there; a splat (`tile.zeros`) is free in it; `tile.store` writes each thread's 2-column
   chunks straight from the registers; other consumers convert through shared memory.
2. **Operands in shared memory.** From a ring slot (`tile.ring_tile`, below) as they are; otherwise
   in row-padded arrays (`A[M][K + pad]`, `B[K][N + pad]`, pad = 16 bytes, so the 8 row addresses of an
   `ldmatrix` phase fall into distinct bank groups): a `tile.load` used only here, of 16-bit floats
   from a 16-byte aligned view with rows a multiple of 8 and padding 0, by `cp.async` (then
   `wait_group 0`), any other operand from its registers; barriers around.
3. **MMAs.** Per k-step and warp: A fragments by `ldmatrix.x4` (lane l: row l % 16, column 8·(l / 16)
   of a 16 × 16 block), B fragments by `ldmatrix.x4.trans` for two n8 tiles at once (`.x2.trans` for a
   single one), element loads for tf32 and 8-bit inputs (`fragment_layout`); `nvgpu.mma.sync` per tile.
4. **The ring** (`tile.async_copy` / `async_commit` / `async_wait` / `ring_tile`): each ring is a
   (stages·R) × C array in the launch's dynamic shared memory (`tile.dynamic_shared_bytes`, the
   launch's `shmem_size`), 16-byte chunks XOR-swizzled per row (`swizzle_for`) instead of padded;
   copies of a tile wholly inside the tensor are unmasked 16-byte `cp.async.cg`, tail tiles zero-fill;
   the wait is `cp.async.wait_group N` + a barrier.

This is the portable path (sm_80+, `mma.sync`); on sm_90a a qualifying dot is lowered by
`tile_dot_wgmma.py` instead (wgmma from the same rings, whose slots then follow wgmma's swizzled
layouts).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import log2, prod
from typing import TYPE_CHECKING

from xdsl.dialects import arith, cf, memref, scf, vector
from xdsl.dialects.builtin import BFloat16Type, FloatAttr, Float16Type, IndexType, IntegerAttr, IntegerType, MemRefType, VectorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from warpforge.dialects import gpu, nvgpu, tile
from warpforge.dialects.nvvm_catalog import mma_shape
from warpforge.diagnostics import error_at
from warpforge.dialects import kernel
from warpforge.dialects.tile_layout import MmaEncodingAttr
from warpforge.dialects.tile_dot import AsyncCommitOp, AsyncCopyOp, AsyncWaitOp, DotOp, RingTileOp, mma_input_kind, ring_tile_shape
from warpforge.passes.kernel_to_gpu import SHARED, Emitter, cast_value, signless
from warpforge.passes.tile_to_gpu.lowering import LAYOUT_ANALYSES, STATIC_SHARED_BYTES, _TILE_LOWERINGS, Dist, PView, View, _TileFunctionLowering, lowers  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.memory import _coords64, _full_tile, _index  # pyright: ignore[reportPrivateUsage]

if TYPE_CHECKING:
    from warpforge.dialects.tile_tma import TmaCopyOp

PAD_BYTES = 16


def element_bytes(t: Attribute) -> int:
    return max(1, t.width.data // 8) if isinstance(t, IntegerType) else t.bitwidth // 8  # pyright: ignore[reportAttributeAccessIssue]


def shared_bytes(m: int, n: int, k: int, in_bytes: int) -> int:
    """Static shared memory one `tile.dot` of M×K by K×N uses at most (its padded A and B arrays; an
    operand from a `tile-pipeline` ring uses none; the accumulator stays in registers)."""
    pad = PAD_BYTES // in_bytes
    return m * (k + pad) * in_bytes + k * (n + pad) * in_bytes


RING_ALIGN = 1024
"""Alignment of the rings wgmma reads (the period of its 128-byte swizzle); `tile_dot_wgmma.aligned_shift`
reserves this much dynamic shared memory once for the padding."""

MAX_DYNAMIC_SHARED = 227 * 1024
"""Dynamic shared memory a CTA can opt into on sm_80/sm_90 (CUDA C Programming Guide, "Compute
Capabilities", Table 23: 163 KiB on sm_80, 227 KiB on sm_90); `prepare` checks the device's own."""


def _log2(n: int) -> int:
    return int(log2(n))


def _idx(e: Emitter, v: SSAValue) -> SSAValue:
    return e(arith.IndexCastOp(v, IndexType()))


def _buffer(fl: _TileFunctionLowering, op: Operation, elem: Attribute, shape: tuple[int, int]) -> SSAValue:
    typ = MemRefType(elem, list(shape), memory_space=SHARED)
    name = fl.module.shared_global(fl.src.sym_name.data, typ, op)
    fl.extra_shared += -(-shape[0] * shape[1] * element_bytes(elem) // 16) * 16
    if fl.extra_shared > STATIC_SHARED_BYTES:
        raise error_at(op, f"{op.name}: staging its operands takes the kernel's static shared memory to {fl.extra_shared} bytes, more than the 48 KiB a CTA has; use smaller tiles (operands loaded by cp.async in a K loop go to the dynamic-memory ring instead)")
    return fl.at_entry(("dot", name), lambda b: b(memref.GetGlobalOp(name, typ)))


def _store_canonical(fl: _TileFunctionLowering, e: Emitter, d: Dist, buf: SSAValue, cols: int) -> None:
    """Each owner's first replica stores its registers at (row, col) of the 2-D `buf`."""

    def body(b: Emitter) -> None:
        for r in range(d.layout.reps):
            for v in range(d.layout.vec):
                f = fl.flat(b, d.layout, r, v)
                row = b(arith.ShRUIOp(f, b.const(_log2(cols), i64)))
                col = b(arith.AndIOp(f, b.const(cols - 1, i64)))
                b(memref.StoreOp.get(d.regs[r * d.layout.vec + v], buf, [_idx(b, row), _idx(b, col)]))

    fl.when(e, fl.is_first_replica(d.layout), body)


def _add(e: Emitter, a: SSAValue, k: int) -> SSAValue:
    return a if k == 0 else e(arith.AddiOp(a, e.const(k, i64)))


def _affine(e: Emitter, g: SSAValue, t: SSAValue, coeffs: tuple[int, int, int], base: SSAValue) -> SSAValue:
    """base + const + kg·g + kt·t (i64)."""
    const, kg, kt = coeffs
    out = _add(e, base, const)
    if kg:
        out = e(arith.AddiOp(out, g if kg == 1 else e(arith.MuliOp(g, e.const(kg, i64)))))
    if kt:
        out = e(arith.AddiOp(out, t if kt == 1 else e(arith.MuliOp(t, e.const(kt, i64)))))
    return out


# --------------------------------------------------------------------------- cp.async staging


@dataclass
class DeferredLoad:
    """A `tile.load` whose only use is a `tile.dot` operand: not loaded into registers; the dot copies
    it from global to shared memory itself with `cp.async` (16 bytes per copy, zero-filled past the
    tensor's edges — the load's padding must be 0)."""

    pview: PView
    coords: list[SSAValue]
    """The tile coordinates (i64), computed where the load was."""


_register_load = _TILE_LOWERINGS[tile.LoadOp]


def _zero(attr: Attribute) -> bool:
    return (isinstance(attr, FloatAttr) and attr.value.data == 0.0) or (isinstance(attr, IntegerAttr) and attr.value.data == 0)


def _copies_async(fl: _TileFunctionLowering, op: tile.LoadOp) -> bool:
    """`op` feeds only a `tile.dot` operand, and `cp.async` can fetch it: a 2-D view of 16-bit floats,
    16-byte aligned, rows a multiple of 8 elements (every 8-element chunk a 16-byte aligned copy),
    padding 0, no reinterpreted memory."""
    if not feeds_dot_operand(op):
        return False
    pv = fl.values.get(op.view)
    if not isinstance(pv, PView):
        return False
    v = pv.view
    elem = signless(v.elem)
    return (
        ring_tile_shape(pv.tile) is not None and v.limit is None and v.strides is None and isinstance(elem, Float16Type | BFloat16Type) and v.align >= 16
        and v.divisible[-1] >= 8 and v.divisible[-1] % 8 == 0 and pv.tile[-1] >= 8 and _zero(pv.padding)
    )  # fmt: skip


def dots_fed(v: SSAValue) -> list[DotOp] | None:
    """The `tile.dot`s whose operand `v` (a loaded tile) is — directly, through a transpose
    (`dot_operand_transpose`), or through a `tile.reshape` to its last two dimensions (a rank-4
    (1, 1, R, C) load of a (batch, heads, sequence, head dim) tensor) and then one of those — or None
    when some use is anything else."""
    out: list[DotOp] = []
    for u in v.uses:
        user = u.operation
        if isinstance(user, tile.ReshapeOp):
            t, r = v.type, user.result.type
            if not (isinstance(t, tile.TileType) and isinstance(r, tile.TileType) and ring_tile_shape(t.dims) == tuple(r.dims)):
                return None
            inner = dots_fed(user.result)
            if inner is None:
                return None
            out += inner
        elif is_dot_operand_use(u):
            out.append(user)  # pyright: ignore[reportArgumentType]
        elif dot_operand_transpose(user):
            out.append(next(iter(user.results[0].uses)).operation)  # pyright: ignore[reportArgumentType]
        else:
            return None
    return out


def feeds_dot_operand(load: tile.LoadOp) -> bool:
    """The loaded tile is only `tile.dot` operands (`dots_fed`): of one dot, or of dots all in other
    blocks (loops) than the load — a loop-invariant operand, staged once where it is loaded."""
    dots = dots_fed(load.result)
    if not dots:
        return False
    return len(dots) == 1 or all(d.parent_block() is not load.parent_block() for d in dots)


def is_dot_operand_use(use) -> bool:  # noqa: ANN001 (an xDSL Use)
    return isinstance(use.operation, DotOp) and use.index < 2


def dot_operand_transpose(op: Operation) -> bool:
    """`op` is a rank-2 `tile.transpose` (or `tile.permute [1, 0]`) whose only use is a `tile.dot`
    operand: it costs nothing, the dot reads its input's shared-memory copy the other way round."""
    if isinstance(op, tile.PermuteOp):
        if [p.data for p in op.permutation.data] != [1, 0]:
            return False
    elif not isinstance(op, tile.TransposeOp):
        return False
    t = op.results[0].type
    uses = list(op.results[0].uses)
    return isinstance(t, tile.TileType) and t.rank == 2 and len(uses) == 1 and is_dot_operand_use(uses[0])


@lowers(tile.LoadOp)
def _load_or_defer(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist | DeferredLoad:
    assert isinstance(op, tile.LoadOp)
    if _copies_async(fl, op):
        pv = fl.values[op.view]
        assert isinstance(pv, PView)
        d = DeferredLoad(pv, _coords64(fl, e, op.coords))
        dots = dots_fed(op.result)
        assert dots
        if len(dots) == 1 and dots[0].parent_block() is op.parent_block():
            return d  # the dot copies it into its own array
        # a loop-invariant operand (attention's Q tile): staged once, here, not at every trip of the loop
        shape = ring_tile_shape(pv.tile)
        assert shape is not None
        elem = signless(pv.view.elem)
        buf = _buffer(fl, op, elem, (shape[0], shape[1] + PAD_BYTES // element_bytes(elem)))
        _copy_async(fl, e, d, buf)
        e(nvgpu.DeviceAsyncCreateGroupOp())
        e(nvgpu.DeviceAsyncWaitOp(0))
        e(gpu.BarrierOp())
        staged = SharedOperand(buf, None)
        from warpforge.passes.lowerings.tile_dot_wgmma import hoisted_a_fragments

        hoisted_a_fragments(fl, e, op, staged)  # the A registers of wgmma dots, read once here
        return staged
    return _register_load(fl, op, e)  # pyright: ignore[reportReturnType]




@dataclass
class Transposed:
    """A `tile.dot` operand that is the transpose of `inner` (a deferred load, a ring slot or
    registers): the dot stages `inner` as it is (an N×K B operand: rows n, K contiguous, which is
    exactly `mma.sync`'s native "col" B layout) and reads it the other way round (`ldmatrix` without
    `.trans` for B, with `.trans` for A); no transposed copy is made."""

    inner: "DeferredLoad | SharedOperand | Dist"


_register_reshape = _TILE_LOWERINGS[tile.ReshapeOp]


@lowers(tile.ReshapeOp)
def _reshape_or_defer(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist | DeferredLoad | SharedOperand:
    inner = fl.values.get(op.operands[0])
    if isinstance(inner, DeferredLoad | SharedOperand):  # (1, 1, R, C) -> (R, C) of a deferred copy: nothing to do
        return inner
    return _register_reshape(fl, op, e)  # pyright: ignore[reportReturnType]


_register_permute = _TILE_LOWERINGS[tile.PermuteOp]
_register_transpose = _TILE_LOWERINGS[tile.TransposeOp]


@lowers(tile.TransposeOp, tile.PermuteOp)
def _transpose_or_defer(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist | Transposed:
    if dot_operand_transpose(op):
        inner = fl.values.get(op.operands[0])
        return Transposed(inner if isinstance(inner, DeferredLoad | SharedOperand) else fl.canon(e, fl.dist(op.operands[0])))
    return (_register_permute if isinstance(op, tile.PermuteOp) else _register_transpose)(fl, op, e)  # pyright: ignore[reportReturnType]


def _copy_async(fl: _TileFunctionLowering, e: Emitter, d: DeferredLoad, buf: SSAValue, dest: SharedOperand | None = None) -> None:
    """Each thread issues `cp.async` for its 8-element chunks of the tile into the padded `buf` (or
    into `dest`: a ring slot, swizzled). A tile wholly inside the tensor (a uniform test) copies 16
    bytes per chunk unconditionally; a tail tile copies each chunk's bytes inside the tensor and
    zero-fills the rest (`src-size`), reading nothing (from address 0) for a chunk wholly outside."""
    view, tile_shape = d.pview.view, d.pview.tile
    rows, cols = tile_shape[-2:]
    assert fl.tid is not None
    origin = [e(arith.ShLIOp(c, e.const(_log2(t), i64))) if t > 1 else c for c, t in zip(d.coords, tile_shape)]
    lead = origin[:-2]  # the leading (batch, head) indices of a rank-3/4 tile with extents 1
    origin_rc = origin[-2:]
    per_row = cols // 8
    chunks = rows * per_row

    def copies(b: Emitter, masked: bool) -> None:
        zero, eight = b.const(0, i64), b.const(8, i64)
        for j in range(-(-chunks // fl.threads)):
            ch = _add(b, fl.tid, j * fl.threads)  # pyright: ignore[reportArgumentType]

            def issue(x: Emitter, ch: SSAValue = ch) -> None:
                r = x(arith.ShRUIOp(ch, x.const(_log2(per_row), i64))) if per_row > 1 else ch
                c = x(arith.ShLIOp(x(arith.AndIOp(ch, x.const(per_row - 1, i64))), x.const(3, i64))) if per_row > 1 else zero
                grow, gcol = x(arith.AddiOp(origin_rc[0], r)), x(arith.AddiOp(origin_rc[1], c))
                heads = list(lead)
                valid: SSAValue | None = None
                if masked:
                    in_rows = x(arith.CmpiOp(grow, view.dims[-2], "ult"))
                    for i, o in enumerate(lead):
                        in_rows = x(arith.AndIOp(in_rows, x(arith.CmpiOp(o, view.dims[i], "ult"))))
                    left = x(arith.MaxSIOp(x(arith.SubiOp(view.dims[-1], gcol)), zero))
                    valid = x(arith.SelectOp(in_rows, x(arith.MinSIOp(left, eight)), zero))
                    reads = x(arith.CmpiOp(valid, zero, "sgt"))
                    grow, gcol = x(arith.SelectOp(reads, grow, zero)), x(arith.SelectOp(reads, gcol, zero))
                    heads = [x(arith.SelectOp(reads, o, zero)) for o in lead]
                dr, dc = r, c
                if dest is not None:
                    dr = dest.row(x, r, c)
                    dc = dest.col(x, r, c)
                src = [_idx(x, o) for o in heads] + [_idx(x, grow), _idx(x, gcol)]
                x(nvgpu.DeviceAsyncCopyOp(view.memref, src, buf, [_idx(x, dr), _idx(x, dc)], 8, _idx(x, valid) if valid is not None else None, bypass_l1=True))

            if (j + 1) * fl.threads <= chunks:
                issue(b)
            else:
                fl.when(b, b(arith.CmpiOp(ch, b.const(chunks, i64), "ult")), issue)

    full = _full_tile(e, view, origin, tile_shape)
    tb, eb = Block(), Block()
    te, ee = Emitter(tb, e.source), Emitter(eb, e.source)
    copies(te, False)
    te(scf.YieldOp())
    copies(ee, True)
    ee(scf.YieldOp())
    e(scf.IfOp(full, [], Region(tb), Region(eb)))


def _coeffs(row, operand: str, i: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    from warpforge.dialects.nvvm_catalog import fragment_layout

    r0, c0 = fragment_layout(row, operand, 0, i)
    rg, cg = fragment_layout(row, operand, 4, i)
    rt, ct = fragment_layout(row, operand, 1, i)
    return (r0, rg - r0, rt - r0), (c0, cg - c0, ct - c0)


# --------------------------------------------------------------------------- the MMA accumulator layout


def warp_grid(m: int, n: int, warps: int) -> tuple[int, int]:
    """(warps along M, warps along N) for an M×N accumulator over `warps` warps: each warp owns one
    (M/wm)×(N/wn) block of m16n8 tiles; the grid doubles the dimension whose warp block is longer
    (N on ties), keeping blocks at least 16×8. Warps past wm·wn (tiny products) are replicas."""
    wm = wn = 1
    while wm * wn < warps:
        can_m, can_n = m // (2 * wm) >= 16, n // (2 * wn) >= 8
        if can_n and (n // wn >= m // wm or not can_m):
            wn *= 2
        elif can_m:
            wm *= 2
        else:
            break
    return wm, wn


@dataclass(frozen=True)
class MmaLayout:
    """The `mma.sync` m16n8 accumulator layout of an M×N tile (PTX ISA §9.7.14.5.9, "Matrix Fragments
    for mma.m16n8k16", C/D: lane l holds rows g = l/4 and g + 8, columns 2t and 2t + 1, t = l%4).

    Warp w (mod wm·wn; warps past it are replicas) owns the block of rows (w / wn)·M/wm … and columns
    (w % wn)·N/wn …, a grid of tm × tn m16n8 tiles. Register slot 4·(i·tn + j) + 2h + v of a thread holds
    element (row0 + 16i + 8h + g, col0 + 8j + 2t + v): chunks (vec = 2) of two contiguous columns, so a
    thread can store a chunk with one 2-element access. The same placement as MLIR/Triton's
    `#mma` (version 2) encoding with warpsPerCTA = [wm, wn]; this is its private form until the
    layout attributes of the `tile` dialect carry it."""

    shape: tuple[int, int]
    wm: int
    wn: int
    warps: int

    vec = 2
    uniform = False

    @property
    def tm(self) -> int:
        return self.shape[0] // self.wm // 16

    @property
    def tn(self) -> int:
        return self.shape[1] // self.wn // 8

    @property
    def reps(self) -> int:
        return 2 * self.tm * self.tn

    @property
    def slots(self) -> int:
        return 4 * self.tm * self.tn

    @property
    def numel(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def replicas(self) -> int:
        return self.warps // (self.wm * self.wn)

    def same_placement(self, other: object) -> bool:
        return other == self

    def encoding(self) -> MmaEncodingAttr:
        """This layout as the `tile` dialect's `#tile.mma` encoding (warps along M, N; m16n8 fragments)."""
        return MmaEncodingAttr((self.wm, self.wn))

    def first_replica(self, fl: _TileFunctionLowering) -> SSAValue | None:
        if self.replicas == 1:
            return None
        tid, limit = fl.tid, 32 * self.wm * self.wn
        assert tid is not None
        return fl.at_entry(("mma_first", limit), lambda e: e(arith.CmpiOp(tid, e.const(limit, i64), "ult")))

    def flat_index(self, fl: _TileFunctionLowering, e: Emitter, r: int, v: int) -> SSAValue:
        q, h = divmod(r, 2)
        i, j = divmod(q, self.tn)
        n = self.shape[1]
        base = fl.at_entry(("mma_base", self), lambda x: self._base(fl, x))
        return _add(e, base, (16 * i + 8 * h) * n + 8 * j + v)

    def store_tile(self, fl: _TileFunctionLowering, e: Emitter, d: Dist, view: View, tile_shape: tuple[int, ...], coords: list[SSAValue]) -> None:
        """`tile.store` straight from the accumulator registers: each thread writes its chunks of
        two columns, rows (origin + row0 + g) + 8m and columns (origin + col0 + 2t) + 8j, with one
        2-element access where alignment allows; a tile wholly inside the tensor (uniform test)
        unmasked, a tail tile each chunk guarded; replica warps do not store."""
        from warpforge.passes.tile_to_gpu.memory import _Chunk, _in_bounds, _origin, _store_group, _vector_width, store_full_or_tail  # pyright: ignore[reportPrivateUsage]

        origin = _origin(e, coords, tile_shape)
        lead, origin = origin[:-2], origin[-2:]  # a (1, .., 1, M, N) tile of a rank-3/4 view: its leading indices
        w = warp_coords(fl, self)
        b = element_bytes(signless(view.elem))
        width = _vector_width(view, self, tile_shape, fl.vector_bytes)  # pyright: ignore[reportArgumentType]
        mt = view.memref.type
        linear = view.limit is not None or (isinstance(mt, MemRefType) and mt.get_num_dims() == 1)
        assert not (lead and linear)  # stores_from_registers: contiguous views only

        def row_stride(x: Emitter) -> SSAValue:
            """Elements between rows: a strided view's first stride, else the row length (row-major)."""
            if view.strides is not None:
                return view.strides[0] if view.strides[0] is not None else x.const(1, i64)
            return view.dims[1]

        # staged through shared memory: only in the kernel's body (its barriers outside any region; the
        # simulator runs no barrier inside one), every thread writing, the whole tile's test after
        in_body = fl.entry is not None and e.block.parent is fl.entry.parent  # a block of the kernel's body, not of an scf op
        staging = self._staging_buffer(fl, view, tile_shape) if in_body and not lead and not linear else None

        def body(x: Emitter) -> None:
            r0 = x(arith.AddiOp(origin[0], x(arith.AddiOp(w.row0, w.g))))
            c0 = x(arith.AddiOp(origin[1], x(arith.AddiOp(w.col0, x(arith.ShLIOp(w.t, x.const(1, i64)))))))
            chunks: list[tuple[_Chunk, list[SSAValue]]] = []
            rows = [_add(x, r0, 8 * m) for m in range(2 * self.tm)]
            cols = [_add(x, c0, 8 * j) for j in range(self.tn)]
            for i in range(self.tm):
                for j in range(self.tn):
                    for h in range(2):
                        row, col = rows[2 * i + h], cols[j]
                        lin = x(arith.AddiOp(x(arith.MuliOp(row, row_stride(x))), col)) if linear else col
                        s0 = 4 * (i * self.tn + j) + 2 * h
                        chunks.append((_Chunk([*lead, row, col], lin), d.regs[s0 : s0 + 2]))

            def unmasked(y: Emitter) -> None:
                if staging is not None:
                    self._store_staged(fl, y, view, staging, origin)
                    return
                for ch, vals in chunks:
                    for k in range(0, 2, width):
                        _store_group(y, view, ch, k, vals[k : k + width], width * b)

            wm = width if view.divisible[-1] >= width else 1

            def masked(y: Emitter) -> None:
                for ch, vals in chunks:
                    for k in range(0, 2, wm):
                        ok = _in_bounds(y, view, ch, k, wm)
                        fl.when(y, ok, lambda z, ch=ch, k=k, vals=vals: _store_group(z, view, ch, k, vals[k : k + wm], wm * b))

            if staging is not None:
                self._write_staged(fl, x, d, view, staging)
            store_full_or_tail(fl, x, view, [*lead, *origin], tile_shape, unmasked, masked)
            if staging is not None:
                x(gpu.BarrierOp())  # the space is free again for whatever writes it next

        fl.when(e, self.first_replica(fl), body)

    def _staging_buffer(self, fl: _TileFunctionLowering, view: View, tile_shape: tuple[int, ...]) -> tuple[SSAValue, SSAValue] | None:
        """(the dynamic shared memory, the byte shift of a drained ring at least a tile large) for a
        store staged through shared memory (`_store_staged`), or None where that does not apply: no
        ring drained before the store (`tile.tma_ring_end` sets `("rings_drained",)`), replica warps,
        a tile other than the layout's, elements other than 2 or 4 bytes, rows not 16-byte aligned
        (the tensor's base and row length), a strided or reinterpreted view."""
        if ("rings_drained",) not in fl.cache or self.replicas != 1 or tuple(tile_shape) != tuple(self.shape):
            return None
        b = element_bytes(signless(view.elem))
        per = 16 // b if b in (2, 4) else 0
        if not per or view.strides is not None or view.limit is not None or view.align < 16 or view.divisible[-1] < per:
            return None
        if self.shape[1] % per or (self.shape[0] * self.shape[1] * b) % (16 * fl.threads):
            return None
        need = self.shape[0] * self.shape[1] * b
        best: tuple[int, SSAValue, SSAValue] | None = None
        for key, found in fl.cache.items():
            if not (isinstance(key, tuple) and len(key) == 2 and key[0] == "ring"):
                continue
            owner = getattr(found, "owner", None)
            mt = getattr(found, "type", None)
            if not isinstance(owner, memref.ViewOp) or not isinstance(mt, MemRefType):
                continue
            size = prod(mt.get_shape()) * element_bytes(signless(mt.element_type))
            if size >= need and (best is None or size > best[0]):
                best = (size, owner.source, owner.byte_shift)
        return None if best is None else (best[1], best[2])

    def _staging_view(self, e: Emitter, view: View, staging: tuple[SSAValue, SSAValue]) -> tuple[SSAValue, int, int, int]:
        """(the M·N tile in a drained ring's space, elements per 16-byte unit, units per row, swizzle mask)."""
        raw, shift = staging
        m, n = self.shape
        elem = signless(view.elem)
        per = 16 // element_bytes(elem)
        units = n // per
        buf = e(memref.ViewOp(raw, shift, [], MemRefType(elem, [m * n], memory_space=SHARED)))
        return buf, per, units, min(7, units - 1)

    def _write_staged(self, fl: _TileFunctionLowering, e: Emitter, d: Dist, view: View, staging: tuple[SSAValue, SSAValue]) -> None:
        """The first half of a store staged through shared memory (`_store_staged`): after a CTA barrier
        (every warpgroup's last wgmma has read the ring), each thread writes its 2-element chunks into a
        drained ring's space as a row-major tile whose 16-byte units are XOR-swizzled by row (unit u of
        row r at u ^ (r % 8): the 8 rows one chunk store of a warp touches fall in 8 bank groups); a
        barrier. Every thread takes part, whether or not the tile is whole."""
        n = self.shape[1]
        buf, per, _, mask = self._staging_view(e, view, staging)
        elem = signless(view.elem)
        w = warp_coords(fl, self)
        e(gpu.BarrierOp())
        pair = VectorType(elem, [2])
        row_g = e(arith.AddiOp(w.row0, w.g))
        col_t = e(arith.AddiOp(w.col0, e(arith.ShLIOp(w.t, e.const(1, i64)))))
        for i in range(self.tm):
            for j in range(self.tn):
                for h in range(2):
                    row = _add(e, row_g, 16 * i + 8 * h)
                    col = _add(e, col_t, 8 * j)
                    unit = e(arith.ShRUIOp(col, e.const(_log2(per), i64)))
                    within = e(arith.AndIOp(col, e.const(per - 1, i64)))
                    at = e(arith.AddiOp(_staged_unit(e, row, unit, n, per, mask), within))
                    s0 = 4 * (i * self.tn + j) + 2 * h
                    vec = e(vector.BroadcastOp(d.regs[s0], pair))
                    vec = e(vector.InsertOp(d.regs[s0 + 1], vec, [1], pair))
                    st = vector.StoreOp(vec, buf, [e(arith.IndexCastOp(at, IndexType()))])
                    st.attributes["alignment"] = IntegerAttr(2 * element_bytes(elem), i64)
                    e(st)
        e(gpu.BarrierOp())

    def _store_staged(self, fl: _TileFunctionLowering, e: Emitter, view: View, staging: tuple[SSAValue, SSAValue], origin: list[SSAValue]) -> None:
        """A whole tile's store from the staged copy (`_write_staged`): thread t reads 16-byte units t,
        t + T, ... (rows in order, un-swizzled) and stores each with one 16-byte access, so a warp writes
        whole rows (512 contiguous bytes of a 256-column f16 tile) instead of each thread's 2-element
        chunks (8 rows of 16 bytes per warp store: half-filled 32-byte sectors, 4x the instructions)."""
        m, n = self.shape
        buf, per, units, mask = self._staging_view(e, view, staging)
        tid = fl.tid
        assert tid is not None
        full = VectorType(signless(view.elem), [per])
        for k in range(m * n // per // fl.threads):
            q = _add(e, tid, k * fl.threads)
            row = e(arith.ShRUIOp(q, e.const(_log2(units), i64)))
            unit = e(arith.AndIOp(q, e.const(units - 1, i64)))
            at = _staged_unit(e, row, unit, n, per, mask)
            ld = vector.LoadOp(buf, [e(arith.IndexCastOp(at, IndexType()))], full)
            ld.attributes["alignment"] = IntegerAttr(16, i64)
            v = e(ld)
            grow = e(arith.AddiOp(origin[0], row))
            gcol = e(arith.AddiOp(origin[1], e(arith.ShLIOp(unit, e.const(_log2(per), i64)))))
            st = vector.StoreOp(v, view.memref, _index(e, view, None, [grow, gcol], 0))
            st.attributes["alignment"] = IntegerAttr(16, i64)
            e(st)

    def _base(self, fl: _TileFunctionLowering, e: Emitter) -> SSAValue:
        """(row0 + g)·N + col0 + 2t for this thread (i64)."""
        w = warp_coords(fl, self)
        n = self.shape[1]
        row = e(arith.AddiOp(w.row0, w.g))
        col = e(arith.AddiOp(w.col0, e(arith.ShLIOp(w.t, e.const(1, i64)))))
        return e(arith.AddiOp(e(arith.ShLIOp(row, e.const(_log2(n), i64))), col))


def mma_layout(shape: tuple[int, ...], threads: int, rows_only: bool = False) -> MmaLayout:
    """The MMA layout of an M×N accumulator; `rows_only`: the warps split M only (wn = 1, each warp
    owns whole rows), the layout a product that is itself the A operand of a next `tile.dot` needs."""
    m, n = shape
    warps = threads // 32
    wm, wn = (warps, 1) if rows_only else warp_grid(m, n, warps)
    return MmaLayout((m, n), wm, wn, warps)


def register_a_operand(a: MmaLayout, out: MmaLayout, k: int) -> bool:
    """An A operand in `a` (an M×K product's layout, converted to 16 bits per register) is, register
    for register, the A fragments of the m16n8k16 MMAs of a dot in `out`: both split M only over the
    same warps, and K is a multiple of 16 (PTX ISA §9.7.14.5.9: the C/D fragment of two adjacent
    n8 tiles, rows g and g + 8, columns 2t, 2t + 1, is the A fragment of one k16 step)."""
    return a.wn == 1 and out.wn == 1 and a.wm == out.wm and a.replicas == 1 and a.shape[0] == out.shape[0] and a.shape[1] == k and k % 16 == 0


@dataclass
class _WarpCoords:
    lane: SSAValue
    g: SSAValue
    t: SSAValue
    row0: SSAValue
    col0: SSAValue


def _staged_unit(e: Emitter, row: SSAValue, unit: SSAValue, n: int, per: int, mask: int) -> SSAValue:
    """The element index (i64) of 16-byte unit `unit` of row `row` in a staged N-column tile whose units
    are XOR-swizzled by row (`MmaLayout._write_staged`): row·N + (unit ^ (row & mask))·per."""
    swz = e(arith.XOrIOp(unit, e(arith.AndIOp(row, e.const(mask, i64)))))
    return e(arith.AddiOp(e(arith.ShLIOp(row, e.const(_log2(n), i64))), e(arith.ShLIOp(swz, e.const(_log2(per), i64)))))


def warp_coords(fl: _TileFunctionLowering, lay: MmaLayout) -> _WarpCoords:
    """`_warp_coords`, computed once per kernel at the end of its prologue."""
    key = ("mma_warp", lay)
    found = fl.cache.get(key)
    if found is None:
        box: list[_WarpCoords] = []

        def build(x: Emitter) -> SSAValue:
            box.append(_warp_coords(fl, x, lay))
            return box[0].lane

        fl.at_entry(("mma_lane", lay), build)
        fl.cache[key] = box[0]  # pyright: ignore[reportArgumentType]
        found = box[0]
    return found  # pyright: ignore[reportReturnType]


def _warp_coords(fl: _TileFunctionLowering, e: Emitter, lay: MmaLayout) -> _WarpCoords:
    """This thread's lane, g = lane/4, t = lane%4 and its warp's first row and column (i64)."""
    assert fl.tid is not None
    lane = e(arith.AndIOp(fl.tid, e.const(31, i64)))
    warp = e(arith.ShRUIOp(fl.tid, e.const(5, i64)))
    if lay.replicas > 1:
        warp = e(arith.AndIOp(warp, e.const(lay.wm * lay.wn - 1, i64)))
    wrow = e(arith.ShRUIOp(warp, e.const(_log2(lay.wn), i64))) if lay.wn > 1 else warp if lay.wm > 1 else e.const(0, i64)
    wcol = e(arith.AndIOp(warp, e.const(lay.wn - 1, i64))) if lay.wn > 1 else e.const(0, i64)
    m, n = lay.shape
    row0 = e(arith.ShLIOp(wrow, e.const(_log2(m // lay.wm), i64)))
    col0 = e(arith.ShLIOp(wcol, e.const(_log2(n // lay.wn), i64)))
    g = e(arith.ShRUIOp(lane, e.const(2, i64)))
    t = e(arith.AndIOp(lane, e.const(3, i64)))
    return _WarpCoords(lane, g, t, row0, col0)


# --------------------------------------------------------------------------- which values get the MMA layout

_ELEMENTWISE = (*tile.ELEMENTWISE_BINARY, *tile.ELEMENTWISE_UNARY, tile.CastOp, tile.CmpOp, tile.WhereOp)


def _edges(op: Operation) -> list[tuple[SSAValue, SSAValue]]:
    """(value passed, block argument receiving it) of a branch."""
    if isinstance(op, cf.BranchOp):
        return list(zip(op.arguments, op.successor.args))
    if isinstance(op, cf.ConditionalBranchOp):
        return list(zip(op.then_arguments, op.then_block.args)) + list(zip(op.else_arguments, op.else_block.args))
    return []


def _splat_source(v: SSAValue) -> bool:
    return isinstance(v.owner, tile.FullOp | tile.SplatOp)


def _mma_set(ops: list[Operation]) -> set[SSAValue]:
    """`tile.dot` results, elementwise ops of such values (an epilogue runs per register) and block
    arguments they flow into (a K loop's accumulator stays in registers): the values of the MMA layout."""
    mma: set[SSAValue] = set()
    changed = True
    while changed:
        changed = False

        def mark(v: SSAValue) -> None:
            nonlocal changed
            if v not in mma and isinstance(v.type, tile.TileType) and v.type.rank == 2:
                mma.add(v)
                changed = True

        for op in ops:
            if isinstance(op, DotOp):
                mark(op.result)
            elif isinstance(op, _ELEMENTWISE) and any(o in mma for o in op.operands):
                mark(op.results[0])
            for value, arg in _edges(op):
                if value in mma:
                    mark(arg)
    return mma


def _register_a(ops: list[Operation], mma: set[SSAValue], threads: int) -> tuple[bool, set[SSAValue]]:
    """A dot whose A operand is (an elementwise function of) another dot's product reads it from the
    registers (P·V in attention): every MMA value of the kernel then splits M only over the warps.
    Returns (rows only, the A operands read from registers)."""
    warps = threads // 32
    chained = [op for op in ops if isinstance(op, DotOp) and op.lhs in mma and _rows_only_fits(op, warps, mma)]
    rows_only = bool(chained)
    return rows_only, ({op.lhs for op in chained} if rows_only else set())


def _mma_use(use, mma: set[SSAValue], register_a: set[SSAValue]) -> bool:  # noqa: ANN001 (an xDSL Use)
    """Whether the user expects the MMA layout at this operand."""
    user = use.operation
    if isinstance(user, _ELEMENTWISE):
        return user.results[0] in mma
    if isinstance(user, DotOp):
        return use.index == 2 or (use.index == 0 and user.lhs in register_a)
    if isinstance(user, tile.StoreOp):
        return use.operand in mma if hasattr(use, "operand") else user.value in mma
    if isinstance(user, cf.BranchOp | cf.ConditionalBranchOp):
        return any(v is user.operands[use.index] and a in mma for v, a in _edges(user))
    return False


def choose_mma_layouts(func: Operation, threads: int) -> dict[SSAValue, MmaLayout]:
    """The `mma.sync` accumulator layout (`MmaLayout`) of each value of kernel `func` (a CTA of `threads`
    threads) that holds one: `tile.dot` results and the values sharing their registers (`_mma_set`),
    and broadcasts / iotas used only there. The one choice `tile-assign-layouts` writes into the IR as
    `#tile.mma` and `tile-to-gpu` makes itself for IR without it (`assign_mma_layouts`)."""
    ops = list(func.walk())
    mma = _mma_set(ops)
    rows_only, register_a = _register_a(ops, mma, threads)
    for op in ops:
        if isinstance(op, tile.BroadcastOp | tile.IotaOp) and op.results[0].type.rank == 2 and op.results[0].uses and all(_mma_use(u, mma, register_a) for u in op.results[0].uses):  # pyright: ignore[reportAttributeAccessIssue]
            mma.add(op.results[0])
    return {v: mma_layout(v.type.dims, threads, rows_only) for v in mma}  # pyright: ignore[reportAttributeAccessIssue]


def encoded_mma_layouts(fl: _TileFunctionLowering) -> dict[SSAValue, MmaLayout]:
    """The values whose type carries `#tile.mma` / `#tile.wgmma` (set by `tile-assign-layouts`), with
    their layouts; a splat (`tile.full`, `tile.splat`) given that encoding so its uses type-check is
    produced in the canonical layout, as when tile-to-gpu chooses (`choose_mma_layouts`)."""
    from warpforge.dialects.tile_layout import WgmmaEncodingAttr
    from warpforge.passes.lowerings.tile_dot_wgmma import wgmma_shape

    out: dict[SSAValue, MmaLayout] = {}
    for op in fl.src.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            t = v.type
            if isinstance(t, tile.TileType) and isinstance(t.encoding, MmaEncodingAttr | WgmmaEncodingAttr) and not _splat_source(v):
                out[v] = fl.layout_of(t, op)  # pyright: ignore[reportArgumentType]
        if isinstance(op, DotOp) and isinstance(op.result.type, tile.TileType) and isinstance(op.result.type.encoding, WgmmaEncodingAttr) and wgmma_shape(fl.chip, fl.threads, op) is None:
            raise error_at(
                op,
                f"tile-to-gpu: a #tile.wgmma accumulator needs wgmma.mma_async: chip sm_90a (the target is {fl.chip}), "
                "B a tile-pipeline ring slot and A a ring slot or 16-bit registers, f16/bf16 inputs, an f32 accumulator, M = 16 x warps "
                "(whole warpgroups), N a power of two in [16, 256] and K 16, 32 or 64 (A from registers: a multiple of 16 up to 256) "
                "(run tile-assign-layouts with the chip tile-to-gpu gets)",
            )
    return out


def assign_mma_layouts(fl: _TileFunctionLowering) -> None:
    """Give the MMA-layout values (their `#tile.mma` / `#tile.wgmma` encodings from
    `tile-assign-layouts`; chosen here by `choose_mma_layouts` and `choose_wgmma_layouts` when the IR
    has none, e.g. written by hand) their layouts, and plan the shared scratch of the conversions left."""
    from warpforge.passes.lowerings.tile_dot_wgmma import choose_wgmma_layouts, wgmma_ring_panels

    ops = list(fl.src.walk())
    layouts = encoded_mma_layouts(fl)
    if not layouts:
        layouts = choose_mma_layouts(fl.src, fl.threads)
        choose_wgmma_layouts(fl.src, fl.threads, fl.chip, layouts)
    fl.ring_panels.update(wgmma_ring_panels(fl.src, fl.threads, fl.chip))
    fl.layout_hints.update(layouts)
    mma = set(layouts)
    _, register_a = _register_a(ops, _mma_set(ops), fl.threads)

    def mma_use(use) -> bool:  # noqa: ANN001
        return _mma_use(use, mma, register_a)

    def need(v: SSAValue) -> None:  # v changes layout through the shared scratch
        t = signless(v.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        fl.scratch_sizes[t] = max(fl.scratch_sizes.get(t, 0), v.type.numel)  # pyright: ignore[reportAttributeAccessIssue]

    for op in ops:
        for v in op.results:
            if not isinstance(v.type, tile.TileType) or _splat_source(v):
                continue
            for u in v.uses:
                if isinstance(u.operation, DotOp) and u.index < 2:
                    continue  # operands are staged in the dot's own shared arrays, or read from registers
                if isinstance(u.operation, tile.StoreOp) and v in mma:
                    continue
                if (v in mma) != mma_use(u):
                    need(v)
    for block in fl.src.body.blocks:
        for a in block.args:
            if isinstance(a.type, tile.TileType) and a in mma and any(not mma_use(u) and not isinstance(u.operation, tile.StoreOp) for u in a.uses):
                need(a)


def _rows_only_fits(op: DotOp, warps: int, mma: set[SSAValue]) -> bool:
    """Every MMA value of the kernel can split M only over `warps` (16 rows per warp at least), and
    `op`'s A operand has a K of whole k16 steps in 16-bit floats."""
    a = op.lhs.type
    if not isinstance(a, tile.TileType) or not isinstance(a.element_type, Float16Type | BFloat16Type) or a.dims[1] % 16:
        return False
    return all(v.type.dims[0] % (16 * warps) == 0 for v in mma)  # pyright: ignore[reportAttributeAccessIssue]


LAYOUT_ANALYSES.append(assign_mma_layouts)


# --------------------------------------------------------------------------- the lowering


@lowers(DotOp)
def _dot(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, DotOp)
    la, lb = fl.values.get(op.lhs), fl.values.get(op.rhs)
    lay = fl.layout_of(op.result)
    assert isinstance(lay, MmaLayout)
    lower = getattr(lay, "lower_dot", None)  # another accumulator layout lowers the dot itself (tile_dot_wgmma.py)
    if lower is not None:
        return lower(fl, op, e)
    a_regs: Dist | None = None
    if isinstance(la, Dist) and isinstance(la.layout, MmaLayout) and register_a_operand(la.layout, lay, op.lhs.type.dims[1]):  # pyright: ignore[reportAttributeAccessIssue]
        a_regs = la  # the previous product's registers are the A fragments
    a = la if isinstance(la, DeferredLoad | SharedOperand | Transposed) or a_regs is not None else fl.canon(e, fl.dist(op.lhs))
    b = lb if isinstance(lb, DeferredLoad | SharedOperand | Transposed) else fl.canon(e, fl.dist(op.rhs))
    c = fl.to_layout(e, fl.dist(op.acc), lay)  # pyright: ignore[reportArgumentType]
    (m, k), (_, n) = op.lhs.type.dims, op.rhs.type.dims  # pyright: ignore[reportAttributeAccessIssue]
    kind = mma_input_kind(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    assert kind is not None
    in_t = signless(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    row = mma_shape("m16n8k32" if kind in ("s8", "u8") else "m16n8k8" if kind == "tf32" else "m16n8k16", kind, "s32" if kind in ("s8", "u8") else "f32")
    assert row is not None
    pad = PAD_BYTES // element_bytes(in_t)
    staged: list[SharedOperand | Dist] = []
    todo = []
    for x, (rows, cols) in ((a, (m, k)), (b, (k, n))):
        if x is a_regs:
            staged.append(a_regs)
            continue
        flip = isinstance(x, Transposed)
        if isinstance(x, Transposed):  # stage the untransposed tile (cols x rows), read it transposed
            x, rows, cols = x.inner, cols, rows
        if isinstance(x, SharedOperand):  # a ring slot (tile-pipeline): already there
            staged.append(replace(x, transposed=flip))
            continue
        buf = _buffer(fl, op, in_t, (rows, cols + pad))
        staged.append(SharedOperand(buf, None, None, flip))
        todo.append((x, buf, cols))
    if todo:
        e(gpu.BarrierOp())  # earlier readers of these arrays (a previous iteration) are done
        for x, buf, cols in todo:
            if isinstance(x, DeferredLoad):
                _copy_async(fl, e, x, buf)
            else:
                _store_canonical(fl, e, x, buf, cols)
        if any(isinstance(x, DeferredLoad) for x, _, _ in todo):
            e(nvgpu.DeviceAsyncCreateGroupOp())
            e(nvgpu.DeviceAsyncWaitOp(0))
        e(gpu.BarrierOp())
    regs = warp_mma(fl, e, lay, row, kind, c.regs, staged[0], staged[1], k)
    return Dist(lay, regs, c.elem)


# --------------------------------------------------------------------------- the cp.async ring (tile-pipeline)


def _ring(fl: _TileFunctionLowering, op: AsyncCopyOp | RingTileOp, shape: tuple[int, ...], elem: Attribute) -> tuple[SSAValue, tuple[int, int] | None, tuple[int, int] | None]:
    """Ring `op.ring`: `stages` slots of an R×C tile, one 2-D array (stages·R)×C in the launch's
    dynamic shared memory (rings may exceed the 48 KiB of static shared memory), XOR-swizzled
    (`swizzle_for`): no padding, no bank conflicts. A ring in `fl.ring_panels` (read by wgmma) splits
    each slot into C/P column panels of R×P (one 2-D array (stages·R·C/P)×P, the panel's swizzle) and
    starts at a 1024-byte aligned address (the period of wgmma's 128-byte swizzle). Returns the
    array, the swizzle and (R, P) for a paneled ring (None when a slot is one panel)."""
    ring, stages = op.ring.value.data, op.stages.value.data
    key = ("ring", ring)
    found = fl.cache.get(key)
    rows, cols = shape
    width = fl.ring_panels.get(ring, cols)
    typ = MemRefType(signless(elem), [stages * rows * (cols // width), width], memory_space=SHARED)
    panel = (rows, width) if width < cols else None
    if found is None:
        align = 1024 if ring in fl.ring_panels else 128
        # offsets count from the rings' base; the padding that aligns it (wgmma rings) is reserved once,
        # past the last ring, so pad + the last ring's end stays inside the launch's shmem_size
        reserved = RING_ALIGN if ("ring_align",) in fl.cache else 0
        offset = -(-(fl.dynamic_shared - reserved) // align) * align
        fl.dynamic_shared = offset + reserved + -(-stages * rows * cols * element_bytes(signless(elem)) // 128) * 128
        if fl.dynamic_shared > MAX_DYNAMIC_SHARED:
            raise error_at(op, f"the cp.async rings of this kernel need {fl.dynamic_shared} bytes of shared memory, more than the {MAX_DYNAMIC_SHARED} a CTA can have; use fewer stages (num_stages) or smaller tiles")
        raw = fl.at_entry(("dynamic_shared",), lambda x: x(gpu.DynamicSharedMemoryOp()))
        if ring in fl.ring_panels:
            from warpforge.passes.lowerings.tile_dot_wgmma import aligned_shift

            found = fl.at_entry(key, lambda x: x(memref.ViewOp(raw, aligned_shift(fl, x, raw, offset), [], typ)))
        else:
            found = fl.at_entry(key, lambda x: x(memref.ViewOp(raw, x.const(offset, IndexType()), [], typ)))
    if found.type != typ:
        raise error_at(op, f"{op.name}: ring {ring} holds {typ}, not {shape} tiles of {elem} (each ring has one tile type)")
    return found, swizzle_for(width, element_bytes(signless(elem))), panel


def _slot_rows(e: Emitter, fl: _TileFunctionLowering, slot: SSAValue, rows: int) -> SSAValue:
    s = cast_value(e, fl.v(slot), slot.type, kernel.SI64)
    return e(arith.ShLIOp(s, e.const(_log2(rows), i64)))


def copied_view(fl: _TileFunctionLowering, op: AsyncCopyOp | TmaCopyOp) -> PView:
    """The partition view a ring copy (`tile.async_copy`, `tile.tma_copy`) reads from; a
    `CompileError` at the op when its view is not a partition view of a kernel parameter."""
    pv = fl.values.get(op.view)
    if not isinstance(pv, PView):
        raise error_at(op, f"{op.name}: the view must be a partition view of a kernel parameter")
    return pv


@lowers(AsyncCopyOp)
def _async_copy(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, AsyncCopyOp)
    pv = copied_view(fl, op)
    v = pv.view
    if not (v.limit is None and v.align >= 16 and v.divisible[-1] >= 8 and v.divisible[-1] % 8 == 0 and _zero(pv.padding)):
        raise error_at(op, f"tile.async_copy needs a 16-byte aligned view with rows a multiple of 8 elements and padding 0 (cp.async, 16 bytes, zero-fill); got alignment {v.align}, rows divisible by {v.divisible[-1]}")
    shape = ring_tile_shape(pv.tile)
    assert shape is not None  # the verifier's
    buf, swz, panel = _ring(fl, op, shape, v.elem)
    dest = SharedOperand(buf, _slot_rows(e, fl, op.slot, buf.type.get_shape()[0] // op.stages.value.data), swz, panel=panel)  # pyright: ignore[reportAttributeAccessIssue]
    _copy_async(fl, e, DeferredLoad(pv, _coords64(fl, e, op.coords)), buf, dest)


@lowers(AsyncCommitOp)
def _async_commit(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    e(nvgpu.DeviceAsyncCreateGroupOp())


@lowers(AsyncWaitOp)
def _async_wait(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, AsyncWaitOp)
    if "tile.mma_in_flight" in op.attributes or _register_a_wgmma(fl):
        # after a loop whose wgmma groups stay in flight (tile-pipeline), or whose wgmma accumulators
        # (register A: attention) are read after it — every group retired, the reads licensed
        # (`nvvm.check_accumulators_in_flight`)
        from warpforge.dialects import nvvm

        e(nvvm.op("nvvm.wgmma.wait.group.sync.aligned")(n=0))  # pyright: ignore[reportCallIssue]
    e(nvgpu.DeviceAsyncWaitOp(op.pending.value.data))
    if fl.ring_panels:  # wgmma reads the rings: order these generic-proxy (cp.async) writes before its async-proxy reads
        from warpforge.dialects import nvvm

        e(nvvm.op("nvvm.fence.proxy.async.shared.cta")())  # pyright: ignore[reportCallIssue]
    e(gpu.BarrierOp())


def _register_a_wgmma(fl: _TileFunctionLowering) -> bool:
    """Whether a `tile.dot` of the kernel is a wgmma with A from registers (`tile_dot_wgmma`)."""
    key = ("register_a_wgmma",)
    if key not in fl.cache:
        from warpforge.passes.lowerings.tile_dot_wgmma import WgmmaLayout

        fl.cache[key] = any(  # pyright: ignore[reportArgumentType]
            isinstance(op, DotOp) and isinstance(fl.layout_hints.get(op.result), WgmmaLayout) and not isinstance(op.lhs.owner, RingTileOp) for op in fl.src.walk()
        )
    return bool(fl.cache[key])


@lowers(RingTileOp)
def _ring_tile(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SharedOperand:
    assert isinstance(op, RingTileOp)
    t = op.result.type
    assert isinstance(t, tile.TileType)
    buf, swz, panel = _ring(fl, op, t.dims, t.element_type)
    return SharedOperand(buf, _slot_rows(e, fl, op.slot, buf.type.get_shape()[0] // op.stages.value.data), swz, panel=panel)  # pyright: ignore[reportAttributeAccessIssue]


@dataclass
class SharedOperand:
    """An operand in shared memory: `buf[row_base + r][swizzled c]` holds its element (r, c)
    (`row_base`: the ring slot's first row, None for 0; `swizzle` (shift, mask): the 16-byte chunk
    c / 8 of row r is stored at chunk (c / 8) ^ ((r >> shift) & mask), None: not swizzled; `panel`
    (R, P): the slot is split into column panels of R×P, element (r, c) in row (c / P)·R + r at
    column c mod P — wgmma's MN-major B layout; None: one panel)."""

    buf: SSAValue
    row_base: SSAValue | None
    swizzle: tuple[int, int] | None = None
    transposed: bool = False
    """The array holds the operand's transpose (B as N×K, A as K×M): element (r, c) at row c, column r."""
    panel: tuple[int, int] | None = None

    def row(self, e: Emitter, r: SSAValue, c: SSAValue | None = None) -> SSAValue:
        """The stored row of element (r, c) (`c` needed only for a paneled operand)."""
        if self.panel is not None:
            assert c is not None
            rows, width = self.panel
            r = e(arith.AddiOp(r, e(arith.ShLIOp(e(arith.ShRUIOp(c, e.const(_log2(width), i64))), e.const(_log2(rows), i64)))))
        return r if self.row_base is None else e(arith.AddiOp(self.row_base, r))

    def col(self, e: Emitter, r: SSAValue, c: SSAValue) -> SSAValue:
        """The stored column of element (r, c), c a multiple of 8 (a chunk's first element)."""
        if self.panel is not None:
            c = e(arith.AndIOp(c, e.const(self.panel[1] - 1, i64)))
        if self.swizzle is None:
            return c
        shift, mask = self.swizzle
        phase = e(arith.AndIOp(e(arith.ShRUIOp(r, e.const(shift, i64))) if shift else r, e.const(mask, i64)))
        return e(arith.XOrIOp(c, e(arith.ShLIOp(phase, e.const(3, i64)))))


def swizzle_for(cols: int, elem_bytes: int) -> tuple[int, int] | None:
    """The XOR swizzle that makes `ldmatrix` (8 rows of one 16-byte chunk column) and `cp.async`
    (16-byte chunks) conflict-free for rows of `cols` elements: shared memory serves 128 bytes (32
    4-byte banks) per wavefront, so the 8 rows of a phase must fall in 8 distinct 16-byte bank
    groups. A row of C chunks (C = row bytes / 16) shares a 128-byte line with 8/C − 1 others when
    C < 8; XOR the chunk index with (row / max(1, 8/C)) mod min(C, 8)."""
    chunks = cols * elem_bytes // 16
    if chunks <= 1:
        return None
    rows_per_line = max(1, 8 // chunks)
    return _log2(rows_per_line), min(chunks, 8) - 1


def warp_mma(fl: _TileFunctionLowering, e: Emitter, lay: MmaLayout, row, kind: str, acc: list[SSAValue], sa: SharedOperand | Dist, sb: SharedOperand, k: int) -> list[SSAValue]:
    """Each warp multiplies its tm×tn grid of m16n8 tiles over K: per k-step, A fragments by
    `ldmatrix.x4` (lane l: row l%16, column 8·(l/16) of a 16×16 block), B fragments by
    `ldmatrix.x4.trans` for two n8 tiles at once (x2 for a single one), element loads for tf32 and 8-bit
    inputs; then `mma.sync` per tile. `acc`: the accumulator slots in `lay`; returns the new ones.
    `sa` a `Dist` in an MMA layout (`register_a_operand`): the A fragment of m16 tile i, k-step s is
    its slots of n8 tiles 2s and 2s + 1 (rows g, g + 8; columns 2t, 2t + 1; then the same 8 further)."""
    w = warp_coords(fl, lay)
    lane, g, t, row0, col0 = w.lane, w.g, w.t, w.row0, w.col0
    acc = list(acc)
    sixteen_bit = kind in ("f16", "bf16")
    ldm_row = fl.at_entry(("ldm_row",), lambda x: x(arith.AndIOp(lane, x.const(15, i64))))
    ldm_col = fl.at_entry(("ldm_col",), lambda x: x(arith.ShLIOp(x(arith.ShRUIOp(lane, x.const(4, i64))), x.const(3, i64))))
    # a transposed operand: matrix q = lane / 8 starts at row 8·(q / 2), column 8·(q % 2) of the stored 16×16 block
    ldm_row_t = fl.at_entry(("ldm_row_t",), lambda x: x(arith.OrIOp(x(arith.AndIOp(lane, x.const(7, i64))), x(arith.ShLIOp(x(arith.ShRUIOp(lane, x.const(4, i64))), x.const(3, i64))))))
    ldm_col_t = fl.at_entry(("ldm_col_t",), lambda x: x(arith.AndIOp(lane, x.const(8, i64))))

    def rows(op: SharedOperand, r: SSAValue) -> SSAValue:
        return op.row(e, r)

    def element(op: SharedOperand, r: SSAValue, c: SSAValue) -> SSAValue:  # element (r, c) of the operand
        if op.transposed:
            r, c = c, r
        return e(memref.LoadOp.get(op.buf, [_idx(e, rows(op, r)), _idx(e, c)]))

    def ldmatrix(op: SharedOperand, r: SSAValue, c: SSAValue, tiles: int, trans: bool) -> list[SSAValue]:
        """`ldmatrix` of stored row r, chunk-start column c (swizzled where the array is)."""
        return list(e(nvgpu.LdMatrixOp(op.buf, [_idx(e, rows(op, r)), _idx(e, op.col(e, r, c))], tiles, transpose=trans)).owner.results)  # pyright: ignore[reportAttributeAccessIssue]

    for k0 in range(0, k, row.k):
        a_frags, b_frags = [], []
        for i in range(lay.tm):
            r0 = _add(e, row0, 16 * i)
            if isinstance(sa, Dist):  # registers of an M×K product (its layout's tn = K / 8)
                assert isinstance(sa.layout, MmaLayout)
                first = 4 * (i * sa.layout.tn + 2 * (k0 // 16))
                a_frags.append(list(sa.regs[first : first + 8]))
            elif sixteen_bit and sa.transposed:  # A stored K×M: matrices (k0, m0), (k0, m0+8), (k0+8, m0), (k0+8, m0+8), transposed
                a_frags.append(ldmatrix(sa, _add(e, ldm_row_t, k0), e(arith.AddiOp(r0, ldm_col_t)), 4, True))
            elif sixteen_bit:
                lr = e(arith.AddiOp(r0, ldm_row))
                a_frags.append(ldmatrix(sa, lr, _add(e, ldm_col, k0), 4, False))
            else:
                frag = []
                for q in range(row.elements("a")):
                    rr, cc = _coeffs(row, "a", q)
                    frag.append(element(sa, _affine(e, g, t, rr, r0), _affine(e, g, t, cc, e.const(k0, i64))))
                a_frags.append(frag)
        j = 0
        while j < lay.tn:
            c0 = _add(e, col0, 8 * j)
            if sixteen_bit and sb.transposed:  # B stored N×K (mma's native col-major B): no .trans
                pair = j + 1 < lay.tn
                res = ldmatrix(sb, e(arith.AddiOp(c0, ldm_row_t)), _add(e, ldm_col_t, k0), 4 if pair else 2, False)
                b_frags += [res[:4], res[4:]] if pair else [res]  # matrices 0, 1: tile j (k0, k0 + 8); 2, 3: tile j + 1
                j += 2 if pair else 1
                continue
            if sixteen_bit:
                lr = _add(e, ldm_row, k0)
                rb = rows(sb, lr)
                if j + 1 < lay.tn:
                    cb = sb.col(e, lr, e(arith.AddiOp(c0, ldm_col)))
                    res = list(e(nvgpu.LdMatrixOp(sb.buf, [_idx(e, rb), _idx(e, cb)], 4, transpose=True)).owner.results)  # pyright: ignore[reportAttributeAccessIssue]
                    b_frags += [res[:4], res[4:]]  # matrices 0, 1: tile j; 2, 3: tile j + 1
                    j += 2
                    continue
                b_frags.append(list(e(nvgpu.LdMatrixOp(sb.buf, [_idx(e, rb), _idx(e, sb.col(e, lr, c0))], 2, transpose=True)).owner.results))  # pyright: ignore[reportAttributeAccessIssue]
            else:
                frag = []
                for q in range(row.elements("b")):
                    rr, cc = _coeffs(row, "b", q)
                    frag.append(element(sb, _affine(e, g, t, rr, e.const(k0, i64)), _affine(e, g, t, cc, c0)))
                b_frags.append(frag)
            j += 1
        for i in range(lay.tm):
            for jj in range(lay.tn):
                s = 4 * (i * lay.tn + jj)
                mma = nvgpu.MmaSyncOp(row.shape, row.a, a_frags[i], b_frags[jj], acc[s : s + 4])
                e(mma)
                acc[s : s + 4] = list(mma.d)
    return acc


from warpforge.passes.lowerings import tile_dot_wgmma as _tile_dot_wgmma  # noqa: E402,F401  (tile.dot on wgmma for sm_90a; its analysis runs after assign_mma_layouts)
from warpforge.passes.lowerings import tile_tma as _tile_tma  # noqa: E402,F401  (the TMA + mbarrier ring ops of tile-tma-ring)
from warpforge.passes.lowerings import tile_dot_rows as _tile_dot_rows  # noqa: E402,F401  (row reductions of the accumulator in registers; after the wgmma analysis)
