"""`kernel-to-gpu` lowerings of the tensor-core and async-copy ops (`dialects/kernel_mma.py`) to the
`nvgpu` dialect; registered into `kernel_to_gpu`'s table with `@lowers` when that module loads.

| `kernel` op | becomes |
|---|---|
| `kernel.mma_sync` | `nvgpu.mma.sync` (elements signless) |
| `kernel.ldmatrix` | `nvgpu.ldmatrix`; checked: each index in range, the row's 8 elements within the array's last dimension, the row 16-byte aligned — else the error is recorded and the lane reads row 0 (the instruction is warp-wide: every lane must still execute it) |
| `kernel.cp_async` | `nvgpu.device_async_copy` with `srcElements = clamp(len(x) - i, 0, n)` (the tail past the end of `x` zero-filled, `i` outside `[0, len)` reads nothing); checked: destination in range and within its row, source and destination aligned to the copy size, `i >= 0` — else the error is recorded and nothing is copied |
| `kernel.cp_async_commit` / `kernel.cp_async_wait` | `nvgpu.device_async_create_group` / `nvgpu.device_async_wait` |
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, i1, i64
from xdsl.ir import Operation, SSAValue

from warpforge.dialects import kernel_mma, nvgpu
from warpforge.passes.kernel_to_gpu import (
    Emitter,
    FunctionLowering,
    _as_index,  # pyright: ignore[reportPrivateUsage]
    _checked_indices,  # pyright: ignore[reportPrivateUsage]
    _extents,  # pyright: ignore[reportPrivateUsage]
    _length,  # pyright: ignore[reportPrivateUsage]
    _site,  # pyright: ignore[reportPrivateUsage]
    lowers,
)


@lowers(kernel_mma.MmaSyncOp)
def _mma_sync(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_mma.MmaSyncOp)
    mma = nvgpu.MmaSyncOp(op.shape.data, op.a_type.data, [fl.v(x) for x in op.a], [fl.v(x) for x in op.b], [fl.v(x) for x in op.c])
    emit(mma)
    for old, new in zip(op.d, mma.d):
        fl.values[old] = new
        new.name_hint = old.name_hint
    return None


def _and(emit: Emitter, conds: list[SSAValue]) -> SSAValue:
    out = conds[0]
    for c in conds[1:]:
        out = emit(arith.AndIOp(out, c))
    return out


def _row_checks(emit: Emitter, m: SSAValue, idx: list[SSAValue], span: int) -> tuple[list[SSAValue], SSAValue]:
    """Conditions that the `span` elements from `idx` lie within the last dimension and start at a
    multiple of `span` elements (row-major flat offset), and the flat offset (i64)."""
    typ = m.type
    assert isinstance(typ, MemRefType)
    extents = _extents(emit, m, typ)
    end = emit(arith.AddiOp(idx[-1], emit.const(span, i64)))
    within = emit(arith.CmpiOp(end, extents[-1], "ule"))
    flat = idx[0]
    for i, n in zip(idx[1:], extents[1:]):
        flat = emit(arith.AddiOp(emit(arith.MuliOp(flat, n)), i))
    aligned = emit(arith.CmpiOp(emit(arith.RemUIOp(flat, emit.const(span, i64))), emit.const(0, i64), "eq"))
    return [within, aligned], flat


@lowers(kernel_mma.LdMatrixOp)
def _ldmatrix(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_mma.LdMatrixOp)
    m = fl.v(op.array)
    idx, ok, _bad = _checked_indices(fl, emit, op, m, list(op.indices))
    if ok is not None:
        conds, flat = _row_checks(emit, m, idx, 8)
        good = _and(emit, [ok, *conds])
        bad = emit(arith.XOrIOp(good, emit.const(1, i1)))
        site = _site(op, "ldmatrix row outside its shared array or not 16-byte aligned")

        def report(e: Emitter) -> None:
            fl.report(e, site, flat, e.const(8, i64))

        fl.guarded(emit, bad, report, lambda e: None, None)  # pyright: ignore[reportArgumentType]
        zero = emit.const(0, i64)
        idx = [emit(arith.SelectOp(good, i, zero)) for i in idx]
    load = nvgpu.LdMatrixOp(m, [_as_index(emit, i) for i in idx], op.numTiles.value.data, op.transpose is not None)
    emit(load)
    for old, new in zip(op.res, load.res):
        fl.values[old] = new
    return None


@lowers(kernel_mma.CpAsyncOp)
def _cp_async(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_mma.CpAsyncOp)
    m, src = fl.v(op.array), fl.v(op.src)
    n = op.elements.value.data
    bypass = op.bypassL1 is not None
    idx, ok, _bad = _checked_indices(fl, emit, op, m, list(op.indices))
    i = fl.to_i64(emit, fl.v(op.src_index), op.src_index.type)
    length = _length(emit, src)
    zero = emit.const(0, i64)
    in_range = emit(arith.CmpiOp(i, length, "ult"))
    remaining = emit(arith.MinSIOp(emit(arith.SubiOp(length, i)), emit.const(n, i64)))
    src_elements = emit(arith.SelectOp(in_range, remaining, zero))
    src_i = emit(arith.SelectOp(in_range, i, zero))

    def copy(e: Emitter) -> None:
        e(nvgpu.DeviceAsyncCopyOp(src, [_as_index(e, src_i)], m, [_as_index(e, j) for j in idx], n, _as_index(e, src_elements), bypass))

    if ok is None:
        copy(emit)
        return None
    conds, flat = _row_checks(emit, m, idx, n)
    src_aligned = emit(arith.CmpiOp(emit(arith.RemUIOp(i, emit.const(n, i64))), zero, "eq"))
    not_negative = emit(arith.CmpiOp(i, zero, "sge"))
    good = _and(emit, [ok, *conds, src_aligned, not_negative])
    site = _site(op, f"cp_async of {n} elements outside its shared array, misaligned, or from a negative index")

    def report(e: Emitter) -> None:
        fl.report(e, site, flat, i)

    fl.guarded(emit, good, copy, report, None)  # pyright: ignore[reportArgumentType]
    return None


@lowers(kernel_mma.CpAsyncCommitOp)
def _commit(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    emit(nvgpu.DeviceAsyncCreateGroupOp())
    return None


@lowers(kernel_mma.CpAsyncWaitOp)
def _wait(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel_mma.CpAsyncWaitOp)
    emit(nvgpu.DeviceAsyncWaitOp(op.numGroups.value.data))
    return None


