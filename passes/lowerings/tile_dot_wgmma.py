"""`tile.dot` on Hopper's warpgroup MMA (`wgmma.mma_async`), chosen by `tile-to-gpu` for `sm_90a`.

A dot qualifies when the target chip is `sm_90a`, B is a `tile-pipeline` ring slot (`tile.ring_tile`;
or the transpose of an N×K slot, `ring_of_operand`), A is a ring slot (from shared memory) or any
other 16-bit tile (from registers, 4.), the inputs are f16 or bf16 (the same type), the accumulator
f32, the CTA has a multiple of 4 warps (whole warpgroups), M = 16 × warps (one m64 block per
warpgroup), N a power of two in [16, 256] and K one of 16, 32, 64 — with A from registers any
multiple of 16 up to 256, a K-major B split into 64-element panels past 64 (`wgmma_shape`); otherwise
the `mma.sync` path (`tile_dot.py`) lowers it, as it does for every other chip (sm_90, sm_80, the
simulator at its default chip).

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
4. **A from registers** (`nvvm.wgmma.mma_async.reg_a`, PTX ISA §9.7.15.5.1.1 "Register fragments":
   per warp the `mma.sync` m16n8k16 A fragment of its 16 rows, four b32 registers of 16-bit pairs
   per k-step; `register_a_fragments`): a product in the accumulator layout (attention's P, the S
   accumulator converted to f16/bf16) is its own A — the slots of n8 tiles 2s, 2s + 1 are k-step s,
   packed in pairs, no data movement; a loop-invariant `tile.load` staged once in shared memory
   (attention's Q) has its fragments read by `ldmatrix.x4` where it is staged, before the loop
   (`hoisted_a_fragments`); any other A is stored to a padded shared array and read back the same
   way. The group is waited for at depth 0 (the A registers of the next step may be rewritten), and
   the `tile.async_wait` after such a kernel's loops waits for every group before the accumulators
   are read. A K-major B (K's slot in Q·Kᵀ) of K = 128 is two column panels of 64 (128-byte rows,
   the ring's `panel`): k-step i reads panel 16i / 64 at byte 2·(16i mod 64) of its rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, llvm, memref
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, FloatAttr, IndexType, IntegerAttr, IntegerType, i1, i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import nvvm
from warpforge.dialects.tile_dot import DotOp, RingTileOp
from warpforge.dialects.tile_layout import WgmmaEncodingAttr
from warpforge.passes.kernel_to_gpu import Emitter, signless
from warpforge.passes.lowerings.tile_dot import RING_ALIGN, MmaLayout, SharedOperand, Transposed
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
    found = ring_of_operand(op.rhs)
    if found is None:
        return None
    lt, rt, ot = op.lhs.type, op.rhs.type, op.result.type
    ea, eb = signless(lt.element_type), signless(rt.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    if type(ea) is not type(eb) or not isinstance(ea, Float16Type | BFloat16Type) or not isinstance(ot.element_type, Float32Type):  # pyright: ignore[reportAttributeAccessIssue]
        return None
    (m, k), (_, n) = lt.dims, rt.dims  # pyright: ignore[reportAttributeAccessIssue]
    warps = threads // 32
    if warps % 4 or m != 16 * warps or not (_pow2(n) and 16 <= n <= 256):
        return None
    if isinstance(op.lhs.owner, RingTileOp):  # A from shared memory: one swizzle panel of K
        return (m, n, k) if k in (16, 32, 64) else None
    # A from registers (`register_a_fragments`): whole k16 steps; a K-major B of more than one
    # 64-element swizzle panel is split into panels of 64. A transposed A (`tile.dot(a.T, b)`, read
    # by `ldmatrix.trans`) stays on mma.sync
    from warpforge.passes.lowerings.tile_dot import dot_operand_transpose

    if isinstance(op.lhs.owner, Operation) and dot_operand_transpose(op.lhs.owner):
        return None
    _, k_major = found
    if k % 16 or k > 256 or (k_major and k > 64 and k % 64):
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
        assert isinstance(sb, SharedOperand)
        (_, k), (_, n) = op.lhs.type.dims, op.rhs.type.dims  # pyright: ignore[reportAttributeAccessIssue]
        in_t = signless(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        kind = "bf16" if isinstance(in_t, BFloat16Type) else "f16"
        a_frags: list[list[SSAValue]] | None = None
        if not isinstance(op.lhs.owner, RingTileOp):  # A from registers (before the fence: PTX ISA §9.7.15.6)
            a_frags = register_a_fragments(fl, e, op, self, sa, k)
        c = fl.to_layout(e, fl.dist(op.acc), self)  # pyright: ignore[reportArgumentType]
        width = sb.panel[1] if sb.panel is not None else n
        assert fl.tid is not None
        tid = fl.tid
        desc_a = None
        if a_frags is None:
            assert isinstance(sa, SharedOperand)
            wg_row = fl.at_entry(("wgmma_row",), lambda x: x(arith.ShLIOp(x(arith.ShRUIOp(tid, x.const(7, i64))), x.const(6, i64))))
            a_row = sa.row(e, wg_row)
            a_addr = e(arith.AddiOp(shared_address(fl, sa.buf), e(arith.MuliOp(a_row, e.const(2 * k, i64)))))
            desc_a = descriptor(e, a_addr, leading=16, stride=8 * 2 * k, swizzle=2 * k)
        if k_major_b:
            width = min(k, 64)  # the slot's rows are K long: panels of up to 64 elements (wgmma_ring_panels)
        b_addr = shared_address(fl, sb.buf)
        if sb.row_base is not None:
            b_addr = e(arith.AddiOp(b_addr, e(arith.MuliOp(sb.row_base, e.const(2 * width, i64)))))
        if k_major_b:  # as A: 8-row core groups SBO apart, LBO unused (PTX ISA, K-major swizzled layouts)
            desc_b = descriptor(e, b_addr, leading=16, stride=8 * 2 * width, swizzle=2 * width)
        else:
            desc_b = descriptor(e, b_addr, leading=2 * k * width, stride=8 * 2 * width, swizzle=2 * width)
        slot_rows = ring_slot_rows(op.rhs)
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
            if k_major_b:  # K-major: 16 elements along the row, panel (16i / P) of the slot's R x P panels
                panel, within = divmod(16 * i, width)
                b_step = panel * slot_rows * 2 * width + 2 * within
            else:  # N-major: 16 rows
                b_step = 16 * 2 * width * i
            db = e(arith.AddiOp(desc_b, e.const(b_step >> 4, i64))) if i else desc_b
            scale = scale_d if i else first_scale
            layout_b = "col" if k_major_b else "row"  # B N-major: imm-trans-b = 1 ("row"); K-major: 0 ("col")
            if a_frags is not None:
                mma = nvvm.WgmmaMmaAsyncRegAOp(a_frags[i], db, scale, acc, n=n, type=kind, layout_b=layout_b)
            else:
                assert desc_a is not None
                da = e(arith.AddiOp(desc_a, e.const(32 * i >> 4, i64))) if i else desc_a
                mma = nvvm.WgmmaMmaAsyncOp(da, db, scale, acc, n=n, type=kind, layout_a="row", layout_b=layout_b)
            e(mma)
            acc = list(mma.res)
        e(nvvm.op("nvvm.wgmma.commit.group.sync.aligned")())  # pyright: ignore[reportCallIssue]
        in_flight = op.attributes.get("tile.mma_in_flight")  # tile-pipeline's schedule lets one group run on
        depth = in_flight.value.data if isinstance(in_flight, IntegerAttr) else 0
        if a_frags is not None:
            depth = 0  # A's registers may be rewritten by the next step: retire the group here
        e(nvvm.op("nvvm.wgmma.wait.group.sync.aligned")(n=depth))  # pyright: ignore[reportCallIssue]
        return Dist(self, acc, c.elem)


def ring_slot_rows(v: SSAValue) -> int:
    """The rows of the ring slot a wgmma B operand `v` reads (the slot's first dimension)."""
    found = ring_of_operand(v)
    assert found is not None
    return found[0].result.type.dims[0]  # pyright: ignore[reportAttributeAccessIssue]


def _rounded_from_f32(v: SSAValue) -> SSAValue | None:
    """The f32 that `v` (f16/bf16) is `arith.truncf` of, or None."""
    owner = v.owner
    if isinstance(owner, arith.TruncFOp) and isinstance(owner.input.type, Float32Type):
        return owner.input
    return None


def pack_pairs(e: Emitter, elems: list[SSAValue]) -> list[SSAValue]:
    """16-bit elements two per b32 register (i32), the lower index in the low half (PTX ISA
    §9.7.15.5.1.1: `.f16x2` / `.bf16x2` A registers). A pair rounded from f32 (attention's P, the S
    accumulator cast to f16/bf16) is one `cvt.rn.f16x2.f32` of the f32 values (`nvvm.cvt.rn.x2.f32`)
    instead of two conversions and a pack: attention's softmax step converts every element of P."""
    i16, i32 = IntegerType(16), IntegerType(32)
    out = []
    for lo, hi in zip(elems[0::2], elems[1::2]):
        flo, fhi = _rounded_from_f32(lo), _rounded_from_f32(hi)
        if flo is not None and fhi is not None and isinstance(lo.type, Float16Type | BFloat16Type):
            out.append(e(nvvm.CvtRnX2F32Op(fhi, flo, "bf16" if isinstance(lo.type, BFloat16Type) else "f16")))
            continue
        lo32 = e(arith.ExtUIOp(e(arith.BitcastOp(lo, i16)), i32))
        hi32 = e(arith.ExtUIOp(e(arith.BitcastOp(hi, i16)), i32))
        out.append(e(arith.OrIOp(lo32, e(arith.ShLIOp(hi32, e.const(16, i32))))))
    return out


def register_a_fragments(fl: _TileFunctionLowering, e: Emitter, op: DotOp, lay: "WgmmaLayout", sa: object, k: int) -> list[list[SSAValue]]:
    """A (M×K, 16-bit) of a wgmma `op` as each k-step's four b32 registers (PTX ISA §9.7.15.5.1.1,
    "Register fragments", A of m64nNk16: per warp the `mma.sync` m16n8k16 A fragment of its 16 rows).

    - A product's registers in an MMA layout that splits M only over the same warps
      (`register_a_operand`: P·V's P): the accumulator slots of n8 tiles 2s and 2s + 1 of k-step s,
      packed in pairs, no data movement;
    - an operand staged in shared memory once (a loop-invariant `tile.load`, attention's Q:
      `tile_dot._load_or_defer` loads its fragments where it stages it, `hoisted_a_fragments`):
      those registers;
    - anything else: stored to a padded shared array, then read by `ldmatrix.x4` per k-step."""
    from warpforge.passes.lowerings.tile_dot import DeferredLoad, PAD_BYTES, _buffer, _copy_async, _store_canonical, element_bytes, register_a_operand  # pyright: ignore[reportPrivateUsage]
    from warpforge.dialects import gpu, nvgpu

    if isinstance(sa, Dist) and isinstance(sa.layout, MmaLayout) and register_a_operand(sa.layout, lay, k) and sa.layout.tm == 1:
        return [pack_pairs(e, list(sa.regs[8 * s : 8 * s + 8])) for s in range(k // 16)]
    if isinstance(sa, SharedOperand):
        cached = fl.cache.get(("wgmma_a", sa.buf))
        if cached is not None:
            return cached  # pyright: ignore[reportReturnType]
        return ldmatrix_a_fragments(fl, e, lay, sa, k)
    in_t = signless(op.lhs.type.element_type)  # pyright: ignore[reportAttributeAccessIssue]
    m = op.lhs.type.dims[0]  # pyright: ignore[reportAttributeAccessIssue]
    buf = _buffer(fl, op, in_t, (m, k + PAD_BYTES // element_bytes(in_t)))
    e(gpu.BarrierOp())  # earlier readers of the array (a previous iteration) are done
    if isinstance(sa, DeferredLoad):
        _copy_async(fl, e, sa, buf)
        e(nvgpu.DeviceAsyncCreateGroupOp())
        e(nvgpu.DeviceAsyncWaitOp(0))
    else:
        _store_canonical(fl, e, fl.canon(e, fl.dist(op.lhs)), buf, k)
    e(gpu.BarrierOp())
    return ldmatrix_a_fragments(fl, e, lay, SharedOperand(buf, None), k)


def ldmatrix_a_fragments(fl: _TileFunctionLowering, e: Emitter, lay: MmaLayout, sa: SharedOperand, k: int) -> list[list[SSAValue]]:
    """Each k-step's A registers of this thread's warp (rows 16w …) read from the row-major (not
    transposed) `sa` by `ldmatrix.x4` (lane l: row l % 16, column 8·(l / 16) of the 16×16 block),
    packed in pairs."""
    from warpforge.passes.lowerings.tile_dot import _add, _idx, warp_coords  # pyright: ignore[reportPrivateUsage]
    from warpforge.dialects import nvgpu

    assert not sa.transposed
    w = warp_coords(fl, lay)
    lane = w.lane
    ldm_row = fl.at_entry(("ldm_row",), lambda x: x(arith.AndIOp(lane, x.const(15, i64))))
    ldm_col = fl.at_entry(("ldm_col",), lambda x: x(arith.ShLIOp(x(arith.ShRUIOp(lane, x.const(4, i64))), x.const(3, i64))))
    lr = e(arith.AddiOp(w.row0, ldm_row))
    out = []
    for s in range(k // 16):
        col = _add(e, ldm_col, 16 * s)
        frag = list(e(nvgpu.LdMatrixOp(sa.buf, [_idx(e, sa.row(e, lr)), _idx(e, sa.col(e, lr, col))], 4, transpose=False)).owner.results)  # pyright: ignore[reportAttributeAccessIssue]
        out.append(pack_pairs(e, frag))
    return out


def hoisted_a_fragments(fl: _TileFunctionLowering, e: Emitter, load: Operation, staged: SharedOperand) -> None:
    """Where a loop-invariant dot operand is staged (`tile_dot._load_or_defer`): when it is the
    A of wgmma dots (register A), read its fragments here, once, for the dots to use."""
    from warpforge.passes.lowerings.tile_dot import dots_fed

    dots = dots_fed(load.results[0]) or []
    for dot in dots:
        lay = fl.layout_hints.get(dot.result)
        if not isinstance(lay, WgmmaLayout) or dot.lhs.owner is load or not _stages_lhs(dot, load):
            continue
        k = dot.lhs.type.dims[1]  # pyright: ignore[reportAttributeAccessIssue]
        if ("wgmma_a", staged.buf) not in fl.cache:
            fl.cache[("wgmma_a", staged.buf)] = ldmatrix_a_fragments(fl, e, lay, staged, k)  # pyright: ignore[reportArgumentType]
        return


def _stages_lhs(dot: DotOp, load: Operation) -> bool:
    """`dot`'s A is `load`'s tile (directly or through a reshape)."""
    v = dot.lhs
    while v is not load.results[0]:
        owner = v.owner
        if not (isinstance(owner, Operation) and owner.name == "tile.reshape"):
            return False
        v = owner.operands[0]
    return True


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
        new = WgmmaLayout(shape, warps, 1, warps)
        for v, h in list(layouts.items()):
            if h.shape == shape:  # the warp grid, or rows only when a product is another's A (P·V)
                layouts[v] = new


def wgmma_ring_panels(func: Operation, threads: int, chip: str) -> dict[int, int]:
    """The wgmma shared layouts of the rings of the dots `choose_wgmma_layouts` moves to wgmma: ring
    id -> panel width (A one panel of K, B panels of min(N, 64) columns; `_TileFunctionLowering.ring_panels`)."""
    panels: dict[int, int] = {}
    for entries in _wgmma_dots(func, threads, chip).values():
        for op, (_, n, k) in entries:
            lhs, found = op.lhs.owner, ring_of_operand(op.rhs)
            assert found is not None
            rhs, k_major = found
            if isinstance(lhs, RingTileOp):
                panels[lhs.ring.value.data] = k
            panels[rhs.ring.value.data] = min(k, 64) if k_major else min(n, 64)  # a K-major slot: panels of K, as A
    return panels
