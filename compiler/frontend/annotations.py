"""Kernel parameter annotations: `simt.Slice[f32]`, `simt.DisjointSlice[f32]`, scalar dtypes.

`Slice[T]` and `DisjointSlice[T]` are subscriptable markers; subscripting gives a `SliceAnnotation`
the frontend turns into `!kernel.slice<T>` / `!kernel.disjoint_slice<T>` (ABI: pointer + length).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpforge import dtypes
from warpforge.dtypes import DType


@dataclass(frozen=True)
class SliceAnnotation:
    """A parameter holding a 1-D array in device memory: `kind` is `"slice"` or `"disjoint_slice"`."""

    kind: str
    dtype: DType

    def __repr__(self) -> str:
        return f"simt.{'Slice' if self.kind == 'slice' else 'DisjointSlice'}[{self.dtype!r}]"


class _SliceMarker:
    kind = ""

    def __class_getitem__(cls, dtype: Any) -> SliceAnnotation:
        try:
            dt = dtypes.from_numpy(dtype)
        except TypeError as e:
            raise TypeError(f"{cls.__name__}[...] needs a warpforge dtype such as wf.f32: {e}") from None
        return SliceAnnotation(cls.kind, dt)


class Slice(_SliceMarker):
    """`Slice[T]`: a read-only 1-D array (any index may be read; every read is bounds-checked)."""

    kind = "slice"


class DisjointSlice(_SliceMarker):
    """`DisjointSlice[T]`: an output array; a thread writes it only at its own `ThreadIndex`
    (`c[idx] = v`), so no two threads write the same element. Out-of-range writes do nothing."""

    kind = "disjoint_slice"


def resolve_annotation(annotation: Any) -> SliceAnnotation | DType | None:
    """A parameter annotation as warpforge sees it, or None if it is not one warpforge knows."""
    if isinstance(annotation, SliceAnnotation | DType):
        return annotation
    if annotation in (bool, int, float):
        return {bool: dtypes.bool_, int: dtypes.i64, float: dtypes.f64}[annotation]
    try:
        return dtypes.from_numpy(annotation)
    except TypeError:
        return None
