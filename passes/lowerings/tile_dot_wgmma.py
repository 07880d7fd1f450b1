"""`tile.dot` on Hopper's warpgroup MMA (`wgmma.mma_async`), chosen by `tile-to-gpu` for `sm_90a`.

A dot qualifies when the target chip is `sm_90a`, both operands are `tile-pipeline` ring slots
(`tile.ring_tile`; B may be the transpose of an N×K slot, `ring_of_operand`), the inputs are f16 or bf16 (the same type), the accumulator f32, the CTA has a
multiple of 4 warps (whole warpgroups), M = 16 × warps (one m64 block per warpgroup), N a power of two
in [16, 256] and K one of 16, 32, 64 (`wgmma_shape`); otherwise the `mma.sync` path
(`tile_dot.py`) lowers it, as it does for every other chip (sm_90, sm_80, the simulator).

1. **Accumulator** (`WgmmaLayout`, `#tile.wgmma`): the m64nNk16 D fragment (PTX ISA §9.7.15.5.1.1,
   "Register fragments", accumulator D): warpgroup g owns rows 64g … 64g + 63; warp w of it rows
   16w …; lane l, register 4j + 2h + v holds row 16w + 8h + l/4, column 8j + 2(l%4) + v. Per warp this
   is the `mma.sync` placement with one m16 row of N/8 n8 fragments, so it is `MmaLayout` with
   `wm` = warps, `wn` = 1: epilogues run per register and `tile.store` writes straight from them.
2. **Operands in shared memory, described by matrix descriptors** (PTX ISA §9.7.15.5.1.2, "Shared
   Memory Matrix Layout", and "Matrix Descriptor Format": bits 0–13 start address >> 4, 16–29 leading
   byte offset >> 4, 32–45 stride byte offset >> 4, 62–63 swizzle mode 1 = 128 B, 2 = 64 B, 3 = 32 B).
   The rings start 1024-byte aligned (`aligned_shift`), so the rings' XOR swizzle (`swizzle_for`:
   16-byte chunk c of row r at c ^ (r mod 8) for 128-byte rows, c ^ ((r/2) mod 4) for 64-byte rows,
   c ^ ((r/4) mod 2) for 32-byte rows) is exactly wgmma's 128/64/32-byte swizzle.
   - A (M×K, row-major = K-major): rows of K·2 bytes, swizzle = the row bytes; SBO = 8 rows; LBO unused
     (1). Warpgroup g starts at row 64g; k-step i starts 32·i bytes into the row.
   - B (K×N, row-major = N-major, the transposed form, `imm-trans-b` = 1): each ring slot is split into
     N/P column panels of K×P (P = min(N, 64) elements = the swizzle span; `tile_dot._ring`), each
     swizzled; LBO = the panel stride (K·P·2 bytes), SBO = 8 rows of a panel (8·P·2 bytes); k-step i
     starts 16·i rows (16·P·2 bytes) into the slot.
   - B read transposed (`tile.dot(a, b.T)` of an N×K slot, attention's Q·Kᵀ): rows n of K contiguous
     elements, i.e. K-major — the same form as A (one panel of K, swizzle = the row bytes, SBO = 8
     rows, LBO unused), `imm-trans-b` = 0; k-step i starts 32·i bytes into the row. No transposed
     copy, as `mma.sync` reads such a slot with `ldmatrix` without `.trans`.
3. **MMAs** per `tile.dot`: `wgmma.fence`, K/16 `wgmma.mma_async` m64nNk16 chained on the accumulator
   registers (carried through the K loop in place, never copied; scale-d = 1 on the zeros the loop
   starts from, set before the loop), `wgmma.commit_group`, `wgmma.wait_group N`. The ring's wait
   (`tile.async_wait`) puts `fence.proxy.async.shared::cta` between the `cp.async` (generic proxy)
   writes and the barrier before wgmma (async proxy) reads them.
   N = 0 unless `tile-pipeline` gave the dot `tile.mma_in_flight = 1` (sm_90a, ≥ 3 stages, the
   accumulator only carried to the next step): then one group stays in flight across the back edge
   (N = 1), the ring's copies target the slot two steps back (retired by that wait before the step's
   barrier), and the wait after the loop (`tile.async_wait` with the same attribute) is preceded by
   `wgmma.wait_group 0` before the accumulator is read (`nvvm.check_accumulators_in_flight`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm, memref
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, FloatAttr, IndexType, IntegerAttr, i1, i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import nvvm
from warpforge.dialects.tile_dot import DotOp, RingTileOp
from warpforge.dialects.tile_layout import WgmmaEncodingAttr
from warpforge.passes.kernel_to_gpu import Emitter, signless
from warpforge.passes.lowerings.tile_dot import RING_ALIGN, MmaLayout, SharedOperand, Transposed, mma_layout
from warpforge.passes.tile_to_gpu.lowering import Dist, _TileFunctionLowering  # pyright: ignore[reportPrivateUsage]

WGMMA_CHIPS = ("sm_90a",)
"""Chips whose `tile.dot` uses wgmma (PTX ISA: `wgmma.mma_async` needs `sm_90a`)."""

SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}
"""Matrix-descriptor swizzle mode (bits 62–63) by swizzle span in bytes (PTX ISA, "Matrix Descriptor Format")."""

DESCRIPTOR_ADDRESS_MASK = 0x3FFFF
"""The shared-memory address bits a descriptor encodes (bits 4–17, as address >> 4 in 14 bits)."""



def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def wgmma_shape(chip: str, threads: int, op: DotOp) -> tuple[int, int, int] | None:
    """(M, N, K) when `op` lowers to wgmma on `chip` in a CTA of `threads` threads (module doc), else None."""
    if chip not in WGMMA_CHIPS:
        return None
    if not isinstance(op.lhs.owner, RingTileOp) or ring_of_operand(op.rhs) is None:
        return None
    lt, rt, ot = op.lhs.type, op.rhs.type, op.result.type
    ea, eb = signless(lt.element_type), signless(rt.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    if type(ea) is not type(eb) or not isinstance(ea, Float16Type | BFloat16Type) or not isinstance(ot.element_type, Float32Type):  # pyright: ignore[reportAttributeAccessIssue]
        return None
    (m, k), (_, n) = lt.dims, rt.dims  # pyright: ignore[reportAttributeAccessIssue]
    warps = threads // 32
    if warps % 4 or m != 16 * warps or not (_pow2(n) and 16 <= n <= 256) or k not in (16, 32, 64):
        return None
    return m, n, k


def ring_of_operand(v: SSAValue) -> tuple[RingTileOp, bool] | None:
    """The ring slot B operand `v` reads, and whether it is read transposed: a `tile.ring_tile`
    (K×N, N-major), or the transpose of one (`b.T` of an N×K slot: K-major, as Q·Kᵀ reads K) that
    is only this dot's operand (`tile_dot.dot_operand_transpose`); None for anything else."""
    from warpforge.passes.lowerings.tile_dot import dot_operand_transpose

    owner = v.owner
    if isinstance(owner, RingTileOp):
        return owner, False
    if isinstance(owner, Operation) and dot_operand_transpose(owner) and isinstance(owner.operands[0].owner, RingTileOp):
        return owner.operands[0].owner, True  # pyright: ignore[reportReturnType]
    return None


