"""`nvgpu` ops: `mma.sync`, `ldmatrix` and `cp.async`, with the GPU's fragment layouts.

**`nvgpu.mma.sync`** is a warp collective (`.aligned`): every lane of each warp executing it must be
there (a diverged or exited lane, or a partial warp, is a `SimulatorError`). Each warp's A, B and C
are assembled from its lanes' elements with `nvvm_catalog.fragment_layout` — the table the PTX ISA
gives for the hardware (§9.7.14.5.8–.10) — multiplied, and scattered back the same way. Floats are
multiplied exactly and summed in f64, then rounded to the accumulator type once (the GPU sums in f32
in an unspecified order: results agree to f32 rounding); tf32 inputs keep the top 19 bits of the
f32 (sign, exponent, 10 mantissa bits; the GPU ignores the low 13); integers wrap modulo 2^32.

**`nvgpu.ldmatrix`**: lanes 8j..8j+7 give the row addresses of matrix j (8 elements, 16 bytes, which
must be 16-byte aligned and in bounds); lane l receives row l/4, elements 2(l%4) and 2(l%4)+1 of each
matrix (`transpose`: column l/4, rows 2(l%4), 2(l%4)+1) — PTX ISA §9.7.14.5.15.

**`nvgpu.device_async_copy`** reads the source when issued (elements past `srcElements` read as 0),
but writes shared memory only when a `device_async_wait` of the issuing thread covers its group, as
the GPU may: a kernel that reads the data before waiting sees the old contents, as it could on the
GPU. `device_async_create_group` closes the thread's pending copies into a group;
`device_async_wait {numGroups = N}` completes all but the newest N committed groups of the thread.
Addresses must be aligned to the copy size and in bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.dialects import nvgpu
from warpforge.dialects.nvvm_catalog import MMAShape, fragment_layout
from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.memref import flat_index
from warpforge.simulator.values import MemRef, dtype_of, op_error

WARP = 32


def _linear(interp: SimInterpreter) -> np.ndarray:
    tids = interp.frame.tids
    return interp.linear_tid if tids is None else tids


def _full_warps(interp: SimInterpreter, op: Any, what: str) -> np.ndarray:
    """The active threads' linear ids, checked to be whole warps (sorted, so position p is lane p % 32)."""
    lin = _linear(interp)
    warps = lin // WARP
    counts = np.bincount(warps)
    short = counts[warps] != WARP
    if short.any() or len(lin) % WARP:
        w = int(warps[np.flatnonzero(short)[0]]) if short.any() else int(warps[-1])
        raise op_error(
            op,
            f"{what} needs all 32 lanes of warp {w} executing it together (block {interp.where_block()}); "
            f"{int(counts[w])} are here (the others diverged, exited, or the block is not a multiple of 32 threads)",
        )
    return lin


def _per_thread(x: Any, n: int) -> np.ndarray:
    return x if type(x) is np.ndarray else np.full(n, x)


@dataclass(frozen=True)
class _Layout:
    rows: np.ndarray  # (32, elements)
    cols: np.ndarray


_LAYOUTS: dict[tuple[str, str], _Layout] = {}


def _layout(row: MMAShape, operand: str) -> _Layout:
    key = (row.op, operand)
    if key not in _LAYOUTS:
        e = row.elements(operand)
        pairs = [[fragment_layout(row, operand, lane, i) for i in range(e)] for lane in range(WARP)]
        _LAYOUTS[key] = _Layout(np.array([[p[0] for p in r] for r in pairs]), np.array([[p[1] for p in r] for r in pairs]))
    return _LAYOUTS[key]


def _gather(values: list[Any], n: int, shape: tuple[int, int], layout: _Layout, dtype: Any) -> np.ndarray:
    """Per warp, the matrix whose entries the lanes hold as `values` (one array per element index)."""
    nw = n // WARP
    stacked = np.stack([_per_thread(v, n) for v in values], axis=-1).reshape(nw, WARP, len(values))
    out = np.zeros((nw, *shape), dtype)
    out[:, layout.rows, layout.cols] = stacked.astype(dtype)
    return out


