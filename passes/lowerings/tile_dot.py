"""`tile-to-gpu`'s lowering of `tile.dot` (registered into its `@lowers` table when `tile_to_gpu` loads):
the CTA's warps share the product's 16×8 output tiles and compute each with `mma.sync`.

1. **Operands to shared memory**, in row-padded shared arrays (`A[M][K + pad]`, `B[K][N + pad]`, pad
   = 16 bytes, so the 8 row addresses of an `ldmatrix` phase fall into distinct bank groups and every
   row starts 16-byte aligned). An operand that is a `tile.load` used only here, of 16-bit floats from
   a 16-byte aligned view with rows a multiple of 8 elements and padding 0, is copied from global
   memory by `cp.async` (16 bytes per copy, `.cg`; past the tensor's edges the copy reads fewer bytes
   and zero-fills: the padding), then `commit_group` / `wait_group 0`; any other operand arrives in the
   canonical blocked layout and each thread stores its registers. The accumulator goes to `C[M][N]`.
2. **MMA layout.** Warp w takes output tiles w, w + W, … (W warps; tile t is rows 16·(t / (N/8)),
   columns 8·(t % (N/8))). Its C fragment is read from `C` at `fragment_layout`'s coordinates; for
   each K step the A fragment comes from `ldmatrix.x4` (lane l: row l % 16, column 8·(l / 16)) and the
   B fragment from `ldmatrix.x2.trans` (lane l: row l % 16) for 16-bit inputs, or element by element
   (`fragment_layout`) for tf32 and 8-bit inputs; `nvgpu.mma.sync` accumulates; the result fragment
   is written back to `C`.
3. **Back to the canonical layout** by reading `C` row-major.

Barriers separate the phases (and the previous use of the buffers, e.g. the last iteration of a
K loop). Each `tile.dot` has its own shared arrays: their bytes count against the 48 KiB of static
shared memory (the frontend refuses larger products). This is the portable path (sm_80+, `mma.sync`);
keeping the accumulator in MMA registers across a K loop, a `cp.async` ring and Hopper's wgmma are
the next steps (DESIGN.md, "Tensor cores").
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import BFloat16Type, FloatAttr, Float16Type, IndexType, IntegerAttr, IntegerType, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue

from warpforge.dialects import gpu, nvgpu, tile
from warpforge.dialects.nvvm_catalog import mma_shape
from warpforge.dialects.tile_dot import DotOp, mma_input_kind
from warpforge.passes.kernel_to_gpu import SHARED, Emitter, signless
from warpforge.passes.tile_to_gpu.layouts import canonical_layout
from warpforge.passes.tile_to_gpu.lowering import _TILE_LOWERINGS, Dist, PView, _TileFunctionLowering, lowers  # pyright: ignore[reportPrivateUsage]
from warpforge.passes.tile_to_gpu.memory import _coords64  # pyright: ignore[reportPrivateUsage]

PAD_BYTES = 16


def element_bytes(t: Attribute) -> int:
    return max(1, t.width.data // 8) if isinstance(t, IntegerType) else t.bitwidth // 8  # pyright: ignore[reportAttributeAccessIssue]


def shared_bytes(m: int, n: int, k: int, in_bytes: int) -> int:
    """Static shared memory one `tile.dot` of M×K by K×N uses (its A, B and C arrays, 4-byte C)."""
    pad = PAD_BYTES // in_bytes
    return m * (k + pad) * in_bytes + k * (n + pad) * in_bytes + m * n * 4


def _log2(n: int) -> int:
    return int(log2(n))


def _idx(e: Emitter, v: SSAValue) -> SSAValue:
    return e(arith.IndexCastOp(v, IndexType()))


def _buffer(fl: _TileFunctionLowering, op: Operation, elem: Attribute, shape: tuple[int, int]) -> SSAValue:
    typ = MemRefType(elem, list(shape), memory_space=SHARED)
    name = fl.module.shared_global(fl.src.sym_name.data, typ, op)
    fl.extra_shared += -(-shape[0] * shape[1] * element_bytes(elem) // 16) * 16
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
    uses = list(op.result.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, DotOp) or uses[0].index == 2:
        return False
    pv = fl.values.get(op.view)
    if not isinstance(pv, PView):
        return False
    v = pv.view
    elem = signless(v.elem)
    return (
        len(pv.tile) == 2 and v.limit is None and v.strides is None and isinstance(elem, Float16Type | BFloat16Type) and v.align >= 16
        and v.divisible[-1] >= 8 and v.divisible[-1] % 8 == 0 and pv.tile[1] >= 8 and _zero(pv.padding)
    )  # fmt: skip


@lowers(tile.LoadOp)
def _load_or_defer(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist | DeferredLoad:
    assert isinstance(op, tile.LoadOp)
    if _copies_async(fl, op):
        pv = fl.values[op.view]
        assert isinstance(pv, PView)
        return DeferredLoad(pv, _coords64(fl, e, op.coords))
    return _register_load(fl, op, e)  # pyright: ignore[reportReturnType]


def _copy_async(fl: _TileFunctionLowering, e: Emitter, d: DeferredLoad, buf: SSAValue) -> None:
    """Each thread issues `cp.async` for its 8-element chunks of the tile into the padded `buf`."""
    view, (rows, cols) = d.pview.view, d.pview.tile
    assert fl.tid is not None
    origin = [e(arith.ShLIOp(c, e.const(_log2(t), i64))) if t > 1 else c for c, t in zip(d.coords, (rows, cols))]
    per_row = cols // 8
    chunks = rows * per_row
    zero, eight = e.const(0, i64), e.const(8, i64)
    for j in range(-(-chunks // fl.threads)):
        ch = _add(e, fl.tid, j * fl.threads)

        def issue(x: Emitter, ch: SSAValue = ch) -> None:
            r = x(arith.ShRUIOp(ch, x.const(_log2(per_row), i64))) if per_row > 1 else ch
            c = x(arith.ShLIOp(x(arith.AndIOp(ch, x.const(per_row - 1, i64))), x.const(3, i64))) if per_row > 1 else zero
            grow, gcol = x(arith.AddiOp(origin[0], r)), x(arith.AddiOp(origin[1], c))
            in_rows = x(arith.CmpiOp(grow, view.dims[0], "ult"))
            left = x(arith.MaxSIOp(x(arith.SubiOp(view.dims[1], gcol)), zero))
            valid = x(arith.SelectOp(in_rows, x(arith.MinSIOp(left, eight)), zero))
            reads = x(arith.CmpiOp(valid, zero, "sgt"))
            srow, scol = x(arith.SelectOp(reads, grow, zero)), x(arith.SelectOp(reads, gcol, zero))
            x(nvgpu.DeviceAsyncCopyOp(view.memref, [_idx(x, srow), _idx(x, scol)], buf, [_idx(x, r), _idx(x, c)], 8, _idx(x, valid), bypass_l1=True))

        if (j + 1) * fl.threads <= chunks:
            issue(e)
        else:
            fl.when(e, e(arith.CmpiOp(ch, e.const(chunks, i64), "ult")), issue)


def _coeffs(row, operand: str, i: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    from warpforge.dialects.nvvm_catalog import fragment_layout

    r0, c0 = fragment_layout(row, operand, 0, i)
    rg, cg = fragment_layout(row, operand, 4, i)
    rt, ct = fragment_layout(row, operand, 1, i)
    return (r0, rg - r0, rt - r0), (c0, cg - c0, ct - c0)


@lowers(DotOp)
def _dot(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, DotOp)
    la, lb = fl.values.get(op.lhs), fl.values.get(op.rhs)
    a = la if isinstance(la, DeferredLoad) else fl.canon(e, fl.dist(op.lhs))
    b = lb if isinstance(lb, DeferredLoad) else fl.canon(e, fl.dist(op.rhs))
    c = fl.canon(e, fl.dist(op.acc))
    (m, k), (_, n) = op.lhs.type.dims, op.rhs.type.dims  # pyright: ignore[reportAttributeAccessIssue]
    kind = mma_input_kind(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    assert kind is not None
    in_t, acc_t = signless(op.lhs.type.element_type), signless(c.elem)  # pyright: ignore[reportAttributeAccessIssue]
    row = mma_shape("m16n8k32" if kind in ("s8", "u8") else "m16n8k8" if kind == "tf32" else "m16n8k16", kind, "s32" if kind in ("s8", "u8") else "f32")
    assert row is not None
    pad = PAD_BYTES // element_bytes(in_t)
    sa = _buffer(fl, op, in_t, (m, k + pad))
    sb = _buffer(fl, op, in_t, (k, n + pad))
    sc = _buffer(fl, op, acc_t, (m, n))

    e(gpu.BarrierOp())  # earlier readers of these arrays (a previous iteration) are done
    for x, buf, cols in ((a, sa, k), (b, sb, n)):
        if isinstance(x, DeferredLoad):
            _copy_async(fl, e, x, buf)
        else:
            _store_canonical(fl, e, x, buf, cols)
    _store_canonical(fl, e, c, sc, n)
    if isinstance(a, DeferredLoad) or isinstance(b, DeferredLoad):
        e(nvgpu.DeviceAsyncCreateGroupOp())
        e(nvgpu.DeviceAsyncWaitOp(0))
    e(gpu.BarrierOp())

    assert fl.tid is not None
    lane = e(arith.AndIOp(fl.tid, e.const(31, i64)))
    warp = e(arith.ShRUIOp(fl.tid, e.const(5, i64)))
    g = e(arith.ShRUIOp(lane, e.const(2, i64)))
    t = e(arith.AndIOp(lane, e.const(3, i64)))
    warps = fl.threads // 32
    tiles = (m // 16) * (n // 8)
    ldm_row = e(arith.AndIOp(lane, e.const(15, i64)))  # ldmatrix: this lane's row of the 16-row slab
    ldm_col = e(arith.MuliOp(e(arith.ShRUIOp(lane, e.const(4, i64))), e.const(8, i64)))
    sixteen_bit = kind in ("f16", "bf16")

    def one_tile(x: Emitter, tile_index: SSAValue) -> None:
        tm = x(arith.ShRUIOp(tile_index, x.const(_log2(n // 8), i64)))
        tn = x(arith.AndIOp(tile_index, x.const(n // 8 - 1, i64)))
        row0 = x(arith.ShLIOp(tm, x.const(4, i64)))
        col0 = x(arith.ShLIOp(tn, x.const(3, i64)))
        c_at = []
        for i in range(row.elements("c")):
            rc, cc = _coeffs(row, "c", i)
            c_at.append((_idx(x, _affine(x, g, t, rc, row0)), _idx(x, _affine(x, g, t, cc, col0))))
        acc = [x(memref.LoadOp.get(sc, [r_, c_])) for r_, c_ in c_at]
        for k0 in range(0, k, row.k):
            kbase = x.const(k0, i64)
            if sixteen_bit:
                ra = x(arith.AddiOp(row0, ldm_row))
                ca = x(arith.AddiOp(kbase, ldm_col))
                a_frag = list(x(nvgpu.LdMatrixOp(sa, [_idx(x, ra), _idx(x, ca)], 4)).owner.results)  # pyright: ignore[reportAttributeAccessIssue]
                rb = x(arith.AddiOp(kbase, ldm_row))
                b_frag = list(x(nvgpu.LdMatrixOp(sb, [_idx(x, rb), _idx(x, col0)], 2, transpose=True)).owner.results)  # pyright: ignore[reportAttributeAccessIssue]
            else:
                a_frag, b_frag = [], []
                for i in range(row.elements("a")):
                    rr, cc = _coeffs(row, "a", i)
                    a_frag.append(x(memref.LoadOp.get(sa, [_idx(x, _affine(x, g, t, rr, row0)), _idx(x, _affine(x, g, t, cc, kbase))])))
                for i in range(row.elements("b")):
                    rr, cc = _coeffs(row, "b", i)
                    b_frag.append(x(memref.LoadOp.get(sb, [_idx(x, _affine(x, g, t, rr, kbase)), _idx(x, _affine(x, g, t, cc, col0))])))
            mma = nvgpu.MmaSyncOp(row.shape, row.a, a_frag, b_frag, acc)
            x(mma)
            acc = list(mma.d)
        for v, (r_, c_) in zip(acc, c_at):
            x(memref.StoreOp.get(v, sc, [r_, c_]))

    for j in range(-(-tiles // warps)):
        tile_index = _add(e, warp, j * warps)
        if (j + 1) * warps <= tiles:
            one_tile(e, tile_index)
        else:  # the last round: warps past the last tile sit out (uniform per warp)
            fl.when(e, e(arith.CmpiOp(tile_index, e.const(tiles, i64), "ult")), lambda x, ti=tile_index: one_tile(x, ti))
    e(gpu.BarrierOp())

    target = canonical_layout((m, n), fl.threads)
    regs = []
    for r in range(target.reps):
        for v in range(target.vec):
            f = fl.flat(e, target, r, v)
            rr = e(arith.ShRUIOp(f, e.const(_log2(n), i64)))
            cc = e(arith.AndIOp(f, e.const(n - 1, i64)))
            regs.append(e(memref.LoadOp.get(sc, [_idx(e, rr), _idx(e, cc)])))
    return Dist(target, regs, c.elem)
