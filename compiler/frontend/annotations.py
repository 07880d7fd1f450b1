"""Kernel parameter annotations: `simt.Slice[f32]`, `simt.DisjointSlice[f32]`, `simt.AtomicSlice[f32]`,
`simt.unsafe.RawSlice[f32]`, scalar dtypes, `wf.Constant[int]` — or none at all.

`Slice[T]` and the other slice markers are subscriptable; subscripting gives a `SliceAnnotation`
the frontend turns into `!kernel.slice<T>` / `!kernel.disjoint_slice<T>` / … (ABI: pointer + length).
A bare marker (`simt.DisjointSlice`) and a missing annotation leave the dtype to the launch: the
kernel is then *generic* and specializes per argument dtypes (`Generic`). `wf.Constant[int]` makes
a parameter a compile-time constant: one specialization per value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warpforge import dtypes
from warpforge.dtypes import DType
from warpforge.errors import UsageError

SLICE_KINDS = ("slice", "disjoint_slice", "atomic_slice", "raw_slice")
SLICE_NAMES = {"slice": "Slice", "disjoint_slice": "DisjointSlice", "atomic_slice": "AtomicSlice", "raw_slice": "RawSlice"}


@dataclass(frozen=True)
class SliceAnnotation:
    """A parameter holding a 1-D array in device memory. `kind` is one of `SLICE_KINDS`; `dtype` is
    None for a bare marker (`simt.DisjointSlice`), whose dtype comes from the argument."""

    kind: str
    dtype: DType | None

    def __repr__(self) -> str:
        prefix = "simt.unsafe." if self.kind == "raw_slice" else "simt."
        return f"{prefix}{SLICE_NAMES[self.kind]}" + (f"[{self.dtype!r}]" if self.dtype is not None else "")


@dataclass(frozen=True)
class ConstantAnnotation:
    """`wf.Constant[int]` (or `[float]`, `[bool]`, or bare `wf.Constant`): the argument's value is
    compiled into the kernel as a constant (one specialization per value; not passed at launch)."""

    type: type | None

    def __repr__(self) -> str:
        return "wf.Constant" + (f"[{self.type.__name__}]" if self.type is not None else "")

    def check(self, value: Any) -> str | None:
        """Why `value` cannot be this constant, or None."""
        import numpy as np

        if isinstance(value, np.generic):
            value = value.item()
        allowed = (self.type,) if self.type is not None else (bool, int, float)
        ok = isinstance(value, allowed) and not (self.type is int and isinstance(value, bool))
        if not ok:
            want = self.type.__name__ if self.type is not None else "a bool, int or float"
            return f"needs {want} known at launch, got {type(value).__name__} {value!r}"
        return None


@dataclass(frozen=True)
class ConstantValue:
    """A compile-time constant bound to a `wf.Constant` parameter: the value, as Python sees it."""

    value: bool | int | float


class Generic:
    """No annotation: the parameter takes its type from the argument (a scalar's dtype, or a slice
    whose kind is inferred from how the kernel uses it)."""

    def __repr__(self) -> str:
        return "<inferred>"


GENERIC = Generic()


class Constant:
    """`wf.Constant[int]`: a compile-time constant parameter (one specialization per value). Inside the
    kernel it is a Python constant: usable as a shape (`simt.shared_array((n, n), f32)`), a loop bound
    the compiler unrolls, a shuffle width."""

    def __class_getitem__(cls, typ: Any) -> ConstantAnnotation:
        if typ not in (int, float, bool):
            raise UsageError(f"wf.Constant[...] takes int, float or bool, got {typ!r}")
        return ConstantAnnotation(typ)


class _SliceMarker:
    kind = ""

    def __class_getitem__(cls, dtype: Any) -> SliceAnnotation:
        """`Slice[wf.f32]`; anything but a supported dtype is a `CompileError` at the annotation."""
        try:
            if isinstance(dtype, SliceAnnotation) or isinstance(dtype, type) and issubclass(dtype, _SliceMarker):
                raise TypeError(f"{dtype!r} is an array type, not an element dtype (arrays of arrays are not supported)")
            dt = dtypes.from_numpy(dtype)
        except (TypeError, ValueError) as e:
            raise annotation_error(f"{cls.__name__}[...] needs a warpforge dtype such as wf.f32: {e}") from None
        return SliceAnnotation(cls.kind, dt)


def annotation_error(message: str) -> Exception:
    """A `CompileError` at the user's code being run (file:line:col of the annotation expression)."""
    import inspect
    import os

    from warpforge.errors import CompileError

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame = inspect.currentframe()
    while frame is not None and (os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep) or "importlib" in frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return CompileError(message)
    info = inspect.getframeinfo(frame)
    positions = getattr(info, "positions", None)
    col = positions.col_offset + 1 if positions is not None and positions.col_offset is not None else 1
    source = info.code_context[0] if info.code_context else None
    return CompileError(message, filename=info.filename, line=info.lineno, col=col, source_line=source)


class Slice(_SliceMarker):
    """`Slice[T]`: a read-only 1-D array (any index may be read; every read is bounds-checked)."""

    kind = "slice"


