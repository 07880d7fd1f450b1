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
        return f"a {type(self).__name__.removesuffix('Value').lower() or 'value'}"


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
class LoopIndex(Value):
    """The variable of a `simt.static_range` loop the frontend keeps as a loop (LLVM unrolls it), or
    an integer expression of such variables and constants (`i * 8 + j`): a run-time si64 `iv` whose
    value always lies in `[lo, hi]`, typed as the Python int it stands for (weak, NEP 50), so
    `f32 * i` is f32 and `i32 + i` is i32 exactly as when the loop is unrolled.

    Only the uses whose meaning is the same for a run-time value accept it (an index, arithmetic
    with a typed value, `+ - * // % <<` with ints); any other use raises `NeedsUnroll` and the loop
    is unrolled instead, with the variable a `Literal` in each copy of the body."""

    iv: SSAValue
    lo: int
    hi: int
    loops: frozenset[tuple[str, int, int]]
    """The sites (file, line, col) of the `simt.static_range` loops whose variables it is computed from."""

    def describe(self) -> str:
        return "a simt.static_range variable"


class NeedsUnroll(Exception):
    """Internal: a `LoopIndex` of the loops `loops` is used where only a compile-time int does;
    those loops are compiled again, unrolled."""

    def __init__(self, loops: frozenset[tuple[str, int, int]]):
        super().__init__(sorted(loops))
        self.loops = loops


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
        return f"a ThreadIndex (index_{self.dims}d)"


@dataclass(frozen=True)
class Undefined(Value):
    """A name that exists on some paths only (assigned in one branch, or only inside a loop)."""

    name: str
    reason: str


@dataclass(frozen=True)
class UnrolledOnly(Undefined):
    """A name a `simt.static_range` loop kept as a loop leaves undefined, which the unrolled loop
    would define (its last value): reading it compiles the kernel again with `loops` unrolled."""

    loops: frozenset[tuple[str, int, int]] = frozenset()


@dataclass(frozen=True)
class Namespace(Value):
    """A module or object whose attributes the frontend resolves (`simt`, `math`, `wf`, `simt.thread_idx`)."""

    name: str
    obj: Any

    def describe(self) -> str:
        return f"'{self.name}' (a namespace, not a value)"


@dataclass(frozen=True)
class DTypeRef(Value):
    """A dtype used as a conversion function: `wf.i32(x)`."""

    dtype: DType

    def describe(self) -> str:
        return f"the dtype {self.dtype.name}"


@dataclass(frozen=True)
class Builtin(Value):
    """A callable the frontend implements: `len`, `abs`, `math.sqrt`, `simt.index_1d`, …"""

    name: str

    def describe(self) -> str:
        return f"the function '{self.name}'"


@dataclass(frozen=True)
class BoundMethod(Value):
    """`idx.get` before it is called."""

    receiver: Value
    name: str

    def describe(self) -> str:
        return f"the method '.{self.name}' (call it)"


@dataclass(frozen=True)
class RangeValue(Value):
    """`range(start, stop, step)` as a `for` loop's iterable (si64 bounds)."""

    start: Value
    stop: Value
    step: Value
    static: bool = False
    """`simt.static_range(...)`: compile-time bounds; a loop LLVM fully unrolls, or unrolled by the
    frontend where the body needs its variable as a constant (see `LoopIndex`)."""

    def describe(self) -> str:
        return "simt.static_range(...)" if self.static else "range(...)"


@dataclass(frozen=True)
class ArrayValue(Value):
    """A shared-memory (`simt.shared_array`, `simt.dynamic_shared`) or local (`simt.local_array`) array."""

    ssa: SSAValue
    dtype: DType
    shape: tuple[int | None, ...]
    """Extents; None for the dynamic shared memory's."""
    space: str  # "shared" | "local"

    def describe(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"a {self.space} array {dims} of {self.dtype.name}"


@dataclass(frozen=True)
class TupleValue(Value):
    """A tuple written in the kernel (`(16, 17)`, `s[i, j]`'s index), known element by element."""

    elements: tuple[Value, ...]

    def describe(self) -> str:
        return f"a tuple of {len(self.elements)}"


@dataclass(frozen=True)
class Text(Value):
    """A string constant: only where a kernel function takes a keyword (`scope="block"`)."""

    value: str

    def describe(self) -> str:
        return f"the string {self.value!r}"


@dataclass(frozen=True)
class BlockIndexValue(Value):
    """A `BlockIndex` from `simt.block_index_1d()`: writes through it are made by the block's first thread."""

    ssa: SSAValue

    def describe(self) -> str:
        return "a BlockIndex (block_index_1d)"


@dataclass(frozen=True)
class ViewValue(Value):
    """`out.row(idx, ncols)`, `out.column(idx, ncols)`, `out.tile(idx, (th, tw), ncols)`: the elements of
    a `DisjointSlice` this thread owns (its index times the view's extent), indexed from 0."""

    slice: SliceValue
    index: IndexValue
    kind: str  # "row" | "column" | "tile"
    sizes: tuple[SSAValue, ...]
    """i64 values: `(ncols,)` for row/column views, `(th, tw, ncols)` for tiles."""
    rank: int

    def describe(self) -> str:
        return f"a {self.kind} view of {self.slice.describe()}"


@dataclass(frozen=True)
class RegisterArrayValue(Value):
    """A `simt.local_array` every access of which uses compile-time indices: its elements are plain
    values (registers) the frontend tracks under hidden variable names `key_k`, so branches merge
    them and loops carry them like any variable. An access with a run-time index makes the compiler
    redo the kernel with this array in local memory (`NeedsMemory`)."""

    key: str
    dtype: DType
    shape: tuple[int, ...]
    site: tuple[str, int, int]

    def element(self, flat: int) -> str:
        return f"{self.key}_{flat}"

    def describe(self) -> str:
        return f"a local array {'x'.join(map(str, self.shape))} of {self.dtype.name}"


class NeedsMemory(Exception):
    """Internal: a local array at `site` is indexed at run time; compile again with it in memory."""

    def __init__(self, site: tuple[str, int, int]):
        super().__init__(site)
        self.site = site


def ownership_key(ssa: SSAValue, depth: int = 0) -> object:
    """How `ssa` is computed, as a hashable value: equal for two computations of the same index (two
    calls of `simt.index_1d()`, `index_2d(4)` twice), different for `index_2d(4)` and `index_2d(8)`.
    Constants by value; other ops by name, attributes and the keys of their operands; a block
    argument (a parameter) by identity. (`DisjointSlice` ownership, `claim_disjoint`.)"""
    from xdsl.ir import BlockArgument, Operation

    if isinstance(ssa, BlockArgument) or depth > 32:
        return ("arg", id(ssa))
    op = ssa.owner
    assert isinstance(op, Operation)
    attrs = tuple(sorted((k, str(v)) for k, v in {**op.properties, **op.attributes}.items()))
    return (op.name, attrs, tuple(ownership_key(o, depth + 1) for o in op.operands), tuple(r is ssa for r in op.results).index(True))
