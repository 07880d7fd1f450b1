"""`simt.mma`: warp-level tensor-core fragments, as SIMT kernels see them (`simt.mma_fragment`,
`simt.ldmatrix`, `simt.mma_sync`, `simt.mma_coords`).

A `mma.sync` multiplies per warp D (m×n) = A (m×k) · B (k×n) + C (m×n); each of the warp's 32 lanes
holds some elements of each operand — its *fragment*. Which matrix entry element `i` of lane `l`
holds is fixed by the hardware (PTX ISA 9.0 §9.7.14.5.8–.10, "Matrix Fragments for mma.m16n8kK"),
with g = l / 4 and t = l % 4:

| inputs | shape | A (m×k): elements, (row, col) of element i | B (k×n) | C, D (16×8, 4 elements) |
|---|---|---|---|---|
| f16, bf16 | m16n8k16 | 8: (g + 8·(i/2 % 2), 2t + i%2 + 8·(i/4)) | 4: (2t + i%2 + 8·(i/2), g) | (g + 8·(i/2), 2t + i%2) |
| f32 as tf32 | m16n8k8 | 4: (g + 8·(i%2), t + 4·(i/2)) | 2: (t + 4·i, g) | same |
| i8, u8 | m16n8k32 | 16: (g + 8·(i/4 % 2), 4t + i%4 + 16·(i/8)) | 8: (4t + i%4 + 16·(i/4), g) | same (i32) |

Accumulators: f32 for f16/bf16/tf32 inputs (f16 also for f16 inputs), i32 for 8-bit inputs — the
catalog's `MMA_SHAPES` (`warpforge.dialects.nvvm_catalog`). `Fragment(...).layout()` gives the table
as arrays, for host code (tests, packing data).
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy as np

from warpforge import dtypes
from warpforge.dtypes import DType

INPUT_SHAPES: dict[str, str] = {"f16": "m16n8k16", "bf16": "m16n8k16", "f32": "m16n8k8", "i8": "m16n8k32", "u8": "m16n8k32"}
"""Input element dtype → the `mma.sync` shape warpforge uses for it."""

PTX_INPUT: dict[str, str] = {"f16": "f16", "bf16": "bf16", "f32": "tf32", "i8": "s8", "u8": "u8"}
PTX_ACCUMULATOR: dict[str, str] = {"f32": "f32", "f16": "f16", "i32": "s32"}

OPERANDS = ("a", "b", "c")


@dataclass(frozen=True)
class Fragment:
    """The part of one `mma.sync` operand that one lane holds.

    `operand` is `"a"` (m×k), `"b"` (k×n) or `"c"` (the m×n accumulator, also the result D); `dtype`
    the element dtype (A/B: f16, bf16, f32 — multiplied as tf32 —, i8, u8; C: f32, f16, i32).
    Raises `ValueError` for other combinations."""

    operand: str
    dtype: DType

    def __post_init__(self) -> None:
        if self.operand not in OPERANDS:
            raise ValueError(f"a fragment is of operand 'a', 'b' or 'c', not {self.operand!r}")
        table = PTX_ACCUMULATOR if self.operand == "c" else PTX_INPUT
        if self.dtype.name not in table:
            raise ValueError(f"an mma {self.operand.upper()} fragment holds {', '.join(table)}, not {self.dtype.name}")

    @property
    def shape(self) -> str:
        """`m16n8k16` etc. for A/B; `m16n8` for C (its layout is the same for every k)."""
        return INPUT_SHAPES[self.dtype.name] if self.operand != "c" else "m16n8"

    @property
    def matrix(self) -> tuple[int, int]:
        """(rows, columns) of the warp's whole operand."""
        if self.operand == "c":
            return (16, 8)
        k = int(self.shape.split("k")[1])
        return (16, k) if self.operand == "a" else (k, 8)

    @property
    def elements(self) -> int:
        """Elements each lane holds."""
        r, c = self.matrix
        return r * c // 32

    def coords(self, lane: int, i: int) -> tuple[int, int]:
        """(row, col) in the warp's operand of element `i` of `lane`'s fragment."""
        from warpforge.dialects.nvvm_catalog import MMA_SHAPES, fragment_layout

        ptx = PTX_INPUT[self.dtype.name] if self.operand != "c" else "f16"  # C's layout is every row's
        row = next(r for r in MMA_SHAPES if r.a == ptx)
        return fragment_layout(row, self.operand, lane, i)

    def layout(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols), each `(32, elements)` int arrays: lane l's element i is entry (rows[l, i], cols[l, i])."""
        pairs = [[self.coords(lane, i) for i in range(self.elements)] for lane in range(32)]
        return np.array([[p[0] for p in r] for r in pairs]), np.array([[p[1] for p in r] for r in pairs])


def accumulator_for(a: DType) -> tuple[DType, ...]:
    """The accumulator dtypes `mma.sync` offers for inputs of dtype `a`."""
    if a.name in ("i8", "u8"):
        return (dtypes.i32,)
    if a.name == "f16":
        return (dtypes.f32, dtypes.f16)
    return (dtypes.f32,)
