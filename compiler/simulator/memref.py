"""`memref` ops — loads, stores, `dim`, atomics, `alloca`, globals, `view` — and the `gpu` memory ops
(`gpu.dynamic_shared_memory`, `gpu.atomic_cmpxchg`, `gpu.atomic_add_pair`), on NumPy memory.

Global memory is the caller's arrays (written in place). Shared memory (`memref.global` /
`memref.alloca` in address space 3, and the dynamic shared memory: the launch's
`dynamic_shared_bytes` bytes, typed by `memref.view`) is fresh (zero-filled) for every block, and
private to it. A `memref.alloca` in another space is thread-private: one row per thread. Other
`memref.global`s live for the launch, initialized from their `initial_value`. A `memref.view` is a
NumPy view of its source's bytes, so views of one buffer alias as on the GPU.

An access out of bounds is a `SimulatorError` naming the op's line and the first offending thread:
checked kernels never do one (they test the index first), and on the GPU an unchecked one reads or
corrupts unrelated memory.

Atomics are applied in thread order: the threads executing one together update one after another by
linear thread id, each getting the value before its own update. `memref.atomic_rmw` kinds follow
MLIR's `arith::AtomicRMWKind` numbering (`ATOMIC_KINDS`) with LLVM's semantics, as
`finalize-memref-to-llvm` lowers them: `maximumf`/`minimumf` are `fmaximum`/`fminimum` (NaN
propagates, −0 < +0: what warpforge's float `atomic_max/min` compile to, a CAS loop on the GPU),
`maxnumf`/`minnumf` are `fmax`/`fmin` (NaN ignored). `gpu.atomic_cmpxchg` swaps when the element
equals the compare value; `gpu.atomic_add_pair` adds an f16/bf16 pair to an aligned element pair,
each half rounded in its type (`atom.add.noftz.f16x2`). Every atomic returns the old value(s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, MemRefType
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

from warpforge.dialects.arith import AtomicRMWKind
from warpforge.dialects import gpu
from warpforge.simulator.arith import _maximumf, _maxnumf, _minimumf, _minnumf  # pyright: ignore[reportPrivateUsage]
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
        if m.data.dtype == np.bool_:  # a bool is a byte: any nonzero byte reads True, as on the GPU (`!= 0`)
            raw = m.data.view(np.uint8)
            return ((raw[_rows(interp), flat] if m.per_thread else raw[flat]) != 0,)
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


    @impl(memref.ViewOp)
    def run_view(self, interp: SimInterpreter, op: memref.ViewOp, args: PythonValues) -> PythonValues:
        """`memref.view %bytes[%shift][%sizes]`: the bytes from `%shift` on, as the result's element type
        and shape — the same memory (stores through either are seen by both)."""
        m, shift, *sizes = args
        if not isinstance(m, MemRef):
            raise op_error(op, "the source memref differs between threads; the simulator does not support that")
        shift = _uniform_index(op, shift, "byte shift")
        sizes = tuple(_uniform_index(op, x, "size") for x in sizes)
        key = (id(op), id(m), shift, sizes)
        view = interp.shared.get(key)  # pyright: ignore[reportArgumentType]
        if view is None:
            t = op.result.type
            assert isinstance(t, MemRefType)
            dt = dtype_of(t.element_type)
            dyn = iter(sizes)
            shape = tuple(next(dyn) if d == DYNAMIC_INDEX else d for d in t.get_shape())
            count = int(np.prod(shape, dtype=np.int64))
            end = shift + count * dt.itemsize
            if shift < 0 or end > m.data.size * m.data.itemsize:
                raise op_error(op, f"a view of bytes [{shift}, {end}) of a {m.data.size * m.data.itemsize}-byte memref")
            raw = m.data.view(np.uint8) if m.data.dtype != np.uint8 else m.data
            view = MemRef(raw[shift:end].view(dt), shape, m.space, name=m.name)
            interp.shared[key] = view  # pyright: ignore[reportArgumentType]
        return (view,)

    @impl(gpu.DynamicSharedMemoryOp)
    def run_dynamic_shared_memory(self, interp: SimInterpreter, op: gpu.DynamicSharedMemoryOp, args: PythonValues) -> PythonValues:
        """The block's dynamic shared memory: `dynamic_shared_bytes` (the launch's `shmem_size`) zeroed
        bytes, fresh for every block; every `gpu.dynamic_shared_memory` of the kernel gives the same."""
        m = interp.shared.get(_DYNAMIC_SHARED)  # pyright: ignore[reportArgumentType]
        if m is None:
            n = int(interp.dynamic_shared_bytes)
            m = MemRef(np.zeros(n, np.int8), (n,), SHARED, name="dynamic shared memory")
            interp.shared[_DYNAMIC_SHARED] = m  # pyright: ignore[reportArgumentType]
        return (m,)

    @impl(gpu.AtomicCmpxchgOp)
    def run_atomic_cmpxchg(self, interp: SimInterpreter, op: gpu.AtomicCmpxchgOp, args: PythonValues) -> PythonValues:
        """`atom.cas`: in thread order, each thread swaps in `new` when the element equals `cmp`; each
        gets the value it saw."""
        m, *indices, cmp, new = args
        flat = flat_index(interp, op, m, indices, "compare-and-swap")
        if m.per_thread:
            raise op_error(op, "atomics on thread-private memory are not supported")
        n = interp.frame.n
        old = _compare_and_swap(m.data, np.broadcast_to(flat, (n,)), np.broadcast_to(cmp, (n,)), np.broadcast_to(new, (n,)))
        return (old,)

    @impl(gpu.AtomicAddPairOp)
    def run_atomic_add_pair(self, interp: SimInterpreter, op: gpu.AtomicAddPairOp, args: PythonValues) -> PythonValues:
        """`atom.add.noftz.f16x2/bf16x2`: one atomic add of (lo, hi) to elements i, i + 1 (i even), each
        half rounded in its type; gives both old values. The pairs of two threads are the same or
        disjoint, so applying the halves one after another in thread order is the atomic result."""
        m, *indices, lo, hi = args
        flat = flat_index(interp, op, m, indices, "atomic pair update")
        if m.per_thread:
            raise op_error(op, "atomics on thread-private memory are not supported")
        n = interp.frame.n
        addr = np.broadcast_to(flat, (n,))
        if len(addr) and (int(addr.max()) + 1 >= m.data.size or (addr & 1).any()):
            bad = int(addr[(addr + 1 >= m.data.size) | ((addr & 1) != 0)][0])
            raise op_error(op, f"the pair at element {bad} is not an aligned pair inside the {m.data.size} elements (undefined on the GPU)")
        old_lo = _atomic(m.data, addr, np.broadcast_to(lo, (n,)), np.add)
        old_hi = _atomic(m.data, addr + 1, np.broadcast_to(hi, (n,)), np.add)
        return (old_lo, old_hi)


_DYNAMIC_SHARED = ("dynamic-shared",)


def _uniform_index(op: Operation, x: Any, what: str) -> int:
    if type(x) is np.ndarray:
        if len(x) and (x != x[0]).any():
            raise op_error(op, f"the {what} differs between threads; the simulator does not support that")
        return int(x[0]) if len(x) else 0
    return int(x)


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
    try:
        return ATOMIC_KINDS[AtomicRMWKind.of(op)]
    except ValueError:
        raise op_error(op, f"unknown atomic kind {op.kind.value.data}") from None


def _assign(old: Any, new: Any) -> Any:
    return new


_K = AtomicRMWKind
ATOMIC_KINDS: dict[AtomicRMWKind, tuple[Callable[[Any, Any], Any], bool]] = {
    _K.addf: (np.add, False),
    _K.addi: (np.add, False),
    _K.andi: (np.bitwise_and, False),
    _K.assign: (_assign, False),
    _K.maximumf: (_maximumf, False),  # llvm fmaximum: NaN propagates, -0 < +0
    _K.maxnumf: (_maxnumf, False),  # NaN ignored, -0 < +0
    _K.maxs: (np.maximum, False),
    _K.maxu: (np.maximum, True),
    _K.minimumf: (_minimumf, False),  # llvm fminimum
    _K.minnumf: (_minnumf, False),
    _K.mins: (np.minimum, False),
    _K.minu: (np.minimum, True),
    _K.mulf: (np.multiply, False),
    _K.muli: (np.multiply, False),
    _K.ori: (np.bitwise_or, False),
    _K.xori: (np.bitwise_xor, False),
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
            # dtype: `np.add.accumulate` would widen i8…i32 to int64 instead of wrapping
            chain = accumulate(np.concatenate(([data[a]], vals[sel])).astype(data.dtype), dtype=data.dtype)
            old[sel] = chain[:-1]
            data[a] = chain[-1]
        return old
    # many addresses with some repeated: in rounds, the r-th thread of every address in round r
    for sel in _rounds(addr, inverse, counts):
        a = addr[sel]
        o = data[a]
        old[sel] = o
        data[a] = combine(o, vals[sel])
    return old


def _rounds(addr: np.ndarray, inverse: np.ndarray, counts: np.ndarray) -> list[np.ndarray]:
    """Positions into `addr` in rounds: round r holds the r-th position (in order) of every address
    that occurs more than r times — so within a round the addresses are distinct, and each address
    sees its positions in order across the rounds."""
    n = len(addr)
    order = np.argsort(inverse, kind="stable")
    sorted_inv = inverse[order]
    starts = np.r_[0, np.flatnonzero(sorted_inv[1:] != sorted_inv[:-1]) + 1]
    rank_sorted = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    rank = np.empty(n, np.int64)
    rank[order] = rank_sorted
    if counts.max() <= 64:
        return [np.flatnonzero(rank == r) for r in range(int(counts.max()))]
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(int(counts.max()) + 1))
    return [np.sort(by_rank[bounds[r] : bounds[r + 1]]) for r in range(int(counts.max()))]


def _compare_and_swap(data: np.ndarray, addr: np.ndarray, cmp: np.ndarray, new: np.ndarray) -> np.ndarray:
    """`atom.cas` for k = 0, 1, … in order: `old = data[addr[k]]; if old == cmp[k]: data[addr[k]] = new[k]`;
    returns each k's `old`."""
    uniq, inverse, counts = np.unique(addr, return_inverse=True, return_counts=True)
    if counts.max() == 1:
        old = data[addr]
        data[addr] = np.where(old == cmp, new, old)
        return old
    old = np.empty(len(addr), data.dtype)
    for sel in _rounds(addr, inverse, counts):
        a = addr[sel]
        o = data[a]
        old[sel] = o
        data[a] = np.where(o == cmp[sel], new[sel], o)
    return old
