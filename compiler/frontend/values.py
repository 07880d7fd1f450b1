"""What a Python name or expression stands for while a kernel is being compiled.

Run-time values carry an SSA value of the `kernel` dialect (`Scalar`, `SliceValue`, `IndexValue`);
compile-time values are folded (`Literal`, weak as in NEP 50) or name things the frontend knows
(`Namespace`, `DTypeRef`, `Builtin`, …).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from warpforge.dtypes import DType


class Value:
    """Base of everything an expression can evaluate to."""

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Scalar(Value):
    """A run-time scalar of a known dtype."""

    ssa: SSAValue
    dtype: DType

    def describe(self) -> str:
        return f"a value of type {self.dtype.name}"


@dataclass(frozen=True)
class Literal(Value):
    """A Python bool/int/float known at compile time: weak in NEP 50's sense (`f32 * 2.0` is f32)."""

    value: bool | int | float

    def describe(self) -> str:
        return f"the constant {self.value!r}"


@dataclass(frozen=True)
class SliceValue(Value):
    """A kernel parameter of type `Slice[T]` (read-only) or `DisjointSlice[T]` (written at own index)."""

    ssa: SSAValue
    dtype: DType
    kind: str  # "slice" | "disjoint_slice"
    name: str

    def describe(self) -> str:
        return f"{'Slice' if self.kind == 'slice' else 'DisjointSlice'}[{self.dtype.name}] '{self.name}'"


@dataclass(frozen=True)
class IndexValue(Value):
    """A `ThreadIndex` from `simt.index_1d()` / `simt.index_2d(ncols)`."""

    ssa: SSAValue
    dims: int

    def describe(self) -> str:
        return f"a ThreadIndex ({'index_1d' if self.dims == 1 else 'index_2d'})"


@dataclass(frozen=True)
class Undefined(Value):
    """A name that exists on some paths only (assigned in one branch, or only inside a loop)."""

    name: str
    reason: str


@dataclass(frozen=True)
class Namespace(Value):
    """A module or object whose attributes the frontend resolves (`simt`, `math`, `wf`, `simt.thread_idx`)."""

    name: str
    obj: Any


@dataclass(frozen=True)
class DTypeRef(Value):
    """A dtype used as a conversion function: `wf.i32(x)`."""

    dtype: DType


@dataclass(frozen=True)
class Builtin(Value):
    """A callable the frontend implements: `len`, `abs`, `math.sqrt`, `simt.index_1d`, …"""

    name: str


@dataclass(frozen=True)
class BoundMethod(Value):
    """`idx.get` before it is called."""

    receiver: Value
    name: str


@dataclass(frozen=True)
class RangeValue(Value):
    """`range(start, stop, step)` as a `for` loop's iterable (si64 bounds)."""

    start: Value
    stop: Value
    step: Value

    def describe(self) -> str:
        return "range(...)"