def _tf32(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


@register_impls
class NvgpuFunctions(InterpreterFunctions):
    @impl(nvgpu.MmaSyncOp)
    def run_mma_sync(self, interp: SimInterpreter, op: nvgpu.MmaSyncOp, args: PythonValues) -> PythonValues:
        row, na, nb, c_dtype = interp.static(op, lambda o: (o.row, len(o.a), len(o.b), dtype_of(o.c[0].type)))
        n = len(_full_warps(interp, op, f"mma.sync.{row.shape}"))
        a_vals, b_vals, c_vals = args[:na], args[na : na + nb], args[na + nb :]
        if row.a in ("s8", "u8"):
            view = np.uint8 if row.a == "u8" else np.int8
            a_vals = [_per_thread(v, n).astype(np.int8).view(view) for v in a_vals]
            b_vals = [_per_thread(v, n).astype(np.int8).view(view) for v in b_vals]
            acc = np.int64
        else:
            acc = np.float64
            if row.a == "tf32":
                a_vals = [_tf32(_per_thread(v, n)) for v in a_vals]
                b_vals = [_tf32(_per_thread(v, n)) for v in b_vals]
            else:
                a_vals = [_per_thread(v, n).astype(np.float32) for v in a_vals]
                b_vals = [_per_thread(v, n).astype(np.float32) for v in b_vals]
        a = _gather(a_vals, n, (row.m, row.k), _layout(row, "a"), acc)
        b = _gather(b_vals, n, (row.k, row.n), _layout(row, "b"), acc)
        c = _gather([_per_thread(v, n).astype(acc) for v in c_vals], n, (row.m, row.n), _layout(row, "c"), acc)
        d = a @ b + c
        if acc is np.int64:
            d = (d & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        else:
            d = d.astype(np.float32).astype(c_dtype)
        lay = _layout(row, "d")
        per_lane = d[:, lay.rows, lay.cols]  # (warps, 32, elements)
        return tuple(np.ascontiguousarray(per_lane[..., i].reshape(n)) for i in range(row.elements("d")))

    @impl(nvgpu.LdMatrixOp)
    def run_ldmatrix(self, interp: SimInterpreter, op: nvgpu.LdMatrixOp, args: PythonValues) -> PythonValues:
        m, *indices = args
        num, trans = interp.static(op, lambda o: (o.numTiles.value.data, o.transpose is not None))
        n = len(_full_warps(interp, op, f"ldmatrix.x{num}"))
        if not isinstance(m, MemRef):
            raise op_error(op, "the memref differs between threads; the simulator does not support that")
        lane = np.arange(n) % WARP
        used = lane < 8 * num
        idx = [_per_thread(i, n)[used] for i in indices]
        flat = np.zeros(n, np.int64)
        flat_used = _flat(interp, op, m, idx)
        flat[used] = flat_used
        if (flat_used % 8).any():
            k = int(np.flatnonzero(flat_used % 8)[0])
            raise op_error(op, f"ldmatrix row address (element {int(flat_used[k])}) is not 16-byte aligned (block {interp.where_block()})")
        total = m.data.shape[-1]
        if (flat_used + 8 > total).any() or (flat_used < 0).any():
            k = int(np.flatnonzero((flat_used + 8 > total) | (flat_used < 0))[0])
            raise op_error(op, f"ldmatrix row at element {int(flat_used[k])} reads past the end of shared memory of {total} elements (block {interp.where_block()})")
        nw = n // WARP
        addr = flat.reshape(nw, WARP)
        rows = np.arange(8)
        out = []
        g, t = lane.reshape(nw, WARP)[0] // 4, lane.reshape(nw, WARP)[0] % 4
        for j in range(num):
            base = addr[:, 8 * j + rows]  # (nw, 8): row r of matrix j starts here
            mat = m.data[base[:, :, None] + np.arange(8)[None, None, :]]  # (nw, 8 rows, 8 cols)
            if trans:
                e0, e1 = mat[:, 2 * t, g], mat[:, 2 * t + 1, g]
            else:
                e0, e1 = mat[:, g, 2 * t], mat[:, g, 2 * t + 1]
            out += [np.ascontiguousarray(e0.reshape(n)), np.ascontiguousarray(e1.reshape(n))]
        return tuple(out)

    @impl(nvgpu.DeviceAsyncCopyOp)
    def run_async_copy(self, interp: SimInterpreter, op: nvgpu.DeviceAsyncCopyOp, args: PythonValues) -> PythonValues:
        nsrc, ndst, count, has_src_elements = interp.static(
            op, lambda o: (len(o.srcIndices), len(o.dstIndices), o.dstElements.value.data, o.srcElements is not None)
        )
        src, *rest = args
        src_idx = rest[:nsrc]
        dst = rest[nsrc]
        dst_idx = rest[nsrc + 1 : nsrc + 1 + ndst]
        lin = _linear(interp)
        n = len(lin)
        valid = np.minimum(_per_thread(rest[nsrc + 1 + ndst], n).astype(np.int64), count) if has_src_elements else np.full(n, count)
        if not isinstance(src, MemRef) or not isinstance(dst, MemRef):
            raise op_error(op, "the memref differs between threads; the simulator does not support that")
        s = _per_thread(_flat(interp, op, src, [_per_thread(i, n) for i in src_idx]), n)
        d = _per_thread(_flat(interp, op, dst, [_per_thread(i, n) for i in dst_idx]), n)
        for what, flat in (("source", s), ("destination", d)):
            if (flat % count).any():
                k = int(np.flatnonzero(flat % count)[0])
                raise op_error(op, f"cp.async {what} (element {int(flat[k])}) is not aligned to the copy's {count} elements (block {interp.where_block()})")
        reads = valid > 0
        if ((s + valid > src.data.shape[-1]) & reads).any():
            k = int(np.flatnonzero((s + valid > src.data.shape[-1]) & reads)[0])
            raise op_error(op, f"cp.async reads elements {int(s[k])}..{int(s[k] + valid[k]) - 1} past the end of its source of {src.data.shape[-1]} (block {interp.where_block()})")
        if (d + count > dst.data.shape[-1]).any():
            k = int(np.flatnonzero(d + count > dst.data.shape[-1])[0])
            raise op_error(op, f"cp.async writes past the end of its shared destination of {dst.data.shape[-1]} elements (block {interp.where_block()})")
        k = np.arange(count)
        safe = np.where(k[None, :] < valid[:, None], s[:, None] + k[None, :], 0)
        vals = np.where(k[None, :] < valid[:, None], src.data[safe], np.zeros((), src.data.dtype))
        _state(interp).pending.append(_Copy(lin.copy(), np.full(n, -1, np.int64), dst, d, vals))
        return ()

    @impl(nvgpu.DeviceAsyncCreateGroupOp)
    def run_create_group(self, interp: SimInterpreter, op: nvgpu.DeviceAsyncCreateGroupOp, args: PythonValues) -> PythonValues:
        st = _state(interp)
        lin = _linear(interp)
        for copy in st.pending:
            mine = np.isin(copy.tids, lin) & (copy.group == -1)
            copy.group[mine] = st.committed[copy.tids[mine]]
        st.committed[lin] += 1
        return ()

    @impl(nvgpu.DeviceAsyncWaitOp)
    def run_wait(self, interp: SimInterpreter, op: nvgpu.DeviceAsyncWaitOp, args: PythonValues) -> PythonValues:
        keep = interp.static(op, lambda o: o.numGroups.value.data)
        st = _state(interp)
        lin = _linear(interp)
        remaining = []
        for copy in st.pending:
            done = np.isin(copy.tids, lin) & (copy.group >= 0) & (copy.group < st.committed[copy.tids] - keep)
            if done.any():
                cols = np.arange(copy.vals.shape[1])
                copy.dst.data[copy.dst_flat[done][:, None] + cols[None, :]] = copy.vals[done]
                copy.group[done] = -2
            if (copy.group != -2).any():
                remaining.append(copy)
        st.pending = remaining
        return ()


def _flat(interp: SimInterpreter, op: Any, m: MemRef, indices: list[Any]) -> Any:
    return flat_index(interp, op, m, indices, op.name.removeprefix("nvgpu.") + " address")


@dataclass
class _Copy:
    tids: np.ndarray
    group: np.ndarray
    """Per thread: -1 not yet committed, ≥ 0 the thread's group number, -2 done."""
    dst: MemRef
    dst_flat: np.ndarray
    vals: np.ndarray


@dataclass
class _AsyncState:
    owner: Any
    committed: np.ndarray
    pending: list[_Copy] = field(default_factory=list[_Copy])


def _state(interp: SimInterpreter) -> _AsyncState:
    """This CTA's cp.async bookkeeping (new for each block: `interp.shared` is replaced per block)."""
    st: _AsyncState | None = getattr(interp, "_cp_async", None)
    if st is None or st.owner is not interp.shared:
        st = _AsyncState(interp.shared, np.zeros(interp.T, np.int64))
        interp._cp_async = st  # pyright: ignore[reportAttributeAccessIssue]
    return st
