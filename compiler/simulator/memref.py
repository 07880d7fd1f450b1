"""`memref` ops: loads, stores, `dim`, atomics, `alloca`, globals — on NumPy memory.

Global memory is the caller's arrays (written in place). Shared memory (`memref.global` /
`memref.alloca` in address space 3) is fresh (zero-filled) for every block, and private to it.
A `memref.alloca` in another space is thread-private: one row per thread. Other `memref.global`s
live for the launch, initialized from their `initial_value`.

An access out of bounds is a `SimulatorError` naming the op's line and the first offending thread:
checked kernels never do one (they test the index first), and on the GPU an unchecked one reads or
corrupts unrelated memory.

`memref.atomic_rmw` is atomic in thread order: the threads executing it together apply it one
after another by linear thread id, each getting the value before its own update (kinds: MLIR's
`arith::AtomicRMWKind` numbering, `ATOMIC_KINDS`). As on the GPU (`finalize-memref-to-llvm` lowers
them to `atom.max/min.f32`), `maximumf`/`minimumf` atomics ignore NaN like `maxnumf`/`minnumf`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.values import UNSIGNED, MemRef, dtype_of, memory_space, op_error

SHARED = 3
"""Address space of shared memory (PTX `.shared`)."""


def _thread_text(interp: SimInterpreter, pos: int) -> str:
    frame = interp.frame
    tid = pos if frame.tids is None else int(frame.tids[pos])
    x, y, z = (int(a[tid]) for a in interp.thread_ids)
    return f"thread ({x}, {y}, {z}) of block {interp.where_block()}"


def _check(interp: SimInterpreter, op: Operation, i: Any, extent: int, what: str) -> None:
    """Raise when an index (per thread or uniform) is outside `[0, extent)`."""
    if type(i) is np.ndarray:
        if len(i) == 0 or int(i.view(np.uint64).max()) < extent:
            return
        bad = np.flatnonzero(i.view(np.uint64) >= extent)[0]
        value, where = int(i[bad]), _thread_text(interp, int(bad))
    else:
        if 0 <= int(i) < extent:
            return
        value, where = int(i), _thread_text(interp, 0)
    raise op_error(op, f"{what} out of bounds: index {value} not in [0, {extent}) ({where}); on the GPU this would read or corrupt unrelated memory")


def flat_index(interp: SimInterpreter, op: Operation, m: MemRef, indices: Any, what: str) -> Any:
    """The row-major element offset of `indices` into `m`, bounds-checked per dimension."""
    if not isinstance(m, MemRef):
        raise op_error(op, "the memref differs between threads; the simulator does not support that")
    shape = m.shape
    if len(indices) != len(shape):
        raise op_error(op, f"{len(indices)} indices for a {len(shape)}-d memref")
    flat: Any = None
    for i, extent in zip(indices, shape):
        _check(interp, op, i, extent, what)
        flat = i if flat is None else flat * np.int64(extent) + i
    if flat is None:  # 0-d memref
        flat = np.int64(0)
    return flat


def _rows(interp: SimInterpreter) -> np.ndarray:
    tids = interp.frame.tids
    return interp.linear_tid if tids is None else tids


@register_impls
class MemrefFunctions(InterpreterFunctions):
    @impl(memref.LoadOp)
    def run_load(self, interp: SimInterpreter, op: memref.LoadOp, args: PythonValues) -> PythonValues:
        m, *indices = args
        flat = flat_index(interp, op, m, indices, "load")
        if m.per_thread:
            return (m.data[_rows(interp), flat],)
        return (m.data[flat],)

    @impl(memref.StoreOp)
    def run_store(self, interp: SimInterpreter, op: memref.StoreOp, args: PythonValues) -> PythonValues:
        value, m, *indices = args
        flat = flat_index(interp, op, m, indices, "store")
        if m.per_thread:
            m.data[_rows(interp), flat] = value
        elif type(flat) is np.ndarray or type(value) is not np.ndarray:
            m.data[flat] = value  # several threads at one address: the last (highest id) wins
        else:
            m.data[flat] = value[-1]
        return ()

    @impl(memref.DimOp)
    def run_dim(self, interp: SimInterpreter, op: memref.DimOp, args: PythonValues) -> PythonValues:
        m, i = args
        if type(i) is np.ndarray:
            return (np.asarray(m.shape, dtype=np.int64)[i],)
        return (np.int64(m.shape[int(i)]),)

    @impl(memref.AtomicRMWOp)
    def run_atomic_rmw(self, interp: SimInterpreter, op: memref.AtomicRMWOp, args: PythonValues) -> PythonValues:
        value, m, *indices = args
        combine, unsigned = interp.static(op, _atomic_kind)
        flat = flat_index(interp, op, m, indices, "atomic update")
        n = interp.frame.n
        if m.per_thread:
            raise op_error(op, "atomics on thread-private memory are not supported")
        data = m.data.view(UNSIGNED[m.data.dtype]) if unsigned else m.data
        vals = np.broadcast_to(value.view(data.dtype) if unsigned else value, (n,))
        addr = np.broadcast_to(flat, (n,))
        old = _atomic(data, addr, vals, combine)
        return (old.view(m.data.dtype) if unsigned else old,)

    @impl(memref.AllocaOp)
    def run_alloca(self, interp: SimInterpreter, op: memref.AllocaOp, args: PythonValues) -> PythonValues:
        if args:
            raise op_error(op, "dynamically sized allocas are not supported")
        m = interp.shared.get(id(op))
        if m is None:
            t = op.memref.type
            assert isinstance(t, MemRefType)
            shape = tuple(t.get_shape())
            size = int(np.prod(shape, dtype=np.int64))
            space = memory_space(t)
            if space == SHARED:
                m = MemRef(np.zeros(size, dtype_of(t.element_type)), shape, space, name="alloca")
            else:
                m = MemRef(np.zeros((interp.T, size), dtype_of(t.element_type)), shape, space, per_thread=True, name="alloca")
            interp.shared[id(op)] = m
        return (m,)

    @impl(memref.GetGlobalOp)
    def run_get_global(self, interp: SimInterpreter, op: memref.GetGlobalOp, args: PythonValues) -> PythonValues:
        t = op.memref.type
        assert isinstance(t, MemRefType)
        name = op.name_.string_value()
        if memory_space(t) == SHARED:
            m = interp.shared.get(id(op))
            if m is None:
                m = _shared_global(interp, op, name, t)
                interp.shared[id(op)] = m
            return (m,)
        m = interp.globals.get(name)
        if m is None:
            m = _make_global(op, name, t)
            interp.globals[name] = m
        return (m,)


def _shared_global(interp: SimInterpreter, op: Operation, name: str, t: MemRefType) -> MemRef:
    """One block's instance of a shared-memory global: all `get_global`s of `name` in the block share it."""
    key = ("shared-global", name)
    m = interp.shared.get(key)  # pyright: ignore[reportArgumentType]
    if m is None:
        shape = tuple(t.get_shape())
        m = MemRef(np.zeros(int(np.prod(shape, dtype=np.int64)), dtype_of(t.element_type)), shape, SHARED, name=name)
        interp.shared[key] = m  # pyright: ignore[reportArgumentType]
    return m


