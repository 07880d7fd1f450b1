"""How the simulator represents values: one NumPy array per SSA value, holding it for every thread
that executes the op together.

A value is either

- an `np.ndarray` of shape `(n,)` — one element per active thread, in thread order; or
- a *uniform* value, the same for every active thread: a NumPy scalar (`np.int32(7)`), or a
  `MemRef` (memrefs are uniform by construction: the same buffer for every thread).

Integers are stored signless at their width, as the two's-complement signed NumPy type (`i32` →
`int32`, `index` → `int64`, `i1` → `bool`); ops that read them as unsigned take a `.view()` of the
unsigned type of the same width (no copy). NumPy's integer arithmetic wraps at the width, as LLVM's
does. Floats are `float16`, `ml_dtypes.bfloat16`, `float32`, `float64`, so f32 arithmetic rounds to
f32 after every op, as on the GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, Operation

from warpforge.simulator.errors import SimulatorError

try:  # bf16 host arrays need ml_dtypes (an optional dependency, as in `warpforge.dtypes`)
    import ml_dtypes

    BF16: np.dtype | None = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    BF16 = None

UNSIGNED: dict[np.dtype, np.dtype] = {
    np.dtype(np.int8): np.dtype(np.uint8),
    np.dtype(np.int16): np.dtype(np.uint16),
    np.dtype(np.int32): np.dtype(np.uint32),
    np.dtype(np.int64): np.dtype(np.uint64),
}
"""Signed storage type → the unsigned type of the same width (for `.view()`)."""

_INT_DTYPES = {1: np.dtype(np.bool_), 8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}

_FLOAT_DTYPES: dict[type[Attribute], np.dtype] = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}
if BF16 is not None:
    _FLOAT_DTYPES[BFloat16Type] = BF16


def dtype_of(t: Attribute) -> np.dtype:
    """The NumPy storage dtype of a scalar IR type (signless integer, index or float)."""
    if isinstance(t, IntegerType):
        dt = _INT_DTYPES.get(t.width.data)
        if dt is not None:
            return dt
        raise SimulatorError(f"integers of width {t.width.data} are not supported by the simulator (only i1, i8, i16, i32, i64)")
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    dt = _FLOAT_DTYPES.get(type(t))
    if dt is not None:
        return dt
    raise SimulatorError(f"values of type {t} are not supported by the simulator")


def bit_width(dt: np.dtype) -> int:
    """Width in bits of a storage dtype (`bool` is 1)."""
    return 1 if dt == np.bool_ else dt.itemsize * 8


def is_uniform(x: Any) -> bool:
    """True for a value that is the same for every active thread (a scalar or a `MemRef`)."""
    return type(x) is not np.ndarray


def broadcast(x: Any, n: int) -> np.ndarray:
    """`x` as an array of `n` elements (a uniform value repeated)."""
    if type(x) is np.ndarray:
        return x
    return np.full(n, x)


def as_unsigned(x: Any) -> Any:
    """The same bits read as the unsigned type of the same width (`bool` stays `bool`)."""
    udt = UNSIGNED.get(x.dtype)
    return x if udt is None else x.view(udt)


def location_of(op: Operation) -> str:
    """`file:line:col` of an op, or `<unknown location>`."""
    loc = getattr(op, "location", None)
    if isinstance(loc, builtin.FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return "<unknown location>"


def op_error(op: Operation, message: str) -> SimulatorError:
    """A `SimulatorError` about `op`: `'<op name>' at file:line:col: message`."""
    where = location_of(op)
    return SimulatorError(f"'{op.name}' at {where}: {message}", location=where)


class MemRef:
    """A memref value: a flat NumPy view of the memory, the memref's shape and its address space.

    `data` is 1-D and row-major (`shape` gives the extents); it is a view of the caller's array for
    kernel arguments, so stores land there. `per_thread` memory (a `memref.alloca` in thread-private
    space) has one row per thread of the block: `data` has shape `(threads, size)`.
    """

    __slots__ = ("data", "shape", "space", "per_thread", "name")

    def __init__(self, data: np.ndarray, shape: tuple[int, ...], space: int = 0, *, per_thread: bool = False, name: str = ""):
        self.data, self.shape, self.space, self.per_thread, self.name = data, shape, space, per_thread, name

    def __repr__(self) -> str:
        return f"MemRef({self.name or 'memory'}, shape={self.shape}, space={self.space}, dtype={self.data.dtype})"


def memory_space(t: MemRefType) -> int:
    """The integer address space of a memref type (1 global, 3 shared, 0/5 local); 0 when absent."""
    space = t.memory_space
    if isinstance(space, builtin.IntegerAttr):
        return space.value.data
    return 0