@dataclass(frozen=True)
class WgmmaLayout(MmaLayout):
    """The wgmma m64nNk16 accumulator of an M×N tile (module doc, 1.): `MmaLayout` with wm = warps,
    wn = 1, lowering its `tile.dot` itself (`lower_dot`)."""

    def encoding(self) -> WgmmaEncodingAttr:  # pyright: ignore[reportIncompatibleMethodOverride]
        """This layout as the `tile` dialect's `#tile.wgmma` encoding."""
        return WgmmaEncodingAttr((self.wm, 1), (64, self.shape[1]))

    def lower_dot(self, fl: _TileFunctionLowering, op: DotOp, e: Emitter) -> Dist:
        """`op` as wgmma (module doc, 2. and 3.); returns the new accumulator registers."""
        sa, sb = fl.values.get(op.lhs), fl.values.get(op.rhs)
        k_major_b = isinstance(sb, Transposed)  # B = (N×K slot)ᵀ: rows n of K contiguous, like A
        if isinstance(sb, Transposed):
            sb = sb.inner
        assert isinstance(sa, SharedOperand) and isinstance(sb, SharedOperand)
        c = fl.to_layout(e, fl.dist(op.acc), self)  # pyright: ignore[reportArgumentType]
        (_, k), (_, n) = op.lhs.type.dims, op.rhs.type.dims  # pyright: ignore[reportAttributeAccessIssue]
        in_t = signless(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        kind = "bf16" if isinstance(in_t, BFloat16Type) else "f16"
        width = sb.panel[1] if sb.panel is not None else n
        assert fl.tid is not None
        tid = fl.tid
        wg_row = fl.at_entry(("wgmma_row",), lambda x: x(arith.ShLIOp(x(arith.ShRUIOp(tid, x.const(7, i64))), x.const(6, i64))))
        a_row = sa.row(e, wg_row)
        a_addr = e(arith.AddiOp(shared_address(fl, sa.buf), e(arith.MuliOp(a_row, e.const(2 * k, i64)))))
        if k_major_b:
            width = k  # the slot's rows are K long: one panel (wgmma_ring_panels)
        b_addr = shared_address(fl, sb.buf)
        if sb.row_base is not None:
            b_addr = e(arith.AddiOp(b_addr, e(arith.MuliOp(sb.row_base, e.const(2 * width, i64)))))
        desc_a = descriptor(e, a_addr, leading=16, stride=8 * 2 * k, swizzle=2 * k)
        if k_major_b:  # as A: 8-row core groups SBO apart, LBO unused (PTX ISA, K-major swizzled layouts)
            desc_b = descriptor(e, b_addr, leading=16, stride=8 * 2 * k, swizzle=2 * k)
        else:
            desc_b = descriptor(e, b_addr, leading=2 * k * width, stride=8 * 2 * width, swizzle=2 * width)
        acc = list(c.regs)
        if _zero_splat(acc):
            # D = A·B: scale-d = 0 and no accumulator input (undefined registers). Zeros tied to the
            # outputs would make LLVM write the registers right before the asm, after wgmma.fence
            # (PTX ISA §9.7.15.6: accumulator writes must precede the fence): seen on a dot inside
            # the loop (`acc + a @ b`) faulting on the H200
            first_scale = e.const(0, i1)
            undef = e(llvm.UndefOp(Float32Type()))
            acc = [undef] * len(acc)
        else:
            first_scale = e.const(1, i1)
        scale_d = e.const(1, i1)  # the later k-steps accumulate onto the first's result
        e(nvvm.op("nvvm.wgmma.fence.aligned")())  # pyright: ignore[reportCallIssue]
        for i in range(k // 16):
            da = e(arith.AddiOp(desc_a, e.const(32 * i >> 4, i64))) if i else desc_a
            b_step = 32 * i if k_major_b else 16 * 2 * width * i  # K-major: 16 elements along the row; N-major: 16 rows
            db = e(arith.AddiOp(desc_b, e.const(b_step >> 4, i64))) if i else desc_b
            # B N-major: imm-trans-b = 1 ("row"); K-major: 0 ("col")
            mma = nvvm.WgmmaMmaAsyncOp(da, db, scale_d if i else first_scale, acc, n=n, type=kind, layout_a="row", layout_b="col" if k_major_b else "row")
            e(mma)
            acc = list(mma.res)
        e(nvvm.op("nvvm.wgmma.commit.group.sync.aligned")())  # pyright: ignore[reportCallIssue]
        in_flight = op.attributes.get("tile.mma_in_flight")  # tile-pipeline's schedule lets one group run on
        depth = in_flight.value.data if isinstance(in_flight, IntegerAttr) else 0
        e(nvvm.op("nvvm.wgmma.wait.group.sync.aligned")(n=depth))  # pyright: ignore[reportCallIssue]
        return Dist(self, acc, c.elem)


def _zero_splat(regs: list[SSAValue]) -> bool:
    """All accumulator registers are one constant 0.0 (a `tile.zeros` / splat accumulator)."""
    first = regs[0]
    owner = first.owner
    if any(r is not first for r in regs) or not isinstance(owner, arith.ConstantOp):
        return False
    value = owner.value
    return isinstance(value, FloatAttr) and value.value.data == 0.0


def descriptor(e: Emitter, address: SSAValue, *, leading: int, stride: int, swizzle: int) -> SSAValue:
    """The 64-bit wgmma matrix descriptor (PTX ISA, "Matrix Descriptor Format") of the shared-memory
    matrix at byte `address` (i64): leading/stride byte offsets and the swizzle span in bytes."""
    start = e(arith.ShRUIOp(e(arith.AndIOp(address, e.const(DESCRIPTOR_ADDRESS_MASK, i64))), e.const(4, i64)))
    fields = ((leading >> 4) & 0x3FFF) << 16 | ((stride >> 4) & 0x3FFF) << 32 | SWIZZLE_MODE[swizzle] << 62
    return e(arith.OrIOp(start, e.const(fields, i64)))


def shared_address(fl: _TileFunctionLowering, buf: SSAValue) -> SSAValue:
    """The shared-memory byte address (i64) of `buf`'s first element (`memref.extract_aligned_pointer_as_index`)."""
    return fl.at_entry(("smem_addr", buf), lambda x: x(arith.IndexCastOp(x(memref.ExtractAlignedPointerAsIndexOp.get(buf)), i64)))


def aligned_shift(fl: _TileFunctionLowering, e: Emitter, raw: SSAValue, offset: int) -> SSAValue:
    """The byte shift (index) of a ring at `offset` bytes past the first 1024-byte aligned address of
    the dynamic shared memory `raw`; reserves the up to 1008 bytes of padding once per kernel (past
    the rings: `tile_dot._ring` places later rings' offsets below the reservation)."""
    if ("ring_align",) not in fl.cache:
        fl.dynamic_shared += RING_ALIGN
    pad = fl.at_entry(("ring_align",), lambda x: _pad(x, raw))
    return e(arith.IndexCastOp(e(arith.AddiOp(pad, e.const(offset, i64))), IndexType()))


def _pad(e: Emitter, raw: SSAValue) -> SSAValue:
    addr = e(arith.IndexCastOp(e(memref.ExtractAlignedPointerAsIndexOp.get(raw)), i64))
    return e(arith.AndIOp(e(arith.SubiOp(e.const(0, i64), addr)), e.const(RING_ALIGN - 1, i64)))


def _wgmma_dots(func: Operation, threads: int, chip: str) -> dict[tuple[int, int], list[tuple[DotOp, tuple[int, int, int]]]]:
    """The `tile.dot`s of kernel `func` by accumulator shape, for the shapes whose every dot qualifies
    for wgmma on `chip` (`wgmma_shape`), with their (M, N, K)."""
    by_shape: dict[tuple[int, int], list[tuple[DotOp, tuple[int, int, int] | None]]] = {}
    for op in func.walk():
        if isinstance(op, DotOp):
            by_shape.setdefault(tuple(op.result.type.dims), []).append((op, wgmma_shape(chip, threads, op)))  # pyright: ignore[reportAttributeAccessIssue, reportArgumentType]
    return {shape: entries for shape, entries in by_shape.items() if all(s is not None for _, s in entries)}  # pyright: ignore[reportReturnType]


def choose_wgmma_layouts(func: Operation, threads: int, chip: str, layouts: dict[SSAValue, MmaLayout]) -> None:
    """After `tile_dot.choose_mma_layouts` (`layouts`, updated in place): when every `tile.dot` of
    one accumulator shape of kernel `func` qualifies for wgmma on `chip` (`wgmma_shape`), the values
    given that shape's MMA layout get `WgmmaLayout` (`#tile.wgmma`) instead."""
    warps = threads // 32
    for shape in _wgmma_dots(func, threads, chip):
        old = mma_layout(shape, threads)
        new = WgmmaLayout(shape, warps, 1, warps)
        for v, h in list(layouts.items()):
            if h == old:
                layouts[v] = new


def wgmma_ring_panels(func: Operation, threads: int, chip: str) -> dict[int, int]:
    """The wgmma shared layouts of the rings of the dots `choose_wgmma_layouts` moves to wgmma: ring
    id -> panel width (A one panel of K, B panels of min(N, 64) columns; `_TileFunctionLowering.ring_panels`)."""
    panels: dict[int, int] = {}
    for entries in _wgmma_dots(func, threads, chip).values():
        for op, (_, n, k) in entries:
            lhs, found = op.lhs.owner, ring_of_operand(op.rhs)
            assert isinstance(lhs, RingTileOp) and found is not None
            rhs, k_major = found
            panels[lhs.ring.value.data] = k
            panels[rhs.ring.value.data] = k if k_major else min(n, 64)  # a K-major slot is one panel of K, as A
    return panels