def _make_global(op: Operation, name: str, t: MemRefType) -> MemRef:
    glob = SymbolTable.lookup_symbol(op, name)
    if not isinstance(glob, memref.GlobalOp):
        raise op_error(op, f"cannot find memref.global @{name}")
    shape = tuple(t.get_shape())
    dt = dtype_of(t.element_type)
    data = np.zeros(int(np.prod(shape, dtype=np.int64)), dt)
    init = glob.initial_value
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = init.get_values()
        data[:] = np.asarray(values, dtype=np.float64 if dt.kind == "f" else np.int64).astype(dt) if len(values) > 1 else values[0]
    return MemRef(data, shape, memory_space(t), name=name)


# --------------------------------------------------------------------------- atomics


def _atomic_kind(op: memref.AtomicRMWOp) -> tuple[Callable[[Any, Any], Any], bool]:
    kind = op.kind.value.data
    entry = ATOMIC_KINDS.get(kind)
    if entry is None:
        raise op_error(op, f"unknown atomic kind {kind}")
    return entry


def _assign(old: Any, new: Any) -> Any:
    return new


ATOMIC_KINDS: dict[int, tuple[Callable[[Any, Any], Any], bool]] = {
    0: (np.add, False),  # addf
    1: (np.add, False),  # addi
    2: (np.bitwise_and, False),  # andi
    3: (_assign, False),  # assign
    4: (np.fmax, False),  # maximumf (atom.max.f32 ignores NaN)
    5: (np.fmax, False),  # maxnumf
    6: (np.maximum, False),  # maxs
    7: (np.maximum, True),  # maxu
    8: (np.fmin, False),  # minimumf
    9: (np.fmin, False),  # minnumf
    10: (np.minimum, False),  # mins
    11: (np.minimum, True),  # minu
    12: (np.multiply, False),  # mulf
    13: (np.multiply, False),  # muli
    14: (np.bitwise_or, False),  # ori
    15: (np.bitwise_xor, False),  # xori
}
"""`arith::AtomicRMWKind` value → (combine(old, value), operate on the unsigned view)."""


def _atomic(data: np.ndarray, addr: np.ndarray, vals: np.ndarray, combine: Callable[[Any, Any], Any]) -> np.ndarray:
    """Apply `data[addr[k]] = combine(data[addr[k]], vals[k])` for k = 0, 1, … in order; return the
    value each k saw before its update."""
    n = len(addr)
    if n == 1:
        old = data[addr]
        data[addr] = combine(old, vals)
        return old
    uniq, inverse, counts = np.unique(addr, return_inverse=True, return_counts=True)
    if counts.max() == 1:  # distinct addresses: all at once
        old = data[addr]
        data[addr] = combine(old, vals)
        return old
    old = np.empty(n, data.dtype)
    accumulate = getattr(combine, "accumulate", None)
    if accumulate is not None and len(uniq) <= 64:
        # few addresses: a sequential scan per address (ufunc.accumulate runs left to right)
        for j, a in enumerate(uniq):
            sel = np.flatnonzero(inverse == j)
            chain = accumulate(np.concatenate(([data[a]], vals[sel])).astype(data.dtype))
            old[sel] = chain[:-1]
            data[a] = chain[-1]
        return old
    # many addresses with some repeated: in rounds, the r-th thread of every address in round r
    order = np.argsort(inverse, kind="stable")
    sorted_inv = inverse[order]
    starts = np.r_[0, np.flatnonzero(sorted_inv[1:] != sorted_inv[:-1]) + 1]
    rank_sorted = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    rank = np.empty(n, np.int64)
    rank[order] = rank_sorted
    for r in range(int(counts.max())):
        sel = np.flatnonzero(rank == r)
        a = addr[sel]
        o = data[a]
        old[sel] = o
        data[a] = combine(o, vals[sel])
    return old
