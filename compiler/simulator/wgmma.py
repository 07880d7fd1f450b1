"""`nvvm.wgmma.mma_async` in the simulator: Hopper's warpgroup MMA, executed per warpgroup.

`nvvm.wgmma.mma_async %desc_a, %desc_b, %scale_d, (%c...)` (PTX ISA §9.7.15.5.2,
`wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`) is run by the 128 threads of a warpgroup
(warps 4g … 4g + 3 of the CTA, by linear thread id) together: D (64×N, f32) = scale_a·A (64×16) ·
scale_b·B (16×N) + (scale_d ? C : 0), with A and B read from shared memory through their 64-bit
matrix descriptors and C/D in the threads' accumulator registers.

**Matrix descriptors** (PTX ISA §9.7.15.5.1, "Matrix Descriptor Format"): bits 0–13 the start
address >> 4, 16–29 the leading-dimension byte offset (LBO) >> 4, 32–45 the stride-dimension byte
offset (SBO) >> 4, 49–51 the matrix base offset (only 0 is modelled: a nonzero one is refused),
62–63 the swizzle mode (0 none, 1 128-byte, 2 64-byte, 3 32-byte). The address is a shared-window
address (`hopper.shared_address`: the simulator's placement of the CTA's shared allocations). The
canonical layouts the descriptor names ("Shared Memory Matrix Layout"), for an element (mn, k) of
size e bytes and a swizzle span S bytes (P = S/e elements):

- K-major (A with `layout_a = "row"`, B with `layout_b = "col"`), swizzled: rows of S bytes, 8 rows
  per swizzle atom, atoms along MN at SBO: `(mn % 8)·S + (mn / 8)·SBO + k·e`. Not swizzled: 8×16-byte
  core matrices (128 contiguous bytes), along MN at SBO, along K at LBO.
- MN-major (the transposed forms: `layout_a = "col"`, `layout_b = "row"`, `imm-trans-a/b` = 1),
  swizzled: K rows of S bytes holding P consecutive MN elements, 8 K rows per atom, atoms along K at
  SBO, panels of P along MN at LBO: `(mn % P)·e + (mn / P)·LBO + (k % 8)·S + (k / 8)·SBO`. Not
  swizzled: 16-byte core-matrix rows along K, MN groups of 16 bytes at SBO, K groups of 8 at LBO.

The swizzle is applied to the shared address: 16-byte chunk bits 4..4+B XOR bits 7..7+B (B = 3, 2, 1
for 128/64/32-byte), the pattern `hopper`'s TMA model writes relative to its box and tile-dot's
cp.async ring relative to the ring's start. They agree when the box or ring is aligned to the
pattern's repeat (1024 bytes for 128-byte swizzle), which the rings ensure; the simulator's dynamic
shared memory starts at an address that is not 1024-byte aligned (`hopper.DYNAMIC_SHARED_ADDRESS`),
so a ring that skipped its alignment reads a scrambled operand here (for the cp.async ring, as on the
GPU; what TMA does with a box off the pattern's repeat is not modelled).

**Accumulator fragment** (§9.7.15.5.1.1, "Register fragments", D of m64nNk16): thread t of the
warpgroup (warp w = t / 32, lane l = t % 32) holds in register i the element at row
16w + 8·((i / 2) % 2) + l / 4, column 8·(i / 4) + 2·(l % 4) + i % 2.

**Timing.** The result is written when the op runs (like the TMA copies here), so it is there at
once; on the GPU it is visible only after the `wgmma.wait_group` that retires its group. What this
cannot show: a kernel that reads the accumulator (or rewrites the operands' shared memory) before
that wait, or writes the accumulator registers after `wgmma.fence` — the verifier's
`check_accumulators_in_flight` refuses the first kind of IR statically; the others are not checked.

Checked misuse (`SimulatorError`): only part of a warpgroup executing the op together (the
instruction is `.sync.aligned`: all 128 threads, converged), descriptors or scale-d that differ
within a warpgroup, a descriptor whose matrix reaches outside the shared allocation it starts in,
a nonzero matrix base offset. Not modelled: the tf32 (k8) and s8/u8 (k32, s32 accumulator) shapes
(the op's verifier accepts only f16/bf16 with f32).

**A from registers** (`nvvm.wgmma.mma_async.reg_a (%a0, …, %a3), %desc_b, …`): thread t of the
warpgroup holds in register j (i32), half h (the low 16 bits first) the element A[16w + 8·(j % 2) + l/4]
[8·(j/2) + 2·(l % 4) + h] (§9.7.15.5.1.1, "Register fragments", A of m64nNk16); B from shared memory
as above.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.dialects import nvvm
from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.hopper import _linear, _per_thread, _shared_bytes  # pyright: ignore[reportPrivateUsage]
from warpforge.simulator.values import BF16, op_error

WARPGROUP = 128
"""Threads of a warpgroup (4 consecutive warps, PTX ISA §9.7.15.1)."""

SWIZZLE_SPAN = {0: 0, 1: 128, 2: 64, 3: 32}
"""Descriptor swizzle mode (bits 62–63) → swizzle span in bytes (0: no swizzle)."""

_DTYPES = {"f16": np.dtype(np.float16), "bf16": BF16}


def decode_descriptor(desc: int) -> tuple[int, int, int, int, int]:
    """(start address, leading byte offset, stride byte offset, base offset, swizzle span in bytes)
    of a 64-bit wgmma matrix descriptor (PTX ISA §9.7.15.5.1, "Matrix Descriptor Format")."""
    d = int(desc) & (2**64 - 1)
    return (d & 0x3FFF) << 4, ((d >> 16) & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4, (d >> 49) & 7, SWIZZLE_SPAN[(d >> 62) & 3]


def operand_addresses(desc: int, mn: int, k: int, itemsize: int, k_major: bool) -> np.ndarray:
    """The shared-window byte address of each element (mn × k, int64) of the matrix `desc` describes,
    in the canonical layout (module doc), swizzle applied. Raises `ValueError` for what is not
    modelled (a nonzero base offset) or cannot be (a K extent wider than the swizzle span)."""
    start, lbo, sbo, base, span = decode_descriptor(desc)
    if base:
        raise ValueError(f"the descriptor's matrix base offset is {base}; the simulator models only 0 (start addresses on the swizzle pattern)")
    i = np.arange(mn, dtype=np.int64)[:, None]
    j = np.arange(k, dtype=np.int64)[None, :]
    if k_major:
        if span:
            if k * itemsize > span:
                raise ValueError(f"a K-major row of {k * itemsize} bytes is wider than the {span}-byte swizzle")
            off = (i % 8) * span + (i // 8) * sbo + j * itemsize
        else:
            kb = j * itemsize
            off = (i % 8) * 16 + (i // 8) * sbo + (kb // 16) * lbo + kb % 16
    elif span:
        per_row = span // itemsize
        off = (i % per_row) * itemsize + (i // per_row) * lbo + (j % 8) * span + (j // 8) * sbo
    else:
        mb = i * itemsize
        off = mb % 16 + (mb // 16) * sbo + (j % 8) * 16 + (j // 8) * lbo
    addr = start + off
    if span:
        bits = {128: 7, 64: 3, 32: 1}[span]
        addr = addr ^ (((addr >> 7) & bits) << 4)
    return addr


def fragment_rows_cols(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of register i of warpgroup thread t (128 × n/2 each) in the m64nN accumulator
    (module doc; PTX ISA §9.7.15.5.1.1)."""
    t = np.arange(WARPGROUP, dtype=np.int64)[:, None]
    r = np.arange(n // 2, dtype=np.int64)[None, :]
    w, lane = t // 32, t % 32
    return 16 * w + 8 * ((r >> 1) & 1) + lane // 4, 8 * (r >> 2) + 2 * (lane % 4) + (r & 1)


def _decode(op: Any) -> tuple[Any, ...]:
    row = op.wgmma_type
    n = op.n.value.data
    rows, cols = fragment_rows_cols(n)
    return (
        n, row.k, _DTYPES[row.ab], isinstance(op, nvvm.WgmmaMmaAsyncRegAOp) or op.layout_a.data == "row", op.layout_b.data == "col",
        np.float32(op.scale_a.value.data), np.float32(op.scale_b.value.data), rows, cols,
    )  # fmt: skip


def _uniform(interp: SimInterpreter, op: Any, values: np.ndarray, what: str, group: int) -> int:
    if (values != values[0]).any():
        raise op_error(op, f"{what} differs between the threads of warpgroup {group} (block {interp.where_block()}); wgmma takes one value per warpgroup")
    return int(values[0])


def _read_matrix(interp: SimInterpreter, op: Any, desc: int, mn: int, k: int, dtype: np.dtype, k_major: bool, what: str) -> np.ndarray:
    """The (mn × k) operand `desc` describes, from this CTA's shared memory."""
    try:
        addr = operand_addresses(desc, mn, k, dtype.itemsize, k_major)
    except ValueError as e:
        raise op_error(op, f"{what}: {e}") from None
    start = decode_descriptor(desc)[0]
    _, raw, first = _shared_bytes(interp, op, start, f"{what}'s start address")
    lo, hi = int(addr.min()), int(addr.max()) + dtype.itemsize
    base = start - first
    if lo < base or hi > base + raw.size:
        raise op_error(
            op,
            f"{what} covers shared bytes [{lo:#x}, {hi:#x}), outside the {raw.size}-byte shared allocation at {base:#x} it starts in "
            f"(block {interp.where_block()}): check the descriptor's start address, leading/stride byte offsets and swizzle",
        )
    rel = (addr - base)[..., None] + np.arange(dtype.itemsize)
    return np.ascontiguousarray(raw[rel]).view(dtype)[..., 0]


def a_fragment_rows_cols() -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of 16-bit element e = 2j + h (register j, half h) of warpgroup thread t (128 × 8
    each) in the register A of m64nNk16 (module doc; PTX ISA §9.7.15.5.1.1)."""
    return fragment_rows_cols(16)


def _wgmma(self: Any, interp: SimInterpreter, op: Any, args: PythonValues) -> PythonValues:
    n, k, dtype, a_kmajor, b_kmajor, scale_a, scale_b, rows, cols = interp.static(op, _decode)
    lin = _linear(interp)
    count = len(lin)
    a_regs = None
    if isinstance(op, nvvm.WgmmaMmaAsyncRegAOp):
        ra = len(op.a)
        words = np.stack([_per_thread(r, count).astype(np.int64) & 0xFFFFFFFF for r in args[:ra]], axis=1)
        halves = np.stack([words & 0xFFFF, words >> 16], axis=2).reshape(count, 2 * ra).astype(np.uint16)
        a_regs = halves.view(dtype).astype(np.float32)  # (threads, 8): element 2j + h
        args = (None, *args[ra:])
        desc_a = np.zeros(count, np.int64)
    else:
        desc_a = _per_thread(args[0], count).astype(np.int64)
    desc_b = _per_thread(args[1], count).astype(np.int64)
    scale_d = _per_thread(args[2], count).astype(bool)
    acc = np.stack([_per_thread(c, count).astype(np.float32) for c in args[3:]], axis=1)
    out = np.empty_like(acc)
    groups = lin // WARPGROUP
    for g in np.unique(groups).tolist():
        pos = np.nonzero(groups == g)[0]
        if len(pos) != WARPGROUP:
            missing = sorted(set(range(g * WARPGROUP, (g + 1) * WARPGROUP)) - set(lin[pos].tolist()))
            raise op_error(
                op,
                f"is executed by {len(pos)} of the 128 threads of warpgroup {g} together (block {interp.where_block()}; "
                f"threads {missing[:4]}{'…' if len(missing) > 4 else ''} are elsewhere or past the block): wgmma.mma_async is "
                ".sync.aligned, all four warps of the warpgroup execute it converged (PTX ISA §9.7.15.5.2)",
            )
        db = _uniform(interp, op, desc_b[pos], "the B descriptor", g)
        sd = _uniform(interp, op, scale_d[pos], "scale-d", g)
        if a_regs is not None:
            a = np.zeros((64, k), np.float32)
            ar, ac = a_fragment_rows_cols()
            a[ar, ac] = a_regs[pos]
        else:
            da = _uniform(interp, op, desc_a[pos], "the A descriptor", g)
            a = _read_matrix(interp, op, da, 64, k, dtype, a_kmajor, f"warpgroup {g}'s A (64x{k})").astype(np.float32)
        b = _read_matrix(interp, op, db, n, k, dtype, b_kmajor, f"warpgroup {g}'s B ({k}x{n})").astype(np.float32).T
        d = (scale_a * a) @ (scale_b * b)
        if sd:
            c = np.zeros((64, n), np.float32)
            c[rows, cols] = acc[pos]
            d = d + c
        out[pos] = d[rows, cols]
    return tuple(out[:, i] for i in range(out.shape[1]))


WgmmaFunctions = register_impls(
    type(
        "WgmmaFunctions", (InterpreterFunctions,),
        {"run_wgmma_mma_async": impl(nvvm.WgmmaMmaAsyncOp)(_wgmma), "run_wgmma_mma_async_reg_a": impl(nvvm.WgmmaMmaAsyncRegAOp)(_wgmma)},
    )
)  # fmt: skip
"""`InterpreterFunctions` for `nvvm.wgmma.mma_async` and `nvvm.wgmma.mma_async.reg_a`."""