class DisjointSlice(_SliceMarker):
    """`DisjointSlice[T]`: an output array; a thread writes it only at its own `ThreadIndex`
    (`c[idx] = v`), so no two threads write the same element. Out-of-range writes do nothing."""

    kind = "disjoint_slice"


class AtomicSlice(_SliceMarker):
    """`AtomicSlice[T]`: an array updated only by atomic operations (`simt.atomic_add(a, i, v)`, …),
    at any index (bounds-checked: out of range is a checked error and nothing is updated)."""

    kind = "atomic_slice"


class RawSlice(_SliceMarker):
    """`simt.unsafe.RawSlice[T]`: read and written anywhere (`r[i] = v`): bounds-checked (a checked
    error, nothing written) but NOT race-checked — two threads writing one element is the program's bug."""

    kind = "raw_slice"


TMA_SWIZZLES = ("none", "32B", "64B", "128B")


@dataclass(frozen=True)
class TensorMapAnnotation:
    """`simt.TensorMap[f16, (32, 64)]` (or `[f16, (32, 64), "128B"]`): a TMA descriptor parameter for
    boxes of shape `box` (outermost first) of `dtype`, swizzled in shared memory as `swizzle`. The
    launch takes a `warpforge.runtime.tma.TensorMap` made with the same box, dtype and swizzle."""

    dtype: DType
    box: tuple[int, ...]
    swizzle: str = "none"

    def __repr__(self) -> str:
        return f"simt.TensorMap[{self.dtype!r}, {self.box}, {self.swizzle!r}]"


class TensorMap:
    """`simt.TensorMap[dtype, box]` / `[dtype, box, swizzle]`: a TMA descriptor (CUDA tensor map)
    parameter, passed `__grid_constant__` (PTX `.param .align 64 .b8 p[128]`). `box`: compile-time
    extents, outermost first, 1..256 each, rank 1..5; `swizzle`: "none", "32B", "64B", "128B" (PTX ISA
    §9.7.9.25.5; `cuTensorMapEncodeTiled`). Inside the kernel it is read only by `simt.tma_load` /
    `simt.tma_store`; `desc.box_bytes` is the bytes one box copy moves (a compile-time int)."""

    def __class_getitem__(cls, args: Any) -> TensorMapAnnotation:
        if not isinstance(args, tuple) or len(args) not in (2, 3):
            raise annotation_error(f"simt.TensorMap[dtype, box] or [dtype, box, swizzle], got simt.TensorMap[{args!r}]")
        dtype, box = args[0], args[1]
        swizzle = args[2] if len(args) == 3 else "none"
        try:
            dt = dtypes.from_numpy(dtype)
        except (TypeError, ValueError) as e:
            raise annotation_error(f"simt.TensorMap[...] needs a warpforge dtype such as wf.f16: {e}") from None
        if isinstance(box, int) and not isinstance(box, bool):
            box = (box,)
        if not isinstance(box, tuple) or not all(isinstance(b, int) and not isinstance(b, bool) for b in box):
            raise annotation_error(f"simt.TensorMap box is a tuple of compile-time ints (outermost first), got {box!r}")
        if not 1 <= len(box) <= 5 or not all(1 <= b <= 256 for b in box):
            raise annotation_error(f"simt.TensorMap box has 1 to 5 extents, each in 1..256 (cuTensorMapEncodeTiled boxDim), got {box}")
        if swizzle not in TMA_SWIZZLES:
            raise annotation_error(f"simt.TensorMap swizzle is one of {', '.join(TMA_SWIZZLES)}, got {swizzle!r}")
        if dt.is_bool:
            raise annotation_error("simt.TensorMap: TMA has no bool element type")
        inner = box[-1] * max(1, dt.bits // 8)
        if inner % 16:
            raise annotation_error(f"simt.TensorMap box's inner row is {inner} bytes; TMA needs a multiple of 16 bytes")
        span = {"none": 0, "32B": 32, "64B": 64, "128B": 128}[swizzle]
        if span and inner != span:
            raise annotation_error(
                f"simt.TensorMap box's inner row is {inner} bytes; with the {swizzle} swizzle warpforge needs exactly {span} bytes "
                f"({span // max(1, dt.bits // 8)} elements of {dt.name}), one swizzle atom per box row"
            )
        return TensorMapAnnotation(dt, tuple(box), swizzle)


def resolve_annotation(annotation: Any) -> SliceAnnotation | DType | ConstantAnnotation | Generic | TensorMapAnnotation | None:
    """A parameter annotation as warpforge sees it, or None if it is not one warpforge knows."""
    if isinstance(annotation, SliceAnnotation | DType | ConstantAnnotation | Generic | TensorMapAnnotation):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, _SliceMarker) and annotation.kind:
        return SliceAnnotation(annotation.kind, None)
    if annotation is Constant:
        return ConstantAnnotation(None)
    if annotation in (bool, int, float):
        return {bool: dtypes.bool_, int: dtypes.i64, float: dtypes.f64}[annotation]
    try:
        return dtypes.from_numpy(annotation)
    except TypeError:
        return None


def is_complete(annotation: Any) -> bool:
    """True when the annotation alone fixes the parameter's type (no specialization needed)."""
    return isinstance(annotation, DType | TensorMapAnnotation) or (isinstance(annotation, SliceAnnotation) and annotation.dtype is not None)
